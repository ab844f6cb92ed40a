// The webhook outbox: a catch-up consumer of the global log that writes one delivery row per
// target for every event that maps to a platform event or a per-message status, in the same
// transaction as its checkpoint (so a crash neither loses nor doubles a delivery). It keeps the
// endpoints and per-message hooks it needs itself, in log order. Not rebuildable: a replay would
// deliver history again.
import type { ContactEvent } from '../commands/contact.ts';
import type { MessageEvent } from '../commands/message.ts';
import type { SuppressionEvent } from '../commands/suppression.ts';
import type { PlatformEvent, WebhookEndpointEvent } from '../commands/webhook-endpoint.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import { newId } from '../src/ids.ts';
import type { Projection } from '../src/projection.ts';

interface Endpoint {
  id: string;
  account_id: string;
  url: string;
  events: string[];
  status: string;
}

interface Hook {
  message_id: string;
  account_id: string;
  webhook_url: string | null;
  channel: string;
  to_address: string;
  provider_message_id: string | null;
}

export interface DeliveryRow {
  id: string;
  account_id: string;
  endpoint_id: string | null;
  target_url: string;
  kind: 'endpoint' | 'message';
  event_id: string;
  event_type: string;
  body: string;
  created_at: string;
}

/** The scheduling key of a delivery's receiver: the URL's authority (host and port). */
// hosts are case-insensitive: group deliveries by the lowercased authority
const TARGET_HOST_SQL = (url: string) => `lower(coalesce(substring(${url} from '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]+)'), ${url}))`;

const PER_MESSAGE_STATUS: Partial<Record<MessageEvent['type'], string>> = {
  MessageQueued: 'queued',
  MessageSent: 'sent',
  MessageDelivered: 'delivered',
  MessageFailed: 'failed',
};

export const webhookOutboxProjection: Projection = {
  name: 'webhook_outbox',
  version: 1,
  rebuildable: false,
  tables: ['webhook_endpoints', 'webhook_message_hooks', 'webhook_deliveries'],
  types: [
    'WebhookEndpointCreated', 'WebhookEndpointUpdated', 'WebhookEndpointDeleted',
    'MessageAccepted', 'MessageQueued', 'MessageSent', 'MessageDelivered', 'MessageFailed',
    'ContactCreated', 'ContactUpdated', 'ContactBounced', 'RecipientSuppressed',
  ],
  schema: (t) => `
    CREATE TABLE ${t('webhook_endpoints')} (
      id text PRIMARY KEY, account_id text NOT NULL, url text NOT NULL, events text[] NOT NULL, status text NOT NULL,
      secret_sealed text NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('webhook_endpoints')}_account ON ${t('webhook_endpoints')} (account_id, id);
    CREATE TABLE ${t('webhook_message_hooks')} (
      message_id text PRIMARY KEY, account_id text NOT NULL, webhook_url text, channel text NOT NULL, to_address text NOT NULL,
      provider_message_id text
    );
    CREATE TABLE ${t('webhook_deliveries')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      endpoint_id text,
      target_url text NOT NULL,
      target_host text NOT NULL,
      kind text NOT NULL,
      event_id text NOT NULL,
      event_type text NOT NULL,
      body text NOT NULL,
      status text NOT NULL DEFAULT 'pending',
      attempts int NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      locked_until timestamptz,
      last_status_code int,
      last_error text,
      last_latency_ms int,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      delivered_at timestamptz,
      target_key text NOT NULL,
      UNIQUE (event_id, target_key)
    );
    CREATE INDEX ${t('webhook_deliveries')}_due ON ${t('webhook_deliveries')} (next_attempt_at) WHERE status = 'pending';
    CREATE INDEX ${t('webhook_deliveries')}_endpoint ON ${t('webhook_deliveries')} (endpoint_id, id DESC);`,
  async apply(tx, events, t) {
    const accounts = [...new Set(events.map((e) => (e.data as { account_id?: string }).account_id).filter((a): a is string => !!a))];
    const { rows: endpointRows } = await tx.query<Endpoint>(`SELECT id, account_id, url, events, status FROM ${t('webhook_endpoints')} WHERE account_id = ANY($1::text[])`, [accounts]);
    const endpoints = new Map<string, Endpoint>(endpointRows.map((r) => [r.id, r]));
    const messageIds = events.filter((e) => e.type.startsWith('Message')).map((e) => (e.data as { id: string }).id);
    const { rows: hookRows } = messageIds.length
      ? await tx.query<Hook>(`SELECT * FROM ${t('webhook_message_hooks')} WHERE message_id = ANY($1::text[])`, [messageIds])
      : { rows: [] as Hook[] };
    const hooks = new Map<string, Hook>(hookRows.map((h) => [h.message_id, h]));
    const newHooks: Hook[] = [];
    const deliveries: DeliveryRow[] = [];

    const accountHasEndpoints = (accountId: string) => [...endpoints.values()].some((e) => e.account_id === accountId);
    const toEndpoints = (accountId: string, type: PlatformEvent, data: unknown, recorded: RecordedEvent) => {
      for (const ep of endpoints.values()) {
        if (ep.account_id !== accountId || ep.status !== 'active') continue;
        if (ep.events.length > 0 && !ep.events.includes(type)) continue;
        const eventId = `evt_${recorded.id}`;
        const createdAt = recorded.createdAt.toISOString();
        deliveries.push({
          id: newId('delivery'), account_id: accountId, endpoint_id: ep.id, target_url: ep.url, kind: 'endpoint', event_id: eventId, event_type: type,
          body: JSON.stringify({ id: eventId, type, created_at: createdAt, account_id: accountId, data }), created_at: createdAt,
        });
      }
    };

    for (const recorded of events) {
      const e = recorded as unknown as WebhookEndpointEvent | MessageEvent | ContactEvent | SuppressionEvent;
      switch (e.type) {
        case 'WebhookEndpointCreated': {
          const d = e.data;
          endpoints.set(d.id, { id: d.id, account_id: d.account_id, url: d.url, events: d.events, status: d.status });
          await tx.query(
            `INSERT INTO ${t('webhook_endpoints')} (id, account_id, url, events, status, secret_sealed, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$7)
             ON CONFLICT (id) DO NOTHING`,
            [d.id, d.account_id, d.url, d.events, d.status, d.secret_sealed, d.created_at],
          );
          break;
        }
        case 'WebhookEndpointUpdated': {
          const d = e.data;
          const ep = endpoints.get(d.id);
          if (ep) endpoints.set(d.id, { ...ep, url: d.url ?? ep.url, events: d.events ?? ep.events, status: d.status ?? ep.status });
          await tx.query(
            `UPDATE ${t('webhook_endpoints')} SET url = coalesce($2, url), events = coalesce($3, events), status = coalesce($4, status), updated_at = $5 WHERE id = $1`,
            [d.id, d.url ?? null, d.events ?? null, d.status ?? null, d.updated_at],
          );
          if (d.url) {
            // retries still to come go to the endpoint's new address (the sender also reads the
            // endpoint's url when it sends; this keeps per-host scheduling on the right host)
            await tx.query(
              `UPDATE ${t('webhook_deliveries')} SET target_url = $2::text, target_host = ${TARGET_HOST_SQL('$2::text')} WHERE endpoint_id = $1 AND status = 'pending'`,
              [d.id, d.url],
            );
          }
          break;
        }
        case 'WebhookEndpointDeleted':
          endpoints.delete(e.data.id);
          await tx.query(`DELETE FROM ${t('webhook_endpoints')} WHERE id = $1`, [e.data.id]);
          break;
        case 'MessageAccepted': {
          const d = e.data;
          // only messages somebody listens to are remembered
          if (!d.webhook_url && !accountHasEndpoints(d.account_id)) break;
          const hook: Hook = { message_id: d.id, account_id: d.account_id, webhook_url: d.webhook_url ?? null, channel: d.channel, to_address: d.to, provider_message_id: null };
          hooks.set(d.id, hook);
          newHooks.push(hook);
          if (d.status === 'queued') perMessage(hook, 'queued', {}, recorded);
          break;
        }
        case 'MessageQueued':
        case 'MessageSent':
        case 'MessageDelivered':
        case 'MessageFailed': {
          const hook = hooks.get(e.data.id);
          if (!hook) break;
          const extra: Record<string, unknown> = {};
          if (e.type === 'MessageSent') {
            hook.provider_message_id = e.data.provider_message_id;
            await tx.query(`UPDATE ${t('webhook_message_hooks')} SET provider_message_id = $2 WHERE message_id = $1`, [hook.message_id, hook.provider_message_id]);
          }
          if (e.type === 'MessageFailed') extra.reason = e.data.reason;
          perMessage(hook, PER_MESSAGE_STATUS[e.type]!, extra, recorded);
          if (e.type === 'MessageDelivered' || e.type === 'MessageFailed') {
            toEndpoints(hook.account_id, e.type === 'MessageDelivered' ? 'message.delivered' : 'message.failed', messageData(hook, e.type === 'MessageDelivered' ? 'delivered' : 'failed', extra), recorded);
          }
          break;
        }
        case 'ContactCreated':
          toEndpoints(e.data.account_id, 'contact.created', { id: e.data.id, ...e.data.fields, custom_fields: e.data.custom_fields, created_at: e.data.created_at }, recorded);
          break;
        case 'ContactUpdated':
          toEndpoints(e.data.account_id, 'contact.updated', { id: e.data.id, changes: e.data.changes, custom_fields: e.data.custom_fields, updated_at: e.data.updated_at }, recorded);
          break;
        case 'ContactBounced':
          toEndpoints(e.data.account_id, 'contact.bounced', { contact_id: e.data.id, email: e.data.email, reason: e.data.reason, message_id: e.data.message_id ?? null, bounced_at: e.data.at }, recorded);
          break;
        case 'RecipientSuppressed':
          if (e.data.reason === 'unsubscribe' || e.data.reason === 'stop') {
            toEndpoints(e.data.account_id, 'contact.unsubscribed', { address: e.data.address, reason: e.data.reason, source: e.data.source, unsubscribed_at: e.data.at }, recorded);
          }
          break;
      }
    }

    function messageData(hook: Hook, status: string, extra: Record<string, unknown>) {
      return {
        message_id: hook.message_id,
        status,
        channel: hook.channel,
        to: hook.to_address,
        ...extra,
        ...(hook.provider_message_id ? { provider_message_id: hook.provider_message_id } : {}),
      };
    }

    function perMessage(hook: Hook, status: string, extra: Record<string, unknown>, recorded: RecordedEvent) {
      if (!hook.webhook_url) return;
      const type = `message.${status}`;
      const eventId = `evt_${recorded.id}`;
      const createdAt = recorded.createdAt.toISOString();
      deliveries.push({
        id: newId('delivery'), account_id: hook.account_id, endpoint_id: null, target_url: hook.webhook_url, kind: 'message', event_id: eventId, event_type: type,
        body: JSON.stringify({ id: eventId, type, created_at: createdAt, data: messageData(hook, status, extra) }), created_at: createdAt,
      });
    }

    if (newHooks.length) {
      await tx.query(
        `INSERT INTO ${t('webhook_message_hooks')} (message_id, account_id, webhook_url, channel, to_address)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) ON CONFLICT DO NOTHING`,
        [newHooks.map((h) => h.message_id), newHooks.map((h) => h.account_id), newHooks.map((h) => h.webhook_url), newHooks.map((h) => h.channel), newHooks.map((h) => h.to_address)],
      );
    }
    if (deliveries.length) {
      await tx.query(
        `INSERT INTO ${t('webhook_deliveries')} (id, account_id, endpoint_id, target_url, target_host, kind, event_id, event_type, body, next_attempt_at, created_at, updated_at, target_key)
         SELECT id, acct, ep, url, ${TARGET_HOST_SQL('url')}, kind, evt, typ, body, now(), created, now(), coalesce(ep, 'message')
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[])
           AS u(id, acct, ep, url, kind, evt, typ, body, created)
         ON CONFLICT (event_id, target_key) DO NOTHING`,
        [
          deliveries.map((d) => d.id), deliveries.map((d) => d.account_id), deliveries.map((d) => d.endpoint_id), deliveries.map((d) => d.target_url),
          deliveries.map((d) => d.kind), deliveries.map((d) => d.event_id), deliveries.map((d) => d.event_type), deliveries.map((d) => d.body), deliveries.map((d) => d.created_at),
        ],
      );
    }
  },
};
