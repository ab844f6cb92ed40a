// A batch's look-ups and updates by key read only the rows they name (README "The write path"):
// the dispatcher's policy for a batch of marketing messages (recipients' time zones, suppressions,
// marketing sent today), the outbox's provider ids and the webhook sender's released leases. Each
// joins the batch's keys to a table that grows with the account's history. The suppressions, the
// provider ids and the leases, joined only, were planned as a hash join over a scan of the whole
// table (40,000 rows read here for a batch of 800 on Postgres 18), so every batch cost more as the history grew;
// the time zones, the marketing count and applyDocuments' update were probes already and are here to
// stay so. Measured with the transaction's own counters of the table and its indexes.
import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyDocuments } from '../../projections/document.ts';
import { contactsProjection, recipientTimezones } from '../../projections/contacts.ts';
import { dueForDispatch, marketingSentSince, messagesProjection, reportTargets } from '../../projections/messages.ts';
import { suppressedAmong, suppressionsProjection } from '../../projections/suppressions.ts';
import { providerIdsUpdate } from '../../projections/webhook-message-hooks.ts';
import { releaseDeliveries, webhookOutboxProjection } from '../../projections/webhook-outbox.ts';
import { writeTogether } from '../../src/db/together.ts';
import { Policy, recipientHoldFacts } from '../../src/messages/policy.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import { ensureProjection } from '../../src/read-models/generations.ts';
import { migratedStoreForSuite } from '../support/event-store.ts';
import { withoutScansOrProbes } from '../support/plans.ts';

const db = migratedStoreForSuite(4);
const ACCOUNT = 'acct_01JLOOKUPS0000000000000000';
/** rows per table: well past the point where a scan of it costs more than a batch's probes */
const ROWS = 40_000;
const BATCH = 200;
const key = (i: number) => String(i).padStart(8, '0');
/** the batch: every fiftieth row */
const picked = Array.from({ length: BATCH }, (_, i) => 1 + i * 50);
const t = (name: string) => `${name}_g1`;

beforeAll(async () => {
  for (const p of [contactsProjection, messagesProjection, suppressionsProjection, webhookOutboxProjection]) await ensureProjection(db.pool, p);
  const seed = (sql: string) => db.pool.query(sql, [ACCOUNT, ROWS]);
  await seed(`INSERT INTO contacts (id, account_id, email, phone, timezone, tags, custom_fields, created_at, updated_at)
    SELECT 'ct_' || lpad(i::text, 8, '0'), $1, 'p' || lpad(i::text, 8, '0') || '@example.com', '+1415' || lpad(i::text, 7, '0'), 'Europe/Paris', '{}', '{}', now(), now()
    FROM generate_series(1, $2::int) AS i`);
  await seed(`INSERT INTO message_contents (id, account_id, channel, to_address, message, transactional, created_at)
    SELECT 'msg_' || lpad(i::text, 8, '0'), $1, 'email', 'p' || lpad(i::text, 8, '0') || '@example.com', 'Hi', false, now()
    FROM generate_series(1, $2::int) AS i`);
  await seed(`INSERT INTO message_states (id, account_id, status, marketing, marketing_to, revision, updated_at, sent_at)
    SELECT 'msg_' || lpad(i::text, 8, '0'), $1, 'sent', true, 'p' || lpad(i::text, 8, '0') || '@example.com', 1, now(), now()
    FROM generate_series(1, $2::int) AS i`);
  await seed(`INSERT INTO suppressions (account_id, address_hash, reason, source, created_at)
    SELECT $1, 'h' || lpad(i::text, 8, '0'), 'unsubscribed', 'api', now() FROM generate_series(1, $2::int) AS i`);
  await seed(`INSERT INTO ${t('webhook_message_hooks')} (message_id, account_id, channel, to_address)
    SELECT 'msg_' || lpad(i::text, 8, '0'), $1, 'email', 'x' FROM generate_series(1, $2::int) AS i`);
  await seed(`INSERT INTO webhook_deliveries (id, account_id, target_url, target_host, kind, event_id, event_type, body, next_attempt_at, locked_until, created_at, updated_at, target_key)
    SELECT 'whd_' || lpad(i::text, 8, '0'), $1, 'https://example.com/h', 'example.com', 'endpoint', 'ev' || i, 'message.sent', '{}', now(), 'epoch'::timestamptz + i * interval '1 s', now(), now(), 'k'
    FROM generate_series(1, $2::int) AS i`);
  await db.pool.query(`CREATE TABLE lookup_documents (id text PRIMARY KEY, body text NOT NULL, n int NOT NULL)`);
  await db.pool.query(`INSERT INTO lookup_documents SELECT 'doc_' || lpad(i::text, 8, '0'), repeat('x', 200), 0 FROM generate_series(1, $1::int) AS i`, [ROWS]);
  await db.pool.query('ANALYZE');
}, 120_000);

/**
 * The rows `work` reads of `table` without scans or join probes (test/support/plans.ts): returned by
 * its sequential scans, and entries returned by its indexes' scans, in the transaction.
 */
function readsOf(table: string, work: (client: pg.PoolClient) => Promise<unknown>): Promise<number> {
  return withoutScansOrProbes(db.pool, async (client) => {
    await work(client);
    return rowsReadOf(client, table);
  });
}

/** The rows of `table` read so far in the client's transaction: by its sequential scans, and entries returned by its indexes' scans. */
async function rowsReadOf(client: pg.PoolClient, table: string): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    `SELECT (pg_stat_get_xact_tuples_returned($1::regclass)
           + coalesce((SELECT sum(pg_stat_get_xact_tuples_returned(indexrelid)) FROM pg_index WHERE indrelid = $1::regclass), 0))::text AS n`,
    [table],
  );
  return Number(rows[0]!.n);
}

describe(`a batch of ${BATCH} keys in a table of ${ROWS.toLocaleString('en-US')} rows`, () => {
  it.each([
    ['recipients’ time zones (quiet hours)', t('contacts'), async (c: pg.PoolClient) => {
      const found = await recipientTimezones(c, picked.map((i) => ({ account_id: ACCOUNT, address: i % 2 ? `p${key(i)}@example.com` : `+1415${String(i).padStart(7, '0')}` })));
      expect(found).toHaveLength(BATCH);
    }],
    ['suppressed among the recipients', t('suppressions'), async (c: pg.PoolClient) => {
      expect(await suppressedAmong(c, picked.map((i) => ({ account_id: ACCOUNT, address_hash: `h${key(i)}` })))).toHaveLength(BATCH);
    }],
    ['marketing sent to them since yesterday', t('message_states'), async (c: pg.PoolClient) => {
      const since = new Date(Date.now() - 86_400_000);
      expect(await marketingSentSince(c, picked.map((i) => ({ account_id: ACCOUNT, address: `p${key(i)}@example.com` })), since)).toHaveLength(BATCH);
    }],
    ['sends’ hold forecasts: their recipients’ time zones', t('contacts'), async (c: pg.PoolClient) => {
      const since = new Date(Date.now() - 86_400_000);
      const facts = await recipientHoldFacts(c, picked.map((i) => ({ accountId: ACCOUNT, address: i % 2 ? `p${key(i)}@example.com` : `+1415${String(i).padStart(7, '0')}`, since })));
      expect(facts.map((f) => f.timezone)).toEqual(picked.map(() => 'Europe/Paris'));
    }],
    ['sends’ hold forecasts: marketing sent to their recipients, each since its own time', t('message_states'), async (c: pg.PoolClient) => {
      const since = new Date(Date.now() - 86_400_000);
      const later = new Date(Date.now() + 86_400_000);
      const facts = await recipientHoldFacts(c, picked.map((i, n) => ({ accountId: ACCOUNT, address: `p${key(i)}@example.com`, since: n % 2 ? later : since })));
      expect(facts.map((f) => f.sent?.count ?? 0)).toEqual(picked.map((_, n) => (n % 2 ? 0 : 1)));
    }],
    ['provider ids of sent messages’ hooks', t('webhook_message_hooks'), async (c: pg.PoolClient) => {
      // the statement the outbox's batch writes them with
      await writeTogether(c, [providerIdsUpdate(new Map(picked.map((i) => [`msg_${key(i)}`, `prov-${i}`])), t)]);
      const { rows } = await c.query(`SELECT count(*)::int AS n FROM ${t('webhook_message_hooks')} WHERE message_id = ANY($1::text[]) AND provider_message_id LIKE 'prov-%'`, [
        picked.map((i) => `msg_${key(i)}`),
      ]);
      expect(rows[0].n).toBe(BATCH);
    }],
    ['released delivery leases', t('webhook_deliveries'), async (c: pg.PoolClient) => {
      await releaseDeliveries(c, picked.map((i) => ({ deliveryId: `whd_${key(i)}`, lease: new Date(i * 1000) })));
      const { rows } = await c.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE id = ANY($1::text[]) AND locked_until IS NULL', [picked.map((i) => `whd_${key(i)}`)]);
      expect(rows[0].n).toBe(BATCH);
    }],
    ['a batch of status changes to documents (applyDocuments, the messages read model’s write)', 'lookup_documents', async (c: pg.PoolClient) => {
      const events = picked.map((i) => ({ type: 'Counted', data: { id: `doc_${key(i)}` } }) as unknown as RecordedEvent);
      await applyDocuments(c, 'lookup_documents', ['id', 'body', 'n'], events, (e) => (e.data as { id: string }).id, (row) => ({ ...row!, n: Number(row!.n) + 1 }), { fixed: ['body'] });
      const { rows } = await c.query('SELECT count(*)::int AS n FROM lookup_documents WHERE id = ANY($1::text[]) AND n = 1', [picked.map((i) => `doc_${key(i)}`)]);
      expect(rows[0].n).toBe(BATCH);
    }],
    // a message's content is read through its key for each state picked: joined through the view
    // `messages` only, a batch was planned as a hash join over every content row (README "The write path")
    ['delivery reports’ messages, by our id', t('message_contents'), async (c: pg.PoolClient) => {
      const found = await reportTargets(c, picked.map((i) => `msg_${key(i)}`), []);
      expect(found.map((r) => r.to_address).sort()).toEqual(picked.map((i) => `p${key(i)}@example.com`).sort());
    }],
    ['delivery reports’ messages, by the provider’s id', t('message_contents'), async (c: pg.PoolClient) => {
      await c.query(`UPDATE message_states SET provider_message_id = 'prov-' || substr(id, 5) WHERE id = ANY($1::text[])`, [picked.map((i) => `msg_${key(i)}`)]);
      const found = await reportTargets(c, [], picked.map((i) => `prov-${key(i)}`));
      expect(found.map((r) => r.id).sort()).toEqual(picked.map((i) => `msg_${key(i)}`).sort());
    }],
    ['queued messages due for dispatch', t('message_contents'), async (c: pg.PoolClient) => {
      await c.query(`UPDATE message_states SET status = 'queued' WHERE id = ANY($1::text[])`, [picked.map((i) => `msg_${key(i)}`)]);
      const due = await dueForDispatch(c, BATCH, []);
      expect(due.map((r) => r.id).sort()).toEqual(picked.map((i) => `msg_${key(i)}`).sort());
      expect(due.every((r) => r.message === 'Hi' && r.channel === 'email')).toBe(true);
    }],
  ])('%s: reads about the rows it names, not the table', async (_name, table, work) => {
    const reads = await readsOf(table, work);
    expect(reads).toBeGreaterThanOrEqual(BATCH);
    // a few statements each (a look-up, its write, the check here): never the table, fifty times the batch
    expect(reads).toBeLessThanOrEqual(5 * BATCH);
  });
});

describe('the hold forecasts of concurrent sends', () => {
  it('are read in one statement, each recipient with its own count since its own send time', async () => {
    // the pool as the send route's Policy uses it, counting the statements it is sent
    let statements = 0;
    const counting = { query: (...args: unknown[]) => ((statements++), (db.pool.query as (...a: unknown[]) => unknown)(...args)) } as unknown as pg.Pool;
    const policy = new Policy(counting, { MARKETING_CAP_PER_DAY: 1, QUIET_HOURS: null, DEFAULT_TIMEZONE: 'UTC', EMAIL_FROM: 'no-reply@engage.local' });
    const now = new Date();
    const marketingSms = (to: string) => ({ channel: 'sms' as const, to, transactional: false });
    const forecasts = await Promise.all([
      // one marketing message sent to p…1 today: at the cap of 1
      policy.forecastHold(ACCOUNT, marketingSms(`p${key(1)}@example.com`), now),
      // nothing sent to this one
      policy.forecastHold(ACCOUNT, marketingSms('nobody@example.com'), now),
      // scheduled two days ahead: what went out today is more than a day old by then
      policy.forecastHold(ACCOUNT, marketingSms(`p${key(51)}@example.com`), new Date(now.getTime() + 2 * 86_400_000)),
      policy.forecastHold(ACCOUNT, marketingSms(`p${key(101)}@example.com`), now),
    ]);
    expect(forecasts.map((f) => f?.reason ?? null)).toEqual(['marketing_cap', null, null, 'marketing_cap']);
    expect(statements).toBe(1);
  });
});

describe('during a rebuild from the one-table messages read model (version 5)', () => {
  it('counts marketing, finds delivery reports’ messages and the dispatcher’s queue through the view `messages` while the live generation has no message_states', async () => {
    const client = await db.pool.connect();
    try {
      // a live generation of version 5: one table behind the view `messages`, no message_states
      await client.query(`CREATE SCHEMA legacy_messages`);
      await client.query(`CREATE TABLE legacy_messages.messages (id text PRIMARY KEY, account_id text, to_address text, marketing boolean, sent_at timestamptz,
        channel text, status text, provider_message_id text, revision bigint, message text, htmlmessage text, subject text, reply_to text, from_name text,
        headers jsonb, sender text, transactional boolean, category text, webhook_url text, not_before timestamptz, claimed_until timestamptz, attempts int,
        reason text, personal_key text)`);
      await client.query(`INSERT INTO legacy_messages.messages (id, account_id, to_address, marketing, sent_at, channel, status, provider_message_id, revision, message, transactional, attempts)
        VALUES ('m1', $1, 'a@example.com', true, now(), 'email', 'sent', 'p1', 3, 'Hi', false, 1), ('m2', $1, 'a@example.com', true, now(), 'email', 'sent', 'p2', 3, 'Hi', false, 1),
        ('m3', $1, 'a@example.com', false, now(), 'email', 'sent', 'p3', 3, 'Hi', false, 1), ('m4', $1, 'b@example.com', true, now() - interval '2 days', 'email', 'sent', 'p4', 3, 'Hi', false, 1),
        ('m5', $1, 'c@example.com', false, NULL, 'sms', 'queued', NULL, 1, 'Due', true, 0)`, [ACCOUNT]);
      // the functions the look-ups call stay on the path (public); its current message_states goes away
      await client.query('SET search_path = legacy_messages, public');
      await client.query('ALTER TABLE public.message_states RENAME TO message_states_away');
      const since = new Date(Date.now() - 86_400_000);
      const counts = await marketingSentSince(client, [{ account_id: ACCOUNT, address: 'a@example.com' }, { account_id: ACCOUNT, address: 'b@example.com' }], since);
      expect(counts.map(({ to_address, n }) => ({ to_address, n }))).toEqual([{ to_address: 'a@example.com', n: 2 }]);
      const targets = await reportTargets(client, ['m1'], ['p4']);
      expect(targets.map(({ id, to_address, revision }) => ({ id, to_address, revision }))).toEqual([
        { id: 'm1', to_address: 'a@example.com', revision: '3' }, { id: 'm4', to_address: 'b@example.com', revision: '3' },
      ]);
      const due = await dueForDispatch(client, 10, []);
      expect(due.map(({ id, to_address, message }) => ({ id, to_address, message }))).toEqual([{ id: 'm5', to_address: 'c@example.com', message: 'Due' }]);
      // a send's hold forecast counts the same way (its one statement falls back to the look-ups above;
      // an sms: this database keeps no email domains to look at for warm-up)
      const policy = new Policy(client as unknown as pg.Pool, { MARKETING_CAP_PER_DAY: 2, QUIET_HOURS: null, DEFAULT_TIMEZONE: 'UTC', EMAIL_FROM: 'no-reply@engage.local' });
      expect(await policy.forecastHold(ACCOUNT, { channel: 'sms', to: 'a@example.com', transactional: false }, new Date())).toMatchObject({ reason: 'marketing_cap' });
      expect(await policy.forecastHold(ACCOUNT, { channel: 'sms', to: 'b@example.com', transactional: false }, new Date())).toBeNull();
    } finally {
      await client.query('RESET search_path').catch(() => undefined);
      await client.query('ALTER TABLE IF EXISTS public.message_states_away RENAME TO message_states').catch(() => undefined);
      await client.query('DROP SCHEMA IF EXISTS legacy_messages CASCADE').catch(() => undefined);
      client.release();
    }
  });
});

describe('the dispatcher’s look-ups, planned once per session (README "The write path")', () => {
  it('read the generation swapped in after their plan was made, on the same connection', async () => {
    const client = await db.pool.connect();
    const address = { account_id: ACCOUNT, address_hash: 'h-swapped' };
    try {
      // planned on this connection over the live generation, where the address is not suppressed
      expect(await suppressedAmong(client, [address, { account_id: ACCOUNT, address_hash: `h${key(7)}` }])).toHaveLength(1);
      // a rebuild's swap: the view is made again over the next generation's table
      await client.query(`CREATE TABLE suppressions_g2 (LIKE ${t('suppressions')} INCLUDING ALL)`);
      await client.query(`INSERT INTO suppressions_g2 (account_id, address_hash, reason, source, created_at) VALUES ($1, 'h-swapped', 'complaint', 'api', now())`, [ACCOUNT]);
      await client.query('DROP VIEW suppressions');
      await client.query('CREATE VIEW suppressions AS SELECT * FROM suppressions_g2');
      expect(await suppressedAmong(client, [address, { account_id: ACCOUNT, address_hash: `h${key(7)}` }])).toEqual([{ account_id: ACCOUNT, address_hash: 'h-swapped', reason: 'complaint' }]);
    } finally {
      await client.query(`CREATE OR REPLACE VIEW suppressions AS SELECT * FROM ${t('suppressions')}`).catch(() => undefined);
      await client.query('DROP TABLE IF EXISTS suppressions_g2').catch(() => undefined);
      client.release();
    }
  });
});

// A campaign sent right after its contacts were imported: the dispatcher's first batches of its
// marketing messages look up the recipients' time zones before autovacuum has analyzed the contacts.
// Planned with no statistics, the look-up that matched an address by email OR phone was a probe of
// the account's index entries for each recipient, filtered by address: every contact of the account
// read once per recipient (5 s of a core per batch of 500 over 100,000 contacts in `campaign`).
describe('recipients’ time zones over contacts never analyzed (a campaign right after an import)', () => {
  const fresh = migratedStoreForSuite(2);
  const CONTACTS = 20_000;
  const RECIPIENTS = 100;

  beforeAll(async () => {
    await ensureProjection(fresh.pool, contactsProjection);
    // as after an import: no statistics yet, and none gathered while the test runs
    await fresh.pool.query(`ALTER TABLE ${t('contacts')} SET (autovacuum_enabled = false)`);
    await fresh.pool.query(
      `INSERT INTO contacts (id, account_id, email, phone, timezone, tags, custom_fields, created_at, updated_at)
       SELECT 'ct_' || lpad(i::text, 8, '0'), $1, 'p' || lpad(i::text, 8, '0') || '@example.com', '+1415' || lpad(i::text, 7, '0'),
              CASE WHEN i % 2 = 0 THEN 'Europe/Paris' END, '{}', '{}', now(), now()
       FROM generate_series(1, $2::int) AS i`,
      [ACCOUNT, CONTACTS],
    );
  });

  it('probes each recipient’s address, by email and by phone: it reads about the rows it names', async () => {
    const recipients = Array.from({ length: RECIPIENTS }, (_, k) => 1 + k * 37).map((i) => ({ account_id: ACCOUNT, address: i % 3 ? `p${key(i)}@example.com` : `+1415${String(i).padStart(7, '0')}`, i }));
    const client = await fresh.pool.connect();
    try {
      await client.query('BEGIN');
      const found = await recipientTimezones(client, recipients);
      const reads = await rowsReadOf(client, t('contacts'));
      await client.query('ROLLBACK');
      expect(found.map((r) => r.address).sort()).toEqual(recipients.filter((r) => r.i % 2 === 0).map((r) => r.address).sort());
      expect(found.every((r) => r.timezone === 'Europe/Paris' && r.account_id === ACCOUNT)).toBe(true);
      expect(reads).toBeLessThanOrEqual(5 * RECIPIENTS);
    } finally {
      client.release();
    }
  });
});
