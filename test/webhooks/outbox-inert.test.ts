// The webhook outbox runs on its own on every wake-up (it is not rebuildable: its deliveries go to the
// world), and in a stream of contact writes most of its batches deliver nothing: their accounts have
// no endpoint. Such a batch is inert (README "The write path"): the runner moves past it without a
// transaction. Only a batch whose every event can do nothing but deliver to its account's endpoints
// or inbound hook, of accounts with neither, is inert; a message (its hook is kept for an endpoint
// made later), an erasure, an endpoint's or the inbound settings' event never are.
import { beforeAll, describe, expect, it } from 'vitest';
import { webhookOutboxProjection } from '../../projections/webhook-outbox.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import { ensureProjection } from '../../src/read-models/generations.ts';
import { tableNamer } from '../../src/read-models/projection.ts';
import { migratedStoreForSuite } from '../support/event-store.ts';

const db = migratedStoreForSuite(2);
const QUIET = 'acct_01JINERT00000000000000QUIET';
const LISTENED = 'acct_01JINERT0000000000000LISTEN';
const INBOUND = 'acct_01JINERT000000000000INBOUND';
let generation = 1;

const event = (type: string, data: Record<string, unknown>) => ({ type, data }) as unknown as RecordedEvent;
const created = (account: string, id = 'ct_1') => event('ContactCreated', { id, account_id: account, fields: {}, custom_fields: {}, created_at: new Date().toISOString() });
const inert = (events: RecordedEvent[]) => webhookOutboxProjection.inert!(db.pool, events, tableNamer(generation));

beforeAll(async () => {
  await ensureProjection(db.pool, webhookOutboxProjection);
  const { rows } = await db.pool.query<{ generation: number }>(`SELECT generation FROM projection_state WHERE name = 'webhook_outbox' AND active`);
  generation = rows[0]!.generation;
  const t = tableNamer(generation);
  await db.pool.query(
    `INSERT INTO ${t('webhook_endpoints')} (id, account_id, url, events, status, secret_sealed, created_at, updated_at)
     VALUES ('we_1', $1, 'https://hooks.example.com/in', '{contact.created}', 'active', 'x', now(), now())`,
    [LISTENED],
  );
  await db.pool.query(`INSERT INTO ${t('webhook_inbound_hooks')} (account_id, url) VALUES ($1, 'https://hooks.example.com/inbound')`, [INBOUND]);
});

describe('a batch of the webhook outbox', () => {
  it('is inert when each event can only deliver to its account, and no account of the batch has an endpoint or an inbound hook', async () => {
    expect(await inert([created(QUIET), created(QUIET, 'ct_2'), event('ContactUpdated', { id: 'ct_1', account_id: QUIET, changes: {}, custom_fields: {}, updated_at: '' })])).toBe(true);
    expect(await inert([event('RecipientSuppressed', { account_id: QUIET, address: 'a@example.com', reason: 'stop', source: 'api', at: '' })])).toBe(true);
    expect(await inert([event('InboundMessageReceived', { id: 'cv_1', account_id: QUIET })])).toBe(true);
  });

  it('is not when one of its accounts has an endpoint or an inbound hook', async () => {
    expect(await inert([created(QUIET), created(LISTENED)])).toBe(false);
    expect(await inert([event('InboundMessageReceived', { id: 'cv_1', account_id: INBOUND })])).toBe(false);
    expect(await inert([created(INBOUND)])).toBe(false);
  });

  it('is not when it holds an event that changes the outbox itself, or one without an account', async () => {
    for (const other of [
      event('MessageAccepted', { id: 'msg_1', account_id: QUIET, status: 'queued' }),
      event('MessageDelivered', { id: 'msg_1', account_id: QUIET }),
      event('ContactErased', { id: 'ct_1', account_id: QUIET, key_ids: [] }),
      event('WebhookEndpointCreated', { id: 'we_2', account_id: QUIET }),
      event('InboundSettingsChanged', { account_id: QUIET, webhook_url: 'https://hooks.example.com/x' }),
      event('ContactCreated', { id: 'ct_9' }),
    ]) {
      expect(await inert([created(QUIET), other]), other.type).toBe(false);
    }
  });
});
