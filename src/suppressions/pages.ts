// The small HTML pages a recipient sees behind an unsubscribe link: a confirmation with a button
// (never an unsubscribe on GET: mail scanners fetch links), the result, and errors. Self-contained
// (src/html-page.ts): no script, no external resource.
import { escapeHtml, htmlPage as page, pageHeaders } from '../html-page.ts';

/**
 * The pages' security headers: never framed (clickjacking the button), never cached or revealed in a
 * Referer (the token in the URL is the recipient's), nothing loaded or posted elsewhere.
 */
export const PAGE_HEADERS: Record<string, string> = pageHeaders();

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
