// Signing of outbound webhook deliveries: our headers (X-Service-*, with X-Legacy-* aliases) and
// the Standard Webhooks headers, over the same body. Secrets are `whsec_` + base64 of 32 bytes.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Hex HMAC-SHA256 keyed with the whole secret string (prefix included) over `<ms timestamp>.<body>`. */
export function serviceSignature(secret: string, timestampMs: number | string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestampMs}.${body}`).digest('hex');
}

/** Standard Webhooks: base64 HMAC-SHA256 keyed with the base64-decoded bytes after `whsec_`, over `<id>.<s timestamp>.<body>`. */
export function standardSignature(secret: string, id: string, timestampS: number | string, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  return createHmac('sha256', key).update(`${id}.${timestampS}.${body}`).digest('base64');
}

export function signedHeaders(opts: { secret: string; eventId: string; eventType: string; body: string; now?: Date }): Record<string, string> {
  const ms = (opts.now ?? new Date()).getTime();
  const seconds = Math.floor(ms / 1000);
  const sig = serviceSignature(opts.secret, ms, opts.body);
  return {
    'content-type': 'application/json',
    'user-agent': 'engage-webhooks/1.0',
    'x-service-event': opts.eventType,
    'x-service-timestamp': String(ms),
    'x-service-signature': sig,
    'x-service-event-id': opts.eventId,
    'x-legacy-event': opts.eventType,
    'x-legacy-timestamp': String(ms),
    'x-legacy-signature': sig,
    'webhook-id': opts.eventId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': `v1,${standardSignature(opts.secret, opts.eventId, seconds, opts.body)}`,
  };
}

/** What a receiver does (README example): recompute, compare in constant time, reject old timestamps. */
export function verifyServiceSignature(secret: string, headers: { timestamp: string; signature: string }, rawBody: string, toleranceMs = 5 * 60_000, now = Date.now()): boolean {
  const ts = Number(headers.timestamp);
  if (!Number.isFinite(ts) || Math.abs(now - ts) > toleranceMs) return false;
  const expected = Buffer.from(serviceSignature(secret, headers.timestamp, rawBody), 'hex');
  const given = Buffer.from(headers.signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
