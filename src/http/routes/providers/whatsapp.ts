// WhatsApp Cloud API: POST /v1/webhooks/whatsapp (status webhooks and inbound messages, header
// X-Hub-Signature-256 = "sha256=" + hex HMAC-SHA256(app secret, raw body)) and GET, Meta's
// verification handshake.
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import type { DeliveryReport } from '../../../channels/port.ts';
import { forbidden, unauthorized } from '../../../errors.ts';
import { compact, header, MAX_REPORTS, parse, parseJson, type ProviderInbound, rawBody, received, receiveFromProvider, record, requireMediaType, ROUTE_CONFIG, safeEqual, type ProviderRoutes } from './common.ts';

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

/** An inbound message (Cloud API `value.messages[]`): text, or another type whose caption or title is its text. */
const WhatsAppMessage = z.object({
  from: z.string().min(1).max(32),
  id: z.string().min(1).max(256),
  timestamp: z.string().max(32).optional(),
  type: z.string().max(32).optional(),
  text: z.object({ body: z.string().max(100_000) }).optional(),
  button: z.object({ text: z.string().max(10_000).optional() }).optional(),
  interactive: z
    .object({ button_reply: z.object({ title: z.string().max(10_000) }).optional(), list_reply: z.object({ title: z.string().max(10_000) }).optional() })
    .optional(),
  image: z.object({ caption: z.string().max(10_000).optional() }).optional(),
  video: z.object({ caption: z.string().max(10_000).optional() }).optional(),
  document: z.object({ caption: z.string().max(10_000).optional() }).optional(),
});
type WhatsAppMessage = z.infer<typeof WhatsAppMessage>;

const WhatsAppMetadata = z.object({ display_phone_number: z.string().max(32).optional(), phone_number_id: z.string().max(64).optional() });

/** The text of an inbound message; a message without any (a sticker, a location) reads as its type in brackets. */
function textOf(m: WhatsAppMessage): string {
  return m.text?.body ?? m.button?.text ?? m.interactive?.button_reply?.title ?? m.interactive?.list_reply?.title ?? m.image?.caption ?? m.video?.caption ?? m.document?.caption ?? `[${m.type ?? 'message'}]`;
}

/** When WhatsApp says the message was sent (Unix seconds), else now. */
function sentAt(timestamp: string | undefined): Date | undefined {
  const seconds = timestamp && /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : NaN;
  return Number.isFinite(seconds) ? new Date(seconds * 1000) : undefined;
}

const WhatsAppBody = z.object({
  object: z.literal('whatsapp_business_account'),
  entry: z
    .array(
      z.object({
        id: z.string().optional(),
        changes: z
          .array(
            z.object({
              field: z.string().optional(),
              value: z
                .object({ statuses: z.array(WhatsAppStatus).optional(), messages: z.array(WhatsAppMessage).max(MAX_REPORTS).optional(), metadata: WhatsAppMetadata.optional() })
                .optional(),
            }),
          )
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
    if (!safeEqual(q['hub.verify_token'], secrets.whatsappVerifyToken)) throw forbidden('hub.verify_token does not match WHATSAPP_VERIFY_TOKEN');
    reply.header('X-Content-Type-Options', 'nosniff');
    return reply.type('text/plain; charset=utf-8').send(q['hub.challenge']);
  });

  child.post('/v1/webhooks/whatsapp', { config: ROUTE_CONFIG }, async (req) => {
    const raw = rawBody(req);
    const given = header(req, 'x-hub-signature-256');
    if (!given) throw unauthorized('send the payload signature in X-Hub-Signature-256');
    if (!safeEqual(given.toLowerCase(), whatsappSignature(secrets.whatsapp, raw))) throw unauthorized('X-Hub-Signature-256 does not match the payload (signed with the app secret, WEBHOOK_SECRET_WHATSAPP)');
    requireMediaType(req, 'application/json');
    const body = parse(WhatsAppBody, parseJson(raw));
    const reports: DeliveryReport[] = [];
    const inbound: ProviderInbound[] = [];
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
        const meta = change.value?.metadata;
        // the number written to, in every form WhatsApp names it: +E.164, bare digits, its phone number id
        const digits = meta?.display_phone_number?.replace(/[^0-9]/g, '');
        const to = [...(digits ? [`+${digits}`, digits] : []), ...(meta?.phone_number_id ? [meta.phone_number_id] : [])];
        for (const m of change.value?.messages ?? []) {
          n++;
          if (to.length === 0) continue; // no number written to: nobody to route it to
          inbound.push({ channel: 'whatsapp', family: 'whatsapp', from: m.from, to, body: textOf(m), providerMessageId: m.id, receivedAt: sentAt(m.timestamp) });
        }
      }
    }
    for (const m of inbound) await receiveFromProvider(engage, req, 'whatsapp', m);
    await record(engage, req, 'whatsapp', reports);
    return received(n);
  });
};
