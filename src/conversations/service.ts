// Inbound messages and the conversations they thread into: recording a contact's message (creating
// the contact when unknown, honouring STOP/START/HELP), replying in a thread through the normal
// sending pipeline, and the inbox state (open/closed, assignee, read).
//
// A write that also sends a message (a reply, the answer to HELP) appends the message's new stream
// and the conversation's events in one appendMany, so the thread never shows a reply that was not
// sent, nor misses one that was.
import { conversationDecider, conversationIdOf, conversationStream, type ConversationCommand, type ConversationEvent, type ConversationState, type EmailAuthentication, type InboundChannel, type InboundMessage, type Keyword } from '../../commands/conversation.ts';
import { inboundSettingsDecider, inboundSettingsStream } from '../../commands/inbound-settings.ts';
import { KEYWORD_REPLY_CATEGORY, type MessageAcceptedData } from '../../commands/message.ts';
import { findAccount } from '../../projections/auth.ts';
import { handleCommand } from '../command-handler.ts';
import { EmailSchema, normalisePhone } from '../contacts/validation.ts';
import type { Engage } from '../context.ts';
import { fold } from '../decider.ts';
import { conflict, invalid, notFound } from '../errors.ts';
import { comparePositions, type EventMetadata, type NewEvent, type Position, WrongExpectedVersionError } from '../eventstore/port.ts';
import { resolveOne } from '../events/contacts.ts';
import { newId } from '../ids.ts';
import { acceptedData, newMessageStream } from '../messages/service.ts';
import { suppressRecipient, unsuppressRecipient } from '../messages/suppressions.ts';
import { validateSend } from '../messages/validation.ts';
import { ERASED } from '../personal-data/codec.ts';
import { defaultHelpText, keywordOf } from './keywords.ts';

const ATTEMPTS = 5;

/** An inbound message as a provider callback or the SMTP listener hands it over. */
export interface Inbound {
  channel: InboundChannel;
  from: string;
  to: string;
  body: string;
  subject?: string;
  html?: string;
  emailMessageId?: string;
  inReplyTo?: string;
  references?: string[];
  provider: string;
  providerMessageId?: string;
  /** email: SPF, DKIM and DMARC as checked on arrival */
  authentication?: EmailAuthentication;
  receivedAt: Date;
}

export interface Received {
  conversationId: string;
  messageId: string;
  contactId: string;
  /** a provider's repeat of a message already recorded: nothing was written */
  duplicate: boolean;
  keyword?: Keyword;
  /** the answer to HELP */
  replyId?: string;
  position?: Position;
}

/** The contact's address as contacts hold it, or undefined when it cannot be one (an alphanumeric sender id). */
function contactAddress(channel: InboundChannel, from: string): { email: string } | { phone: string } | undefined {
  if (channel === 'email') {
    // the contacts' own rule: an address that passed here is one a contact can be created with
    const email = EmailSchema.safeParse(from);
    return email.success ? { email: email.data } : undefined;
  }
  const phone = normalisePhone(from);
  return phone ? { phone } : undefined;
}

/**
 * Records an inbound message in its contact's conversation on its channel. An sms or whatsapp STOP
 * suppresses the sender (reason `stop`), START lifts that, HELP is answered with the account's help
 * text. Returns undefined when the sender cannot be a contact (logged).
 */
export async function receiveInbound(engage: Engage, accountId: string, inbound: Inbound, metadata: EventMetadata): Promise<Received | undefined> {
  const address = contactAddress(inbound.channel, inbound.from);
  if (!address) {
    engage.log.warn({ accountId, channel: inbound.channel, provider: inbound.provider }, 'inbound message from an address that cannot be a contact; ignored');
    return undefined;
  }
  const from = 'email' in address ? address.email : address.phone;
  const { contactId } = await resolveOne(engage, accountId, { contact: address }, metadata);
  const conversationId = conversationIdOf(accountId, contactId, inbound.channel);
  const streamId = conversationStream(conversationId);
  const keyword = inbound.channel === 'email' ? undefined : keywordOf(inbound.body);
  const at = inbound.receivedAt;
  // (a provider's retry of the same message is recognised by the decider, by its provider id)
  const messageId = newId('inboundMessage');
  const message: InboundMessage = {
    message_id: messageId,
    from,
    to: inbound.to,
    body: inbound.body,
    ...(inbound.subject !== undefined ? { subject: inbound.subject } : {}),
    ...(inbound.html !== undefined ? { html: inbound.html } : {}),
    ...(inbound.emailMessageId !== undefined ? { email_message_id: inbound.emailMessageId } : {}),
    ...(inbound.inReplyTo !== undefined ? { in_reply_to: inbound.inReplyTo } : {}),
    ...(inbound.references?.length ? { references: inbound.references } : {}),
    provider: inbound.provider,
    ...(inbound.providerMessageId !== undefined ? { provider_message_id: inbound.providerMessageId } : {}),
    ...(keyword ? { keyword } : {}),
    ...(inbound.authentication ? { authentication: inbound.authentication } : {}),
    received_at: at.toISOString(),
  };
  const receive: ConversationCommand = { type: 'Receive', id: conversationId, accountId, contactId, channel: inbound.channel, message, now: engage.clock.now() };

  const before = await loadConversation(engage, streamId);
  if (conversationDecider.decide(receive, before.state).length === 0) return { conversationId, messageId, contactId, duplicate: true, keyword };

  // the opt-out first: if recording the message then fails, the provider's retry finds it not yet
  // recorded and does both again (suppressing twice changes nothing)
  if (keyword === 'stop') await suppressRecipient(engage, { accountId, address: from, reason: 'stop', source: `inbound:${inbound.channel}` }, metadata);
  if (keyword === 'start') await unsuppressRecipient(engage, { accountId, address: from, source: `inbound:${inbound.channel}` }, metadata);

  let reply: MessageAcceptedData | undefined;
  if (keyword === 'help') {
    const text = await helpTextOf(engage, accountId);
    const checked = validateSend({ channel: inbound.channel, to: from, message: text, sender: inbound.to, transactional: true }, at);
    // the reserved category lets the answer reach a number that said STOP (src/messages/policy.ts)
    if (checked.ok) reply = { ...acceptedData(accountId, checked.value, engage.clock.now()), category: KEYWORD_REPLY_CATEGORY };
    else engage.log.warn({ accountId, issues: checked.issues }, 'the answer to HELP could not be sent');
  }
  const written = await appendToConversation(engage, streamId, metadata, (state) => {
    const events = conversationDecider.decide(receive, state);
    if (events.length === 0 || !reply) return { events };
    const evolved = events.reduce(conversationDecider.evolve, state);
    const replyEvents = conversationDecider.decide({ type: 'RecordReply', accountId, messageId: reply.id, automatic: 'help', now: engage.clock.now() }, evolved);
    return { events: [...events, ...replyEvents], message: reply };
  });
  return { conversationId, messageId, contactId, duplicate: written.events.length === 0, keyword, ...(reply && written.events.length ? { replyId: reply.id } : {}), position: written.position };
}

async function helpTextOf(engage: Engage, accountId: string): Promise<string> {
  const settings = fold(inboundSettingsDecider, (await engage.store.readStream(inboundSettingsStream(accountId))) as never);
  if (settings.help_text) return settings.help_text;
  return defaultHelpText((await findAccount(engage.pool, accountId))?.name ?? 'This number');
}

async function loadConversation(engage: Engage, streamId: string): Promise<{ state: ConversationState; revision: bigint | 'no_stream' }> {
  const recorded = await engage.store.readStream(streamId);
  const state = fold(conversationDecider, recorded.map((r) => ({ type: r.type, data: r.data }) as ConversationEvent));
  return { state, revision: recorded.length ? recorded[recorded.length - 1].revision : 'no_stream' };
}

/**
 * Appends what `decide` returns for the conversation's current state — its events at the revision
 * read, and the new stream of the message it sends, if any, in one appendMany — re-deciding when
 * another writer got to the conversation first.
 */
async function appendToConversation(
  engage: Engage,
  streamId: string,
  metadata: EventMetadata,
  decide: (state: ConversationState) => { events: ConversationEvent[]; message?: MessageAcceptedData },
): Promise<{ events: ConversationEvent[]; state: ConversationState; message?: MessageAcceptedData; position?: Position }> {
  for (let attempt = 1; ; attempt++) {
    const { state, revision } = await loadConversation(engage, streamId);
    const { events, message } = decide(state);
    if (events.length === 0) return { events, state };
    const batch = [
      { streamId, events: events.map((e): NewEvent => ({ type: e.type, data: e.data, metadata })), expected: revision },
      ...(message ? [newMessageStream(message, metadata)] : []),
    ];
    try {
      const results = await engage.store.appendMany(batch);
      const position = results.map((r) => r.position).reduce((a, b) => (comparePositions(b, a) > 0 ? b : a));
      return { events, state: events.reduce(conversationDecider.evolve, state), message, position };
    } catch (err) {
      if (err instanceof WrongExpectedVersionError && err.streamId === streamId && attempt < ATTEMPTS) continue;
      throw err;
    }
  }
}

/** What a reply may say: the content of a send, addressed by the thread. */
export interface ReplyInput {
  message: string;
  htmlmessage?: string;
  subject?: string;
  from_name?: string;
  webhook_url?: string;
}

/** The reply address of an account: where its contacts' email replies reach the inbound SMTP listener. */
export const replyAddressOf = (engage: Engage, accountId: string) => `${accountId.toLowerCase()}@${engage.config.INBOUND_EMAIL_DOMAIN}`;

/** `<id>` for a header, each id of a References list likewise, keeping the list within a header line. */
const angle = (id: string) => `<${id}>`;
function referencesHeader(ids: readonly string[]): string {
  const out: string[] = [];
  let length = 0;
  // the newest ids matter most (RFC 5322 section 3.6.4): drop the oldest past a safe line length
  for (const id of [...ids].reverse()) {
    length += id.length + 3;
    if (length > 900) break;
    out.unshift(angle(id));
  }
  return out.join(' ');
}

/**
 * Sends a reply in a conversation, on its channel, to the address the contact last wrote from and
 * from the address it wrote to; for email in its thread (In-Reply-To, References, Re: subject) with
 * the account's reply address as Reply-To. Replies are transactional: a person answering a person.
 */
export async function replyInConversation(engage: Engage, accountId: string, conversationId: string, input: ReplyInput, metadata: EventMetadata) {
  const streamId = conversationStream(conversationId);
  const now = engage.clock.now();
  return appendToConversation(engage, streamId, metadata, (state) => {
    if (!state.exists || state.accountId !== accountId || !state.lastInbound) throw notFound('conversation');
    const last = state.lastInbound;
    if (last.from === ERASED) throw conflict('the contact of this conversation was erased: there is nobody to reply to');
    const send: Record<string, unknown> = { channel: state.channel, to: last.from, message: input.message, transactional: true };
    if (state.channel === 'email') {
      const subject = input.subject ?? (last.subject && last.subject !== ERASED ? (/^re:/i.test(last.subject) ? last.subject : `Re: ${last.subject}`) : undefined);
      const headers: Record<string, string> = {};
      if (last.email_message_id) {
        headers['In-Reply-To'] = angle(last.email_message_id);
        headers.References = referencesHeader([...(last.references ?? []), last.email_message_id]);
      }
      Object.assign(send, {
        reply_to: replyAddressOf(engage, accountId),
        ...(subject !== undefined ? { subject } : {}),
        ...(input.htmlmessage !== undefined ? { htmlmessage: input.htmlmessage } : {}),
        ...(input.from_name !== undefined ? { from_name: input.from_name } : {}),
        ...(Object.keys(headers).length ? { headers } : {}),
      });
    } else {
      const emailOnly = (['htmlmessage', 'subject', 'from_name'] as const).filter((f) => input[f] !== undefined);
      if (emailOnly.length) throw invalid(emailOnly.map((f) => ({ path: f, message: `${f} is only allowed in an email conversation` })));
      send.sender = last.to;
    }
    if (input.webhook_url !== undefined) send.webhook_url = input.webhook_url;
    const checked = validateSend(send, now, { allowPrivateWebhooks: engage.config.WEBHOOK_ALLOW_PRIVATE });
    if (!checked.ok) throw invalid(checked.issues);
    const message = acceptedData(accountId, checked.value, now);
    return { events: conversationDecider.decide({ type: 'RecordReply', accountId, messageId: message.id, now }, state), message };
  });
}

/** Changes a conversation's status, assignee or read state (what is unchanged appends nothing). */
export function updateConversation(
  engage: Engage,
  accountId: string,
  conversationId: string,
  change: { status?: 'open' | 'closed'; assignee?: string | null; read?: boolean },
  metadata: EventMetadata,
) {
  return handleCommand(engage.store, conversationDecider, conversationStream(conversationId), { type: 'Update', accountId, ...change, now: engage.clock.now() }, metadata);
}
