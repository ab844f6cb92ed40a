// Push through an account's own Apple developer account (an integration): the Apple Push
// Notification service's HTTP/2 provider API with token-based authentication (README
// "Integrations"). One HTTP/2 session per integration, opened again once it closes or Apple sends
// GOAWAY; a provider token (an ES256 JWT by the account's .p8 key) reused for 50 minutes, since Apple
// refuses one older than an hour and one replaced more often than every 20 minutes. A message is
// POST /3/device/{token} with an apns-id derived from our message id (a re-send carries the same);
// Apple's reasons become outcomes: a token it no longer knows or calls bad is refused for good, an
// expired provider token is replaced once, throttling and outages are retried no sooner than their
// Retry-After.
import { createHash } from 'node:crypto';
import http2 from 'node:http2';
import { rootCertificates } from 'node:tls';
import { type CryptoKey, importPKCS8, SignJWT } from 'jose';
import { outcomeOfFailure, transient } from './http-api.ts';
import type { ChannelProvider, OutboundMessage, SendOutcome } from './port.ts';

export interface ApnsCredentials {
  /** PEM (PKCS #8) of the .p8 key: P-256 */
  key_p8: string;
  key_id: string;
  team_id: string;
  /** the app's bundle id */
  topic: string;
  environment?: 'production' | 'sandbox';
}

export interface ApnsOptions {
  /** APNS_API_BASE, else Apple's host of the credentials' environment (apnsBase) */
  apiBase: string;
  /** APNS_CA_FILE's PEM: trusted besides the public roots */
  ca?: string;
  timeoutMs: number;
  /** the time in ms (Date.now unless a test keeps its own) */
  now?: () => number;
}

export const APNS_HOSTS = { production: 'https://api.push.apple.com', sandbox: 'https://api.sandbox.push.apple.com' } as const;

/** Where an integration's pushes go: APNS_API_BASE when set, else Apple's host of its environment. */
export const apnsBase = (configured: string | undefined, environment: ApnsCredentials['environment']): string => configured ?? APNS_HOSTS[environment ?? 'production'];

/** A provider token is replaced after this long (Apple: at most an hour old, at most one new one per 20 minutes). */
export const PROVIDER_TOKEN_MS = 50 * 60_000;

/** A device token as APNs gives them: 64 hex digits (32 bytes). */
export const isApnsToken = (token: string): boolean => /^[0-9a-f]{64}$/i.test(token);

/**
 * The apns-id of one message to one device: a UUID (version 8, RFC 9562) from a SHA-256 of our
 * message id and the token, so a re-send of the message to the device is recognisably the same.
 */
export function apnsIdOf(messageId: string, token: string): string {
  const b = createHash('sha256').update(`${messageId}\n${token}`).digest().subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x80;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

interface ProviderToken {
  jwt: Promise<string>;
  at: number;
}

interface Answer {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: string;
}

const STALE_TOKEN = new Set(['ExpiredProviderToken', 'InvalidProviderToken']);
const BAD_TOKEN = new Set(['BadDeviceToken', 'DeviceTokenNotForTopic']);

export class ApnsProvider implements ChannelProvider {
  readonly name = 'apns';
  private session?: http2.ClientHttp2Session;
  private token?: ProviderToken;
  private key?: Promise<CryptoKey>;
  private closed = false;
  private readonly now: () => number;

  constructor(
    private readonly credentials: ApnsCredentials,
    private readonly options: ApnsOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async send(message: OutboundMessage): Promise<SendOutcome> {
    if (this.closed) return { kind: 'transient', error: 'the APNs provider is closed' };
    const apnsId = apnsIdOf(message.id, message.to);
    const payload = JSON.stringify({
      aps: { alert: { ...(message.subject ? { title: message.subject } : {}), body: message.message } },
      engage_message_id: message.id,
    });
    try {
      let token = this.providerToken();
      let answer = await this.post(message.to, apnsId, await token.jwt, payload);
      if (answer.status === 403 && STALE_TOKEN.has(reasonOf(answer))) {
        // Apple no longer takes our token: a new one (unless a concurrent send made it), one more try
        if (this.token === token) this.token = undefined;
        token = this.providerToken();
        answer = await this.post(message.to, apnsId, await token.jwt, payload);
      }
      return outcomeOfApns(answer, apnsId, this.now());
    } catch (err) {
      return outcomeOfFailure(err);
    }
  }

  /** The provider token while it is younger than PROVIDER_TOKEN_MS, else a new one. */
  private providerToken(): ProviderToken {
    const now = this.now();
    if (this.token && now - this.token.at < PROVIDER_TOKEN_MS) return this.token;
    const token: ProviderToken = { at: now, jwt: this.sign(now) };
    this.token = token;
    token.jwt.catch(() => {
      if (this.token === token) this.token = undefined;
    });
    return token;
  }

  private async sign(now: number): Promise<string> {
    this.key ??= importPKCS8(this.credentials.key_p8, 'ES256');
    const key = await this.key.catch((err: unknown) => {
      this.key = undefined;
      throw err;
    });
    return new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: this.credentials.key_id }).setIssuer(this.credentials.team_id).setIssuedAt(Math.floor(now / 1000)).sign(key);
  }

  /** The session to Apple: the open one, else a new one (after a close, an error or GOAWAY). */
  private connect(): http2.ClientHttp2Session {
    const current = this.session;
    if (current && !current.closed && !current.destroyed) return current;
    const session = http2.connect(this.options.apiBase, this.options.ca ? { ca: [...rootCertificates, this.options.ca] } : {});
    const drop = () => {
      if (this.session === session) this.session = undefined;
    };
    // a failed session fails its streams (transient outcomes); the next send opens another
    session.on('error', drop);
    session.on('goaway', drop);
    session.on('close', drop);
    this.session = session;
    return session;
  }

  private post(deviceToken: string, apnsId: string, jwt: string, payload: string): Promise<Answer> {
    const session = this.connect();
    return new Promise<Answer>((resolve, reject) => {
      const stream = session.request({
        ':method': 'POST',
        ':path': `/3/device/${encodeURIComponent(deviceToken)}`,
        authorization: `bearer ${jwt}`,
        'apns-topic': this.credentials.topic,
        'apns-push-type': 'alert',
        'apns-priority': '10',
        'apns-id': apnsId,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
      });
      let headers: http2.IncomingHttpHeaders | undefined;
      const chunks: Buffer[] = [];
      stream.setTimeout(this.options.timeoutMs, () => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        reject(new Error(`APNs did not answer within ${this.options.timeoutMs} ms`));
      });
      stream.on('response', (h) => (headers = h));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (headers) resolve({ status: Number(headers[':status']), headers, body: Buffer.concat(chunks).toString('utf8') });
      });
      stream.on('error', reject);
      stream.on('close', () => reject(new Error(`APNs closed the stream without an answer (HTTP/2 code ${stream.rstCode ?? 'none'})`)));
      stream.end(payload);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const session = this.session;
    this.session = undefined;
    if (!session || session.closed || session.destroyed) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        session.destroy();
        resolve();
      }, 5_000);
      session.close(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

function reasonOf(answer: Answer): string {
  try {
    const reason = (JSON.parse(answer.body) as { reason?: unknown }).reason;
    return typeof reason === 'string' ? reason : '';
  } catch {
    return '';
  }
}

/**
 * The outcome of Apple's answer (README "Integrations"): 200 accepted with its apns-id; 410
 * (Unregistered, ExpiredToken) refused as `unregistered`; BadDeviceToken and DeviceTokenNotForTopic
 * as `invalid_token`; another 4xx about the request refused with Apple's reason as its code; 403
 * (our provider token or key), 429 and 5xx transient, with their Retry-After.
 */
export function outcomeOfApns(answer: Answer, apnsId: string, now = Date.now()): SendOutcome {
  if (answer.status === 200) {
    const id = answer.headers['apns-id'];
    return { kind: 'accepted', providerMessageId: (Array.isArray(id) ? id[0] : id) || apnsId };
  }
  const reason = reasonOf(answer);
  const words = `${answer.status} ${reason || answer.body.slice(0, 200)}`.replace(/\s+/g, ' ').trim();
  const retryAfter = answer.headers['retry-after'];
  if (answer.status === 410) return { kind: 'rejected', reason: `unregistered: ${words}`, code: 'unregistered' };
  if (BAD_TOKEN.has(reason)) return { kind: 'rejected', reason: `invalid_token: ${words}`, code: 'invalid_token' };
  if (answer.status >= 400 && answer.status < 500 && answer.status !== 403 && answer.status !== 429) {
    return { kind: 'rejected', reason: words, ...(reason ? { code: reason } : {}) };
  }
  return transient(words, typeof retryAfter === 'string' ? retryAfter : undefined, now);
}
