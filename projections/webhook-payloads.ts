// What an event means to webhook receivers: the platform events it becomes for an account's
// endpoints, and the status callbacks for a message's own webhook_url. Pure: the outbox projection
// passes in the endpoints and message hooks it keeps, and stores the deliveries this returns.
import type { CampaignEvent } from '../commands/campaign.ts';
import type { ContactEvent } from '../commands/contact.ts';
import type { ConversationEvent } from '../commands/conversation.ts';
import type { FormSubmissionEvent } from '../commands/form-submission.ts';
import { failureCode, failureReasonOf, type MessageEvent } from '../commands/message.ts';
import type { SuppressionEvent } from '../commands/suppression.ts';
import type { PlatformEvent } from '../commands/webhook-endpoint.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import { ERASED, type OpenedPersonalData } from '../src/personal-data/codec.ts';

/** An endpoint as the outbox knows it when it fans out an event. */
export interface EndpointSubscription {
  id: string;
  account_id: string;
  url: string;
  /** the platform events it wants; none listed: all of them */
  events: string[];
  status: string;
}

/** A message somebody listens to: its own webhook_url, or its account's endpoints. */
export interface MessageHook {
  message_id: string;
  account_id: string;
  webhook_url: string | null;
  channel: string;
  to_address: string;
  provider_message_id: string | null;
  /** the data key sealing the message's recipient (src/personal-data): its erasure blanks it here too */
  personal_key: string | null;
}

/** One delivery to make: a signed POST of `body` to `target_url`. */
export interface DeliveryDraft {
  account_id: string;
  endpoint_id: string | null;
  target_url: string;
  kind: 'endpoint' | 'message';
  event_id: string;
  event_type: string;
  body: string;
  created_at: string;
  /** the data key sealing the personal data in `body`, if any */
  personal_key: string | null;
}

/** What the outbox knows about an event's receivers, as of that event. */
export interface Receivers {
  endpoints: Iterable<EndpointSubscription>;
  /** the message's hook, for a message event of a message somebody listens to */
  hook?: MessageHook;
  /** the account's inbound webhook URL, for an inbound message of an account that set one */
  inboundUrl?: string;
}

type OutboxEvent = MessageEvent | ContactEvent | SuppressionEvent | CampaignEvent | ConversationEvent | FormSubmissionEvent;

/** The log's event types each platform event comes from (below), for a reader of the log that wants only those (a replay). */
export const LOG_TYPES_OF_PLATFORM_EVENT: Readonly<Record<PlatformEvent, readonly string[]>> = {
  'contact.created': ['ContactCreated'],
  'contact.updated': ['ContactUpdated'],
  'contact.unsubscribed': ['RecipientSuppressed'],
  'contact.bounced': ['ContactBounced'],
  'message.delivered': ['MessageDelivered'],
  'message.failed': ['MessageFailed'],
  'message.received': ['InboundMessageReceived'],
  'email.opened': ['MessageOpened'],
  'campaign.sent': ['CampaignSent'],
  'form.submitted': ['FormSubmitted'],
};

const PER_MESSAGE_STATUS: Partial<Record<MessageEvent['type'], string>> = {
  MessageQueued: 'queued',
  MessageSent: 'sent',
  MessageDelivered: 'delivered',
  MessageFailed: 'failed',
};

/** The deliveries one event becomes (none for most events). */
export function deliveriesFor(recorded: RecordedEvent, receivers: Receivers): DeliveryDraft[] {
  const e = recorded as unknown as OutboxEvent;
  const toEndpoints = (accountId: string, type: PlatformEvent, data: unknown) => endpointDeliveries(recorded, receivers.endpoints, accountId, type, data);
  switch (e.type) {
    case 'MessageAccepted': {
      const { hook } = receivers;
      // a message accepted straight into the queue (not scheduled) reports it at once
      return hook && e.data.status === 'queued' ? messageDeliveries(recorded, hook, 'queued', {}) : [];
    }
    case 'MessageQueued':
    case 'MessageSent':
    case 'MessageDelivered':
    case 'MessageFailed': {
      let { hook } = receivers;
      if (!hook) return [];
      const extra: Record<string, unknown> = e.type === 'MessageFailed' ? { reason: failureReasonOf(e.data) } : {};
      // the provider's id as the event names it (a sent, and the outcomes of messages whose status events
      // carry StatusFacts), else as the outbox kept it from the message's sent
      const named = e.type === 'MessageQueued' ? undefined : e.data.provider_message_id;
      if (named && named !== hook.provider_message_id) hook = { ...hook, provider_message_id: named };
      const deliveries = messageDeliveries(recorded, hook, PER_MESSAGE_STATUS[e.type]!, extra);
      const toMessageEndpoints = (type: 'message.delivered' | 'message.failed', status: string) =>
        endpointDeliveries(recorded, receivers.endpoints, hook.account_id, type, messageData(hook, status, extra), hook.personal_key);
      if (e.type === 'MessageDelivered') deliveries.push(...toMessageEndpoints('message.delivered', 'delivered'));
      if (e.type === 'MessageFailed') deliveries.push(...toMessageEndpoints('message.failed', 'failed'));
      return deliveries;
    }
    case 'ContactCreated':
      return toEndpoints(e.data.account_id, 'contact.created', { id: e.data.id, ...e.data.fields, custom_fields: e.data.custom_fields, created_at: e.data.created_at });
    case 'ContactUpdated':
      return toEndpoints(e.data.account_id, 'contact.updated', { id: e.data.id, changes: e.data.changes, custom_fields: e.data.custom_fields, updated_at: e.data.updated_at });
    case 'ContactBounced':
      return toEndpoints(e.data.account_id, 'contact.bounced', { contact_id: e.data.id, email: e.data.email, reason: e.data.reason, message_id: e.data.message_id ?? null, bounced_at: e.data.at });
    case 'RecipientSuppressed':
      if (e.data.reason !== 'unsubscribe' && e.data.reason !== 'stop') return [];
      return toEndpoints(e.data.account_id, 'contact.unsubscribed', { address: e.data.address, reason: e.data.reason, source: e.data.source, unsubscribed_at: e.data.at });
    case 'InboundMessageReceived': {
      const d = e.data;
      const data = {
        conversation_id: d.id, message_id: d.message_id, contact_id: d.contact_id, channel: d.channel, from: d.from, to: d.to, body: d.body,
        ...(d.subject !== undefined ? { subject: d.subject } : {}), ...(d.keyword ? { keyword: d.keyword } : {}), received_at: d.received_at,
      };
      const deliveries = toEndpoints(d.account_id, 'message.received', data);
      if (receivers.inboundUrl) deliveries.push(inboundDelivery(recorded, d.account_id, receivers.inboundUrl, data));
      return deliveries;
    }
    case 'MessageOpened':
      // a reader's open; a machine's fetch (an image proxy, a scanner) is nobody's
      if (e.data.machine) return [];
      return toEndpoints(e.data.account_id, 'email.opened', { message_id: e.data.id, first: e.data.first, opens: e.data.count, opened_at: e.data.at });
    case 'CampaignSent':
      return toEndpoints(e.data.account_id, 'campaign.sent', { campaign_id: e.data.id, name: e.data.name, accepted: e.data.accepted, skipped: e.data.skipped, sent_at: e.data.sent_at });
    case 'FormSubmitted': {
      // what was entered stays out of the body: until it is confirmed it is stored nowhere in clear
      // (README "Signup forms"); the contact it becomes comes as contact.created or contact.updated
      const d = e.data;
      const data = { form_id: d.form_id, submission_id: d.id, double_opt_in: d.double_opt_in, status: d.double_opt_in ? 'pending_confirmation' : 'confirmed', submitted_at: d.submitted_at };
      return endpointDeliveries(recorded, receivers.endpoints, d.account_id, 'form.submitted', data, null);
    }
    default:
      return [];
  }
}

/** A platform event to every active endpoint of the account that subscribes to it. */
function endpointDeliveries(
  recorded: RecordedEvent,
  endpoints: Iterable<EndpointSubscription>,
  accountId: string,
  type: PlatformEvent,
  data: unknown,
  personalKey: string | null = personalKeyOf(recorded),
): DeliveryDraft[] {
  const deliveries: DeliveryDraft[] = [];
  let draft: PlatformDraft | undefined;
  for (const ep of endpoints) {
    if (ep.account_id !== accountId || ep.status !== 'active') continue;
    if (ep.events.length > 0 && !ep.events.includes(type)) continue;
    draft ??= platformDraft(recorded, accountId, type, data, personalKey);
    deliveries.push({ ...draft, endpoint_id: ep.id, target_url: ep.url, kind: 'endpoint' });
  }
  return deliveries;
}

/** An inbound message to the account's inbound webhook URL: signed with the account's secret, like a message's own webhook. */
function inboundDelivery(recorded: RecordedEvent, accountId: string, url: string, data: unknown): DeliveryDraft {
  return { ...platformDraft(recorded, accountId, 'message.received', data, personalKeyOf(recorded)), endpoint_id: null, target_url: url, kind: 'message' };
}

type PlatformDraft = Omit<DeliveryDraft, 'endpoint_id' | 'target_url' | 'kind'>;

/** A platform event's delivery before its target is known: the body `{id, type, created_at, account_id, data}`. */
function platformDraft(recorded: RecordedEvent, accountId: string, type: PlatformEvent, data: unknown, personalKey: string | null): PlatformDraft {
  const eventId = `evt_${recorded.id}`;
  const createdAt = recorded.createdAt.toISOString();
  return {
    account_id: accountId, event_id: eventId, event_type: type, created_at: createdAt, personal_key: personalKey,
    body: JSON.stringify({ id: eventId, type, created_at: createdAt, account_id: accountId, data }),
  };
}

/** A message's status change to its own webhook_url, if it has one (no account_id in this body: README "Webhooks"). */
function messageDeliveries(recorded: RecordedEvent, hook: MessageHook, status: string, extra: Record<string, unknown>): DeliveryDraft[] {
  if (!hook.webhook_url) return [];
  const type = `message.${status}`;
  const eventId = `evt_${recorded.id}`;
  const createdAt = recorded.createdAt.toISOString();
  return [{
    account_id: hook.account_id, endpoint_id: null, target_url: hook.webhook_url, kind: 'message', event_id: eventId, event_type: type,
    body: JSON.stringify({ id: eventId, type, created_at: createdAt, data: messageData(hook, status, extra) }), created_at: createdAt, personal_key: hook.personal_key,
  }];
}

function messageData(hook: MessageHook, status: string, extra: Record<string, unknown>) {
  return {
    message_id: hook.message_id,
    status,
    channel: hook.channel,
    to: hook.to_address,
    ...extra,
    ...(hook.provider_message_id ? { provider_message_id: hook.provider_message_id } : {}),
  };
}

const personalKeyOf = (recorded: RecordedEvent): string | null => (recorded.data as { personal_data?: OpenedPersonalData }).personal_data?.key ?? null;

const CONTACT_FIELDS = ['email', 'phone', 'first_name', 'last_name', 'external_id'];
/** Where each webhook body keeps personal data: text fields and objects (custom values). */
const PERSONAL_IN_BODY: Record<string, { text: string[][]; objects: string[][] }> = {
  'contact.created': { text: CONTACT_FIELDS.map((f) => ['data', f]), objects: [['data', 'custom_fields']] },
  'contact.updated': { text: CONTACT_FIELDS.map((f) => ['data', 'changes', f]), objects: [['data', 'custom_fields']] },
  'contact.bounced': { text: [['data', 'email'], ['data', 'reason']], objects: [] },
  'contact.unsubscribed': { text: [['data', 'address']], objects: [] },
  'message.received': { text: [['data', 'from'], ['data', 'body'], ['data', 'subject']], objects: [] },
};
const MESSAGE_BODY = { text: [['data', 'to']], objects: [] };

/** A delivery's body with its personal data erased (as the events it came from now read). */
export function erasePersonalData(eventType: string, body: string): string {
  const where = PERSONAL_IN_BODY[eventType] ?? (eventType.startsWith('message.') ? MESSAGE_BODY : undefined);
  if (!where) return body;
  const doc = JSON.parse(body) as Record<string, any>;
  const set = (path: string[], value: unknown) => {
    const parent = path.slice(0, -1).reduce<any>((at, k) => (at && typeof at === 'object' ? at[k] : undefined), doc);
    const last = path[path.length - 1];
    if (parent && typeof parent === 'object' && parent[last] !== undefined && parent[last] !== null) parent[last] = value;
  };
  for (const path of where.text) set(path, ERASED);
  for (const path of where.objects) set(path, {});
  // a failure keeps its category; the provider's words went with the recipient
  if (eventType === 'message.failed' && typeof doc.data?.reason === 'string') doc.data.reason = failureCode(doc.data.reason);
  return JSON.stringify(doc);
}
