// What the HTTP API providers (Twilio, SendGrid, WhatsApp Cloud, FCM) share: one bounded request, and
// the rule that turns its answer into an outcome. 2xx: accepted. A 4xx about the message (a bad
// number, a refused recipient): rejected, for good. 401/403 (our credentials), 408, 409, 429, 5xx and
// network errors: transient, retried by the dispatcher with backoff, no sooner than a Retry-After
// asks (README "Integrations").
import { request } from 'undici';
import type { SendOutcome } from './port.ts';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

const TRANSIENT_4XX = new Set([401, 403, 408, 409, 425, 429]);

/** One request with a deadline; the body read as JSON when it is JSON, else as text. */
export async function callApi(url: string, init: { method: 'POST'; headers: Record<string, string>; body: string }, timeoutMs: number): Promise<HttpAnswer> {
  const res = await request(url, { ...init, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.body.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: the text is the reason
  }
  return { status: res.statusCode, headers: res.headers, body };
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 500);

/** The outcome of an API answer; `reason` is the provider's own words for a refusal. */
export function outcomeOfAnswer(answer: HttpAnswer, accepted: () => string | undefined, reason: () => string, code?: () => string | undefined): SendOutcome {
  if (answer.status >= 200 && answer.status < 300) {
    const id = accepted();
    return id ? { kind: 'accepted', providerMessageId: id } : { kind: 'transient', error: `HTTP ${answer.status} without a message id` };
  }
  const why = oneLine(`${answer.status} ${reason()}`);
  if (answer.status >= 400 && answer.status < 500 && !TRANSIENT_4XX.has(answer.status)) {
    const c = code?.();
    return { kind: 'rejected', reason: why, ...(c ? { code: c } : {}) };
  }
  return transient(why, answer.headers['retry-after']);
}

/** A transient outcome, with the wait the provider asked for when its Retry-After says one. */
export function transient(error: string, retryAfter: string | string[] | undefined, now = Date.now()): SendOutcome {
  const wait = retryAfterMs(retryAfter, now);
  return { kind: 'transient', error: oneLine(error), ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
}

/** A Retry-After header (RFC 9110: delay-seconds or an HTTP date) as milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** A network failure or timeout: never the message's fault. */
export const outcomeOfFailure = (err: unknown): SendOutcome => ({ kind: 'transient', error: oneLine((err as Error)?.message ?? String(err)) });
