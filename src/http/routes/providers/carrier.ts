// POST /v1/webhooks/carrier: form-encoded status callbacks and inbound messages (Twilio style) for sms, rcs and
// voice, header X-Twilio-Signature (or X-Carrier-Signature) = base64 HMAC-SHA1(key, full URL + each param
// name+value sorted by name). The key is the carrier secret, or, on a URL with ?integration=<id>, the auth
// token of that account's Twilio integration, whose reports then speak only of that account's messages
// (README "Provider callbacks").
import { createHmac } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { DeliveryReport } from '../../../channels/port.ts';
import { unauthorized, validationError } from '../../../errors.ts';
import { type TwilioCallbackKey, TwilioCallbackKeys } from '../../../integrations/twilio-callbacks.ts';
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
const MESSAGE_DELIVERED = new Set(['delivered', 'read']);
const MESSAGE_FAILED = new Set(['undelivered', 'failed', 'canceled']);
/** a call was answered (in-progress: the `answered` event) or ended after it was (completed) */
const CALL_DELIVERED = new Set(['in-progress', 'completed']);
const CALL_FAILED = new Set(['busy', 'no-answer', 'failed', 'canceled']);

/** The headers the signature may come in, in the order they are read: Twilio's own name, then ours. */
const SIGNATURE_HEADERS = ['X-Twilio-Signature', 'X-Carrier-Signature'] as const;

/**
 * What a genuine carrier's signature depends on (README "Provider callbacks"): the key (the carrier
 * secret, or the integration's auth token), and the URL it signed, which behind a proxy only
 * PUBLIC_BASE_URL can tell.
 */
const mismatch = (headerName: string, key: TwilioCallbackKey | undefined) =>
  `${headerName} does not match this request: it is checked with ${key ? "the auth token of the Twilio integration the URL names (?integration=)" : 'WEBHOOK_SECRET_CARRIER'} over the URL called (PUBLIC_BASE_URL, else this request's Host, then path and query) and the parameters; behind a proxy, set PUBLIC_BASE_URL to the URL the carrier calls`;

const NO_INTEGRATION =
  "the callback URL's ?integration= names no live Twilio integration (twilio, twilio_voice or twilio_rcs): unknown, removed, or another provider's, so there is no auth token to check this callback with";

/** The signature and the header it came in. */
function signatureOf(req: FastifyRequest): { headerName: string; value: string } | undefined {
  for (const headerName of SIGNATURE_HEADERS) {
    const value = header(req, headerName.toLowerCase());
    if (value) return { headerName, value };
  }
  return undefined;
}

/**
 * The integration the callback URL names, if it names one: given at all, it must be one live Twilio
 * integration's id (a repeated or empty one names none, and is refused).
 */
function integrationOfQuery(req: FastifyRequest): string | undefined {
  const value = (req.query as Record<string, unknown> | undefined)?.integration;
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : '';
}

export const carrierRoutes: ProviderRoutes = (child, { engage, secrets }) => {
  const integrationKeys = new TwilioCallbackKeys(engage.pool, engage.clock);

  child.post('/v1/webhooks/carrier', { config: ROUTE_CONFIG }, async (req) => {
    requireMediaType(req, 'application/x-www-form-urlencoded');
    const form = new URLSearchParams(rawBody(req).toString('utf8'));
    const params = new Map<string, string[]>();
    for (const [name, value] of form) params.set(name, [...(params.get(name) ?? []), value]);

    const given = signatureOf(req);
    if (!given) throw unauthorized('send the request signature in X-Twilio-Signature (or X-Carrier-Signature)');
    // a URL naming an integration is checked with that integration's key alone, never the carrier secret
    const integrationId = integrationOfQuery(req);
    const key = integrationId === undefined ? undefined : await integrationKeys.keyOf(integrationId);
    if (integrationId !== undefined && !key) throw unauthorized(NO_INTEGRATION);
    const secret = key ? key.authToken : secrets.carrier;
    const base = engage.config.PUBLIC_BASE_URL ?? (req.headers.host ? `${req.protocol}://${req.headers.host}` : undefined);
    const candidates = base ? urlVariants(`${base.replace(/\/+$/, '')}${req.url}`) : [];
    // every candidate is compared (no early exit), so the time taken does not say which one came close
    const matches = candidates.map((url) => safeEqual(given.value, carrierSignature(secret, url, params)));
    if (!matches.includes(true)) throw unauthorized(mismatch(given.headerName, key));
    // through an integration: the reports and messages are that account's, recorded as its provider's
    const provider = key ? key.provider : 'carrier';
    const scope = key ? { accountId: key.accountId } : undefined;

    // signed as sent; from here on what Postgres can store (README "Security notes")
    for (const [name, values] of params) params.set(name, values.map(storableText));
    const repeated = CARRIER_FIELDS.filter((name) => (params.get(name)?.length ?? 0) > 1);
    if (repeated.length) throw validationError(`repeated parameter ${repeated.join(', ')}`, repeated.map((path) => ({ path, message: 'given more than once' })));
    const p = parse(CarrierParams, Object.fromEntries([...params].map(([name, values]) => [name, values[0]])));
    if (p.Body !== undefined && !p.MessageStatus) {
      // an inbound message (README "Inbound messages and conversations"), threaded into the sender's conversation
      await receiveFromProvider(engage, req, provider, {
        channel: 'sms', family: 'carrier', from: p.From!, to: [p.To!], body: p.Body, providerMessageId: p.MessageSid!, ...(scope ? { accountId: scope.accountId } : {}),
      });
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
      integration: key?.integrationId,
      [isMessage ? 'message_sid' : 'call_sid']: sid,
      [isMessage ? 'message_status' : 'call_status']: status,
      error_code: errorCode,
      error_message: errorMessage,
      to: p.To,
      from: p.From,
    });
    let report: DeliveryReport | undefined;
    if ((isMessage ? MESSAGE_DELIVERED : CALL_DELIVERED).has(status)) report = { provider, providerMessageId: sid, status: 'delivered', providerData };
    else if ((isMessage ? MESSAGE_FAILED : CALL_FAILED).has(status)) {
      const reason = `${status}${errorCode ? `:${errorCode}` : ''}${errorMessage ? ` ${errorMessage}` : ''}`;
      report = { provider, providerMessageId: sid, status: 'failed', reason, providerData };
    }
    // queued, sending, sent, accepted (messages), initiated, ringing (calls), … are steps on the way:
    // acknowledged, nothing to record; a call's completed after its in-progress is a repeat, which changes nothing
    if (report) await record(engage, req, provider, [report], scope);
    return received(1);
  });
};
