// WhatsApp Cloud API: POST /v1/webhooks/whatsapp (status webhooks, header X-Hub-Signature-256 =
// "sha256=" + hex HMAC-SHA256(app secret, raw body)) and GET, Meta's verification handshake.
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import type { DeliveryReport } from '../../../channels/port.ts';
import { forbidden, unauthorized } from '../../../errors.ts';
import { compact, header, MAX_REPORTS, parse, parseJson, rawBody, received, record, requireMediaType, ROUTE_CONFIG, safeEqual, type ProviderRoutes } from './common.ts';

/** Meta's payload signature: "sha256=" + hex HMAC-SHA256 of the raw body, keyed with the app secret. */
export function whatsappSignature(secret: string, raw: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}

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

export const whatsappRoutes: ProviderRoutes = (child, { engage, secrets }) => {
  child.get('/v1/webhooks/whatsapp', { config: { ...ROUTE_CONFIG, rateGroup: 'public' } }, async (req, reply) => {
    const q = parse(WhatsAppVerify, req.query ?? {}, 'query');
    if (!safeEqual(q['hub.verify_token'], secrets.whatsappVerifyToken)) throw forbidden('hub.verify_token does not match');
    reply.header('X-Content-Type-Options', 'nosniff');
    return reply.type('text/plain; charset=utf-8').send(q['hub.challenge']);
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
