// Messages: send, bulk, send-by-tag, history, lookup, cancel, resend, timeline.
import { z } from 'zod';
import { CHANNELS, isMarketing, MESSAGE_EVENT_TYPES, type MessageContent, type MessageEvent } from '../../../commands/message.ts';
import { Policy } from '../../messages/policy.ts';
import { describeIssues, invalid, notFound, validationError } from '../../errors.ts';
import { requireCapabilities } from '../plugins/auth.ts';
import { newId } from '../../ids.ts';
import { contactsWithTag } from '../../../projections/contacts.ts';
import { emailFieldsOf, listMessages, type MessageRow, reasonOf } from '../../../projections/messages.ts';
import { runCommand } from '../../command-handler.ts';
import { SenderCheck } from '../../senders/send-check.ts';
import { bulkIntakes } from '../../messages/bulk-intake.ts';
import { acceptMessages, acceptedData, acceptedRecord, cancelMessage, contentOf, findMessageById, timelineOf } from '../../messages/service.ts';
import { SendFields, contactAddressField, normaliseRecipient, validateSend, validateSends, validateTemplate, type ValidSend } from '../../messages/validation.ts';
import { renderTemplatedSends, TemplateSendFields } from '../../templates/sends.ts';
import type { AppDeps } from '../deps.ts';
import { Timestamp, found, iso, metadataOf, pageById, pageQuery } from '../common.ts';
import { DateTime, Page } from '../openapi.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

/** The read model a write's response waits for. */
const MESSAGES = ['messages'];
export const MAX_BULK = 10_000;
/** Bulk items validated per CPU work task (README "The write path"). */
const VALIDATE_SLICE = 1000;
const STATUSES = ['scheduled', 'queued', 'sent', 'delivered', 'failed', 'cancelled'] as const;
const IdParams = z.object({ id: z.string() });

const BulkBody = z.strictObject({
  messages: z.array(z.unknown()).min(1, 'send at least one message').max(MAX_BULK, `at most ${MAX_BULK} messages per bulk request`),
});

const { to: _to, ...byTagFields } = SendFields;
/** A send's template fields, each optional (README "Templates"). */
const TemplateRefFields = {
  template_id: TemplateSendFields.template_id.optional(),
  template_version: TemplateSendFields.template_version.optional(),
  data: TemplateSendFields.data.optional(),
};
const messageOrTemplate = (b: { message?: string; template_id?: string }) => (b.message === undefined) !== (b.template_id === undefined);
const MESSAGE_OR_TEMPLATE = { message: 'give either message or template_id', path: ['message'] };
const SendByTagBody = z
  .strictObject({ tag: z.string().trim().min(1).max(100), ...byTagFields, message: byTagFields.message.optional(), ...TemplateRefFields })
  .refine(messageOrTemplate, MESSAGE_OR_TEMPLATE);
/** A send as documented (and an agent's send_message tool): its content given, or made by a template (channel then optional: the template's). */
export const SendDoc = z.strictObject({ ...SendFields, channel: SendFields.channel.optional(), message: SendFields.message.optional(), ...TemplateRefFields });

const HistoryQuery = z.strictObject({
  ...pageQuery,
  status: z.enum(STATUSES).optional(),
  channel: z.enum(CHANNELS).optional(),
  to: z.string().min(1).max(4096).optional(),
  from: Timestamp.optional(),
  until: Timestamp.optional(),
});


type HoldReason = Extract<MessageEvent, { type: 'MessageHeld' }>['data']['reason'];
/** Why the dispatcher's policy holds a message back (every reason a MessageHeld can give). */
const HOLD_REASONS = Object.keys({ quiet_hours: 0, marketing_cap: 0, warmup_cap: 0 } satisfies Record<HoldReason, 0>) as [HoldReason, ...HoldReason[]];
const isHoldReason = (reason: string | null): reason is HoldReason => (HOLD_REASONS as readonly (string | null)[]).includes(reason);

/**
 * The hold a queued message is under: the policy decides it at dispatch (a send's answer only
 * forecasts it: README "Messaging"), so only a message the dispatcher has held shows one; its
 * reason stays the row's until the message is sent, fails or is retried.
 */
const holdOf = (r: Pick<MessageRow, 'status' | 'reason' | 'not_before'>) =>
  r.status === 'queued' && isHoldReason(r.reason) ? { reason: r.reason, until: iso(r.not_before) } : null;

export const messageOut = (r: MessageRow) => ({
  id: r.id,
  status: r.status,
  channel: r.channel,
  to: r.to_address,
  message: r.message,
  ...emailFieldsOf(r),
  sender: r.sender,
  // what the policy treats it as: also true for category "transactional" accepted before its event said so
  transactional: !r.marketing,
  category: r.category,
  webhook_url: r.webhook_url,
  scheduled_at: iso(r.scheduled_at),
  reason: reasonOf(r),
  held: holdOf(r),
  provider: r.provider,
  provider_message_id: r.provider_message_id,
  attempts: r.attempts,
  resend_of: r.resend_of,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
  queued_at: iso(r.queued_at),
  sent_at: iso(r.sent_at),
  delivered_at: iso(r.delivered_at),
  failed_at: iso(r.failed_at),
  cancelled_at: iso(r.cancelled_at),
});

const MessageHoldOut = z
  .object({
    reason: z.enum(HOLD_REASONS).describe("quiet_hours: the recipient's quiet hours; marketing_cap: the recipient's marketing messages of 24 h; warmup_cap: the sending domain's warm-up cap of the day"),
    until: DateTime.nullable().describe('when the dispatcher tries it again (null: not known)'),
  })
  .meta({ id: 'MessageHold', description: 'Why the sending policy holds a queued message back, and until when' });

const MessageOut = z
  .object({
    id: z.string(),
    status: z.enum(STATUSES),
    channel: z.enum(CHANNELS),
    to: z.string().describe('the recipient, normalised for its channel ([erased] once erased)'),
    message: z.string(),
    htmlmessage: z.string().optional().describe('email only, when given'),
    subject: z.string().optional().describe('email only, when given'),
    reply_to: z.string().optional().describe('email only, when given'),
    from_name: z.string().optional().describe('email only, when given'),
    headers: z.record(z.string(), z.string()).optional().describe('email only, when given'),
    sender: z.string().nullable(),
    transactional: z.boolean().describe('whether the sending policy treats it as transactional (transactional: true or category "transactional")'),
    category: z.string().nullable(),
    webhook_url: z.string().nullable(),
    scheduled_at: DateTime.nullable(),
    reason: z.string().nullable().describe("why it is where it is: a failure's reason (the provider's words while readable, else its category: suppressed, bounced, …), a hold's (as held.reason), or retrying"),
    held: MessageHoldOut.nullable().describe('set while the sending policy holds it back (decided when the dispatcher claims it; a send\'s answer forecasts it)'),
    provider: z.string().nullable(),
    provider_message_id: z.string().nullable(),
    attempts: z.int().describe('dispatch attempts so far (a hold is not one)'),
    resend_of: z.string().nullable().describe('the message this one resends'),
    created_at: DateTime,
    updated_at: DateTime,
    queued_at: DateTime.nullable(),
    sent_at: DateTime.nullable(),
    delivered_at: DateTime.nullable(),
    failed_at: DateTime.nullable(),
    cancelled_at: DateTime.nullable(),
  })
  .meta({ id: 'Message', description: 'A message: its content, status and the time of each status' });

/** What a send answers: the message as accepted (acceptedRecord). */
const AcceptedMessageOut = z
  .object({
    id: z.string(),
    status: z.enum(['scheduled', 'queued']),
    channel: z.enum(CHANNELS),
    to: z.string().describe('the recipient, normalised for its channel'),
    scheduled_at: DateTime.nullable(),
    created_at: DateTime,
    held: MessageHoldOut.optional().describe(
      'a marketing send the sending policy would hold if it were dispatched now (or at its scheduled time): why and until when, forecast from what has been sent so far',
    ),
  })
  .meta({ id: 'AcceptedMessage', description: 'A message just accepted: queued for dispatch, or scheduled' });

/** The send's answer, with the hold it will meet when there is one. */
const withHold = <T extends object>(record: T, held: { reason: HoldReason; until: Date } | null) => (held ? { ...record, held: { reason: held.reason, until: held.until.toISOString() } } : record);

const BulkItemAccepted = z.object({ index: z.int(), id: z.string(), status: z.enum(['scheduled', 'queued']) });
const BulkItemRejected = z.object({ index: z.int(), error: z.literal('validation_error'), message: z.string().describe('each issue of the item: `field: problem; …`') });
const BulkOut = z
  .object({
    accepted: z.int(),
    failed: z.int(),
    results: z.array(z.union([BulkItemAccepted, BulkItemRejected])).describe('one per item, in the order sent'),
  })
  .meta({ id: 'BulkSendResult', description: 'A bulk send: the items accepted, and each invalid one with its issues' });
const ByTagOut = z.object({
  accepted: z.int(),
  failed: z.int(),
  results: z
    .array(z.union([BulkItemAccepted.extend({ contact_id: z.string() }), BulkItemRejected.extend({ contact_id: z.string() })]))
    .describe('one per contact addressed, in contact order'),
  skipped: z.int().describe('contacts carrying the tag without an address on the channel'),
  skipped_contacts: z.array(z.object({ contact_id: z.string(), reason: z.string() })),
});

const CancelledOut = z.object({ id: z.string(), status: z.literal('cancelled'), cancelled_at: DateTime });

const TimelineOut = z
  .object({
    id: z.string(),
    status: z.enum(STATUSES),
    events: z.array(
      z.object({
        type: z.enum(MESSAGE_EVENT_TYPES),
        status: z.enum(STATUSES).nullable().describe('the status the event leads to (null: it changes none)'),
        at: DateTime,
        reason: z.string().nullable().describe("a failure's reason, a hold's, a retry's error, or why it was queued"),
        details: z
          .object({
            provider: z.string(),
            provider_message_id: z.string(),
            provider_data: z.record(z.string(), z.unknown()),
            worker: z.string(),
            attempt: z.int(),
            lease_until: DateTime,
            until: DateTime,
            retry_at: DateTime,
            detail: z.string(),
            stage: z.enum(['policy', 'provider', 'report']),
            previous_status: z.enum(['scheduled', 'queued']),
            scheduled_at: DateTime,
            url: z.string(),
          })
          .partial()
          .describe('what the event recorded besides its status and reason (each field only when it has one)'),
        revision: z.int().describe("the event's revision in the message's stream"),
        position: z.string().describe("the event's position in the log"),
        actor: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'MessageTimeline', description: "Every state change of a message, from its stream" });

/**
 * For /v1/messages/:id…: an id no message can have is missing like any other (404), not a malformed
 * request (400). (A literal segment in the :id place, `history`, `bulk`, never gets here: README
 * "API conventions".)
 */
function rejectImpossibleId(id: string): void {
  if (id.length > 64) throw notFound('message');
}

type ItemResult = { index: number; id?: string; status?: string; error?: string; message?: string };

export function messageRoutes({ engage }: AppDeps): AnyRoute[] {
  const sendOptions = { allowPrivateWebhooks: engage.config.WEBHOOK_ALLOW_PRIVATE };
  const policy = new Policy(engage.pool, engage.config, engage.clock);
  /**
   * The hold a marketing send will meet (README "Messaging"), or null; a forecast that fails leaves
   * the answer without one rather than failing a send that was accepted.
   */
  const forecastHoldOf = async (accountId: string, content: MessageContent, at: Date) => {
    if (!isMarketing(content)) return null;
    try {
      return await policy.forecastHold(accountId, content, at);
    } catch (err) {
      engage.log.warn({ err }, 'could not forecast the hold of a send');
      return null;
    }
  };
  /**
   * Validates many items, accepts the valid ones, reports every item by index. A bulk (or
   * send-by-tag) answers once its messages are stored in its intake, before they are in the log
   * (src/messages/bulk-intake.ts) and without waiting for the read model to apply thousands of rows:
   * each is readable by id at once (GET, timeline, cancel and resend read the message's stream when
   * its row is not there yet, after appending its bulk when that is not in the log yet), and listed
   * in history moments later.
   */
  async function acceptMany(accountId: string, items: unknown[], req: Parameters<typeof metadataOf>[0]) {
    const now = engage.clock.now();
    const results: ItemResult[] = new Array(items.length);
    const valid: ValidSend[] = [];
    const validIndex: number[] = [];
    const senders = new SenderCheck(engage, accountId);
    // the items that name a template are rendered first, into the sends they stand for
    const rendered = await renderTemplatedSends(engage, accountId, items);
    const toCheck: number[] = [];
    for (const [index, r] of rendered.entries()) {
      if (r.ok) toCheck.push(index);
      else results[index] = { index, error: 'validation_error', message: describeIssues(r.issues) };
    }
    const bodies = toCheck.map((index) => (rendered[index] as Extract<(typeof rendered)[number], { ok: true }>).body);
    // each item's validation (its phone number parsed once) on the CPU work threads, a slice a task
    const checked = await engage.cpu.runSlices('validateSends', bodies, VALIDATE_SLICE, (slice) => ({ items: slice, now, allowPrivateWebhooks: sendOptions.allowPrivateWebhooks }), (slice) => validateSends(slice, now, sendOptions));
    for (const [i, v] of checked.entries()) {
      const index = toCheck[i];
      const issues = v.ok ? await senders.issues(v.value) : v.issues;
      if (v.ok && issues.length === 0) {
        const r = rendered[index] as Extract<(typeof rendered)[number], { ok: true }>;
        valid.push(r.template ? { ...v.value, id: r.messageId, template: r.template } : v.value);
        validIndex.push(index);
      } else results[index] = { index, error: 'validation_error', message: describeIssues(issues) };
    }
    const bulkId = newId('bulk');
    // stored whole, then appended behind the answer (src/messages/bulk-intake.ts)
    const accepted = valid.map((item) => acceptedData(accountId, item, now, { bulkId }));
    if (accepted.length > 0) await bulkIntakes(engage).accept(accountId, bulkId, accepted, metadataOf(req));
    accepted.forEach((a, i) => {
      results[validIndex[i]] = { index: validIndex[i], id: a.id, status: a.status };
    });
    return { accepted: accepted.length, failed: items.length - accepted.length, results };
  }

  return [
    defineRoute({
      method: 'POST',
      url: '/v1/messages/send',
      auth: 'key_or_login',
      rateGroup: 'send',
      operationId: 'sendMessage',
      summary: 'Send one message (202: accepted for dispatch, or scheduled)',
      tags: ['messages'],
      docBody: SendDoc,
      responses: { 202: AcceptedMessageOut.describe('the message, accepted for dispatch (queued) or scheduled, and the hold it will meet if the sending policy holds it') },
      async handler({ body, auth, req, reply }) {
        const now = engage.clock.now();
        // a send that names a template is rendered first, into the send it stands for
        const [rendered] = await renderTemplatedSends(engage, auth.accountId, [body]);
        if (!rendered.ok) throw invalid(rendered.issues);
        const checked = validateSend(rendered.body, now, sendOptions);
        if (!checked.ok) throw invalid(checked.issues);
        const v = { ok: true as const, value: rendered.template ? { ...checked.value, id: rendered.messageId, template: rendered.template } : checked.value };
        const senderIssues = await new SenderCheck(engage, auth.accountId).issues(v.value);
        if (senderIssues.length > 0) throw invalid(senderIssues);
        const held = forecastHoldOf(auth.accountId, v.value.content, v.value.scheduledAt ?? now);
        const { accepted } = await runCommand(engage, metadataOf(req), MESSAGES, (metadata) => acceptMessages(engage, auth.accountId, [v.value], metadata));
        reply.code(202);
        return withHold(acceptedRecord(accepted[0]), await held);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/messages/bulk',
      auth: 'key_or_login',
      rateGroup: 'bulk',
      operationId: 'sendBulkMessages',
      summary: 'Send up to 10,000 messages; invalid items are reported as failed, valid ones accepted',
      tags: ['messages'],
      body: BulkBody,
      responses: { 202: BulkOut },
      async handler({ body, auth, req, reply }) {
        const out = await acceptMany(auth.accountId, body.messages, req);
        reply.code(202);
        return out;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/messages/send-by-tag',
      auth: 'key',
      rateGroup: 'bulk',
      operationId: 'sendMessagesByTag',
      summary: 'Send one message to every contact carrying a tag, addressed from the contact’s email or phone',
      tags: ['messages'],
      body: SendByTagBody,
      responses: { 202: ByTagOut.describe('the messages accepted, each item invalid for its contact, and the contacts skipped') },
      async handler({ body, auth, req, reply }) {
        // the recipients are the account's contacts, whose addresses every status webhook carries:
        // a webhook_url of the caller's choosing needs read as well (README "API conventions")
        if (body.webhook_url !== undefined) requireCapabilities(auth, ['read']);
        const { tag, template_id, template_version, data, ...template } = body;
        // a template's message is made per contact (acceptMany): the rest is checked here, once
        const checked = validateTemplate(template_id === undefined ? template : { ...template, message: '-' }, engage.clock.now(), sendOptions);
        if (!checked.ok) throw invalid(checked.issues);
        const templateRef = template_id === undefined ? {} : { template_id, ...(template_version !== undefined ? { template_version } : {}), ...(data !== undefined ? { data } : {}) };
        const addressColumn = contactAddressField(body.channel);
        const rows = await contactsWithTag(engage.pool, auth.accountId, tag, MAX_BULK + 1);
        if (rows.length > MAX_BULK) throw validationError(`more than ${MAX_BULK} contacts carry this tag; use bulk in pages`, [{ path: 'tag', message: 'too many contacts' }]);
        const skipped: { contact_id: string; reason: string }[] = [];
        const items: unknown[] = [];
        const contactOfItem: string[] = [];
        for (const c of rows) {
          const to = addressColumn ? c[addressColumn as 'email' | 'phone'] : null;
          if (!to || !normaliseRecipient(body.channel, to).ok) {
            skipped.push({ contact_id: c.id, reason: addressColumn ? `no ${addressColumn}` : `contacts carry no ${body.channel} address` });
            continue;
          }
          items.push({ ...template, to, ...templateRef });
          contactOfItem.push(c.id);
        }
        const out = items.length ? await acceptMany(auth.accountId, items, req) : { accepted: 0, failed: 0, results: [] as ItemResult[] };
        reply.code(202);
        return { ...out, skipped: skipped.length, skipped_contacts: skipped, results: out.results.map((r) => ({ ...r, contact_id: contactOfItem[r.index] })) };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/messages/history',
      auth: 'key_or_login',
      operationId: 'listMessages',
      summary: 'Message history, newest first (filters: status, channel, to, from, until)',
      tags: ['messages'],
      query: HistoryQuery,
      responses: { 200: Page(MessageOut) },
      async handler({ query: { limit, cursor, to, ...filter }, auth }) {
        let storedTo: string | undefined;
        if (to) {
          // recipients are stored normalised for their channel
          const norm = normaliseRecipient(filter.channel ?? (to.includes('@') ? 'email' : 'sms'), to);
          storedTo = norm.ok ? norm.to : to;
        }
        return pageById({ limit, cursor }, (range) => listMessages(engage.pool, auth.accountId, { ...filter, to: storedTo }, range), messageOut);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/messages/:id',
      auth: 'key_or_login',
      operationId: 'getMessage',
      summary: 'Look up one message',
      tags: ['messages'],
      params: IdParams,
      responses: { 200: MessageOut },
      async handler({ params, auth }) {
        rejectImpossibleId(params.id);
        return messageOut(found(await findMessageById(engage, auth.accountId, params.id), 'message'));
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/messages/:id',
      auth: 'key_or_login',
      operationId: 'cancelMessage',
      summary: 'Cancel a scheduled or queued message not yet picked up (409 not_cancellable otherwise)',
      tags: ['messages'],
      params: IdParams,
      responses: { 200: CancelledOut.describe('the message, cancelled') },
      // not_cancellable: already claimed for dispatch, sent or ended
      errors: [409],
      async handler({ params, auth, req }) {
        rejectImpossibleId(params.id);
        const result = await runCommand(engage, metadataOf(req), MESSAGES, (metadata) => cancelMessage(engage, auth.accountId, params.id, metadata));
        return { id: params.id, status: result.state.status, cancelled_at: (result.events[0]?.data as { at?: string } | undefined)?.at ?? null };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/messages/:id/resend',
      auth: 'key_or_login',
      rateGroup: 'send',
      operationId: 'resendMessage',
      summary: 'Send a new message to the same recipient with the same content',
      tags: ['messages'],
      params: IdParams,
      body: z.strictObject({}).optional(),
      responses: { 202: AcceptedMessageOut.extend({ resend_of: z.string().describe('the message resent') }).describe('the new message, accepted, and the hold it will meet if the sending policy holds it') },
      async handler({ params, auth, req, reply }) {
        rejectImpossibleId(params.id);
        const content = await contentOf(engage, auth.accountId, params.id);
        const held = forecastHoldOf(auth.accountId, content, engage.clock.now());
        const { accepted } = await runCommand(engage, metadataOf(req), MESSAGES, (metadata) => acceptMessages(engage, auth.accountId, [{ content }], metadata, { resendOf: params.id }));
        reply.code(202);
        return { ...withHold(acceptedRecord(accepted[0]), await held), resend_of: params.id };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/messages/:id/timeline',
      auth: 'key_or_login',
      operationId: 'getMessageTimeline',
      summary: 'Every state change of a message with time, reason and provider data (from its event stream)',
      tags: ['messages'],
      params: IdParams,
      responses: { 200: TimelineOut },
      async handler({ params, auth }) {
        rejectImpossibleId(params.id);
        return timelineOf(engage, auth.accountId, params.id);
      },
    }),
  ];
}
