// POST /v1/webhooks/carrier: form-encoded status callbacks and inbound messages (Twilio style) for sms and voice, header
// X-Carrier-Signature = base64 HMAC-SHA1(carrier secret, full URL + each param name+value sorted by name).
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import type { DeliveryReport } from '../../../channels/port.ts';
import { unauthorized, validationError } from '../../../errors.ts';
import { storableText } from '../../../storable-text.ts';
import { compact, header, parse, rawBody, received, receiveFromProvider, record, requireMediaType, ROUTE_CONFIG, safeEqual, type ProviderRoutes } from './common.ts';

/**
 * Twilio's request signature: the full URL (with its query string) followed by every POST
 * parameter's name and value, ordered by name (repeated names: each distinct value, sorted),
 * HMAC-SHA1 keyed with the secret, base64.
 */
export function carrierSignature(secret: string, url: string, params: ReadonlyMap<string, readonly string[]>): string {
  let data = url;
  for (const name of [...params.keys()].sort()) {
    for (const value of [...new Set(params.get(name))].sort()) data += name + value;
  }
  return createHmac('sha1', secret).update(Buffer.from(data, 'utf8')).digest('base64');
}

/** The URL as signed: with and without the scheme's standard port (providers differ, as Twilio's own library allows). */
export function urlVariants(full: string): string[] {
  let url: URL;
  try {
    url = new URL(full);
  } catch {
    return [];
  }
  const variants = new Set<string>([url.toString()]);
  if (url.port) {
    const bare = new URL(url.toString());
    bare.port = '';
    variants.add(bare.toString());
  } else if (url.protocol === 'http:' || url.protocol === 'https:') {
    // the URL API drops a standard port, so it is written in by hand
    const port = url.protocol === 'https:' ? '443' : '80';
    variants.add(`${url.protocol}//${url.username}${url.password ? `:${url.password}` : ''}${url.username || url.password ? '@' : ''}${url.hostname}:${port}${url.pathname}${url.search}`);
  }
  return [...variants];
}

/** Twilio-style status callback parameters (others, such as AccountSid or SmsStatus, are signed but unused). */
const CarrierParams = z
  .object({
    MessageSid: z.string().min(1).max(128).optional(),
    MessageStatus: z.string().min(1).max(32).optional(),
    CallSid: z.string().min(1).max(128).optional(),
    CallStatus: z.string().min(1).max(32).optional(),
    ErrorCode: z.string().max(32).optional(),
    ErrorMessage: z.string().max(1000).optional(),
    To: z.string().max(256).optional(),
    From: z.string().max(256).optional(),
    /** an inbound message's text (a status callback has none) */
    Body: z.string().max(100_000).optional(),
  })
  .refine((p) => (p.MessageSid && p.MessageStatus) || (p.CallSid && p.CallStatus) || (p.MessageSid && p.Body !== undefined && p.From && p.To), {
    message: 'MessageSid and MessageStatus are required (an inbound message: MessageSid, From, To and Body)',
    path: ['MessageSid'],
  });

const CARRIER_FIELDS = ['MessageSid', 'MessageStatus', 'CallSid', 'CallStatus', 'ErrorCode', 'ErrorMessage', 'To', 'From', 'Body'] as const;
const CARRIER_DELIVERED = new Set(['delivered', 'read', 'completed']);
const CARRIER_FAILED = new Set(['undelivered', 'failed', 'canceled', 'busy', 'no-answer']);

/**
 * The two settings a genuine carrier's signature depends on (README "Provider callbacks"): the key,
 * and the URL it signed, which behind a proxy only PUBLIC_BASE_URL can tell.
 */
const CARRIER_MISMATCH =
  'X-Carrier-Signature does not match this request: it is checked with WEBHOOK_SECRET_CARRIER over the URL called (PUBLIC_BASE_URL, else this request\'s Host, then path and query) and the parameters; behind a proxy, set PUBLIC_BASE_URL to the URL the carrier calls';

export const carrierRoutes: ProviderRoutes = (child, { engage, secrets }) => {
  child.post('/v1/webhooks/carrier', { config: ROUTE_CONFIG }, async (req) => {
    requireMediaType(req, 'application/x-www-form-urlencoded');
    const form = new URLSearchParams(rawBody(req).toString('utf8'));
    const params = new Map<string, string[]>();
    for (const [name, value] of form) params.set(name, [...(params.get(name) ?? []), value]);

    const given = header(req, 'x-carrier-signature');
    if (!given) throw unauthorized('send the request signature in X-Carrier-Signature');
    const base = engage.config.PUBLIC_BASE_URL ?? (req.headers.host ? `${req.protocol}://${req.headers.host}` : undefined);
    const candidates = base ? urlVariants(`${base.replace(/\/+$/, '')}${req.url}`) : [];
    // every candidate is compared (no early exit), so the time taken does not say which one came close
    const matches = candidates.map((url) => safeEqual(given, carrierSignature(secrets.carrier, url, params)));
    if (!matches.includes(true)) throw unauthorized(CARRIER_MISMATCH);

    // signed as sent; from here on what Postgres can store (README "Security notes")
    for (const [name, values] of params) params.set(name, values.map(storableText));
    const repeated = CARRIER_FIELDS.filter((name) => (params.get(name)?.length ?? 0) > 1);
    if (repeated.length) throw validationError(`repeated parameter ${repeated.join(', ')}`, repeated.map((path) => ({ path, message: 'given more than once' })));
    const p = parse(CarrierParams, Object.fromEntries([...params].map(([name, values]) => [name, values[0]])));
    if (p.Body !== undefined && !p.MessageStatus) {
      // an inbound message (README "Inbound messages and conversations"), threaded into the sender's conversation
      await receiveFromProvider(engage, req, 'carrier', { channel: 'sms', family: 'carrier', from: p.From!, to: [p.To!], body: p.Body, providerMessageId: p.MessageSid! });
      return received(1);
    }
    // a message status callback, or (from the voice channel) a call status callback
    const isMessage = !!(p.MessageSid && p.MessageStatus);
    const sid = isMessage ? p.MessageSid! : p.CallSid!;
    const status = (isMessage ? p.MessageStatus! : p.CallStatus!).toLowerCase();
    const errorCode = p.ErrorCode || undefined;
    const errorMessage = p.ErrorMessage || undefined;
    const providerData = compact({
      callback: 'carrier',
      [isMessage ? 'message_sid' : 'call_sid']: sid,
      [isMessage ? 'message_status' : 'call_status']: status,
      error_code: errorCode,
      error_message: errorMessage,
      to: p.To,
      from: p.From,
    });
    let report: DeliveryReport | undefined;
    if (CARRIER_DELIVERED.has(status)) report = { provider: 'carrier', providerMessageId: sid, status: 'delivered', providerData };
    else if (CARRIER_FAILED.has(status)) {
      const reason = `${status}${errorCode ? `:${errorCode}` : ''}${errorMessage ? ` ${errorMessage}` : ''}`;
      report = { provider: 'carrier', providerMessageId: sid, status: 'failed', reason, providerData };
    }
    // queued, sending, sent, accepted, … are steps on the way: acknowledged, nothing to record
    if (report) await record(engage, req, 'carrier', [report]);
    return received(1);
  });
};
