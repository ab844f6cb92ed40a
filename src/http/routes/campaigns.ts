// Campaigns: /v1/campaigns (create, list, look up with counts by message status) and
// /v1/campaigns/:id/cancel. A campaign is sent by the campaign sender (src/workers/campaign-sender.ts).
import { SenderCheck } from '../../senders/send-check.ts';
import { z } from 'zod';
import type { Audience, CampaignStatus } from '../../../commands/campaign.ts';
import { findCampaign, listCampaigns } from '../../../projections/campaigns.ts';
import { campaignOut, campaignView, campaignWithCounts, cancelCampaign, createCampaign } from '../../campaigns/service.ts';
import { runCommand } from '../../command-handler.ts';
import type { Engage } from '../../context.ts';
import { type Issue, invalid } from '../../errors.ts';
import { requireCapabilities } from '../plugins/auth.ts';
import { MAX_SCHEDULE_AHEAD_MS, contactAddressField, validateTemplate } from '../../messages/validation.ts';
import { toIssues } from '../../validation.ts';
import type { AppDeps } from '../deps.ts';
import { Timestamp, found, metadataOf, pageById, pageQuery } from '../common.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const IdParams = z.object({ id: z.string().max(64) });
const STATUSES = ['scheduled', 'sending', 'sent', 'cancelled', 'failed'] as const satisfies readonly CampaignStatus[];
const CampaignQuery = z.strictObject({ ...pageQuery, status: z.enum(STATUSES).optional() });

const Ref = z.string().trim().min(1).max(64);
const AudienceBody = z
  .strictObject({ list_id: Ref.optional(), segment_id: Ref.optional() })
  .refine((a) => (a.list_id === undefined) !== (a.segment_id === undefined), { message: 'name exactly one of list_id or segment_id' });
/** The campaign's own fields; the rest of the body is the message template (the fields of a send, without `to`). */
const CampaignFields = z.object({ name: z.string().trim().min(1).max(200), audience: AudienceBody, scheduled_at: Timestamp.optional() });

/** The read model a write's response waits for. */
const CAMPAIGNS = ['campaigns'];

/** Validates a create body: the campaign's fields and its template, every issue named by its path. */
function parseCampaign(body: unknown, now: Date, allowPrivateWebhooks: boolean) {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalid([{ path: '', message: 'expected a JSON object' }]);
  const { name, audience, scheduled_at, ...template } = body as Record<string, unknown>;
  const issues: Issue[] = [];
  const fields = CampaignFields.safeParse({ name, audience, scheduled_at });
  if (!fields.success) issues.push(...toIssues(fields.error));
  // a campaign is addressed to its audience (validateTemplate would put its own recipient in `to`)
  if ('to' in template) issues.push({ path: 'to', message: 'a campaign is sent to its audience: to is not allowed' });
  const checked = validateTemplate(template, now, { allowPrivateWebhooks });
  if (!checked.ok) issues.push(...checked.issues);
  if (checked.ok && contactAddressField(checked.value.content.channel) === null) {
    issues.push({ path: 'channel', message: 'contacts hold no push device tokens: a campaign sends on sms, rcs, whatsapp, voice or email' });
  }
  let scheduledAt: Date | undefined;
  if (fields.success && fields.data.scheduled_at !== undefined) {
    scheduledAt = new Date(fields.data.scheduled_at);
    if (scheduledAt.getTime() < now.getTime()) issues.push({ path: 'scheduled_at', message: 'must be in the future' });
    else if (scheduledAt.getTime() - now.getTime() > MAX_SCHEDULE_AHEAD_MS) issues.push({ path: 'scheduled_at', message: 'must be at most 365 days ahead' });
  }
  if (issues.length || !fields.success || !checked.ok) throw invalid(issues);
  const a = fields.data.audience;
  const target: Audience = a.list_id !== undefined ? { type: 'list', id: a.list_id } : { type: 'segment', id: a.segment_id! };
  return { name: fields.data.name, audience: target, template: checked.value.content, ...(scheduledAt ? { scheduledAt } : {}) };
}

/** The campaign as the read model shows it after a write; the stream's view if the read model is late. */
async function campaignAfter(engage: Engage, accountId: string, write: Awaited<ReturnType<typeof createCampaign>>) {
  const row = await findCampaign(engage.pool, accountId, write.id);
  return row ? campaignOut(row) : campaignView(write.id, write.state);
}

export function campaignRoutes({ engage }: AppDeps): AnyRoute[] {
  const allowPrivateWebhooks = engage.config.WEBHOOK_ALLOW_PRIVATE;
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/campaigns',
      auth: 'key_or_login',
      summary: 'Create a campaign: one message to every member of a list or segment, sent now or at scheduled_at',
      tags: ['campaigns'],
      responses: { 201: 'the campaign (status sending, or scheduled)' },
      async handler({ body, auth, req, reply }) {
        // its messages go to the account's contacts, whose addresses every status webhook carries:
        // a webhook_url of the caller's choosing needs read as well (README "API conventions")
        if ((body as { webhook_url?: unknown } | null)?.webhook_url != null) requireCapabilities(auth, ['read']);
        const input = parseCampaign(body, engage.clock.now(), allowPrivateWebhooks);
        const senderIssues = await new SenderCheck(engage, auth.accountId).templateIssues(input.template);
        if (senderIssues.length > 0) throw invalid(senderIssues);
        const write = await runCommand(engage, metadataOf(req), CAMPAIGNS, (metadata) => createCampaign(engage, auth.accountId, input, metadata));
        reply.code(201);
        return campaignAfter(engage, auth.accountId, write);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/campaigns',
      auth: 'key_or_login',
      summary: 'List campaigns, newest first (filter: status)',
      tags: ['campaigns'],
      query: CampaignQuery,
      async handler({ query: { limit, cursor, status }, auth }) {
        return pageById({ limit, cursor }, (range) => listCampaigns(engage.pool, auth.accountId, { status }, range), campaignOut);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/campaigns/:id',
      auth: 'key_or_login',
      summary: "Look up one campaign, with its messages counted by status",
      tags: ['campaigns'],
      params: IdParams,
      async handler({ params, auth }) {
        return campaignWithCounts(engage, found(await findCampaign(engage.pool, auth.accountId, params.id), 'campaign'));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/campaigns/:id/cancel',
      auth: 'key_or_login',
      summary: 'Cancel a scheduled campaign (409 not_cancellable once its send has started)',
      tags: ['campaigns'],
      params: IdParams,
      async handler({ params, auth, req }) {
        const write = await runCommand(engage, metadataOf(req), CAMPAIGNS, (metadata) => cancelCampaign(engage, auth.accountId, params.id, metadata));
        return campaignAfter(engage, auth.accountId, write);
      },
    }),
  ];
}
