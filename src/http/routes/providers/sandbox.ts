// POST /v1/webhooks/sandbox: JSON delivery reports for the sandbox provider, header X-Sandbox-Secret.
import { z } from 'zod';
import type { DeliveryReport } from '../../../channels/port.ts';
import { anIdIssue, compact, ids, jsonReports, needsAnId, ourId, received, record, requireSharedSecret, ROUTE_CONFIG, type ProviderRoutes } from './common.ts';

const SandboxReport = z
  .strictObject({
    ...ids,
    status: z.enum(['delivered', 'failed', 'undelivered']),
    reason: z.string().trim().min(1).max(500).optional(),
  })
  .refine(needsAnId, anIdIssue);

export const sandboxRoutes: ProviderRoutes = (child, { engage, secrets }) => {
  child.post('/v1/webhooks/sandbox', { config: ROUTE_CONFIG }, async (req) => {
    requireSharedSecret(req, 'X-Sandbox-Secret', secrets.sandbox, 'the sandbox secret (WEBHOOK_SECRET_SANDBOX)');
    const items = jsonReports(req, SandboxReport);
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
