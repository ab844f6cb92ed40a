// The one-click unsubscribe link of marketing email (RFC 2369 List-Unsubscribe, RFC 8058 one-click
// POST; README "Suppressions and unsubscribes"): added at dispatch, so the message as stored and
// shown by the API is what the customer sent, and the link names the message it came in.
import type { OutboundMessage } from '../channels/port.ts';
import type { Engage } from '../context.ts';
import { UnsubscribeTokens } from './unsubscribe-token.ts';

/** Where a body wants its link instead of the footer: `{{unsubscribe_url}}` (spaces inside the braces allowed). */
const PLACEHOLDER = /\{\{\s*unsubscribe_url\s*\}\}/g;
const hasPlaceholder = (body: string) => body.search(PLACEHOLDER) >= 0;

const TEXT_FOOTER = (url: string) => `\n\n--\nTo stop receiving these emails, unsubscribe: ${url}\n`;
const HTML_FOOTER = (href: string) =>
  `<p style="margin-top:24px;font-size:12px;color:#666666">To stop receiving these emails, <a href="${href}" style="color:#666666">unsubscribe</a>.</p>`;

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** The HTML with the footer before its last </body>, or at its end when it has none. */
function withHtmlFooter(html: string, href: string): string {
  const at = html.toLowerCase().lastIndexOf('</body');
  return at < 0 ? `${html}${HTML_FOOTER(href)}` : `${html.slice(0, at)}${HTML_FOOTER(href)}${html.slice(at)}`;
}

/**
 * The message as it goes out with its unsubscribe link: the List-Unsubscribe URL for the transport's
 * headers, and the link in each body, where that body has the placeholder (every occurrence), else in
 * a footer appended to it. Each body is judged on its own.
 */
export function withUnsubscribeLink(message: OutboundMessage, url: string): OutboundMessage {
  const href = escapeHtml(url);
  const text = hasPlaceholder(message.message) ? message.message.replace(PLACEHOLDER, url) : `${message.message}${TEXT_FOOTER(url)}`;
  const html = message.htmlmessage ? (hasPlaceholder(message.htmlmessage) ? message.htmlmessage.replace(PLACEHOLDER, href) : withHtmlFooter(message.htmlmessage, href)) : message.htmlmessage;
  return { ...message, message: text, ...(html !== undefined ? { htmlmessage: html } : {}), list_unsubscribe: url };
}

// The address this process's HTTP server listens on, once it does (src/server.ts tells us).
const listeningPorts = new WeakMap<Engage, number>();

/** Called once the server listens: its port is the fallback base of unsubscribe links. */
export function rememberListeningPort(engage: Engage, port: number): void {
  listeningPorts.set(engage, port);
}

/**
 * The base of unsubscribe links: PUBLIC_BASE_URL (path prefix kept) when set, else this server's own
 * http://host:port (a wildcard HOST reads as localhost; a process that serves no HTTP, `engage worker`,
 * names HOST and PORT as configured).
 */
export function unsubscribeBaseUrl(engage: Engage): string {
  const { PUBLIC_BASE_URL, HOST, PORT } = engage.config;
  if (PUBLIC_BASE_URL) return PUBLIC_BASE_URL.replace(/\/+$/, '');
  const port = listeningPorts.get(engage) ?? PORT;
  const host = HOST === '0.0.0.0' || HOST === '::' ? 'localhost' : HOST.includes(':') ? `[${HOST}]` : HOST;
  return `http://${host}:${port}`;
}

/**
 * Logs a warning at start when PUBLIC_BASE_URL is unset: the links and callbacks built from it then
 * name this machine, which recipients and providers cannot reach (README "Security notes").
 */
export function warnWhenLinksUnusable(engage: Engage): void {
  if (engage.config.PUBLIC_BASE_URL) return;
  engage.log.warn(
    { unsubscribe_links: unsubscribeBaseUrl(engage) },
    'PUBLIC_BASE_URL is unset: unsubscribe links in marketing email name this machine, which recipients cannot open, and providers are not asked for status callbacks; set PUBLIC_BASE_URL to the address the service is reached at',
  );
}

/** Adds unsubscribe links to the marketing email a dispatcher hands to its provider. */
export class UnsubscribeLinks {
  constructor(private readonly engage: Engage) {}

  /** `message` with its link when it is marketing email; as it is otherwise (transactional, other channels). */
  async prepare(message: OutboundMessage, marketing: boolean): Promise<OutboundMessage> {
    if (!marketing || message.channel !== 'email') return message;
    // the secret is read once per pool (a failed read, the database away, is tried again next time)
    const tokens = await UnsubscribeTokens.of(this.engage.pool);
    const token = tokens.sign({ accountId: message.accountId, messageId: message.id });
    return withUnsubscribeLink(message, `${unsubscribeBaseUrl(this.engage)}/v1/unsubscribe/${token}`);
  }
}
