// Inbound provider callbacks (SPEC.md §6): the platform-internal endpoints under /v1/webhooks/<provider>
// through which carriers and channel providers report what became of the messages we handed them.
// They carry no API key; each provider proves itself with its shared secret or signature instead,
// which is why these routes live in a child context whose content-type parsers keep the raw body.
//
//   POST /v1/webhooks/sandbox   JSON, header X-Sandbox-Secret = the sandbox secret
//   POST /v1/webhooks/smtp      JSON email feedback, header X-Smtp-Feedback-Secret = the SMTP secret
//   POST /v1/webhooks/carrier   form-encoded status callback (Twilio style), header X-Carrier-Signature =
//                               base64 HMAC-SHA1(carrier secret, full URL + each param name+value sorted by name)
//   POST /v1/webhooks/whatsapp  WhatsApp Cloud API webhook JSON, header X-Hub-Signature-256 =
//                               "sha256=" + hex HMAC-SHA256(app secret, raw body)
//   GET  /v1/webhooks/whatsapp  Meta's verification handshake (hub.mode, hub.verify_token, hub.challenge)
//
// Reports become recordReports() calls: unknown messages and repeated reports change nothing and
// still answer 200 {received: n}, so a provider never retries what we already know.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z, type ZodType } from 'zod';
import type { DeliveryReport } from '../../channels/port.ts';
import type { Engage } from '../../context.ts';
import { AppError, forbidden, unauthorized, validationError } from '../../errors.ts';
import type { EventMetadata } from '../../eventstore/port.ts';
import { isId } from '../../ids.ts';
import { recordReports } from '../../messages/reports.ts';
import { serviceSecret } from '../../secrets.ts';
import type { AppDeps } from '../app.ts';
import { toIssues } from '../route.ts';

/** Provider callbacks are small; a WhatsApp batch of statuses stays far below this. */
const CALLBACK_BODY_LIMIT = 5 * 1024 * 1024;
/** reports in one sandbox or SMTP callback that sends an array */
const MAX_REPORTS = 1000;

export interface ProviderSecrets {
  sandbox: string;
  smtp: string;
  carrier: string;
  whatsapp: string;
  whatsappVerifyToken: string;
}

/** The configured secrets, else the ones generated once and kept in service_secrets. */
export async function providerSecrets(engage: Engage): Promise<ProviderSecrets> {
  const c = engage.config;
  const [sandbox, smtp, carrier, whatsapp, whatsappVerifyToken] = await Promise.all([
    serviceSecret(engage.pool, 'webhook_sandbox', c.WEBHOOK_SECRET_SANDBOX),
    serviceSecret(engage.pool, 'webhook_smtp', c.WEBHOOK_SECRET_SMTP),
    serviceSecret(engage.pool, 'webhook_carrier', c.WEBHOOK_SECRET_CARRIER),
    serviceSecret(engage.pool, 'webhook_whatsapp', c.WEBHOOK_SECRET_WHATSAPP),
    serviceSecret(engage.pool, 'whatsapp_verify_token', c.WHATSAPP_VERIFY_TOKEN),
  ]);
  return { sandbox, smtp, carrier, whatsapp, whatsappVerifyToken };
}

// ---------------------------------------------------------------------------------------------
// signatures

/** Constant-time string equality (hashing first, so neither the length nor the content leaks). */
export function safeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

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

/** Meta's payload signature: "sha256=" + hex HMAC-SHA256 of the raw body, keyed with the app secret. */
export function whatsappSignature(secret: string, raw: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}

// ---------------------------------------------------------------------------------------------
// request helpers

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

function rawBody(req: FastifyRequest): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

function requireMediaType(req: FastifyRequest, expected: string): void {
  const given = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (given === expected) return;
  throw new AppError(415, 'validation_error', `unsupported content type ${given || '(none)'}; send ${expected}`, {
    issues: [{ path: 'Content-Type', message: `must be ${expected}` }],
  });
}

function parseJson(raw: Buffer): unknown {
  const text = raw.toString('utf8');
  if (text.trim() === '') throw validationError('request body is empty; send a JSON document', [{ path: '(body)', message: 'empty body' }]);
  try {
    return JSON.parse(text);
  } catch {
    throw validationError('request body is not valid JSON', [{ path: '(body)', message: 'not valid JSON' }]);
  }
}

function parse<T>(schema: ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = toIssues(r.error);
  throw validationError(`invalid body: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
}

/** One report object, or an array of them (up to MAX_REPORTS). */
function parseOneOrMany<T>(schema: ZodType<T>, value: unknown): T[] {
  if (Array.isArray(value)) return parse(z.array(schema).min(1, 'send at least one report').max(MAX_REPORTS, `at most ${MAX_REPORTS} reports per callback`), value);
  return [parse(schema, value)];
}

/** A message id of ours, or nothing: anything else can only be an unknown message. */
const ourId = (id: string | undefined) => (id !== undefined && isId('message', id) ? id : undefined);

/** Our message id from an email's: `msg_…`, or the Message-ID header we set, `<msg_…@from-domain>`. */
const messageIdOfEmail = (id: string | undefined) => id?.trim().replace(/^<(.*)>$/, '$1').split('@')[0];

const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ''));

const metadataFor = (req: FastifyRequest, provider: string): EventMetadata => ({
  actor: `provider:${provider}`,
  requestId: req.id,
  correlationId: req.id,
  causationId: req.id,
});

/** Reports that name no message we could know are dropped here; the rest go to recordReports. */
async function record(engage: Engage, req: FastifyRequest, provider: string, reports: DeliveryReport[]): Promise<void> {
  const known = reports.filter((r) => r.messageId || r.providerMessageId);
  if (known.length) await recordReports(engage, known, metadataFor(req, provider));
}

// ---------------------------------------------------------------------------------------------
// bodies

const ids = {
  message_id: z.string().min(1).max(128).optional(),
  provider_message_id: z.string().min(1).max(256).optional(),
};
const needsAnId = (b: { message_id?: string; provider_message_id?: string }) => b.message_id !== undefined || b.provider_message_id !== undefined;
const anIdIssue = { message: 'give message_id or provider_message_id', path: ['message_id'] };

const SandboxReport = z
  .strictObject({
    ...ids,
    status: z.enum(['delivered', 'failed', 'undelivered']),
    reason: z.string().trim().min(1).max(500).optional(),
  })
  .refine(needsAnId, anIdIssue);

const SmtpFeedback = z
  .strictObject({
    type: z.enum(['bounce', 'complaint', 'delivered']),
    ...ids,
    recipient: z.string().trim().toLowerCase().max(254).pipe(z.email({ message: 'must be an email address' })),
    reason: z.string().trim().min(1).max(500).optional(),
    bounce_type: z.enum(['hard', 'soft']).optional(),
  })
  .refine(needsAnId, anIdIssue);

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
  })
  .refine((p) => (p.MessageSid && p.MessageStatus) || (p.CallSid && p.CallStatus), {
    message: 'MessageSid and MessageStatus are required',
    path: ['MessageSid'],
  });

const CARRIER_FIELDS = ['MessageSid', 'MessageStatus', 'CallSid', 'CallStatus', 'ErrorCode', 'ErrorMessage', 'To', 'From'] as const;
const CARRIER_DELIVERED = new Set(['delivered', 'read', 'completed']);
const CARRIER_FAILED = new Set(['undelivered', 'failed', 'canceled', 'busy', 'no-answer']);

const WhatsAppStatus = z.object({
  id: z.string().min(1).max(256),
  status: z.string().min(1).max(32),
  timestamp: z.string().max(32).optional(),
  recipient_id: z.string().max(64).optional(),
  errors: z
    .array(
      z.object({
        code: z.union([z.number(), z.string().max(32)]),
        title: z.string().max(1000).optional(),
        message: z.string().max(1000).optional(),
        error_data: z.object({ details: z.string().max(2000).optional() }).optional(),
      }),
    )
    .max(20)
    .optional(),
});

const WhatsAppBody = z.object({
  object: z.literal('whatsapp_business_account'),
  entry: z
    .array(
      z.object({
        id: z.string().optional(),
        changes: z
          .array(z.object({ field: z.string().optional(), value: z.object({ statuses: z.array(WhatsAppStatus).optional() }).optional() }))
          .default([]),
      }),
    )
    .max(MAX_REPORTS),
});

const WhatsAppVerify = z.object({
  'hub.mode': z.literal('subscribe', { message: 'must be subscribe' }),
  'hub.verify_token': z.string().min(1).max(1024),
  'hub.challenge': z.string().min(1).max(1024),
});

// ---------------------------------------------------------------------------------------------
// the routes

// callbacks are limited only when their signature fails (rate-limit plugin; README "Provider callbacks")
const ROUTE_CONFIG = { auth: 'none', scope: null, rateGroup: 'callback' } as const;

/** Registers the four callback routes in a child context of their own (raw-body parsers). */
export function providerWebhookRoutes({ engage }: AppDeps): FastifyPluginAsync {
  return async (child: FastifyInstance) => {
    const secrets = await providerSecrets(engage);

    // every body arrives as raw bytes: signatures are computed over exactly what was sent
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: CALLBACK_BODY_LIMIT }, (_req, body, done) => done(null, body));

    const received = (n: number) => ({ received: n });

    child.post('/v1/webhooks/sandbox', { config: ROUTE_CONFIG }, async (req) => {
      const given = header(req, 'x-sandbox-secret');
      if (!given || !safeEqual(given, secrets.sandbox)) throw unauthorized(given ? 'X-Sandbox-Secret is not the sandbox secret' : 'send the sandbox secret in X-Sandbox-Secret');
      requireMediaType(req, 'application/json');
      const items = parseOneOrMany(SandboxReport, parseJson(rawBody(req)));
      const reports = items.map(
        (b): DeliveryReport => ({
          provider: 'sandbox',
          messageId: ourId(b.message_id),
          providerMessageId: b.provider_message_id,
          status: b.status === 'delivered' ? 'delivered' : 'failed',
          ...(b.status === 'delivered' ? {} : { reason: b.reason ?? b.status }),
          providerData: compact({ callback: 'sandbox', status: b.status, reason: b.reason }),
        }),
      );
      await record(engage, req, 'sandbox', reports);
      return received(items.length);
    });

    child.post('/v1/webhooks/smtp', { config: ROUTE_CONFIG }, async (req) => {
      const given = header(req, 'x-smtp-feedback-secret');
      if (!given || !safeEqual(given, secrets.smtp)) throw unauthorized(given ? 'X-Smtp-Feedback-Secret is not the SMTP feedback secret' : 'send the SMTP feedback secret in X-Smtp-Feedback-Secret');
      requireMediaType(req, 'application/json');
      const items = parseOneOrMany(SmtpFeedback, parseJson(rawBody(req)));
      const reports = items.map((b): DeliveryReport => {
        const base = {
          provider: 'smtp',
          messageId: ourId(messageIdOfEmail(b.message_id)),
          providerMessageId: b.provider_message_id?.replace(/^<(.*)>$/, '$1'),
          recipient: b.recipient,
          providerData: compact({ feedback: b.type, recipient: b.recipient, reason: b.reason, bounce_type: b.bounce_type }),
        };
        // a bounce fails the message and is a signal on the contact; a complaint means the mail
        // arrived (so at most it completes a sent message) and suppresses the recipient
        if (b.type === 'bounce') return { ...base, status: 'failed', reason: b.reason ? `bounced:${b.reason}` : 'bounced', feedback: 'bounce' };
        if (b.type === 'complaint') return { ...base, status: 'delivered', feedback: 'complaint' };
        return { ...base, status: 'delivered' };
      });
      await record(engage, req, 'smtp', reports);
      return received(items.length);
    });

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
      if (!matches.includes(true)) throw unauthorized('X-Carrier-Signature does not match this request');

      const repeated = CARRIER_FIELDS.filter((name) => (params.get(name)?.length ?? 0) > 1);
      if (repeated.length) throw validationError(`repeated parameter ${repeated.join(', ')}`, repeated.map((path) => ({ path, message: 'given more than once' })));
      const p = parse(CarrierParams, Object.fromEntries([...params].map(([name, values]) => [name, values[0]])));
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

    child.get('/v1/webhooks/whatsapp', { config: { ...ROUTE_CONFIG, rateGroup: 'public' } }, async (req, reply) => {
      const q = WhatsAppVerify.safeParse(req.query ?? {});
      if (!q.success) {
        const issues = toIssues(q.error);
        throw validationError(`invalid query: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
      }
      if (!safeEqual(q.data['hub.verify_token'], secrets.whatsappVerifyToken)) throw forbidden('hub.verify_token does not match');
      reply.header('X-Content-Type-Options', 'nosniff');
      return reply.type('text/plain; charset=utf-8').send(q.data['hub.challenge']);
    });

    child.post('/v1/webhooks/whatsapp', { config: ROUTE_CONFIG }, async (req) => {
      const raw = rawBody(req);
      const given = header(req, 'x-hub-signature-256');
      if (!given) throw unauthorized('send the payload signature in X-Hub-Signature-256');
      if (!safeEqual(given.toLowerCase(), whatsappSignature(secrets.whatsapp, raw))) throw unauthorized('X-Hub-Signature-256 does not match the payload');
      requireMediaType(req, 'application/json');
      const body = parse(WhatsAppBody, parseJson(raw));
      const reports: DeliveryReport[] = [];
      let n = 0;
      for (const entry of body.entry) {
        for (const change of entry.changes) {
          for (const s of change.value?.statuses ?? []) {
            n++;
            const status = s.status.toLowerCase();
            const first = s.errors?.[0];
            const providerData = compact({
              callback: 'whatsapp',
              status,
              timestamp: s.timestamp,
              recipient_id: s.recipient_id,
              error_code: first?.code,
              error_title: first?.title,
              error_details: first?.error_data?.details,
            });
            if (status === 'delivered' || status === 'read') reports.push({ provider: 'whatsapp', providerMessageId: s.id, status: 'delivered', providerData });
            else if (status === 'failed') {
              const reason = `failed${first ? `:${first.code}${first.title ? ` ${first.title}` : ''}` : ''}`;
              reports.push({ provider: 'whatsapp', providerMessageId: s.id, status: 'failed', reason, providerData });
            }
            // sent (accepted by WhatsApp), deleted, warning, …: acknowledged, nothing to record
          }
        }
      }
      await record(engage, req, 'whatsapp', reports);
      return received(n);
    });
  };
}
