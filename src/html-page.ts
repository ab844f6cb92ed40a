// The small self-contained HTML pages people reach from a message or a form (unsubscribe, signup
// forms): one inline stylesheet allowed by its hash, no external resource, never framed, cached or
// leaking their URL in a Referer (it may carry a token).
import { createHash } from 'node:crypto';

export const PAGE_STYLE =
  'body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f6f6f6;color:#222;margin:0;padding:48px 16px}' +
  'main{max-width:420px;margin:0 auto;background:#fff;border-radius:8px;padding:32px;box-shadow:0 1px 3px rgba(0,0,0,.1)}' +
  'h1{font-size:20px;margin:0 0 12px}p{line-height:1.5;margin:0 0 16px}' +
  'button{font:inherit;background:#222;color:#fff;border:0;border-radius:6px;padding:10px 18px;cursor:pointer}' +
  'label{display:block;margin:0 0 12px;font-size:14px}input,select{display:block;box-sizing:border-box;width:100%;font:inherit;padding:8px;margin-top:4px;border:1px solid #bbb;border-radius:6px}' +
  'input[type=checkbox]{display:inline;width:auto;margin-right:6px}.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}' +
  'ul{margin:0 0 16px;padding-left:20px}.consent{font-size:13px;color:#555}';

const STYLE_HASH = `'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`;

/**
 * The pages' security headers; `formTargets`: the origins besides this one a form on the page may
 * post to or be sent on to (a browser applies form-action to a submission's redirects too).
 * `referrer`: no-referrer unless the page's URL holds nothing secret and its form's target must see
 * where it is posted from (with no-referrer a browser sends `Origin: null`).
 */
export function pageHeaders(formTargets: readonly string[] = [], referrer: 'no-referrer' | 'same-origin' = 'no-referrer'): Record<string, string> {
  return {
    'Content-Security-Policy': `default-src 'none'; style-src ${STYLE_HASH}; form-action 'self'${formTargets.map((o) => ` ${o}`).join('')}; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
    'Referrer-Policy': referrer,
    'X-Content-Type-Options': 'nosniff',
  };
}

export const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${PAGE_STYLE}</style></head>
<body><main>${body}</main></body></html>
`;
}
