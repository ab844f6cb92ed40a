// The SMTP provider: the email channel over a pooled nodemailer transport when SMTP_URL is set
// (README: "Email over SMTP").
//
// What the recipient gets: multipart/alternative text + HTML when the message has htmlmessage
// (text/plain alone otherwise), Subject, From = the message's sender when it is an email address,
// else EMAIL_FROM, with from_name as display name, Reply-To, the safelisted custom headers, a
// Message-ID derived from our message id (<msg_…@from-domain>) and X-Engage-Message-Id, so a re-send
// after a dispatcher crash is recognisably the same message; List-Unsubscribe and
// List-Unsubscribe-Post on marketing email (port.ts listUnsubscribeHeaders). DKIM-signed, those list
// headers included, when the From has a key: a sender address by its own account's verified domain
// (accountKeyFor), the default From by an operator key of DKIM_KEYS (operatorKeyFor).
//
// Provider message id: the Message-ID of the delivered copy, without angle brackets. That is ours
// (msg_…@from-domain: deterministic, stable across re-sends, and what bounces and complaints quote
// back), unless the server reports that it replaced the header (Microsoft 365 / Outlook.com and
// Amazon SES name their own id in the final 250 reply): then theirs, because only that one appears
// in the mail and in its feedback. Free-form queue ids ("250 OK queued as 4FZx…") are not used:
// their format is server-specific and they never appear in a bounce.
//
// Outcomes: 2xx → accepted; a permanent 5xx reply → rejected with the reply as reason and its code;
// 4xx, 503, connection errors, timeouts → transient (the dispatcher defers and retries). An
// authentication failure (535 &c.) is transient too: it is our configuration, not the message, and
// failing every queued email for it would be wrong; the retries end in provider_unavailable.
//
// Delivered: SMTP has no delivery report. A 250 means the relay took responsibility for the
// message, not that it reached the mailbox, so an SMTP message stays `sent` until feedback arrives
// through the inbound callback POST /v1/webhooks/smtp: a bounce fails it, a complaint or a
// delivered notice makes it `delivered`. No report is ever made up here.
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import MailComposer from 'nodemailer/lib/mail-composer';
import nodemailer, { type NodemailerError, type SendMailOptions, type SMTPPoolSentMessageInfo, type Transporter } from 'nodemailer';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { type DkimKey, parseDkimKeys } from '../dkim-keys.ts';
import { type ChannelProvider, listUnsubscribeHeaders, type OutboundMessage, RESERVED_HEADERS, type SendOutcome } from './port.ts';
import { REFUSED_TARGET, connectChecked } from '../webhooks/ssrf.ts';

/**
 * Finds the signing key of the sending account's own verified domain (lower case); undefined: none.
 * Another account's domain of the same name never answers (README "Email domains").
 */
export type AccountDkimKeyLookup = (accountId: string, domain: string) => Promise<DkimKey | undefined>;

/**
 * The DKIM key lookup from configuration (operator keys). Exact domain match: a key for example.com
 * does not sign mail from news.example.com.
 */
export function dkimKeysFromConfig(value: string | ReadonlyMap<string, DkimKey> | undefined): (domain: string) => DkimKey | undefined {
  const keys = typeof value === 'string' || value === undefined ? parseDkimKeys(value) : value;
  return function dkimKeyFor(domain: string) {
    return keys.get(domain.toLowerCase());
  };
}

export interface SmtpProviderOptions {
  /** smtp://user:pass@host:587 (STARTTLS when offered) or smtps://…:465 */
  url: string;
  /** the From address when the message's sender is not an email address: "a@b.c" or "Name <a@b.c>" */
  defaultFrom: string;
  /** operator keys (DKIM_KEYS): they sign only mail sent from the default From (EMAIL_FROM) */
  operatorKeyFor?: (domain: string) => DkimKey | undefined;
  /** the sending account's verified domains' keys: they sign mail whose sender is an address of theirs */
  accountKeyFor?: AccountDkimKeyLookup;
  maxConnections?: number;
  timeoutMs?: number;
  /**
   * Set for a server an account aimed (its SMTP integration), never for the operator's SMTP_URL:
   * every connection is checked and pinned like a webhook's (README "Integrations"); a refusal
   * fails the message with our words. allowPrivate: OUTBOUND_ALLOW_PRIVATE.
   */
  accountAimed?: { allowPrivate: boolean };
}

/** The reason a message fails with when its account's SMTP server is refused (no server's reply, no address). */
export const REFUSED_SMTP_SERVER =
  "smtp_server_refused: the integration's SMTP server is not a public address on an SMTP port (25, 465, 587, 2525); change the integration";

/** The reason, naming the setting that lets a local test server through when it is off (README "Integrations"). */
export const refusedSmtpServer = (allowPrivate: boolean) =>
  allowPrivate ? REFUSED_SMTP_SERVER : `${REFUSED_SMTP_SERVER}, or for a local test server set OUTBOUND_ALLOW_PRIVATE=true (local development only)`;

export function smtpOptionsFromConfig(config: Pick<Config, 'SMTP_URL' | 'EMAIL_FROM' | 'DKIM_KEYS' | 'SMTP_MAX_CONNECTIONS' | 'SMTP_TIMEOUT_MS'>): SmtpProviderOptions {
  if (!config.SMTP_URL) throw new Error('SMTP_URL is not set');
  return {
    url: config.SMTP_URL,
    defaultFrom: config.EMAIL_FROM,
    operatorKeyFor: dkimKeysFromConfig(config.DKIM_KEYS),
    maxConnections: config.SMTP_MAX_CONNECTIONS,
    timeoutMs: config.SMTP_TIMEOUT_MS,
  };
}

/** The SMTP URL with its credentials replaced, for logs. */
export function redactSmtpUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = '***';
      u.password = '';
    }
    u.search = '';
    return u.toString();
  } catch {
    return '(unparseable SMTP_URL)';
  }
}

const EMAIL = z.email();
const isEmail = (v: string) => v.length <= 254 && EMAIL.safeParse(v).success;
const HEADER_NAME = /^[A-Za-z0-9-]{1,64}$/;
const ENGAGE_ID_HEADER = 'X-Engage-Message-Id';
const NOT_PASSED_ON = new Set([...RESERVED_HEADERS, ENGAGE_ID_HEADER.toLowerCase()]);
/**
 * The headers a DKIM signature covers: nodemailer's list (RFC 6376 §5.4's suggestions) plus
 * List-Unsubscribe-Post, which RFC 8058 §4 requires signed with List-Unsubscribe.
 */
const DKIM_SIGNED_HEADERS =
  'From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:Content-ID:' +
  'Content-Description:Resent-Date:Resent-From:Resent-Sender:Resent-To:Resent-Cc:Resent-Message-ID:In-Reply-To:References:' +
  'List-Id:List-Help:List-Unsubscribe:List-Unsubscribe-Post:List-Subscribe:List-Post:List-Owner:List-Archive';

/**
 * The From address of an email (README "Email over SMTP"): its sender when that is an email address,
 * else the address of the default From ("a@b.c" or "Name <a@b.c>"). Every email transport and the
 * warm-up count decide it here.
 */
export function fromAddressOf(sender: string | null | undefined, defaultFrom: string): { address: string; fromSender: boolean } {
  const trimmed = sender?.trim();
  return trimmed !== undefined && isEmail(trimmed) ? { address: trimmed, fromSender: true } : { address: parseMailbox(defaultFrom).address, fromSender: false };
}

/** "a@b.c" or "Name <a@b.c>" → its parts. */
function parseMailbox(value: string): { name?: string; address: string } {
  const m = /^\s*(?:"?([^"<]*?)"?\s*)?<([^<>\s]+)>\s*$/.exec(value);
  if (m) return { ...(m[1] ? { name: m[1].trim() } : {}), address: m[2] };
  return { address: value.trim() };
}

/** Custom headers minus reserved names, our own id header and anything malformed (the API already refuses these). */
export function safeHeaders(headers: Record<string, string> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (NOT_PASSED_ON.has(name.toLowerCase()) || !HEADER_NAME.test(name)) continue;
    if (typeof value !== 'string' || value.length > 998 || /[\r\n\u0000]/.test(value)) continue;
    out[name] = value;
  }
  return out;
}

function oneLine(s: string, max = 500): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** Maps a nodemailer failure to an outcome (see the header comment). */
export function outcomeOfError(err: unknown): SendOutcome {
  const e = (err ?? {}) as NodemailerError;
  const code = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const authProblem = e.code === 'EAUTH' || e.code === 'ENOAUTH' || e.code === 'EOAUTH2';
  if (code !== undefined && code >= 500 && code < 600 && code !== 503 && e.permanent !== false && !authProblem) {
    // for a refused recipient the per-recipient reply is the precise one
    const reply = e.rejectedErrors?.[0]?.response ?? e.response ?? e.message ?? `${code}`;
    return { kind: 'rejected', reason: oneLine(reply), code: String(code) };
  }
  const what = e.response ? oneLine(e.response, 300) : oneLine(e.message ?? String(err), 300);
  return { kind: 'transient', error: e.code && !what.includes(e.code) ? `${e.code}: ${what}` : what };
}

/**
 * nodemailer's getSocket hook: each new pooled connection is opened by connectChecked (resolved,
 * checked, pinned) and handed over connected; TLS (smtps, STARTTLS) still verifies the URL's host name.
 */
function guardedSocket(url: string, allowPrivate: boolean, timeoutMs: number) {
  return (_options: unknown, callback: (err: Error | null, socketOptions?: { connection: import('node:net').Socket }) => void) => {
    connectChecked(url, allowPrivate, timeoutMs).then(
      (connection) => callback(null, { connection }),
      (err: Error) => callback(err),
    );
  };
}

export class SmtpProvider implements ChannelProvider {
  readonly name = 'smtp';
  private readonly transport: Transporter<SMTPPoolSentMessageInfo>;
  private readonly defaultFrom: { name?: string; address: string };
  private readonly operatorKeyFor: (domain: string) => DkimKey | undefined;
  private readonly accountKeyFor: AccountDkimKeyLookup;
  /** host:port without credentials, for logs */
  readonly target: string;
  /** why a message fails when the guarded connection to an account's server is refused */
  private readonly refusal: string;

  constructor(options: SmtpProviderOptions) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new Error('SMTP_URL is not a URL (expected smtp://user:pass@host:587 or smtps://user:pass@host:465)');
    }
    if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`SMTP_URL: the scheme must be smtp or smtps, not ${url.protocol.replace(/:$/, '')}`);
    this.target = redactSmtpUrl(options.url);
    this.refusal = refusedSmtpServer(options.accountAimed?.allowPrivate ?? false);
    this.defaultFrom = parseMailbox(options.defaultFrom);
    if (!isEmail(this.defaultFrom.address)) throw new Error('EMAIL_FROM must be an email address ("a@b.c" or "Name <a@b.c>")');
    this.operatorKeyFor = options.operatorKeyFor ?? (() => undefined);
    this.accountKeyFor = options.accountKeyFor ?? (async () => undefined);
    const timeout = options.timeoutMs ?? 30_000;
    this.transport = nodemailer.createTransport({
      url: options.url,
      pool: true,
      maxConnections: options.maxConnections ?? 5,
      maxMessages: 100,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      // no nodemailer logging: its debug output would carry the SMTP conversation
      logger: false,
      debug: false,
      ...(options.accountAimed ? { getSocket: guardedSocket(options.url, options.accountAimed.allowPrivate, timeout) } : {}),
    });
    // the pool reports failures per message; an 'error' event must never take the process down
    this.transport.on('error', () => undefined);
  }

  /**
   * The mail as nodemailer takes it. With a signing key it is composed here and handed over raw,
   * with its DKIM-Signature in front: nodemailer signs RSA only, and Ed25519 keys (RFC 8463) must
   * sign the same way.
   */
  async mailFor(message: OutboundMessage): Promise<{ mail: SendMailOptions; messageId: string }> {
    const { address: fromAddress, fromSender } = fromAddressOf(message.sender, this.defaultFrom.address);
    const fromName = message.from_name ?? (fromAddress === this.defaultFrom.address ? this.defaultFrom.name : undefined);
    const domain = fromAddress.slice(fromAddress.lastIndexOf('@') + 1).toLowerCase();
    const messageId = `${message.id}@${domain}`;
    // a sender address is signed only by its own account's verified domain; operator keys sign the
    // default From alone, so no account can borrow them (README "Email domains")
    const key = fromSender ? await this.accountKeyFor(message.accountId, domain) : this.operatorKeyFor(domain);
    const mail: SendMailOptions = {
      from: fromName ? { name: fromName, address: fromAddress } : fromAddress,
      to: message.to,
      subject: message.subject ?? '',
      text: message.message,
      ...(message.htmlmessage ? { html: message.htmlmessage } : {}),
      ...(message.reply_to ? { replyTo: message.reply_to } : {}),
      messageId: `<${messageId}>`,
      headers: { ...safeHeaders(message.headers), ...listUnsubscribeHeaders(message), [ENGAGE_ID_HEADER]: message.id },
      // content is always given inline: never let a field make nodemailer read a file or a URL
      disableFileAccess: true,
      disableUrlAccess: true,
    };
    if (!key) return { mail, messageId };
    const raw = await new MailComposer(mail).compile().build();
    // the algorithm follows the key's type (RSA or Ed25519)
    const signature = { signingDomain: domain, selector: key.selector, privateKey: key.privateKey };
    const signed = await dkimSign(raw, { ...signature, signatureData: [signature], canonicalization: 'relaxed/relaxed', headerList: DKIM_SIGNED_HEADERS });
    if (!signed.signatures) throw new Error(`DKIM signing failed for ${domain}: ${signed.errors?.map((e) => e.err.code ?? e.err.message).join('; ') ?? 'no signature'}`);
    return {
      mail: { envelope: { from: fromAddress, to: [message.to] }, raw: Buffer.concat([Buffer.from(signed.signatures), raw]), messageId: `<${messageId}>` },
      messageId,
    };
  }

  async send(message: OutboundMessage): Promise<SendOutcome> {
    const { mail, messageId } = await this.mailFor(message);
    let info: SMTPPoolSentMessageInfo;
    try {
      info = await this.transport.sendMail(mail);
    } catch (err) {
      if ((err as { code?: string }).code === REFUSED_TARGET) return { kind: 'rejected', reason: this.refusal };
      return outcomeOfError(err);
    }
    if (info.accepted.length === 0 && info.rejected.length > 0) {
      const first = info.rejectedErrors?.[0];
      if (first) return outcomeOfError(first);
      return { kind: 'rejected', reason: oneLine(info.response ?? 'recipient rejected') };
    }
    const serverId = info.serverMessageId?.replace(/^<|>$/g, '');
    return { kind: 'accepted', providerMessageId: serverId || messageId };
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}
