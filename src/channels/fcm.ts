// Push through an account's own Firebase project (an integration): Firebase Cloud Messaging's HTTP
// v1 API (README "Integrations"). The service account's key signs an RS256 JWT assertion that the
// OAuth 2.0 token endpoint (FCM_TOKEN_URL, never the credentials' token_uri) exchanges for an access
// token; the token is kept until shortly before it expires, and concurrent sends share one request
// for it. A message is POST /v1/projects/{project_id}/messages:send with that bearer token; FCM's
// error codes become outcomes: a token FCM no longer knows (UNREGISTERED) or calls invalid is
// refused for good, a 401 gets a new access token and one more try, throttling and outages are
// retried no sooner than their Retry-After.
import { type CryptoKey, importPKCS8, SignJWT } from 'jose';
import { callApi, type HttpAnswer, outcomeOfFailure, transient } from './http-api.ts';
import type { ChannelProvider, OutboundMessage, SendOutcome } from './port.ts';

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** the lifetime of an assertion (Google takes at most one hour) */
const ASSERTION_SECONDS = 3600;
/** an access token is replaced this long before it runs out (at most a tenth of its lifetime) */
const RENEW_BEFORE_MS = 60_000;

/** What the provider uses of a Firebase service account's key file. */
export interface FcmServiceAccount {
  project_id: string;
  client_email: string;
  /** PEM (PKCS #8) of the account's RSA key */
  private_key: string;
  private_key_id?: string;
}

export interface FcmOptions {
  /** FCM_API_BASE: https://fcm.googleapis.com */
  apiBase: string;
  /** FCM_TOKEN_URL: Google's OAuth 2.0 token endpoint */
  tokenUrl: string;
  timeoutMs: number;
  /** the time in ms (Date.now unless a test keeps its own) */
  now?: () => number;
}

/** The token endpoint's refusal (or an answer without a token): a transient outcome, our credentials. */
class TokenRefused extends Error {
  constructor(
    message: string,
    readonly retryAfter: string | string[] | undefined,
  ) {
    super(message);
  }
}

interface AccessToken {
  value: string;
  /** when to ask for a new one (ms) */
  renewAt: number;
}

export class FcmProvider implements ChannelProvider {
  readonly name = 'fcm';
  private key?: Promise<CryptoKey>;
  private token?: AccessToken;
  /** the token request in flight, which concurrent sends share */
  private pending?: Promise<AccessToken>;
  private readonly now: () => number;

  constructor(
    private readonly account: FcmServiceAccount,
    private readonly options: FcmOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async send(message: OutboundMessage): Promise<SendOutcome> {
    try {
      let token = await this.accessToken();
      let answer = await this.post(message, token);
      if (answer.status === 401) {
        // the token was revoked or ran out early: a new one, and one more try
        this.forget(token);
        token = await this.accessToken();
        answer = await this.post(message, token);
      }
      return outcomeOfFcm(answer, this.now());
    } catch (err) {
      if (err instanceof TokenRefused) return transient(err.message, err.retryAfter, this.now());
      return outcomeOfFailure(err);
    }
  }

  private post(message: OutboundMessage, token: string): Promise<HttpAnswer> {
    const body = {
      message: {
        token: message.to,
        notification: { ...(message.subject ? { title: message.subject } : {}), body: message.message },
        // the app can name our message (opens, receipts) by it
        data: { engage_message_id: message.id },
      },
    };
    return callApi(
      `${this.options.apiBase}/v1/projects/${encodeURIComponent(this.account.project_id)}/messages:send`,
      { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) },
      this.options.timeoutMs,
    );
  }

  /** The access token in hand while it is good, else the one being asked for, else a new request. */
  private async accessToken(): Promise<string> {
    if (this.token && this.now() < this.token.renewAt) return this.token.value;
    if (!this.pending) {
      const request = this.requestToken();
      this.pending = request;
      void request
        .then((t) => (this.token = t), () => undefined)
        .finally(() => {
          if (this.pending === request) this.pending = undefined;
        });
    }
    return (await this.pending).value;
  }

  /** Drops a token FCM refused, unless another send has replaced it already. */
  private forget(token: string): void {
    if (this.token?.value === token) this.token = undefined;
  }

  /** OAuth 2.0 for service accounts: a JWT assertion signed with the account's key, exchanged for an access token. */
  private async requestToken(): Promise<AccessToken> {
    this.key ??= importPKCS8(this.account.private_key, 'RS256');
    const key = await this.key.catch((err: unknown) => {
      this.key = undefined;
      throw err;
    });
    const startedAt = this.now();
    const iat = Math.floor(startedAt / 1000);
    const assertion = await new SignJWT({ scope: FCM_SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(this.account.private_key_id ? { kid: this.account.private_key_id } : {}) })
      .setIssuer(this.account.client_email)
      .setAudience(this.options.tokenUrl)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ASSERTION_SECONDS)
      .sign(key);
    const answer = await callApi(
      this.options.tokenUrl,
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }).toString() },
      this.options.timeoutMs,
    );
    const body = (answer.body ?? {}) as { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown };
    if (answer.status !== 200 || typeof body.access_token !== 'string' || !body.access_token) {
      const words = [body.error, body.error_description].filter((w) => typeof w === 'string').join(': ') || (typeof answer.body === 'string' ? answer.body : 'no access_token');
      throw new TokenRefused(`access token request: ${answer.status} ${words}`, answer.headers['retry-after']);
    }
    const lifetimeMs = (typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600) * 1000;
    return { value: body.access_token, renewAt: startedAt + lifetimeMs - Math.min(RENEW_BEFORE_MS, lifetimeMs / 10) };
  }
}

interface GoogleStatus {
  error?: {
    code?: number;
    status?: string;
    message?: string;
    details?: { '@type'?: string; errorCode?: string; fieldViolations?: { field?: string; description?: string }[] }[];
  };
}

const FCM_ERROR = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

/**
 * The outcome of a messages:send answer (README "Integrations"): 200 accepted with FCM's message
 * name; UNREGISTERED refused as `unregistered`; INVALID_ARGUMENT about the token as `invalid_token`
 * (another INVALID_ARGUMENT as `invalid_argument`); SENDER_ID_MISMATCH as `sender_id_mismatch`;
 * anything else (401 after the second try, 403, 429, 5xx, UNAVAILABLE, INTERNAL, QUOTA_EXCEEDED)
 * transient, with its Retry-After.
 */
export function outcomeOfFcm(answer: HttpAnswer, now = Date.now()): SendOutcome {
  if (answer.status >= 200 && answer.status < 300) {
    const name = (answer.body as { name?: unknown } | null)?.name;
    return typeof name === 'string' && name ? { kind: 'accepted', providerMessageId: name } : { kind: 'transient', error: `HTTP ${answer.status} without a message name` };
  }
  const error = typeof answer.body === 'object' && answer.body !== null ? ((answer.body as GoogleStatus).error ?? {}) : {};
  const details = Array.isArray(error.details) ? error.details : [];
  const fcmCode = details.find((d) => d?.['@type'] === FCM_ERROR)?.errorCode;
  const code = fcmCode ?? error.status;
  const words = `${answer.status} ${code ?? ''}: ${error.message ?? (typeof answer.body === 'string' ? answer.body : '')}`.replace(/\s+/g, ' ').trim().slice(0, 500);
  const refused = (ours: string): SendOutcome => ({ kind: 'rejected', reason: `${ours}: ${words}`, code: ours });
  if (code === 'UNREGISTERED') return refused('unregistered');
  if (code === 'SENDER_ID_MISMATCH') return refused('sender_id_mismatch');
  if (code === 'INVALID_ARGUMENT' || (answer.status === 400 && !code)) {
    const aboutToken =
      details.some((d) => d?.['@type'] === BAD_REQUEST && d.fieldViolations?.some((v) => v.field === 'message.token')) || /registration token/i.test(error.message ?? '');
    return refused(aboutToken ? 'invalid_token' : 'invalid_argument');
  }
  return transient(words, answer.headers['retry-after'], now);
}
