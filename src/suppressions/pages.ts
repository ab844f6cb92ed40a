// The small HTML pages a recipient sees behind an unsubscribe link: a confirmation with a button
// (never an unsubscribe on GET: mail scanners fetch links), the result, and errors. Self-contained:
// no script, no external resource, one inline stylesheet allowed by its hash in the CSP.
import { createHash } from 'node:crypto';

const STYLE =
  'body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f6f6f6;color:#222;margin:0;padding:48px 16px}' +
  'main{max-width:420px;margin:0 auto;background:#fff;border-radius:8px;padding:32px;box-shadow:0 1px 3px rgba(0,0,0,.1)}' +
  'h1{font-size:20px;margin:0 0 12px}p{line-height:1.5;margin:0 0 16px}' +
  'button{font:inherit;background:#222;color:#fff;border:0;border-radius:6px;padding:10px 18px;cursor:pointer}';

/**
 * The pages' security headers: never framed (clickjacking the button), never cached or revealed in a
 * Referer (the token in the URL is the recipient's), nothing loaded or posted elsewhere.
 */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>
`;
}

/** An address shown only in part (the link may have been forwarded): `a•••@example.com`, `+33•••78`. */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at > 0) return `${address[0]}•••${address.slice(at)}`;
  return address.length > 5 ? `${address.slice(0, 3)}•••${address.slice(-2)}` : '•••';
}

/** The confirmation: a form that POSTs back to this same URL (no action attribute). */
export function confirmPage(address: string): string {
  return page(
    'Unsubscribe',
    `<h1>Unsubscribe</h1><p>Stop marketing emails to <strong>${escapeHtml(maskAddress(address))}</strong>?</p>
<form method="post"><input type="hidden" name="confirm" value="yes"><button type="submit">Unsubscribe</button></form>`,
  );
}

export function unsubscribedPage(): string {
  return page('Unsubscribed', '<h1>You are unsubscribed</h1><p>You will not receive marketing emails from this sender any more. Receipts and other messages you asked for still arrive.</p>');
}

export function errorPage(status: number, message: string): string {
  const title = status === 404 ? 'Link not found' : 'Something is not right';
  const text = status === 404 ? 'This unsubscribe link is not valid. Please use the link from the email exactly as it is.' : escapeHtml(message);
  return page(title, `<h1>${title}</h1><p>${text}</p>`);
}
