// POST /v1/webhooks/sandbox: JSON delivery reports for the sandbox provider, header X-Sandbox-Secret.
import { z } from 'zod';
import type { DeliveryReport } from '../../../channels/port.ts';
import { unauthorized } from '../../../errors.ts';
import { anIdIssue, compact, header, ids, needsAnId, ourId, parseJson, parseOneOrMany, rawBody, received, record, requireMediaType, ROUTE_CONFIG, safeEqual, type ProviderRoutes } from './common.ts';

const SandboxReport = z
  .strictObject({
    ...ids,
    status: z.enum(['delivered', 'failed', 'undelivered']),
    reason: z.string().trim().min(1).max(500).optional(),
  })
  .refine(needsAnId, anIdIssue);

export const sandboxRoutes: ProviderRoutes = (child, { engage, secrets }) => {
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
};
