// The webhook outbox: a catch-up consumer of the global log that writes one delivery row per
// target for every event that maps to a platform event or a per-message status, in the same
// transaction as its checkpoint (so a crash neither loses nor doubles a delivery). It keeps the
// endpoints and per-message hooks it needs itself, in log order. Not rebuildable: a replay would
// deliver history again. It owns webhook_deliveries and webhook_attempts: every statement on them
// is a typed query below (the sender's claims and attempts, the API's lists and retries). Its other
// tables have modules of their own: webhook_endpoints (webhook-endpoints.ts), webhook_message_hooks
// (webhook-message-hooks.ts) and webhook_replays (webhook-replays.ts, whose cancel this apply
// carries out on the deliveries).
import type { MessageEvent } from '../commands/message.ts';
import type { InboundSettingsEvent } from '../commands/inbound-settings.ts';
import type { WebhookEndpointEvent } from '../commands/webhook-endpoint.ts';
import { WEBHOOK_REPLAY_EVENT_TYPES, type WebhookReplayEvent } from '../commands/webhook-replay.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import { newId } from '../src/ids.ts';
import type { Projection, TableNamer } from '../src/read-models/projection.ts';
import { openEvents } from '../src/personal-data/store.ts';
import { applyInOrder } from './document.ts';
import { ERASURE_EVENTS, erasedKeys, isErasure } from './erasures.ts';
import { eraseHooks, hookOfAccepted, hooksInsert, hooksOfMessagesSql, messageHooksSchema, messageHooksUpgrade, openHooks, providerIdsUpdate, type StoredHook } from './webhook-message-hooks.ts';
import { type DeliveryDraft, deliveriesFor, type EndpointSubscription, erasePersonalData, type MessageHook } from './webhook-payloads.ts';
import { applyReplayEvent, replaysSchema } from './webhook-replays.ts';
import { revokeDeliveries } from '../src/webhooks/revocations.ts';
import { endpointsOfAccountsSql, endpointsSchema, storeEndpointEvent } from './webhook-endpoints.ts';

// the endpoints' queries, from where their callers have always imported them
export { accountOfWebhookEndpoint, findWebhookEndpoint, listWebhookEndpoints, type SendingEndpoint, sendingEndpoints, type WebhookEndpointRow } from './webhook-endpoints.ts';
import type { SendingEndpoint } from './webhook-endpoints.ts';
import type { Migration } from '../src/db/migrations.ts';
import { prepared } from '../src/db/prepared.ts';
import { type Statement, writeTogether } from '../src/db/together.ts';
import type { Db } from './queries.ts';

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
  /** the replay that made it (null: a live delivery) */
  replay_id: string | null;
}

/** The scheduling key of a delivery's receiver: the URL's authority (host and port). */
// hosts are case-insensitive: group deliveries by the lowercased authority
const TARGET_HOST_SQL = (url: string) => `lower(coalesce(substring(${url} from '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]+)'), ${url}))`;

/**
 * webhook_deliveries is a queue: every row is claimed (locked_until set) and then recorded, a few
 * thousand times a second under load. Room left in each page lets the claim's update stay on its
 * page without new index entries (a HOT update: locked_until is in no index), and vacuuming at a
 * small share of dead rows keeps the claim's walk of the due index short.
 */
const QUEUE_TABLE_STORAGE = 'fillfactor = 70, autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_cost_delay = 0';

/**
 * The types whose only effect here is deliveries to their account's endpoints (or its inbound hook):
 * none keeps a row of its own. Message events keep hooks, and erasures, endpoint, inbound-settings and
 * replay events change the outbox's tables.
 */
const DELIVERY_ONLY_TYPES: ReadonlySet<string> = new Set(['ContactCreated', 'ContactUpdated', 'ContactBounced', 'RecipientSuppressed', 'CampaignSent', 'InboundMessageReceived', 'FormSubmitted']);

export const webhookOutboxProjection: Projection = {
  name: 'webhook_outbox',
  version: 1,
  rebuildable: false,
  // most contacts and messages belong to accounts nobody listens to: only what may be delivered or
  // remembered is decrypted (openWhereListened)
  personalData: 'opened-by-apply',
  tables: ['webhook_endpoints', 'webhook_message_hooks', 'webhook_deliveries', 'webhook_inbound_hooks', 'webhook_replays'],
  types: [
    'WebhookEndpointCreated', 'WebhookEndpointUpdated', 'WebhookEndpointDeleted',
    'MessageAccepted', 'MessageQueued', 'MessageSent', 'MessageDelivered', 'MessageFailed', 'MessageOpened',
    'ContactCreated', 'ContactUpdated', 'ContactBounced', 'RecipientSuppressed', 'CampaignSent', 'InboundSettingsChanged', 'InboundMessageReceived', 'FormSubmitted',
    ...WEBHOOK_REPLAY_EVENT_TYPES,
    ...ERASURE_EVENTS,
  ],
  schema: (t) => `
    ${endpointsSchema(t)}
    ${messageHooksSchema(t)}
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
      replay_id text,
      UNIQUE (event_id, target_key)
    ) WITH (${QUEUE_TABLE_STORAGE});
    CREATE INDEX ${t('webhook_deliveries')}_replay ON ${t('webhook_deliveries')} (replay_id, status) WHERE replay_id IS NOT NULL;
    CREATE INDEX ${t('webhook_deliveries')}_personal_key ON ${t('webhook_deliveries')} (personal_key) WHERE personal_key IS NOT NULL;
    CREATE INDEX ${t('webhook_deliveries')}_due ON ${t('webhook_deliveries')} (next_attempt_at) WHERE status = 'pending';
    CREATE INDEX ${t('webhook_deliveries')}_endpoint ON ${t('webhook_deliveries')} (endpoint_id, id DESC);
    CREATE TABLE ${t('webhook_inbound_hooks')} (account_id text PRIMARY KEY, url text NOT NULL);
    ${replaysSchema(t)}`,
  // personal_key columns came with erasure, replay_id and webhook_replays with replays (a generation
  // made before gets them here)
  upgrade: (t) => `
    ${messageHooksUpgrade(t)}
    ALTER TABLE ${t('webhook_deliveries')} SET (${QUEUE_TABLE_STORAGE});
    ALTER TABLE ${t('webhook_deliveries')} ADD COLUMN IF NOT EXISTS personal_key text;
    CREATE INDEX IF NOT EXISTS ${t('webhook_deliveries')}_personal_key ON ${t('webhook_deliveries')} (personal_key) WHERE personal_key IS NOT NULL;
    ALTER TABLE ${t('webhook_deliveries')} ADD COLUMN IF NOT EXISTS replay_id text;
    CREATE INDEX IF NOT EXISTS ${t('webhook_deliveries')}_replay ON ${t('webhook_deliveries')} (replay_id, status) WHERE replay_id IS NOT NULL;
    CREATE TABLE IF NOT EXISTS ${t('webhook_inbound_hooks')} (account_id text PRIMARY KEY, url text NOT NULL);
    ${replaysSchema(t)}`,
  // a batch of contact and inbound events of accounts nobody listens to delivers nothing (most
  // batches of a stream of contact writes): one read, no transaction (README "The write path")
  async inert(db, events, t) {
    const accounts = new Set<string>();
    for (const e of events) {
      const account = (e.data as { account_id?: unknown }).account_id;
      if (!DELIVERY_ONLY_TYPES.has(e.type) || typeof account !== 'string') return false;
      accounts.add(account);
    }
    const { rows } = await db.query<{ listened: boolean }>(prepared(
      `SELECT EXISTS (SELECT 1 FROM ${t('webhook_endpoints')} WHERE account_id = ANY($1::text[]))
           OR EXISTS (SELECT 1 FROM ${t('webhook_inbound_hooks')} WHERE account_id = ANY($1::text[])) AS listened`,
      [[...accounts]],
    ));
    return !rows[0]!.listened;
  },
  async apply(tx, events, t) {
    const signals = new Set<string>();
    await applyInOrder(events, isErasure, { apply: (run) => applyRun(tx, run, t, signals), applySpecial: (e) => applyErasure(tx, e, t) });
    return { signals: [...signals] };
  },
};

/**
 * The signals the outbox's apply raises (the runner's 'signal' event, after its commit): the webhook
 * sender claims when deliveries were added or an endpoint changed, the replayer moves replays along
 * when one was requested, scanned, completed or cancelled, or an endpoint changed. Before, both ran a
 * round on every batch of the outbox, nearly all of which (no endpoint listening) added nothing.
 */
export const DELIVERIES_ADDED = 'webhook_deliveries';
export const REPLAYS_CHANGED = 'webhook_replays';

/** Blanks what the erased keys sealed wherever the outbox keeps a copy: message hooks and delivery bodies. */
async function applyErasure(tx: Db, e: RecordedEvent, t: TableNamer): Promise<void> {
  const { account_id } = e.data as { account_id: string };
  const keys = erasedKeys(e);
  await eraseHooks(tx, account_id, keys, t);
  const { rows } = await tx.query<{ id: string; event_type: string; body: string }>(
    `SELECT id, event_type, body FROM ${t('webhook_deliveries')} WHERE account_id = $1 AND personal_key = ANY($2::text[])`,
    [account_id, keys],
  );
  if (!rows.length) return;
  await tx.query(`UPDATE ${t('webhook_deliveries')} d SET body = u.body FROM unnest($1::text[], $2::text[]) AS u(id, body) WHERE d.id = ANY($1::text[]) AND d.id = u.id`, [
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
  hooks: ReadonlyMap<string, StoredHook>,
): Promise<{ events: RecordedEvent[]; listened: ReadonlySet<string> }> {
  const listened = new Set([...endpoints.values()].map((ep) => ep.account_id));
  for (const account of inboundHooks.keys()) listened.add(account);
  // messages with a webhook_url of their own: their failure's reason goes to it in full
  const ownHook = new Set([...hooks.values()].filter((h) => h.webhook_url).map((h) => h.message_id));
  for (const e of events) {
    const d = e.data as { id?: string; account_id: string; webhook_url?: string | null };
    if (e.type === 'WebhookEndpointCreated' || (e.type === 'InboundSettingsChanged' && d.webhook_url)) listened.add(d.account_id);
    if (e.type === 'MessageAccepted' && d.webhook_url && d.id) ownHook.add(d.id);
  }
  const wanted = (e: RecordedEvent) => {
    const d = e.data as { id?: string; account_id?: string; webhook_url?: string | null };
    return (d.account_id !== undefined && listened.has(d.account_id)) || (e.type === 'MessageAccepted' && !!d.webhook_url)
      || (e.type === 'MessageFailed' && d.id !== undefined && ownHook.has(d.id));
  };
  return { events: await openEvents(tx, events, wanted), listened };
}

/**
 * Opens, in place, the sealed recipients of stored hooks whose message may now reach an endpoint: a
 * message delivered or failed in this run, of an account somebody listens to. (Hooks made in the
 * run come from events already opened where that account listens.)
 */
async function openListenedHooks(tx: Db, events: readonly RecordedEvent[], hooks: ReadonlyMap<string, StoredHook>, listened: ReadonlySet<string>): Promise<void> {
  const wanted = events
    .filter((e) => e.type === 'MessageDelivered' || e.type === 'MessageFailed')
    .map((e) => hooks.get((e.data as { id: string }).id))
    .filter((h): h is StoredHook => !!h && h.to_address === null && listened.has(h.account_id));
  if (!wanted.length) return;
  const opened = await openHooks(tx, wanted);
  wanted.forEach((h, i) => (h.to_address = opened[i]!.to_address));
}

/** The hook as deliveries read it: a recipient still sealed means nobody of its account listens, so it delivers nothing. */
const deliverableHook = (hook: StoredHook | undefined): MessageHook | undefined =>
  hook && hook.to_address !== null ? { ...hook, to_address: hook.to_address } : undefined;

async function applyRun(tx: Db, sealed: RecordedEvent[], t: TableNamer, signals: Set<string>): Promise<void> {
  const { endpoints, hooks, inboundHooks } = await loadReceivers(tx, sealed, t);
  const { events, listened } = await openWhereListened(tx, sealed, endpoints, inboundHooks, hooks);
  await openListenedHooks(tx, events, hooks, listened);
  const newHooks: StoredHook[] = [];
  // provider ids of hooks stored before this run, written together at its end (a new hook carries its own)
  const providerIds = new Map<string, string>();
  const deliveries: DeliveryDraft[] = [];
  for (const recorded of events) {
    const e = recorded as unknown as WebhookEndpointEvent | MessageEvent | InboundSettingsEvent | WebhookReplayEvent;
    // first what the event changes in the receivers the outbox keeps, then what it delivers to them
    let hook: StoredHook | undefined;
    switch (e.type) {
      case 'WebhookEndpointCreated':
      case 'WebhookEndpointUpdated':
      case 'WebhookEndpointDeleted':
        await applyEndpointEvent(tx, e, endpoints, t);
        signals.add(DELIVERIES_ADDED).add(REPLAYS_CHANGED);
        continue;
      case 'InboundSettingsChanged':
        await applyInboundSettings(tx, e.data, inboundHooks, t);
        continue;
      case 'WebhookReplayRequested':
      case 'WebhookReplayScanned':
      case 'WebhookReplayCompleted':
        await applyReplayEvent(tx, e, t);
        signals.add(REPLAYS_CHANGED);
        continue;
      case 'WebhookReplayCancelled':
        await applyReplayEvent(tx, e, t);
        await cancelReplayDeliveries(tx, e.data.id, e.data.at, t);
        signals.add(REPLAYS_CHANGED);
        continue;
      case 'MessageAccepted':
        // every message is remembered: an endpoint created later still hears how it ends (its
        // recipient stays sealed unless the event was opened for a listener)
        hook = hookOfAccepted(e.data);
        hooks.set(hook.message_id, hook);
        newHooks.push(hook);
        break;
      case 'MessageSent':
        hook = hooks.get(e.data.id);
        if (!hook) break;
        hook.provider_message_id = e.data.provider_message_id;
        // a message whose status events carry StatusFacts names its provider id on its outcome too:
        // only older ones keep it in their hook
        if (!e.data.channel) providerIds.set(hook.message_id, e.data.provider_message_id);
        break;
      default:
        if (e.type.startsWith('Message')) hook = hooks.get((e.data as { id: string }).id);
    }
    const inboundUrl = recorded.type === 'InboundMessageReceived' ? inboundHooks.get((recorded.data as { account_id: string }).account_id) : undefined;
    deliveries.push(...deliveriesFor(recorded, { endpoints: endpoints.values(), hook: deliverableHook(hook), ...(inboundUrl ? { inboundUrl } : {}) }));
  }
  for (const h of newHooks) providerIds.delete(h.message_id);
  // the hooks, their provider ids and the deliveries in one statement, the deliveries its main write
  const added = deliveriesInsert(deliveries, t);
  const written = await writeTogether(tx, [hooksInsert(newHooks, t), providerIdsUpdate(providerIds, t), added]);
  if (added && written > 0) signals.add(DELIVERIES_ADDED);
}

/**
 * The receivers of a run's events, as stored before the batch: its accounts' endpoints and inbound hooks, and its messages'
 * hooks. One round trip, each table's rows as a JSON array (three statements were two round trips
 * more on every batch, which in a stream of single writes is every write's).
 */
async function loadReceivers(tx: Db, events: readonly RecordedEvent[], t: TableNamer) {
  const accounts = [...new Set(events.map((e) => (e.data as { account_id?: string }).account_id).filter((a): a is string => !!a))];
  const messageIds = events.filter((e) => e.type.startsWith('Message')).map((e) => (e.data as { id: string }).id);
  const rowsOf = (select: string) => `(SELECT coalesce(json_agg(r), '[]'::json) FROM (${select}) AS r)`;
  const { rows } = await tx.query<{ endpoints: EndpointSubscription[]; hooks: StoredHook[]; inbound: { account_id: string; url: string }[] }>(prepared(
    `SELECT ${rowsOf(endpointsOfAccountsSql(t, '$1::text[]'))} AS endpoints,
            ${rowsOf(hooksOfMessagesSql(t, '$2::text[]'))} AS hooks,
            ${rowsOf(`SELECT account_id, url FROM ${t('webhook_inbound_hooks')} WHERE account_id = ANY($1::text[])`)} AS inbound`,
    [accounts, messageIds],
  ));
  const [{ endpoints, hooks, inbound }] = rows;
  return {
    endpoints: new Map<string, EndpointSubscription>(endpoints.map((r) => [r.id, r])),
    hooks: new Map<string, StoredHook>(hooks.map((h) => [h.message_id, h])),
    inboundHooks: new Map<string, string>(inbound.map((r) => [r.account_id, r.url])),
  };
}

async function applyEndpointEvent(tx: Db, e: WebhookEndpointEvent, endpoints: Map<string, EndpointSubscription>, t: TableNamer): Promise<void> {
  switch (e.type) {
    case 'WebhookEndpointCreated': {
      const d = e.data;
      endpoints.set(d.id, { id: d.id, account_id: d.account_id, url: d.url, events: d.events, status: d.status });
      await storeEndpointEvent(tx, e, t);
      return;
    }
    case 'WebhookEndpointUpdated': {
      const d = e.data;
      const ep = endpoints.get(d.id);
      if (ep) endpoints.set(d.id, { ...ep, url: d.url ?? ep.url, events: d.events ?? ep.events, status: d.status ?? ep.status });
      await storeEndpointEvent(tx, e, t);
      if (d.status === 'disabled') await cancelEndpointDeliveries(tx, d.id, 'endpoint disabled', d.updated_at, t);
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
      await storeEndpointEvent(tx, e, t);
      await cancelEndpointDeliveries(tx, e.data.id, 'endpoint deleted', e.data.deleted_at, t);
  }
}

/**
 * A deleted or disabled endpoint's deliveries still to be made, retries and those a sender holds
 * included: cancelled in the transaction that records the change, and the senders of this process
 * told not to send what they claimed before (README "Webhooks"). A disabled endpoint gets nothing
 * until it is active again (POST …/retry re-sends one).
 */
async function cancelEndpointDeliveries(tx: Db, endpointId: string, reason: string, at: string, t: TableNamer): Promise<void> {
  await tx.query(`UPDATE ${t('webhook_deliveries')} SET status = 'cancelled', last_error = $2, updated_at = $3 WHERE endpoint_id = $1 AND status = 'pending'`, [endpointId, reason, at]);
  // after the update: it waited for any claim of these rows in progress, so that claim began before now
  revokeDeliveries([endpointId]);
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

/**
 * The insert of new deliveries, due now (a statement for writeTogether), undefined for none; an event
 * already delivered to a target (a re-applied batch) is not added twice. A replay's are its own
 * targets (`replay:<id>`): they never collide with the live delivery of the same event.
 */
function deliveriesInsert(drafts: readonly DeliveryDraft[], t: TableNamer, replayId: string | null = null): Statement | undefined {
  if (!drafts.length) return undefined;
  return {
    text: `INSERT INTO ${t('webhook_deliveries')} (id, account_id, endpoint_id, target_url, target_host, kind, event_id, event_type, body, status, attempts,
       next_attempt_at, created_at, updated_at, target_key, personal_key, replay_id)
     SELECT id, acct, ep, url, ${TARGET_HOST_SQL('url')}, kind, evt, typ, body, 'pending', 0, now(), created, now(),
       coalesce('replay:' || $11::text, ep, 'message'), pkey, $11::text
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::text[])
       AS u(id, acct, ep, url, kind, evt, typ, body, created, pkey)
     ON CONFLICT (event_id, target_key) DO NOTHING`,
    values: [
      drafts.map(() => newId('delivery')), drafts.map((d) => d.account_id), drafts.map((d) => d.endpoint_id), drafts.map((d) => d.target_url),
      drafts.map((d) => d.kind), drafts.map((d) => d.event_id), drafts.map((d) => d.event_type), drafts.map((d) => d.body), drafts.map((d) => d.created_at),
      drafts.map((d) => d.personal_key), replayId,
    ],
  };
}

/** Inserts the deliveries (deliveriesInsert); returns how many were added. */
function insertDeliveries(tx: Db, drafts: readonly DeliveryDraft[], t: TableNamer, replayId: string | null = null): Promise<number> {
  return writeTogether(tx, [deliveriesInsert(drafts, t, replayId)]);
}

/** A cancelled replay's deliveries still to be made: cancelled, in the transaction that records the cancel. */
async function cancelReplayDeliveries(tx: Db, replayId: string, at: string, t: TableNamer): Promise<void> {
  await tx.query(`UPDATE ${t('webhook_deliveries')} SET status = 'cancelled', last_error = 'replay cancelled', updated_at = $2 WHERE replay_id = $1 AND status = 'pending'`, [replayId, at]);
  revokeDeliveries([replayId]);
}

// ── The replay worker's queries (through the views: the live generation) ──

/** A replay scan step's deliveries, inside the transaction that moves its cursor (webhook-replays.ts advanceReplay). */
export const insertReplayDeliveries = (tx: Db, replayId: string, drafts: readonly DeliveryDraft[]) => insertDeliveries(tx, drafts, (base) => base, replayId);

/** How many of a replay's deliveries are still to be made (counting stops at `cap`): its share of the queue. */
export async function pendingReplayDeliveries(db: Db, replayId: string, cap: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT 1 FROM webhook_deliveries WHERE replay_id = $1 AND status = 'pending' LIMIT $2) p`, [replayId, cap]);
  return rows[0]!.n;
}

export type ReplayDeliveryCounts = Record<DeliveryStatus, number>;

/** The deliveries of each replay by status (every status present, 0 when none). */
export async function replayDeliveryCounts(db: Db, replayIds: readonly string[]): Promise<Map<string, ReplayDeliveryCounts>> {
  const counts = new Map<string, ReplayDeliveryCounts>(replayIds.map((id) => [id, { pending: 0, delivered: 0, failed: 0, cancelled: 0 }]));
  if (!replayIds.length) return counts;
  const { rows } = await db.query<{ replay_id: string; status: DeliveryStatus; n: number }>(
    'SELECT replay_id, status, count(*)::int AS n FROM webhook_deliveries WHERE replay_id = ANY($1::text[]) GROUP BY replay_id, status',
    [replayIds],
  );
  for (const r of rows) counts.get(r.replay_id)![r.status] = r.n;
  return counts;
}

// ── The sender's and the API's queries (the tables' views, so always the live generation) ──

/**
 * A delivery a sender has leased for one attempt, with where its endpoint is now (null: per-message,
 * or the endpoint is gone), the signing secret of a per-message one, and its lease: the
 * `locked_until` this claim set, which no other claim of the row sets (a later claim comes after it,
 * so sets a later one) — the lease's identity, checked by every write that ends it.
 */
export type ClaimedDelivery = Pick<
  WebhookDelivery,
  'id' | 'account_id' | 'endpoint_id' | 'target_url' | 'target_host' | 'kind' | 'event_id' | 'event_type' | 'body' | 'attempts' | 'replay_id'
> & {
  endpoint: SendingEndpoint | null;
  /** a per-message delivery's: its account's signing secret as it is now, sealed (null: none issued yet, or an endpoint's delivery) */
  account_secret_sealed: string | null;
  lease: Date;
  /** why the log says it must not be sent (its endpoint deleted or disabled, its replay cancelled), though the outbox may not have applied that yet; null: it may */
  revoked: string | null;
};

/** A lease a sender holds: the delivery and the `locked_until` its claim set. */
export interface DeliveryLease {
  deliveryId: string;
  lease: Date;
}

export interface DeliveryClaim {
  now: Date;
  limit: number;
  leaseUntil: Date;
  /** hosts at their share of concurrent attempts: none of theirs is claimed */
  skipHosts: readonly string[];
  /** hosts with attempts in flight → how many more each may take now */
  hostRoom: ReadonlyMap<string, number>;
  /** how many a host with nothing in flight may take */
  perHost: number;
}

/**
 * Leases up to `limit` deliveries due at `now` until `leaseUntil`: invisible to other claims
 * meanwhile, so one attempt is made at a time. Rows another sender is claiming, and those to
 * `skipHosts`, are left alone; of the oldest due rows, no host gets more than its room — so a
 * backlog for one receiver (a replay's window, a burst) is not claimed only to be handed back. The
 * choice reads the due rows without locking them; only the chosen ones are locked (those another
 * sender locked meanwhile are skipped). Each comes with its endpoint as it is now, in the same
 * round trip: one deleted, disabled or moved since the row was written is sent nothing, or sent to
 * its new address; and a per-message one with its account's signing secret as it is now (the auth
 * read model's), so a rotation answered before the claim signs it, and no delivery asks for it.
 *
 * Whether its endpoint was deleted or disabled, or its replay cancelled, is read from the log
 * itself (the streams' last such event), not from this outbox's copy: the outbox may lag behind
 * the write that the API has already answered (README "Webhooks"). One index walk of a short stream
 * per endpoint and replay in the claim, not per delivery.
 */
export async function claimDueDeliveries(db: Db, claim: DeliveryClaim): Promise<ClaimedDelivery[]> {
  const busy = [...claim.hostRoom];
  // named: prepared once per connection and planned once (its plan took 2 ms, run as often as the
  // sender wakes, where running it on an outbox with nothing due takes a few microseconds)
  const { rows } = await db.query<Omit<ClaimedDelivery, 'endpoint'> & { endpoint_url: string | null; endpoint_status: string | null; secret_sealed: string | null }>({
    name: 'webhook_claim_due',
    text: `WITH claimed AS (
       UPDATE webhook_deliveries d SET locked_until = $3
       WHERE d.id IN (
         SELECT id FROM webhook_deliveries
         WHERE id IN (
             SELECT r.id FROM (
               SELECT c.id, c.next_attempt_at, row_number() OVER (PARTITION BY c.target_host ORDER BY c.next_attempt_at, c.id) AS n, coalesce(b.room, $7) AS room
               FROM (SELECT id, target_host, next_attempt_at FROM webhook_deliveries
                     WHERE status = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until < $1)
                       AND NOT (target_host = ANY($4::text[]))
                     ORDER BY next_attempt_at LIMIT $8) c
               LEFT JOIN unnest($5::text[], $6::int[]) AS b(host, room) ON b.host = c.target_host
             ) r
             WHERE r.n <= r.room
             ORDER BY r.next_attempt_at LIMIT $2)
           AND status = 'pending' AND (locked_until IS NULL OR locked_until < $1)
         FOR UPDATE SKIP LOCKED)
       RETURNING d.id, d.account_id, d.endpoint_id, d.target_url, d.target_host, d.kind, d.event_id, d.event_type, d.body, d.attempts, d.replay_id, d.locked_until AS lease),
     streams AS (
       SELECT DISTINCT 'webhookendpoint-' || endpoint_id AS stream_id FROM claimed WHERE kind = 'endpoint' AND endpoint_id IS NOT NULL
       UNION SELECT DISTINCT 'webhookreplay-' || replay_id FROM claimed WHERE replay_id IS NOT NULL),
     revoked AS (
       SELECT s.stream_id, CASE WHEN l.type = 'WebhookEndpointDeleted' THEN 'endpoint deleted' WHEN l.type = 'WebhookReplayCancelled' THEN 'replay cancelled'
         WHEN l.status = 'disabled' THEN 'endpoint disabled' END AS reason
       FROM streams s CROSS JOIN LATERAL (
         SELECT ev.type, ev.data->>'status' AS status FROM es_events ev
         WHERE ev.stream_id = s.stream_id AND (ev.type IN ('WebhookEndpointDeleted', 'WebhookReplayCancelled') OR (ev.type LIKE 'WebhookEndpoint%' AND ev.data ? 'status'))
         ORDER BY ev.stream_revision DESC LIMIT 1) l)
     SELECT c.*, e.url AS endpoint_url, e.status AS endpoint_status, e.secret_sealed, a.webhook_secret_sealed AS account_secret_sealed,
       coalesce(re.reason, rr.reason) AS revoked
     FROM claimed c LEFT JOIN webhook_endpoints e ON c.kind = 'endpoint' AND e.id = c.endpoint_id
       LEFT JOIN accounts a ON c.kind = 'message' AND a.id = c.account_id
       LEFT JOIN revoked re ON c.kind = 'endpoint' AND re.stream_id = 'webhookendpoint-' || c.endpoint_id
       LEFT JOIN revoked rr ON rr.stream_id = 'webhookreplay-' || c.replay_id`,
    values: [
      claim.now, claim.limit, claim.leaseUntil, claim.skipHosts, busy.map(([h]) => h), busy.map(([, n]) => n), claim.perHost,
      // the candidates: enough beyond `limit` that a host over its room leaves others their turn
      Math.min(claim.limit * 4, 2000),
    ],
  });
  return rows.map(({ endpoint_url, endpoint_status, secret_sealed, ...row }) => ({
    ...row,
    endpoint: row.endpoint_id && endpoint_url !== null ? { id: row.endpoint_id, url: endpoint_url, status: endpoint_status!, secret_sealed: secret_sealed! } : null,
  }));
}

/**
 * Ends leases with no attempt made: the deliveries are due again at once, for a later round or
 * another sender. Only a lease still this claim's is ended: one that ran out and was claimed again
 * belongs to that claim. The ids also as `= ANY` (the primary key's condition): joined only, a
 * round's leases were planned as a hash join over a scan of every delivery.
 */
export async function releaseDeliveries(db: Db, leases: readonly DeliveryLease[]): Promise<void> {
  if (!leases.length) return;
  await db.query(
    `UPDATE webhook_deliveries d SET locked_until = NULL FROM unnest($1::text[], $2::timestamptz[]) AS l(id, lease)
     WHERE d.id = ANY($1::text[]) AND d.id = l.id AND d.locked_until = l.lease`,
    [leases.map((l) => l.deliveryId), leases.map((l) => l.lease)],
  );
}

/** One attempt made (or a delivery given up on): the delivery's new state and the attempt's row. */
export interface DeliveryAttempt extends DeliveryLease {
  /** 1 for the first attempt */
  attempt: number;
  status: DeliveryStatus;
  nextAttemptAt: Date;
  at: Date;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

/**
 * Records attempts and ends their leases, in one statement: the deliveries' new states and the
 * attempts' rows. Only an attempt whose lease is still its claim's is recorded: an outcome that
 * comes after the lease ran out and another sender claimed the row is that sender's to record, and
 * must not overwrite it (a `delivered` turned back into `pending` would be sent again). A delivery
 * cancelled meanwhile (its replay, its endpoint deleted or disabled) stays cancelled, whatever the
 * attempt in flight then got; the attempt's row says what the receiver answered. Recording the same
 * attempt twice changes nothing more.
 */
export async function recordDeliveryAttempts(db: Db, attempts: readonly DeliveryAttempt[]): Promise<void> {
  if (!attempts.length) return;
  // in id order: two batches locking rows they share (a cancel's, say) take them in the same order
  const a = [...attempts].sort((x, y) => (x.deliveryId < y.deliveryId ? -1 : x.deliveryId > y.deliveryId ? 1 : 0));
  // a WITH update runs to completion whether or not the INSERT reads it
  await db.query(
    `WITH a AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[], $5::int[], $6::text[], $7::int[], $8::timestamptz[], $9::timestamptz[])
         AS a(id, status, attempt, next_at, code, error, latency, at, lease)),
     d AS (
       UPDATE webhook_deliveries w SET
         status = CASE WHEN w.status = 'cancelled' THEN 'cancelled' ELSE a.status END,
         attempts = a.attempt, next_attempt_at = a.next_at, locked_until = NULL, last_status_code = a.code, last_error = CASE WHEN w.status = 'cancelled' THEN w.last_error ELSE a.error END,
         last_latency_ms = a.latency, updated_at = a.at, delivered_at = CASE WHEN a.status = 'delivered' AND w.status <> 'cancelled' THEN a.at ELSE w.delivered_at END
       FROM a WHERE w.id = a.id AND w.locked_until = a.lease
       RETURNING w.id)
     INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, latency_ms, error)
     SELECT a.id, a.attempt, a.at, a.code, a.latency, a.error FROM a JOIN d ON d.id = a.id ON CONFLICT DO NOTHING`,
    [
      a.map((x) => x.deliveryId), a.map((x) => x.status), a.map((x) => x.attempt), a.map((x) => x.nextAttemptAt), a.map((x) => x.statusCode),
      a.map((x) => x.error), a.map((x) => x.latencyMs), a.map((x) => x.at), a.map((x) => x.lease),
    ],
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
