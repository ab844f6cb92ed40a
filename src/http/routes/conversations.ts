// The inbox: GET /v1/conversations, PATCH /v1/conversations/:id, GET /v1/conversations/:id/messages,
// POST /v1/conversations/:id/reply; and the account's inbound settings, GET/PUT /v1/account/inbound
// (README "Inbound messages and conversations").
import { z } from 'zod';
import { INBOUND_CHANNELS, type Keyword } from '../../../commands/conversation.ts';
import { inboundSettingsDecider, inboundSettingsStream } from '../../../commands/inbound-settings.ts';
import { type ActivityPosition, type ConversationRow, findConversation, inboundSettingsOf, listConversations, type ThreadEntryRow, threadEntries } from '../../../projections/conversations.ts';
import { runCommand } from '../../command-handler.ts';
import { replyAddressOf, replyInConversation, updateConversation } from '../../conversations/service.ts';
import { invalidField } from '../../errors.ts';
import { isId } from '../../ids.ts';
import { isWellFormedText } from '../../messages/validation.ts';
import { checkWebhookUrl } from '../../webhooks/ssrf.ts';
import type { AppDeps } from '../deps.ts';
import { found, iso, metadataOf, pageAfter, pageQuery, Timestamp } from '../common.ts';
import { DateTime, Page } from '../openapi.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

/** A write here answers once the inbox (and, for a reply, history) shows it. */
const INBOX = ['conversations'];
const INBOX_AND_HISTORY = ['conversations', 'messages'];

const text = (max: number) => z.string().max(max).refine(isWellFormedText, 'must be valid Unicode text');
const Params = z.object({ id: z.string().max(64) });
/** A cursor is client input once given out: its time must be one Postgres holds (README "Timestamps"), else a 400, not a 500. */
const ActivityCursor = z.object({ at: Timestamp, id: z.string() });

const ListQuery = z.strictObject({
  ...pageQuery,
  status: z.enum(['open', 'closed']).optional(),
  channel: z.enum(INBOUND_CHANNELS).optional(),
  /** an assignee, or `none` for the unassigned */
  assignee: z.string().min(1).max(255).optional(),
  unread: z.enum(['true', 'false']).optional(),
});

const PatchBody = z.strictObject({
  status: z.enum(['open', 'closed']).optional(),
  assignee: text(255).min(1).nullable().optional(),
  read: z.boolean().optional(),
});

const ReplyBody = z.strictObject({
  message: text(100_000).min(1),
  htmlmessage: text(2_000_000).min(1).optional(),
  subject: text(998).optional(),
  from_name: text(255).optional(),
  webhook_url: text(2048).optional(),
});

const InboundBody = z.strictObject({
  webhook_url: z.string().min(1).max(2048).nullable().optional(),
  help_text: text(1600).min(1).nullable().optional(),
});

/** A write met another on the same stream on every retry (write conflict). */
const WRITE_CONFLICT = 409;

const ConversationOut = z
  .object({
    id: z.string(),
    contact_id: z.string(),
    channel: z.enum(INBOUND_CHANNELS),
    status: z.enum(['open', 'closed']),
    assignee: z.string().nullable(),
    read: z.boolean(),
    unread_count: z.int().describe('inbound messages since it was last read'),
    message_count: z.int(),
    last_message_at: DateTime,
    last_inbound_at: DateTime.nullable(),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'Conversation', description: 'A conversation: one contact on one channel, with its inbox state' });

const ThreadEntryOut = z
  .object({
    id: z.string().describe('inb_… for an inbound message, msg_… for one sent'),
    direction: z.enum(['inbound', 'outbound']),
    from: z.string().nullable(),
    to: z.string().nullable(),
    body: z.string().nullable(),
    subject: z.string().optional(),
    html: z.string().optional(),
    email_message_id: z.string().optional(),
    in_reply_to: z.string().optional(),
    keyword: z.enum(['stop', 'start', 'help'] satisfies Keyword[]).optional().describe('an inbound sms/whatsapp keyword'),
    automatic: z.literal('help').optional().describe('sent by the service: the answer to HELP'),
    status: z.string().nullable().optional().describe("outbound only: the message's status"),
    provider: z.string().nullable().optional().describe('inbound only: the provider it came through'),
    authentication: z
      .object({ spf: z.string(), dkim: z.string(), dmarc: z.string(), dmarc_policy: z.string().nullable() })
      .optional()
      .describe('inbound email only: SPF, DKIM and DMARC as checked on arrival'),
    created_at: DateTime,
  })
  .meta({ id: 'ConversationMessage', description: 'A message of a conversation, inbound or sent in it' });

const InboundSettingsOut = z
  .object({
    reply_address: z.string().describe("the account's reply address: inbound email to it reaches the inbox"),
    webhook_url: z.string().nullable().describe('where every inbound message is pushed (message.received)'),
    help_text: z.string().nullable().describe('the answer to an sms/whatsapp HELP'),
  })
  .meta({ id: 'InboundSettings', description: "The account's inbound settings" });

const conversationOut = (r: ConversationRow) => ({
  id: r.id,
  contact_id: r.contact_id,
  channel: r.channel,
  status: r.status,
  assignee: r.assignee,
  read: r.read,
  unread_count: r.unread_count,
  message_count: r.message_count,
  last_message_at: iso(r.last_message_at),
  last_inbound_at: iso(r.last_inbound_at),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

const entryOut = (e: ThreadEntryRow) => ({
  id: e.id,
  direction: e.direction,
  from: e.from_address,
  to: e.to_address,
  body: e.body,
  ...(e.subject !== null ? { subject: e.subject } : {}),
  ...(e.html !== null ? { html: e.html } : {}),
  ...(e.email_message_id !== null ? { email_message_id: e.email_message_id } : {}),
  ...(e.in_reply_to !== null ? { in_reply_to: e.in_reply_to } : {}),
  ...(e.keyword !== null ? { keyword: e.keyword } : {}),
  ...(e.automatic !== null ? { automatic: e.automatic } : {}),
  ...(e.direction === 'outbound' ? { status: e.status } : { provider: e.provider }),
  ...(e.authentication !== null ? { authentication: e.authentication } : {}),
  created_at: iso(e.created_at),
});

export function conversationRoutes({ engage }: AppDeps): AnyRoute[] {
  const own = async (accountId: string, id: string) => found(isId('conversation', id) ? await findConversation(engage.pool, accountId, id) : undefined, 'conversation');
  const inboundOut = async (accountId: string) => {
    const s = await inboundSettingsOf(engage.pool, accountId);
    return { reply_address: replyAddressOf(engage, accountId), webhook_url: s.webhook_url, help_text: s.help_text };
  };
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/conversations',
      auth: 'key_or_login',
      operationId: 'listConversations',
      summary: 'The inbox: one conversation per contact and channel, newest activity first (filters: status, channel, assignee or "none", unread)',
      tags: ['conversations'],
      query: ListQuery,
      responses: { 200: Page(ConversationOut) },
      async handler({ query, auth }) {
        const filters = {
          status: query.status,
          channel: query.channel,
          ...(query.assignee !== undefined ? { assignee: query.assignee === 'none' ? null : query.assignee } : {}),
          ...(query.unread !== undefined ? { unread: query.unread === 'true' } : {}),
        };
        const list = (after: ActivityPosition | undefined, limit: number) => listConversations(engage.pool, auth.accountId, filters, limit, after);
        return pageAfter(query, ActivityCursor, list, conversationOut, (r) => ({ at: iso(r.last_message_at), id: r.id }));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/conversations/:id',
      auth: 'key_or_login',
      operationId: 'getConversation',
      summary: 'One conversation: its contact, channel, status, assignee and unread count',
      tags: ['conversations'],
      params: Params,
      responses: { 200: ConversationOut },
      async handler({ params, auth }) {
        return conversationOut(await own(auth.accountId, params.id));
      },
    }),
    defineRoute({
      method: 'PATCH',
      url: '/v1/conversations/:id',
      auth: 'key_or_login',
      operationId: 'updateConversation',
      summary: 'Open or close a conversation, assign it (null unassigns), mark it read or unread',
      tags: ['conversations'],
      params: Params,
      body: PatchBody,
      responses: { 200: ConversationOut },
      errors: [WRITE_CONFLICT],
      async handler({ params, body, auth, req }) {
        await own(auth.accountId, params.id);
        await runCommand(engage, metadataOf(req), INBOX, (metadata) => updateConversation(engage, auth.accountId, params.id, body, metadata));
        return conversationOut(await own(auth.accountId, params.id));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/conversations/:id/messages',
      auth: 'key_or_login',
      operationId: 'listConversationMessages',
      summary: "A conversation's messages, inbound and outbound, oldest first",
      tags: ['conversations'],
      params: Params,
      query: z.strictObject(pageQuery),
      responses: { 200: Page(ThreadEntryOut) },
      async handler({ params, query, auth }) {
        await own(auth.accountId, params.id);
        const list = (after: ActivityPosition | undefined, limit: number) => threadEntries(engage.pool, auth.accountId, params.id, limit, after);
        return pageAfter(query, ActivityCursor, list, entryOut, (r) => ({ at: iso(r.created_at), id: r.id }));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/conversations/:id/reply',
      auth: 'key_or_login',
      operationId: 'replyToConversation',
      summary: "Reply in a conversation: sent on its channel through the normal pipeline, to the contact's address, in the email thread",
      tags: ['conversations'],
      params: Params,
      body: ReplyBody,
      responses: {
        202: z
          .object({ id: z.string(), status: z.literal('queued'), channel: z.enum(INBOUND_CHANNELS), to: z.string(), conversation_id: z.string(), created_at: DateTime })
          .describe('the reply, a message accepted for dispatch'),
      },
      async handler({ params, body, auth, req, reply }) {
        await own(auth.accountId, params.id);
        const sent = await runCommand(engage, metadataOf(req), INBOX_AND_HISTORY, (metadata) => replyInConversation(engage, auth.accountId, params.id, body, metadata));
        const m = sent.message!;
        reply.code(202);
        return { id: m.id, status: m.status, channel: m.channel, to: m.to, conversation_id: params.id, created_at: m.created_at };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/inbound',
      auth: 'key_or_login',
      operationId: 'getInboundSettings',
      summary: "The account's reply address (inbound email), the URL its inbound messages are pushed to, and its HELP text",
      tags: ['account'],
      responses: { 200: InboundSettingsOut },
      async handler({ auth }) {
        return inboundOut(auth.accountId);
      },
    }),
    defineRoute({
      method: 'PUT',
      url: '/v1/account/inbound',
      auth: 'key_or_login',
      operationId: 'setInboundSettings',
      // the webhook URL receives every inbound message: read as well (README "API conventions")
      scope: ['settings', 'read'],
      summary: 'Set the inbound webhook URL (message.received, signed with the account signing secret) and the HELP text; null clears one, a field left out stays',
      tags: ['account'],
      body: InboundBody,
      responses: { 200: InboundSettingsOut },
      errors: [WRITE_CONFLICT],
      async handler({ body, auth, req }) {
        if (body.webhook_url) {
          const problem = checkWebhookUrl(body.webhook_url, engage.config.OUTBOUND_ALLOW_PRIVATE);
          if (problem) throw invalidField('webhook_url', problem);
        }
        await runCommand(engage, metadataOf(req), INBOX, {
          decider: inboundSettingsDecider,
          streamId: inboundSettingsStream(auth.accountId),
          command: { type: 'SetInboundSettings', accountId: auth.accountId, webhookUrl: body.webhook_url, helpText: body.help_text, now: engage.clock.now() },
        });
        return inboundOut(auth.accountId);
      },
    }),
  ];
}
