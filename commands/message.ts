// The message aggregate (stream message-<id>): accepted → (scheduled →) queued → dispatching →
// sent → delivered | failed, or cancelled before dispatch. A dispatcher's claim and a cancel are
// both appends at the revision they read, so exactly one of them wins.
import type { Decider } from '../src/decider.ts';
import { AppError, notFound } from '../src/errors.ts';
import { type RecordedEvent, registerUpcaster } from '../src/eventstore/port.ts';

export const CHANNELS = ['sms', 'rcs', 'whatsapp', 'voice', 'email', 'push'] as const;
export type Channel = (typeof CHANNELS)[number];
export const PHONE_CHANNELS: readonly Channel[] = ['sms', 'rcs', 'whatsapp', 'voice'];

export type MessageStatus = 'scheduled' | 'queued' | 'sent' | 'delivered' | 'failed' | 'cancelled';

export interface MessageContent {
  channel: Channel;
  to: string;
  message: string;
  htmlmessage?: string;
  subject?: string;
  reply_to?: string;
  from_name?: string;
  headers?: Record<string, string>;
  sender?: string;
  transactional: boolean;
  category?: string;
  webhook_url?: string;
}

export interface MessageAcceptedData extends MessageContent {
  account_id: string;
  id: string;
  status: 'scheduled' | 'queued';
  scheduled_at?: string;
  resend_of?: string;
  bulk_id?: string;
  /** the campaign that sent it (commands/campaign.ts) */
  campaign_id?: string;
  /** the template version its content was rendered from (commands/template.ts) */
  template_id?: string;
  template_version?: number;
  /** phone channels: the recipient's country (ISO alpha-2), in clear: billing prices by it (src/billing/recipient-country.ts) */
  to_country?: string;
  created_at: string;
}

export type MessageEvent =
  | { type: 'MessageAccepted'; data: MessageAcceptedData }
  | { type: 'MessageQueued'; data: { id: string; account_id: string; at: string; reason: 'due' | 'released' } }
  | { type: 'MessageCancelled'; data: { id: string; account_id: string; at: string; previous_status: 'scheduled' | 'queued' } }
  | { type: 'MessageDispatching'; data: { id: string; account_id: string; at: string; worker: string; attempt: number; lease_until: string } }
  | {
      type: 'MessageHeld';
      data: { id: string; account_id: string; at: string; until: string; reason: 'quiet_hours' | 'marketing_cap' | 'warmup_cap'; detail?: string };
    }
  /** `error`: the provider's words (an SMTP reply may name the recipient): sealed under the recipient address's key */
  | { type: 'MessageDispatchDeferred'; data: { id: string; account_id: string; at: string; attempt: number; error: string; retry_at: string } }
  | { type: 'MessageSent'; data: { id: string; account_id: string; at: string; provider: string; provider_message_id: string } & StatusFacts }
  /** `provider_data`: what the provider said (it may name the recipient): sealed under the recipient address's key (src/personal-data/rules.ts) */
  | { type: 'MessageDelivered'; data: { id: string; account_id: string; at: string; provider?: string; provider_message_id?: string; provider_data?: Record<string, unknown> } & StatusFacts }
  | { type: 'MessageFailed'; data: MessageFailedData }
  /**
   * A recipient followed a tracked link of the message (src/tracking/clicks.ts). Not a status: the
   * url is sealed under the recipient address's key, named by address_hash (src/personal-data/rules.ts).
   */
  | { type: 'MessageLinkClicked'; data: { id: string; account_id: string; at: string; url: string; address_hash: string; channel?: Channel; first?: boolean } }
  /**
   * The open pixel of an HTML email was fetched: `count` opens so far, this one included; `first`, the
   * first that was not a machine's (README "Templates": open tracking); `machine`, a mail client's
   * proxy or a scanner fetching it, not a reader.
   */
  | { type: 'MessageOpened'; data: { id: string; account_id: string; at: string; channel?: Channel; count: number; first: boolean; machine: boolean } };

/**
 * What a status event (MessageSent, MessageDelivered, MessageFailed) repeats from its stream, so that a
 * read model counting or forwarding it needs no row per message to find it (README "The write path"):
 * the message's channel. Written on every status event of a message accepted at schema version 2 of
 * MessageAccepted (MESSAGE_STATUS_FACTS_VERSION); events written before carry none.
 */
export interface StatusFacts {
  channel?: Channel;
}

/**
 * MessageAccepted's schema version from which the stream's status events carry StatusFacts (and a
 * click its channel and whether it is the message's first, a failure or delivery the provider's id of
 * the message when it has one): a read model keeps a row per message only for messages accepted before.
 * The accepted event's data is the same in both versions.
 */
export const MESSAGE_STATUS_FACTS_VERSION = 2;
registerUpcaster('MessageAccepted', MESSAGE_STATUS_FACTS_VERSION, (data) => data);

/** Whether the status events of the message this MessageAccepted begins carry StatusFacts. */
export const statusEventsCarryFacts = (accepted: Pick<RecordedEvent, 'metadata'>): boolean =>
  (typeof accepted.metadata.schemaVersion === 'number' ? accepted.metadata.schemaVersion : 1) >= MESSAGE_STATUS_FACTS_VERSION;

/**
 * A failure as recorded. `reason` is its category (`bounced`, `undelivered`, `suppressed`,
 * `provider_unavailable`…: failureCode), readable for reports and billing; the provider's own words
 * (a bounce diagnostic, an SMTP reply, a carrier's error message) often name the recipient, so they
 * are `reason_text` (the whole reason, when it says more than the category) and, with
 * `provider_data`, sealed under the recipient address's key. Events written before the split carry
 * the whole reason in `reason` and no `reason_text`: failureReasonOf and failureCode read both.
 */
export interface MessageFailedData extends StatusFacts {
  id: string;
  account_id: string;
  at: string;
  reason: string;
  reason_text?: string;
  stage: 'policy' | 'provider' | 'report';
  provider?: string;
  /** the provider's id of the message, when it took it (events of messages accepted at MESSAGE_STATUS_FACTS_VERSION) */
  provider_message_id?: string;
  provider_data?: Record<string, unknown>;
}

export interface MessageState {
  exists: boolean;
  id?: string;
  accountId?: string;
  status?: MessageStatus;
  /** the message's channel (its status events repeat it: StatusFacts) */
  channel?: Channel;
  /** a dispatcher holds the message (until its lease ends); it can no longer be cancelled */
  claimed: boolean;
  leaseUntil?: string;
  attempts: number;
  notBefore?: string;
  content?: MessageContent;
  providerMessageId?: string;
  /** a recipient followed one of its tracked links */
  clicked?: boolean;
  /** how often its open pixel was fetched, and whether a reader (not a machine) did */
  opens?: number;
  opened?: boolean;
}

export type MessageCommand =
  | { type: 'Accept'; data: MessageAcceptedData }
  | { type: 'QueueDue'; now: Date }
  | { type: 'Cancel'; accountId: string; now: Date }
  | { type: 'Claim'; worker: string; now: Date; leaseMs: number }
  | { type: 'Hold'; now: Date; until: Date; reason: 'quiet_hours' | 'marketing_cap' | 'warmup_cap'; detail?: string }
  | { type: 'Defer'; now: Date; error: string; retryAt: Date }
  | { type: 'RecordSent'; now: Date; provider: string; providerMessageId: string }
  | { type: 'RecordDelivered'; now: Date; provider?: string; providerMessageId?: string; providerData?: Record<string, unknown> }
  | {
      type: 'RecordFailed';
      now: Date;
      reason: string;
      stage: 'policy' | 'provider' | 'report';
      provider?: string;
      /** with stage 'report': the provider's id of the message, when the report names it */
      providerMessageId?: string;
      providerData?: Record<string, unknown>;
    }
  /** a click on a tracked link; `addressHash`: the recipient's keyed address hash (its MessageAccepted keeps it) */
  | { type: 'RecordClick'; now: Date; url: string; addressHash: string }
  /** a fetch of the open pixel; `machine`: by a proxy or a scanner (src/tracking/opens.ts judges) */
  | { type: 'RecordOpen'; now: Date; machine: boolean };

const TERMINAL: MessageStatus[] = ['delivered', 'failed', 'cancelled'];

/**
 * A provider's report about a message we have not yet recorded as sent (still `queued`): the
 * report overtook the dispatcher's own record of the provider's acceptance (a carrier callback can
 * arrive before the provider call has returned, or while the rest of the batch is still being
 * handed over). The report proves the provider took the message, so `sent` is recorded first, in
 * the same append: the message's history keeps exactly one MessageSent, sent_at is set (the
 * marketing cap counts it), and the dispatcher's late record of it is then ignored.
 */
function sentFromReport(base: { id: string; account_id: string }, facts: StatusFacts, command: { now: Date; provider?: string; providerMessageId?: string }): MessageEvent {
  const data = {
    ...base,
    ...facts,
    at: command.now.toISOString(),
    provider: command.provider ?? 'unknown',
    ...(command.providerMessageId ? { provider_message_id: command.providerMessageId } : {}),
  };
  // provider_message_id is absent when the report did not name it (the read model keeps null)
  return { type: 'MessageSent', data: data as Extract<MessageEvent, { type: 'MessageSent' }>['data'] };
}

/**
 * The provider's id of a message a report is about: the one its MessageSent recorded, else the one
 * the report names (a report that overtook the record of the send). Only on events that carry
 * StatusFacts, so that the outbox knows it without keeping it per message.
 */
function providerIdOf(state: MessageState, command: { providerMessageId?: string }): { provider_message_id?: string } {
  if (!state.channel) return {};
  const id = state.providerMessageId ?? command.providerMessageId;
  return id ? { provider_message_id: id } : {};
}

/**
 * The category of a failure reason: its leading word (`bounced:550 …` → `bounced`, `provider_unavailable:
 * greylisted` → `provider_unavailable`, `no-answer` → `no-answer`), which carriers and our own rules put
 * first; a reason that starts with none (an SMTP reply such as `550 5.1.1 <…>`) is `provider_error`.
 * The same for the whole reason and for its category, so old and new events agree.
 */
export function failureCode(reason: string): string {
  const word = /^([a-z][a-z0-9_-]*)(?=$|[:\s])/.exec(reason.trim().toLowerCase());
  return word ? word[1] : 'provider_error';
}

/**
 * The reason to show for a failure: the provider's words while they can be read, else the category
 * (the recipient was erased, or the event was read sealed). Either shape of MessageFailed.
 */
export function failureReasonOf(data: Pick<MessageFailedData, 'reason' | 'reason_text'> & { personal_data?: unknown }): string {
  const erased = (data.personal_data as { erased?: boolean } | undefined)?.erased === true;
  return typeof data.reason_text === 'string' && !erased ? data.reason_text : data.reason;
}

export const messageDecider: Decider<MessageCommand, MessageState, MessageEvent> = {
  initialState: { exists: false, claimed: false, attempts: 0 },

  evolve(state, event) {
    switch (event.type) {
      case 'MessageAccepted': {
        const { account_id, id, status, scheduled_at, created_at: _c, resend_of: _r, bulk_id: _b, campaign_id: _k, template_id: _t, template_version: _v, ...content } = event.data;
        return { ...state, exists: true, id, accountId: account_id, status, channel: content.channel, notBefore: scheduled_at, content: content as MessageContent };
      }
      case 'MessageQueued':
        return { ...state, status: 'queued', notBefore: undefined };
      case 'MessageCancelled':
        return { ...state, status: 'cancelled' };
      case 'MessageDispatching':
        return { ...state, claimed: true, leaseUntil: event.data.lease_until, attempts: event.data.attempt };
      case 'MessageHeld':
        return { ...state, claimed: false, leaseUntil: undefined, notBefore: event.data.until, attempts: Math.max(0, state.attempts - 1) };
      case 'MessageDispatchDeferred':
        return { ...state, claimed: false, leaseUntil: undefined, notBefore: event.data.retry_at };
      case 'MessageSent':
        return { ...state, status: 'sent', claimed: false, leaseUntil: undefined, providerMessageId: event.data.provider_message_id };
      case 'MessageDelivered':
        return { ...state, status: 'delivered' };
      case 'MessageFailed':
        return { ...state, status: 'failed', claimed: false, leaseUntil: undefined };
      case 'MessageLinkClicked':
        return state.clicked ? state : { ...state, clicked: true };
      case 'MessageOpened':
        return { ...state, opens: event.data.count, opened: state.opened || !event.data.machine };
    }
  },

  decide(command, state) {
    if (command.type === 'Accept') {
      if (state.exists) throw new AppError(409, 'conflict', 'message already exists');
      return [{ type: 'MessageAccepted', data: command.data }];
    }
    if (!state.exists || !state.id || !state.accountId) throw notFound('message');
    const base = { id: state.id, account_id: state.accountId };
    // what status events repeat from the stream (a state built without a channel, none: read models then look it up)
    const facts: StatusFacts = state.channel ? { channel: state.channel } : {};
    switch (command.type) {
      case 'QueueDue':
        if (state.status !== 'scheduled') return [];
        return [{ type: 'MessageQueued', data: { ...base, at: command.now.toISOString(), reason: 'due' } }];
      case 'Cancel': {
        if (state.accountId !== command.accountId) throw notFound('message');
        if ((state.status === 'scheduled' || state.status === 'queued') && !state.claimed) {
          return [{ type: 'MessageCancelled', data: { ...base, at: command.now.toISOString(), previous_status: state.status } }];
        }
        // a claimed message stays uncancellable until a deferral or hold gives it back, even past its
        // lease: the provider call may still be running
        const why =
          state.status === 'scheduled' || state.status === 'queued' ? `message is ${state.status} but already picked up for dispatch`
          : state.status === 'cancelled' ? 'message is already cancelled'
          : `message is already ${state.status}`;
        throw new AppError(409, 'not_cancellable', `${why}; only scheduled or queued messages not yet picked up can be cancelled`, { status: state.status });
      }
      case 'Claim': {
        if (state.status !== 'queued') return [];
        // a live lease belongs to another dispatcher; an expired one is reclaimed
        if (state.claimed && state.leaseUntil && Date.parse(state.leaseUntil) > command.now.getTime()) return [];
        if (state.notBefore && Date.parse(state.notBefore) > command.now.getTime()) return [];
        return [
          {
            type: 'MessageDispatching',
            data: { ...base, at: command.now.toISOString(), worker: command.worker, attempt: state.attempts + 1, lease_until: new Date(command.now.getTime() + command.leaseMs).toISOString() },
          },
        ];
      }
      case 'Hold':
        if (state.status !== 'queued') return [];
        return [{ type: 'MessageHeld', data: { ...base, at: command.now.toISOString(), until: command.until.toISOString(), reason: command.reason, ...(command.detail ? { detail: command.detail } : {}) } }];
      case 'Defer':
        if (state.status !== 'queued') return [];
        return [{ type: 'MessageDispatchDeferred', data: { ...base, at: command.now.toISOString(), attempt: state.attempts, error: command.error, retry_at: command.retryAt.toISOString() } }];
      case 'RecordSent':
        if (state.status !== 'queued') return [];
        return [{ type: 'MessageSent', data: { ...base, ...facts, at: command.now.toISOString(), provider: command.provider, provider_message_id: command.providerMessageId } }];
      case 'RecordDelivered': {
        // duplicate or late reports are ignored; a report may overtake our own 'sent' record
        if (state.status !== 'sent' && state.status !== 'queued') return [];
        const delivered: MessageEvent = {
          type: 'MessageDelivered',
          data: { ...base, ...facts, at: command.now.toISOString(), ...(command.provider ? { provider: command.provider } : {}), ...providerIdOf(state, command), ...(command.providerData ? { provider_data: command.providerData } : {}) },
        };
        return state.status === 'queued' ? [sentFromReport(base, facts, command), delivered] : [delivered];
      }
      case 'RecordFailed': {
        if (TERMINAL.includes(state.status!) || state.status === 'scheduled') return [];
        const reason = failureCode(command.reason);
        const failed: MessageEvent = {
          type: 'MessageFailed',
          data: {
            ...base, ...facts, at: command.now.toISOString(), reason, ...(command.reason !== reason ? { reason_text: command.reason } : {}), stage: command.stage,
            ...(command.provider ? { provider: command.provider } : {}), ...(command.stage === 'report' ? providerIdOf(state, command) : {}),
            ...(command.providerData ? { provider_data: command.providerData } : {}),
          },
        };
        // a failure report (undelivered, bounced…) for a message not yet recorded as sent: it was sent
        return command.stage === 'report' && state.status === 'queued' ? [sentFromReport(base, facts, command), failed] : [failed];
      }
      case 'RecordClick':
        // in any state: a click can overtake the record of the send it follows, and changes no status
        return [{ type: 'MessageLinkClicked', data: { ...base, ...facts, ...(facts.channel ? { first: !state.clicked } : {}), at: command.now.toISOString(), url: command.url, address_hash: command.addressHash } }];
      case 'RecordOpen':
        // as a click: in any state, changing no status
        return [{ type: 'MessageOpened', data: { ...base, ...facts, at: command.now.toISOString(), count: (state.opens ?? 0) + 1, first: !command.machine && !state.opened, machine: command.machine } }];
    }
  },
};

export const messageStream = (id: string) => `message-${id}`;
export const MESSAGE_EVENT_TYPES = [
  'MessageAccepted', 'MessageQueued', 'MessageCancelled', 'MessageDispatching', 'MessageHeld',
  'MessageDispatchDeferred', 'MessageSent', 'MessageDelivered', 'MessageFailed', 'MessageLinkClicked', 'MessageOpened',
] as const;

/**
 * The category of the automatic answer to an sms/whatsapp HELP: reserved (a send may not use it), it
 * is the one message a number that said STOP still gets (carriers require HELP to be answered).
 */
export const KEYWORD_REPLY_CATEGORY = 'keyword_reply';

export const isMarketing = (c: Pick<MessageContent, 'transactional' | 'category'>) => !c.transactional && c.category !== 'transactional';
