// Campaigns: /v1/campaigns (create, list, look up with counts by message status) and
// /v1/campaigns/:id/cancel. A campaign is sent by the campaign sender (src/workers/campaign-sender.ts).
import { SenderCheck } from '../../senders/send-check.ts';
import { z } from 'zod';
import type { Audience, CampaignStatus, CampaignTemplate } from '../../../commands/campaign.ts';
import { CHANNELS, type MessageStatus } from '../../../commands/message.ts';
import { findCampaign, listCampaigns } from '../../../projections/campaigns.ts';
import { campaignOut, campaignView, campaignWithCounts, cancelCampaign, createCampaign } from '../../campaigns/service.ts';
import { runCommand } from '../../command-handler.ts';
import type { Engage } from '../../context.ts';
import { AppError, type Issue, invalid, invalidField } from '../../errors.ts';
import { requireCapabilities } from '../plugins/auth.ts';
import { MAX_SCHEDULE_AHEAD_MS, SendFields, validateTemplate } from '../../messages/validation.ts';
import { toIssues } from '../../validation.ts';
import { TemplateSendFields } from '../../templates/sends.ts';
import { templateVersion } from '../../templates/service.ts';
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
/** A campaign's template fields (README "Templates"): each member's message made from its contact. */
const TemplateRefFields = {
  template_id: TemplateSendFields.template_id.optional(),
  template_version: TemplateSendFields.template_version.optional().describe('the template version to send; the newest when the campaign sends, when left out'),
  data: TemplateSendFields.data.optional().describe('the values the template reads as data.<key>, the same for every member'),
};
const TemplateRef = z.object(TemplateRefFields);
const CampaignBody = z
  .strictObject({ ...TemplateFields, message: TemplateFields.message.optional(), ...TemplateRefFields, ...CampaignFields.shape })
  .meta({ id: 'CampaignBody', description: 'A campaign: its name, its audience (a list or a segment), when it sends, and the message every member gets (its content, or the template that makes each member’s own)' });

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
    message: z.string().optional().describe('left out when a template makes each member’s message'),
    template_id: z.string().optional(),
    template_version: z.int().optional().describe('the version it sends; left out: the newest when it sends'),
    data: z.record(z.string(), z.unknown()).optional(),
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
  const { name, audience, scheduled_at, template_id, template_version, data, ...template } = body as Record<string, unknown>;
  const issues: Issue[] = [];
  const fields = CampaignFields.safeParse({ name, audience, scheduled_at });
  if (!fields.success) issues.push(...toIssues(fields.error));
  // a campaign is addressed to its audience (validateTemplate would put its own recipient in `to`)
  if ('to' in template) issues.push({ path: 'to', message: 'a campaign is sent to its audience: to is not allowed' });
  // a template makes each member's message: its content fields are then left out, the rest checked
  const ref = TemplateRef.safeParse({ template_id, template_version, data });
  if (!ref.success) issues.push(...toIssues(ref.error));
  const templated = template_id !== undefined;
  if (templated) for (const f of ['message', 'subject', 'htmlmessage']) if (template[f] !== undefined) issues.push({ path: f, message: `${f} is made by the template: leave it out when template_id is given` });
  if (!templated && (template_version !== undefined || data !== undefined)) issues.push({ path: 'template_id', message: 'template_version and data go with a template_id' });
  const checked = validateTemplate(templated ? { ...template, message: '-' } : template, now, { allowPrivateWebhooks });
  if (!checked.ok) issues.push(...checked.issues);
  let scheduledAt: Date | undefined;
  if (fields.success && fields.data.scheduled_at !== undefined) {
    scheduledAt = new Date(fields.data.scheduled_at);
    if (scheduledAt.getTime() < now.getTime()) issues.push({ path: 'scheduled_at', message: 'must be in the future' });
    else if (scheduledAt.getTime() - now.getTime() > MAX_SCHEDULE_AHEAD_MS) issues.push({ path: 'scheduled_at', message: 'must be at most 365 days ahead' });
  }
  if (issues.length || !fields.success || !checked.ok || !ref.success) throw invalid(issues);
  const a = fields.data.audience;
  const target: Audience = a.list_id !== undefined ? { type: 'list', id: a.list_id } : { type: 'segment', id: a.segment_id! };
  let content: CampaignTemplate = checked.value.content;
  if (templated) {
    const { message: _placeholder, ...rest } = checked.value.content;
    content = { ...rest, template_id: ref.data.template_id, ...(ref.data.template_version !== undefined ? { template_version: ref.data.template_version } : {}), ...(ref.data.data !== undefined ? { data: ref.data.data } : {}) };
  }
  return { name: fields.data.name, audience: target, template: content, ...(scheduledAt ? { scheduledAt } : {}) };
}

/** A templated campaign's template: the account's, of the campaign's channel, with the version it names. */
async function checkTemplate(engage: Engage, accountId: string, template: CampaignTemplate): Promise<void> {
  let version;
  try {
    version = await templateVersion(engage, accountId, template.template_id!, template.template_version);
  } catch (err) {
    if (!(err instanceof AppError) || err.statusCode !== 404) throw err;
    throw err.message === 'template version not found' ? invalidField('template_version', 'no such version of the template') : invalidField('template_id', 'no such template');
  }
  if (version.channel !== template.channel) throw invalidField('channel', `the template is for ${version.channel}`);
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
        if (input.template.template_id !== undefined) await checkTemplate(engage, auth.accountId, input.template);
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
