// The conversation aggregate (stream conversation-<id>): one thread per contact and channel, holding
// the messages the contact sent us (inbound), the replies sent in it, and its inbox state (open or
// closed, assignee, read). Its id is derived from (account, contact, channel), so two inbound
// messages arriving at once for a new thread meet on one stream instead of starting two.
import { decodeTime } from 'ulid';
import type { Channel } from './message.ts';
import type { Decider } from '../src/decider.ts';
import { invalidField, notFound } from '../src/errors.ts';
import { derivedId } from '../src/ids.ts';

/** The channels a contact can write to us on. */
export const INBOUND_CHANNELS = ['sms', 'whatsapp', 'email'] as const satisfies readonly Channel[];
export type InboundChannel = (typeof INBOUND_CHANNELS)[number];

export type ConversationStatus = 'open' | 'closed';
/** What an inbound sms/whatsapp body asked for, when it was a keyword (README "Inbound messages and conversations"). */
export type Keyword = 'stop' | 'start' | 'help';

export interface InboundMessage {
  /** inb_… */
  message_id: string;
  /** the contact's address: E.164 phone or email (personal data, sealed) */
  from: string;
  /** our number or reply address it was sent to */
  to: string;
  /** the text (for email: the text/plain part, else the HTML's text) — sealed */
  body: string;
  /** email only (sealed) */
  subject?: string;
  html?: string;
  /** email threading: its Message-ID, In-Reply-To and References (without angle brackets) */
  email_message_id?: string;
  in_reply_to?: string;
  references?: string[];
  provider: string;
  provider_message_id?: string;
  keyword?: Keyword;
  /** email only: who really sent it, as checked when it arrived */
  authentication?: EmailAuthentication;
  received_at: string;
}

/** An inbound email's SPF, DKIM and DMARC results (RFC 8601 result names: pass, fail, none, temperror, …) and the DMARC policy applied (null: no DMARC record). */
export interface EmailAuthentication {
  spf: string;
  dkim: string;
  dmarc: string;
  dmarc_policy: string | null;
}

export type ConversationEvent =
  | { type: 'ConversationStarted'; data: { id: string; account_id: string; contact_id: string; channel: InboundChannel; started_at: string } }
  | { type: 'InboundMessageReceived'; data: { id: string; account_id: string; contact_id: string; channel: InboundChannel } & InboundMessage }
  /** a message sent in the thread (a reply, or the automatic answer to HELP); its content is the message's own */
  | { type: 'ConversationReplySent'; data: { id: string; account_id: string; message_id: string; automatic?: 'help'; at: string } }
  | { type: 'ConversationStatusChanged'; data: { id: string; account_id: string; status: ConversationStatus; reason: 'api' | 'inbound'; at: string } }
  | { type: 'ConversationAssigned'; data: { id: string; account_id: string; assignee: string | null; at: string } }
  | { type: 'ConversationReadChanged'; data: { id: string; account_id: string; read: boolean; at: string } };

/** What a reply needs from the thread: the latest inbound message (whom to answer, from which address, in which email thread). */
export interface LastInbound {
  from: string;
  to: string;
  subject?: string;
  email_message_id?: string;
  references?: string[];
}

export interface ConversationState {
  exists: boolean;
  id?: string;
  accountId?: string;
  contactId?: string;
  channel?: InboundChannel;
  status: ConversationStatus;
  assignee: string | null;
  read: boolean;
  lastInbound?: LastInbound;
  /** provider ids already received: a provider's retry of a callback adds nothing */
  seen: ReadonlySet<string>;
}

export type ConversationCommand =
  | { type: 'Receive'; id: string; accountId: string; contactId: string; channel: InboundChannel; message: InboundMessage; now: Date }
  | { type: 'RecordReply'; accountId: string; messageId: string; automatic?: 'help'; now: Date }
  | { type: 'Update'; accountId: string; status?: ConversationStatus; assignee?: string | null; read?: boolean; now: Date };

/** The id of the conversation of a contact on a channel (its ULID time is the contact's). */
export function conversationIdOf(accountId: string, contactId: string, channel: InboundChannel): string {
  const ulidPart = contactId.slice(contactId.indexOf('_') + 1);
  return derivedId('conversation', new Date(decodeTime(ulidPart)), accountId, contactId, channel);
}

export const conversationStream = (id: string) => `conversation-${id}`;

const seenKey = (m: Pick<InboundMessage, 'provider' | 'provider_message_id'>) => (m.provider_message_id ? `${m.provider}:${m.provider_message_id}` : undefined);

export const conversationDecider: Decider<ConversationCommand, ConversationState, ConversationEvent> = {
  initialState: { exists: false, status: 'open', assignee: null, read: true, seen: new Set() },

  evolve(state, e) {
    switch (e.type) {
      case 'ConversationStarted':
        return { ...state, exists: true, id: e.data.id, accountId: e.data.account_id, contactId: e.data.contact_id, channel: e.data.channel };
      case 'InboundMessageReceived': {
        const key = seenKey(e.data);
        const d = e.data;
        const lastInbound: LastInbound = { from: d.from, to: d.to, subject: d.subject, email_message_id: d.email_message_id, references: d.references };
        return { ...state, read: false, lastInbound, seen: key ? new Set([...state.seen, key]) : state.seen };
      }
      case 'ConversationReplySent':
        return state;
      case 'ConversationStatusChanged':
        return { ...state, status: e.data.status };
      case 'ConversationAssigned':
        return { ...state, assignee: e.data.assignee };
      case 'ConversationReadChanged':
        return { ...state, read: e.data.read };
    }
  },

  decide(c, state) {
    const at = c.now.toISOString();
    if (c.type === 'Receive') {
      const key = seenKey(c.message);
      if (key && state.seen.has(key)) return [];
      const base = { id: c.id, account_id: c.accountId, contact_id: c.contactId, channel: c.channel };
      const events: ConversationEvent[] = [];
      if (!state.exists) events.push({ type: 'ConversationStarted', data: { ...base, started_at: at } });
      // a closed thread the contact writes to again is open again
      if (state.exists && state.status === 'closed') events.push({ type: 'ConversationStatusChanged', data: { id: c.id, account_id: c.accountId, status: 'open', reason: 'inbound', at } });
      events.push({ type: 'InboundMessageReceived', data: { ...base, ...c.message } });
      return events;
    }
    if (!state.exists || state.accountId !== c.accountId) throw notFound('conversation');
    const who = { id: state.id!, account_id: state.accountId };
    if (c.type === 'RecordReply') {
      const events: ConversationEvent[] = [{ type: 'ConversationReplySent', data: { ...who, message_id: c.messageId, ...(c.automatic ? { automatic: c.automatic } : {}), at } }];
      // answering a thread reads it (an automatic answer does not: nobody has seen the message)
      if (!c.automatic && !state.read) events.push({ type: 'ConversationReadChanged', data: { ...who, read: true, at } });
      return events;
    }
    if (c.status === undefined && c.assignee === undefined && c.read === undefined) throw invalidField('(body)', 'give status, assignee or read');
    const events: ConversationEvent[] = [];
    if (c.status !== undefined && c.status !== state.status) events.push({ type: 'ConversationStatusChanged', data: { ...who, status: c.status, reason: 'api', at } });
    if (c.assignee !== undefined && c.assignee !== state.assignee) events.push({ type: 'ConversationAssigned', data: { ...who, assignee: c.assignee, at } });
    if (c.read !== undefined && c.read !== state.read) events.push({ type: 'ConversationReadChanged', data: { ...who, read: c.read, at } });
    return events;
  },
};

export const CONVERSATION_EVENT_TYPES = [
  'ConversationStarted', 'InboundMessageReceived', 'ConversationReplySent', 'ConversationStatusChanged', 'ConversationAssigned', 'ConversationReadChanged',
] as const;
