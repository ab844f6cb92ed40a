// POST /v1/webhooks/smtp: JSON email feedback (bounce, complaint, delivered), header X-Smtp-Feedback-Secret.
import { z } from 'zod';
import type { DeliveryReport } from '../../../channels/port.ts';
import { anIdIssue, compact, ids, jsonReports, messageIdOfEmail, needsAnId, ourId, received, record, requireSharedSecret, ROUTE_CONFIG, type ProviderRoutes } from './common.ts';

const SmtpFeedback = z
  .strictObject({
    type: z.enum(['bounce', 'complaint', 'delivered']),
    ...ids,
    recipient: z.string().trim().toLowerCase().max(254).pipe(z.email({ message: 'must be an email address' })),
    reason: z.string().trim().min(1).max(500).optional(),
    bounce_type: z.enum(['hard', 'soft']).optional(),
  })
  .refine(needsAnId, anIdIssue);

export const smtpRoutes: ProviderRoutes = (child, { engage, secrets }) => {
  child.post('/v1/webhooks/smtp', { config: ROUTE_CONFIG }, async (req) => {
    requireSharedSecret(req, 'X-Smtp-Feedback-Secret', secrets.smtp, 'the SMTP feedback secret (WEBHOOK_SECRET_SMTP)');
    const items = jsonReports(req, SmtpFeedback);
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
};
