// Campaigns: /v1/campaigns (create, list, look up with counts by message status) and
// /v1/campaigns/:id/cancel. A campaign is sent by the campaign sender (src/workers/campaign-sender.ts).
import { SenderCheck } from '../../senders/send-check.ts';
import { z } from 'zod';
import type { Audience, CampaignStatus } from '../../../commands/campaign.ts';
import { CHANNELS, type MessageStatus } from '../../../commands/message.ts';
import { findCampaign, listCampaigns } from '../../../projections/campaigns.ts';
import { campaignOut, campaignView, campaignWithCounts, cancelCampaign, createCampaign } from '../../campaigns/service.ts';
import { runCommand } from '../../command-handler.ts';
import type { Engage } from '../../context.ts';
import { type Issue, invalid } from '../../errors.ts';
import { requireCapabilities } from '../plugins/auth.ts';
import { MAX_SCHEDULE_AHEAD_MS, SendFields, contactAddressField, validateTemplate } from '../../messages/validation.ts';
import { toIssues } from '../../validation.ts';
import type { AppDeps } from '../deps.ts';
import { Timestamp, found, metadataOf, pageById, pageQuery } from '../common.ts';
import { DateTime, Page } from '../openapi.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const IdParams = z.object({ id: z.string().max(64) });
const STATUSES = ['scheduled', 'sending', 'sent', 'cancelled', 'failed'] as const satisfies readonly CampaignStatus[];
const MESSAGE_STATUSES = ['scheduled', 'queued', 'sent', 'delivered', 'failed', 'cancelled'] as const satisfies readonly MessageStatus[];
const CampaignQuery = z.strictObject({ ...pageQuery, status: z.enum(STATUSES).optional() });

const Ref = z.string().trim().min(1).max(64);
const AudienceBody = z
  .strictObject({ list_id: Ref.optional(), segment_id: Ref.optional() })
  .refine((a) => (a.list_id === undefined) !== (a.segment_id === undefined), { message: 'name exactly one of list_id or segment_id' });
/** The campaign's own fields; the rest of the body is the message template (the fields of a send, without `to`). */
const CampaignFields = z.object({ name: z.string().trim().min(1).max(200), audience: AudienceBody, scheduled_at: Timestamp.optional() });

/** The create body as documented: the campaign's fields and a send's fields without `to` (parseCampaign validates it). */
const { to: _to, ...TemplateFields } = SendFields;
const CampaignBody = z.strictObject({ ...TemplateFields, ...CampaignFields.shape }).meta({ id: 'CampaignBody', description: "A campaign: its name, its audience (a list or a segment), when it sends, and the message every member gets" });

/** The read model a write's response waits for. */
const CAMPAIGNS = ['campaigns'];

/** Fields a write's answer leaves out when it is made from the campaign's stream (the read model not having it yet). */
const fromReadModel = (schema: z.ZodType) => schema.optional().describe('(left out only in the answer of a write the read model had not yet taken in)');

const CampaignOut = z
  .object({
    id: z.string(),
    name: z.string(),
    audience: z.union([z.object({ list_id: z.string() }), z.object({ segment_id: z.string() })]),
    // the message template: a send's fields without `to`
    channel: z.enum(CHANNELS),
    message: z.string(),
    htmlmessage: z.string().optional(),
    subject: z.string().optional(),
    reply_to: z.string().optional(),
    from_name: z.string().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    sender: z.string().optional(),
    transactional: z.boolean(),
    category: z.string().optional(),
    webhook_url: z.string().optional(),
    status: z.enum(STATUSES),
    scheduled_at: DateTime.nullable(),
    accepted: z.int().describe('messages accepted so far'),
    skipped: z.int().describe('members without an address on the channel'),
    failure_reason: fromReadModel(z.string().nullable()),
    created_at: DateTime,
    started_at: DateTime.nullable().describe('when its send started'),
    sent_at: fromReadModel(DateTime.nullable()),
    cancelled_at: fromReadModel(DateTime.nullable()),
    failed_at: fromReadModel(DateTime.nullable()),
  })
  .meta({ id: 'Campaign', description: "A campaign: its audience, the message template every member gets, and its send's progress" });

const CampaignWithCountsOut = CampaignOut.extend({
  messages: z.object(Object.fromEntries(MESSAGE_STATUSES.map((s) => [s, z.int()])) as Record<MessageStatus, z.ZodInt>).describe("the campaign's messages counted by status"),
});

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
      operationId: 'createCampaign',
      summary: 'Create a campaign: one message to every member of a list or segment, sent now or at scheduled_at',
      tags: ['campaigns'],
      docBody: CampaignBody,
      responses: { 201: CampaignOut.describe('the campaign (status sending, or scheduled)') },
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
      operationId: 'listCampaigns',
      summary: 'List campaigns, newest first (filter: status)',
      tags: ['campaigns'],
      query: CampaignQuery,
      responses: { 200: Page(CampaignOut) },
      async handler({ query: { limit, cursor, status }, auth }) {
        return pageById({ limit, cursor }, (range) => listCampaigns(engage.pool, auth.accountId, { status }, range), campaignOut);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/campaigns/:id',
      auth: 'key_or_login',
      operationId: 'getCampaign',
      summary: "Look up one campaign, with its messages counted by status",
      tags: ['campaigns'],
      params: IdParams,
      responses: { 200: CampaignWithCountsOut.describe('the campaign, with its messages counted by status') },
      async handler({ params, auth }) {
        return campaignWithCounts(engage, found(await findCampaign(engage.pool, auth.accountId, params.id), 'campaign'));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/campaigns/:id/cancel',
      auth: 'key_or_login',
      operationId: 'cancelCampaign',
      summary: 'Cancel a scheduled campaign (409 not_cancellable once its send has started)',
      tags: ['campaigns'],
      params: IdParams,
      responses: { 200: CampaignOut.describe('the campaign, cancelled') },
      async handler({ params, auth, req }) {
        const write = await runCommand(engage, metadataOf(req), CAMPAIGNS, (metadata) => cancelCampaign(engage, auth.accountId, params.id, metadata));
        return campaignAfter(engage, auth.accountId, write);
      },
    }),
  ];
}
