// The webhook outbox: a catch-up consumer of the global log that writes one delivery row per
// target for every event that maps to a platform event or a per-message status, in the same
// transaction as its checkpoint (so a crash neither loses nor doubles a delivery). It keeps the
// endpoints and per-message hooks it needs itself, in log order. Not rebuildable: a replay would
// deliver history again. It owns webhook_deliveries and webhook_attempts: every statement on them
// is a typed query below (the sender's claims and attempts, the API's lists and retries).
import type { MessageEvent } from '../commands/message.ts';
import type { InboundSettingsEvent } from '../commands/inbound-settings.ts';
import type { WebhookEndpointEvent } from '../commands/webhook-endpoint.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import { newId } from '../src/ids.ts';
import type { Projection, TableNamer } from '../src/read-models/projection.ts';
import { ERASED, type OpenedPersonalData, sealedKeyOf } from '../src/personal-data/codec.ts';
import { openEvents } from '../src/personal-data/store.ts';
import { applyInOrder } from './document.ts';
import { ERASURE_EVENTS, erasedKeys, isErasure } from './erasures.ts';
import { type DeliveryDraft, deliveriesFor, type EndpointSubscription, erasePersonalData, type MessageHook } from './webhook-payloads.ts';
import type { Migration } from '../src/db/migrations.ts';
import { type Db, findInAccount } from './queries.ts';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

/** A row of webhook_deliveries. */
export interface WebhookDelivery extends Omit<DeliveryDraft, 'created_at'> {
  id: string;
  created_at: Date;
  target_host: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  locked_until: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
  updated_at: Date;
  delivered_at: Date | null;
  target_key: string;
}

/** The scheduling key of a delivery's receiver: the URL's authority (host and port). */
// hosts are case-insensitive: group deliveries by the lowercased authority
const TARGET_HOST_SQL = (url: string) => `lower(coalesce(substring(${url} from '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]+)'), ${url}))`;

export const webhookOutboxProjection: Projection = {
  name: 'webhook_outbox',
  version: 1,
  rebuildable: false,
  // most contacts and messages belong to accounts nobody listens to: only what may be delivered or
  // remembered is decrypted (openWhereListened)
  personalData: 'opened-by-apply',
  tables: ['webhook_endpoints', 'webhook_message_hooks', 'webhook_deliveries', 'webhook_inbound_hooks'],
  types: [
    'WebhookEndpointCreated', 'WebhookEndpointUpdated', 'WebhookEndpointDeleted',
    'MessageAccepted', 'MessageQueued', 'MessageSent', 'MessageDelivered', 'MessageFailed',
    'ContactCreated', 'ContactUpdated', 'ContactBounced', 'RecipientSuppressed', 'CampaignSent', 'InboundSettingsChanged', 'InboundMessageReceived',
    ...ERASURE_EVENTS,
  ],
  schema: (t) => `
    CREATE TABLE ${t('webhook_endpoints')} (
      id text PRIMARY KEY, account_id text NOT NULL, url text NOT NULL, events text[] NOT NULL, status text NOT NULL,
      secret_sealed text NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('webhook_endpoints')}_account ON ${t('webhook_endpoints')} (account_id, id);
    CREATE TABLE ${t('webhook_message_hooks')} (
      message_id text PRIMARY KEY, account_id text NOT NULL, webhook_url text, channel text NOT NULL, to_address text NOT NULL,
      provider_message_id text, personal_key text
    );
    CREATE INDEX ${t('webhook_message_hooks')}_personal_key ON ${t('webhook_message_hooks')} (personal_key) WHERE personal_key IS NOT NULL;
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
      personal_key text,
      UNIQUE (event_id, target_key)
    );
    CREATE INDEX ${t('webhook_deliveries')}_personal_key ON ${t('webhook_deliveries')} (personal_key) WHERE personal_key IS NOT NULL;
    CREATE INDEX ${t('webhook_deliveries')}_due ON ${t('webhook_deliveries')} (next_attempt_at) WHERE status = 'pending';
    CREATE INDEX ${t('webhook_deliveries')}_endpoint ON ${t('webhook_deliveries')} (endpoint_id, id DESC);
    CREATE TABLE ${t('webhook_inbound_hooks')} (account_id text PRIMARY KEY, url text NOT NULL);`,
  // personal_key columns came with erasure (a generation made before gets them here)
  upgrade: (t) => `
    ALTER TABLE ${t('webhook_message_hooks')} ADD COLUMN IF NOT EXISTS personal_key text;
    ALTER TABLE ${t('webhook_deliveries')} ADD COLUMN IF NOT EXISTS personal_key text;
    CREATE INDEX IF NOT EXISTS ${t('webhook_message_hooks')}_personal_key ON ${t('webhook_message_hooks')} (personal_key) WHERE personal_key IS NOT NULL;
    CREATE INDEX IF NOT EXISTS ${t('webhook_deliveries')}_personal_key ON ${t('webhook_deliveries')} (personal_key) WHERE personal_key IS NOT NULL;
    CREATE TABLE IF NOT EXISTS ${t('webhook_inbound_hooks')} (account_id text PRIMARY KEY, url text NOT NULL);`,
  async apply(tx, events, t) {
    await applyInOrder(events, isErasure, { apply: (run) => applyRun(tx, run, t), applySpecial: (e) => applyErasure(tx, e, t) });
  },
};

/** Blanks what the erased keys sealed wherever the outbox keeps a copy: message hooks and delivery bodies. */
async function applyErasure(tx: Db, e: RecordedEvent, t: TableNamer): Promise<void> {
  const { account_id } = e.data as { account_id: string };
  const keys = erasedKeys(e);
  await tx.query(`UPDATE ${t('webhook_message_hooks')} SET to_address = $3 WHERE account_id = $1 AND personal_key = ANY($2::text[])`, [account_id, keys, ERASED]);
  const { rows } = await tx.query<{ id: string; event_type: string; body: string }>(
    `SELECT id, event_type, body FROM ${t('webhook_deliveries')} WHERE account_id = $1 AND personal_key = ANY($2::text[])`,
    [account_id, keys],
  );
  if (!rows.length) return;
  await tx.query(`UPDATE ${t('webhook_deliveries')} d SET body = u.body FROM unnest($1::text[], $2::text[]) AS u(id, body) WHERE d.id = u.id`, [
    rows.map((r) => r.id),
    rows.map((r) => erasePersonalData(r.event_type, r.body)),
  ]);
}

/**
 * The run's events, sealed as read, with those opened that the outbox may deliver or keep a hook
 * for: every event of an account with an endpoint (stored, or created earlier in the run) and a
 * message with a webhook_url of its own. The rest can produce nothing here, so nothing of theirs is
 * decrypted.
 */
async function openWhereListened(
  tx: Db,
  events: RecordedEvent[],
  endpoints: ReadonlyMap<string, EndpointSubscription>,
  inboundHooks: ReadonlyMap<string, string>,
): Promise<RecordedEvent[]> {
  const listened = new Set([...endpoints.values()].map((ep) => ep.account_id));
  for (const account of inboundHooks.keys()) listened.add(account);
  for (const e of events) {
    const d = e.data as { account_id: string; webhook_url?: string | null };
    if (e.type === 'WebhookEndpointCreated' || (e.type === 'InboundSettingsChanged' && d.webhook_url)) listened.add(d.account_id);
  }
  const wanted = events.filter((e) => {
    const d = e.data as { account_id?: string; webhook_url?: string | null };
    return sealedKeyOf(d) !== undefined && ((d.account_id !== undefined && listened.has(d.account_id)) || (e.type === 'MessageAccepted' && !!d.webhook_url));
  });
  if (wanted.length === 0) return events;
  const opened = new Map<RecordedEvent, RecordedEvent>();
  (await openEvents(tx, wanted)).forEach((e, i) => opened.set(wanted[i]!, e));
  return events.map((e) => opened.get(e) ?? e);
}

async function applyRun(tx: Db, sealed: RecordedEvent[], t: TableNamer): Promise<void> {
  const { endpoints, hooks, inboundHooks } = await loadReceivers(tx, sealed, t);
  const events = await openWhereListened(tx, sealed, endpoints, inboundHooks);
  const newHooks: MessageHook[] = [];
  const deliveries: DeliveryDraft[] = [];
  for (const recorded of events) {
    const e = recorded as unknown as WebhookEndpointEvent | MessageEvent | InboundSettingsEvent;
    // first what the event changes in the receivers the outbox keeps, then what it delivers to them
    let hook: MessageHook | undefined;
    switch (e.type) {
      case 'WebhookEndpointCreated':
      case 'WebhookEndpointUpdated':
      case 'WebhookEndpointDeleted':
        await applyEndpointEvent(tx, e, endpoints, t);
        continue;
      case 'InboundSettingsChanged':
        await applyInboundSettings(tx, e.data, inboundHooks, t);
        continue;
      case 'MessageAccepted': {
        const d = e.data;
        // only messages somebody listens to are remembered
        if (!d.webhook_url && ![...endpoints.values()].some((ep) => ep.account_id === d.account_id)) break;
        const personalKey = (d as { personal_data?: OpenedPersonalData }).personal_data?.key ?? null;
        hook = { message_id: d.id, account_id: d.account_id, webhook_url: d.webhook_url ?? null, channel: d.channel, to_address: d.to, provider_message_id: null, personal_key: personalKey };
        hooks.set(d.id, hook);
        newHooks.push(hook);
        break;
      }
      case 'MessageSent':
        hook = hooks.get(e.data.id);
        if (!hook) break;
        hook.provider_message_id = e.data.provider_message_id;
        await tx.query(`UPDATE ${t('webhook_message_hooks')} SET provider_message_id = $2 WHERE message_id = $1`, [hook.message_id, hook.provider_message_id]);
        break;
      default:
        if (e.type.startsWith('Message')) hook = hooks.get(e.data.id);
    }
    const inboundUrl = recorded.type === 'InboundMessageReceived' ? inboundHooks.get((recorded.data as { account_id: string }).account_id) : undefined;
    deliveries.push(...deliveriesFor(recorded, { endpoints: endpoints.values(), hook, ...(inboundUrl ? { inboundUrl } : {}) }));
  }
  await insertHooks(tx, newHooks, t);
  await insertDeliveries(tx, deliveries, t);
}


/** The endpoints of the batch's accounts and the hooks of its messages, as stored before the batch. */
async function loadReceivers(tx: Db, events: readonly RecordedEvent[], t: TableNamer) {
  const accounts = [...new Set(events.map((e) => (e.data as { account_id?: string }).account_id).filter((a): a is string => !!a))];
  const { rows: endpointRows } = await tx.query<EndpointSubscription>(`SELECT id, account_id, url, events, status FROM ${t('webhook_endpoints')} WHERE account_id = ANY($1::text[])`, [accounts]);
  const messageIds = events.filter((e) => e.type.startsWith('Message')).map((e) => (e.data as { id: string }).id);
  const { rows: hookRows } = messageIds.length
    ? await tx.query<MessageHook>(`SELECT * FROM ${t('webhook_message_hooks')} WHERE message_id = ANY($1::text[])`, [messageIds])
    : { rows: [] as MessageHook[] };
  const { rows: inboundRows } = await tx.query<{ account_id: string; url: string }>(`SELECT account_id, url FROM ${t('webhook_inbound_hooks')} WHERE account_id = ANY($1::text[])`, [accounts]);
  return {
    endpoints: new Map<string, EndpointSubscription>(endpointRows.map((r) => [r.id, r])),
    hooks: new Map<string, MessageHook>(hookRows.map((h) => [h.message_id, h])),
    inboundHooks: new Map<string, string>(inboundRows.map((r) => [r.account_id, r.url])),
  };
}

async function applyEndpointEvent(tx: Db, e: WebhookEndpointEvent, endpoints: Map<string, EndpointSubscription>, t: TableNamer): Promise<void> {
  switch (e.type) {
    case 'WebhookEndpointCreated': {
      const d = e.data;
      endpoints.set(d.id, { id: d.id, account_id: d.account_id, url: d.url, events: d.events, status: d.status });
      await tx.query(
        `INSERT INTO ${t('webhook_endpoints')} (id, account_id, url, events, status, secret_sealed, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$7)
         ON CONFLICT (id) DO NOTHING`,
        [d.id, d.account_id, d.url, d.events, d.status, d.secret_sealed, d.created_at],
      );
      return;
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
      return;
    }
    case 'WebhookEndpointDeleted':
      endpoints.delete(e.data.id);
      await tx.query(`DELETE FROM ${t('webhook_endpoints')} WHERE id = $1`, [e.data.id]);
  }
}

/** The account's inbound webhook URL, as the outbox keeps it (none set: no row). */
async function applyInboundSettings(tx: Db, d: InboundSettingsEvent['data'], inboundHooks: Map<string, string>, t: TableNamer): Promise<void> {
  if (d.webhook_url) {
    inboundHooks.set(d.account_id, d.webhook_url);
    await tx.query(`INSERT INTO ${t('webhook_inbound_hooks')} (account_id, url) VALUES ($1, $2) ON CONFLICT (account_id) DO UPDATE SET url = excluded.url`, [d.account_id, d.webhook_url]);
  } else {
    inboundHooks.delete(d.account_id);
    await tx.query(`DELETE FROM ${t('webhook_inbound_hooks')} WHERE account_id = $1`, [d.account_id]);
  }
}

async function insertHooks(tx: Db, hooks: readonly MessageHook[], t: TableNamer): Promise<void> {
  if (!hooks.length) return;
  await tx.query(
    `INSERT INTO ${t('webhook_message_hooks')} (message_id, account_id, webhook_url, channel, to_address, personal_key)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) ON CONFLICT DO NOTHING`,
    [
      hooks.map((h) => h.message_id), hooks.map((h) => h.account_id), hooks.map((h) => h.webhook_url), hooks.map((h) => h.channel), hooks.map((h) => h.to_address),
      hooks.map((h) => h.personal_key),
    ],
  );
}

/** New deliveries, due now; an event already delivered to a target (a re-applied batch) is not added twice. */
async function insertDeliveries(tx: Db, drafts: readonly DeliveryDraft[], t: TableNamer): Promise<void> {
  if (!drafts.length) return;
  await tx.query(
    `INSERT INTO ${t('webhook_deliveries')} (id, account_id, endpoint_id, target_url, target_host, kind, event_id, event_type, body, next_attempt_at, created_at, updated_at, target_key, personal_key)
     SELECT id, acct, ep, url, ${TARGET_HOST_SQL('url')}, kind, evt, typ, body, now(), created, now(), coalesce(ep, 'message'), pkey
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::text[])
       AS u(id, acct, ep, url, kind, evt, typ, body, created, pkey)
     ON CONFLICT (event_id, target_key) DO NOTHING`,
    [
      drafts.map(() => newId('delivery')), drafts.map((d) => d.account_id), drafts.map((d) => d.endpoint_id), drafts.map((d) => d.target_url),
      drafts.map((d) => d.kind), drafts.map((d) => d.event_id), drafts.map((d) => d.event_type), drafts.map((d) => d.body), drafts.map((d) => d.created_at),
      drafts.map((d) => d.personal_key),
    ],
  );
}

// ── The sender's and the API's queries (the tables' views, so always the live generation) ──

/** A delivery a sender has leased for one attempt. */
export type ClaimedDelivery = Pick<WebhookDelivery, 'id' | 'account_id' | 'endpoint_id' | 'target_url' | 'target_host' | 'kind' | 'event_id' | 'event_type' | 'body' | 'attempts'>;

/**
 * Leases up to `limit` deliveries due at `now` until `leaseUntil`: invisible to other claims
 * meanwhile, so one attempt is made at a time. Rows another sender is claiming, and those to
 * `skipHosts` (at their share of concurrent attempts), are left alone.
 */
export async function claimDueDeliveries(db: Db, claim: { now: Date; limit: number; leaseUntil: Date; skipHosts: readonly string[] }): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query<ClaimedDelivery>(
    `UPDATE webhook_deliveries d SET locked_until = $3
     WHERE d.id IN (
       SELECT id FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until < $1)
         AND NOT (target_host = ANY($4::text[]))
       ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING d.id, d.account_id, d.endpoint_id, d.target_url, d.target_host, d.kind, d.event_id, d.event_type, d.body, d.attempts`,
    [claim.now, claim.limit, claim.leaseUntil, claim.skipHosts],
  );
  return rows;
}

/** Ends a lease with no attempt made: the delivery is due again at once, for a later round. */
export async function releaseDelivery(db: Db, deliveryId: string): Promise<void> {
  await db.query('UPDATE webhook_deliveries SET locked_until = NULL WHERE id = $1', [deliveryId]);
}

/** One attempt made (or a delivery given up on): the delivery's new state and the attempt's row. */
export interface DeliveryAttempt {
  deliveryId: string;
  /** 1 for the first attempt */
  attempt: number;
  status: DeliveryStatus;
  nextAttemptAt: Date;
  at: Date;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

/** Records an attempt and ends its lease; recording the same attempt twice changes nothing more. */
export async function recordDeliveryAttempt(db: Db, a: DeliveryAttempt): Promise<void> {
  // the row and its attempt in one statement (one transaction, one round trip): a WITH update runs
  // to completion whether or not the INSERT reads it
  await db.query(
    `WITH d AS (
       UPDATE webhook_deliveries SET status = $2, attempts = $3, next_attempt_at = $4, locked_until = NULL, last_status_code = $5,
         last_error = $6, last_latency_ms = $7, updated_at = $8, delivered_at = CASE WHEN $2 = 'delivered' THEN $8 ELSE delivered_at END
       WHERE id = $1)
     INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, latency_ms, error) VALUES ($1, $3, $8, $5, $7, $6) ON CONFLICT DO NOTHING`,
    [a.deliveryId, a.status, a.attempt, a.nextAttemptAt, a.statusCode, a.error, a.latencyMs, a.at],
  );
}

/** An endpoint's deliveries, newest first: at most `limit` with ids below `before`, of one status if given. */
export async function listEndpointDeliveries(
  db: Db,
  q: { endpointId: string; accountId: string; before?: string; status?: DeliveryStatus; limit: number },
): Promise<WebhookDelivery[]> {
  const { rows } = await db.query<WebhookDelivery>(
    `SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 AND account_id = $2 AND ($3::text IS NULL OR id < $3) AND ($4::text IS NULL OR status = $4)
     ORDER BY id DESC LIMIT $5`,
    [q.endpointId, q.accountId, q.before ?? null, q.status ?? null, q.limit],
  );
  return rows;
}

export type RetryNowOutcome =
  | { retried: WebhookDelivery }
  /** no such delivery of this endpoint and account; one that already succeeded; one an attempt holds right now */
  | { refused: 'not_found' | 'delivered' | 'in_flight'; status?: DeliveryStatus };

/** Makes a delivery due now (POST …/retry): one that failed or waits for its next retry. */
export async function retryDeliveryNow(db: Db, r: { deliveryId: string; endpointId: string; accountId: string; now: Date }): Promise<RetryNowOutcome> {
  // an attempt in flight holds a lease (locked_until): re-arming it would send it twice at once
  const { rows } = await db.query<WebhookDelivery>(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $4, locked_until = NULL, updated_at = $4
     WHERE id = $1 AND endpoint_id = $2 AND account_id = $3 AND status <> 'delivered' AND (locked_until IS NULL OR locked_until < $4) RETURNING *`,
    [r.deliveryId, r.endpointId, r.accountId, r.now],
  );
  if (rows[0]) return { retried: rows[0] };
  const { rows: found } = await db.query<{ status: DeliveryStatus }>('SELECT status FROM webhook_deliveries WHERE id = $1 AND endpoint_id = $2 AND account_id = $3', [
    r.deliveryId,
    r.endpointId,
    r.accountId,
  ]);
  if (!found[0]) return { refused: 'not_found' };
  return { refused: found[0].status === 'delivered' ? 'delivered' : 'in_flight', status: found[0].status };
}

/** What a sender needs of the endpoints it delivers to: where, with which secret, and whether still active. */
export interface SendingEndpoint {
  id: string;
  secret_sealed: string;
  status: string;
  url: string;
}

/** The endpoints with these ids, as of now (deleted ones are absent), in one read. */
export async function sendingEndpoints(db: Db, ids: readonly string[]): Promise<Map<string, SendingEndpoint>> {
  const { rows } = await db.query<SendingEndpoint>('SELECT id, secret_sealed, status, url FROM webhook_endpoints WHERE id = ANY($1::text[])', [ids]);
  return new Map(rows.map((e) => [e.id, e]));
}

/** An endpoint as the API shows it. */
export interface WebhookEndpointRow {
  id: string;
  account_id: string;
  url: string;
  events: string[];
  status: string;
  created_at: Date;
  updated_at: Date;
}

export const findWebhookEndpoint = (db: Db, accountId: string, id: string) => findInAccount<WebhookEndpointRow>(db, 'webhook_endpoints', accountId, id);

/** The account's endpoints, oldest first. */
export async function listWebhookEndpoints(db: Db, accountId: string): Promise<WebhookEndpointRow[]> {
  const { rows } = await db.query<WebhookEndpointRow>('SELECT * FROM webhook_endpoints WHERE account_id = $1 ORDER BY id', [accountId]);
  return rows;
}

/**
 * webhook_attempts: every attempt of a delivery, kept beside the rebuildable tables (the outbox is
 * never replayed, and attempts record what receivers answered). src/schema.ts runs them.
 */
export const WEBHOOK_ATTEMPTS_MIGRATIONS: Migration[] = [
  {
    id: 5,
    name: 'webhook delivery attempts',
    sql: `
      CREATE TABLE IF NOT EXISTS webhook_attempts (
        delivery_id text NOT NULL,
        attempt int NOT NULL,
        at timestamptz NOT NULL,
        status_code int,
        latency_ms int,
        error text,
        PRIMARY KEY (delivery_id, attempt)
      );`,
  },
];
