// Blue/green rebuilds: the live read model keeps answering in full while a new generation replays,
// the swap is atomic, runners racing on a rebuild never double-apply, and a service killed
// mid-rebuild resumes the new generation on restart and ends equal to a full rebuild.
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactsProjection } from '../../projections/contacts.ts';
import { createAccount } from '../../src/accounts/service.ts';
import { type Engage, openEngage } from '../../src/context.ts';
import { createPool } from '../../src/db/pool.ts';
import { type NewEvent, type Position, comparePositions, positionToString } from '../../src/eventstore/port.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { Projection } from '../../src/read-models/projection.ts';
import { requestRebuild } from '../../src/read-models/generations.ts';
import { ProjectionRunner } from '../../src/read-models/runner.ts';
import { migratedDatabase, startTestServer, testConfig, type TestServer } from '../support/harness.ts';
import { requestJson } from '../support/http.ts';
import { killAllEngageProcesses, runEngage, startEngage } from '../support/processes.ts';
import { eventually } from '../support/waits.ts';
import { seedContacts, type Seeded } from './seed.ts';

const silent = pino({ level: 'silent' });

afterAll(async () => {
  await killAllEngageProcesses();
});

interface StateRow {
  generation: number;
  active: boolean;
  status: string;
  commit: string;
  prepare: string;
}

async function contactsState(pool: pg.Pool): Promise<StateRow[]> {
  const { rows } = await pool.query<StateRow>(
    `SELECT generation, active, status, commit_pos::text AS commit, prepare_pos::text AS prepare
     FROM projection_state WHERE name = 'contacts' ORDER BY generation`,
  );
  return rows;
}

const pos = (r: StateRow): Position => ({ commit: BigInt(r.commit), prepare: BigInt(r.prepare) });

/** Every row of the live contacts read model, as text, in id order. */
async function contactsSnapshot(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ r: string }>(`SELECT row_to_json(c)::text AS r FROM contacts c ORDER BY id`);
  return rows.map((x) => x.r);
}

async function contactsAsExpected(pool: pg.Pool) {
  const { rows } = await pool.query(`SELECT id, email, first_name, tags FROM contacts ORDER BY id`);
  return rows;
}

const expectedRows = (...seeds: Seeded[]) =>
  seeds
    .flatMap((s) => [...s.expected.values()])
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((c) => ({ id: c.id, email: c.email, first_name: c.first_name, tags: c.tags }));

describe('a blue/green rebuild with `engage projections rebuild contacts` while the service serves', () => {
  let server: TestServer;
  let big: { key: string; seeded: Seeded };
  let small: { key: string; seeded: Seeded };

  beforeAll(async () => {
    server = await startTestServer();
    const a = await server.newAccount('Big');
    const b = await server.newAccount('Small');
    big = { key: a.key, seeded: await seedContacts(server.engage.store, a.accountId, 10_000) };
    small = { key: b.key, seeded: await seedContacts(server.engage.store, b.accountId, 300) };
    const last = comparePositions(big.seeded.last, small.seeded.last) > 0 ? big.seeded.last : small.seeded.last;
    expect(await server.engage.runner.waitFor(['contacts'], last, 300_000)).toBe(true);
  }, 600_000);
  afterAll(async () => {
    await server?.close();
  });

  it('keeps answering GET /v1/contacts with the full old data until the new generation swaps in, then the same data', async () => {
    const pool = server.engage.pool;
    const before = await contactsSnapshot(pool);
    expect(before.length).toBe(big.seeded.expected.size + small.seeded.expected.size);
    expect(await contactsAsExpected(pool)).toEqual(expectedRows(big.seeded, small.seeded));
    const bigPage = await server.call('GET', '/v1/contacts?limit=500', { key: big.key });
    const smallAll = await server.call('GET', '/v1/contacts?limit=500', { key: small.key });
    expect(bigPage.body.data).toHaveLength(500);
    expect(smallAll.body.data).toHaveLength(small.seeded.expected.size);
    expect(smallAll.body.next_cursor).toBeNull();
    const [old] = await contactsState(pool);
    expect(old).toMatchObject({ generation: 1, active: true });

    const rebuild = runEngage(['projections', 'rebuild', 'contacts'], server.databaseUrl);
    let finished = false;
    void rebuild.finally(() => (finished = true));
    const problems: string[] = [];
    let midRebuild = 0;
    const deadline = Date.now() + 500_000;
    while (!finished && Date.now() < deadline) {
      const [b, s, count, states] = await Promise.all([
        server.call('GET', '/v1/contacts?limit=500', { key: big.key }),
        server.call('GET', '/v1/contacts?limit=500', { key: small.key }),
        pool.query<{ n: number }>('SELECT count(*)::int AS n FROM contacts'),
        contactsState(pool),
      ]);
      if (b.status !== 200 || JSON.stringify(b.body) !== JSON.stringify(bigPage.body)) problems.push(`big account page: ${b.status} ${JSON.stringify(b.body).slice(0, 200)}`);
      if (s.status !== 200 || JSON.stringify(s.body) !== JSON.stringify(smallAll.body)) problems.push(`small account list: ${s.status} ${JSON.stringify(s.body).slice(0, 200)}`);
      if (count.rows[0].n !== before.length) problems.push(`contacts has ${count.rows[0].n} rows, not ${before.length}`);
      const standby = states.find((r) => !r.active);
      // a new generation exists and has replayed part of the log, but is not serving yet
      if (standby && BigInt(standby.prepare) > 0n) midRebuild++;
    }
    if (!finished) throw new Error('`engage projections rebuild contacts` did not finish');
    const result = await rebuild;
    expect(problems.slice(0, 5)).toEqual([]);
    expect(midRebuild).toBeGreaterThan(0);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^contacts: running at \d+\/\d+/m);

    // swapped in: one generation left, the next one, serving the same rows
    const after = await contactsState(pool);
    expect(after).toEqual([expect.objectContaining({ generation: 2, active: true, status: 'running' })]);
    const { rows: oldTable } = await pool.query(`SELECT to_regclass('contacts_g1') AS t`);
    expect(oldTable[0].t).toBeNull();
    expect(await contactsSnapshot(pool)).toEqual(before);
    expect((await server.call('GET', '/v1/contacts?limit=500', { key: big.key })).body).toEqual(bigPage.body);
    expect((await server.call('GET', '/v1/contacts?limit=500', { key: small.key })).body).toEqual(smallAll.body);

    // and the service keeps projecting into the new generation
    const created = await server.call('POST', '/v1/contacts', { key: small.key, body: { email: 'after-swap@example.com' } });
    expect(created.status).toBe(201);
    const listed = await server.call('GET', '/v1/contacts?limit=1', { key: small.key });
    expect(listed.body.data[0].id).toBe(created.body.id);
  }, 600_000);
});

/** A read model with one row per application of an event: a double apply shows as a duplicate. */
function ledger(tag: string): Projection {
  return {
    name: 'rebuilt_ledger',
    version: 1,
    tables: ['rebuilt_ledger'],
    types: ['LedgerTick'],
    schema: (t) => `CREATE TABLE ${t('rebuilt_ledger')} (event_id uuid NOT NULL, applied_by text NOT NULL)`,
    async apply(tx, events, t) {
      for (const e of events) await tx.query(`INSERT INTO ${t('rebuilt_ledger')} (event_id, applied_by) VALUES ($1, $2)`, [e.id, tag]);
    },
  };
}

describe('runners racing on a rebuild while events keep arriving', () => {
  const pools: pg.Pool[] = [];
  const stores: PostgresEventStore[] = [];
  const runners: ProjectionRunner[] = [];
  afterAll(async () => {
    await Promise.allSettled(runners.map((r) => r.stop()));
    await Promise.allSettled(stores.map((s) => s.close()));
    await Promise.allSettled(pools.map((p) => p.end()));
  });

  it('apply every event exactly once to the generation that swaps in, rebuild after rebuild', async () => {
    const url = await migratedDatabase();
    const nodes = ['A', 'B'].map((tag) => {
      const pool = createPool(url);
      const store = new PostgresEventStore(pool, url);
      pools.push(pool);
      stores.push(store);
      return { tag, pool, store };
    });
    const engage = await openEngage({ config: testConfig(url), log: silent, projections: [] });
    const tick = (n: number): NewEvent => ({ type: 'LedgerTick', data: { n } });
    for (let i = 0; i < 5; i++) await engage.store.appendMany(Array.from({ length: 100 }, (_, j) => ({ streamId: `tick-${i}-${j}`, events: [tick(j)] })));
    for (const n of nodes) {
      // both woken by every append's NOTIFY, so they contend for the same events at the same moments
      await n.store.listen();
      const r = new ProjectionRunner(n.pool, n.store, [ledger(n.tag)], silent, n.store.wakeup, { batchSize: 200, controlIntervalMs: 20 });
      runners.push(r);
      await r.start();
    }
    let appending = true;
    let appended = 500;
    const writer = (async () => {
      for (let i = 0; appending; i++) {
        await engage.store.append(`tick-live-${i}`, [tick(i), tick(i)]);
        appended += 2;
        // steady, not flooding: a rebuild must be able to catch up with the writes
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    try {
      for (let round = 0; round < 16; round++) {
        const generation = await requestRebuild(engage.pool, ledger('request'));
        await eventually(`generation ${generation} to swap in`, async () => {
          const { rows } = await engage.pool.query(`SELECT generation FROM projection_state WHERE name = 'rebuilt_ledger' AND active`);
          return rows[0]?.generation === generation ? true : undefined;
        }, 120_000, 20);
      }
      // the last appends commit while an older transaction is still open (in CI, another test's in
      // the same cluster): they are held back from readers until it ends, and the runners must still
      // be waited for until they have applied them
      const holder = await engage.pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT pg_current_xact_id()');
        const before = appended;
        await eventually('appends after the open transaction began', async () => (appended >= before + 4 ? true : undefined), 30_000, 10);
      } finally {
        appending = false;
        await writer;
      }
      // the newest committed event, held back or not: the readable head stops before the held-back ones
      const last = await engage.store.headPosition({ includeHeldBack: true });
      await holder.query('COMMIT');
      holder.release();
      for (const r of runners) expect(await r.waitFor(['rebuilt_ledger'], last, 60_000)).toBe(true);
    } finally {
      appending = false;
      await writer;
    }
    const { rows: events } = await engage.pool.query(`SELECT count(*)::int AS n FROM es_events WHERE type = 'LedgerTick'`);
    expect(events[0].n).toBe(appended);
    const { rows } = await engage.pool.query(`SELECT count(*)::int AS applications, count(DISTINCT event_id)::int AS events FROM rebuilt_ledger`);
    expect(rows[0]).toEqual({ applications: appended, events: appended });
    const { rows: states } = await engage.pool.query(`SELECT generation, active, status FROM projection_state WHERE name = 'rebuilt_ledger'`);
    expect(states).toEqual([{ generation: 17, active: true, status: 'running' }]);
    await engage.close();
  }, 600_000);
});

describe('a service killed mid-rebuild (SIGKILL) and restarted', () => {
  let url: string;
  let engage: Engage;
  let seeded: Seeded;
  let key: string;

  beforeAll(async () => {
    url = await migratedDatabase();
    // this process only writes events and reads tables; the service processes run the projections
    engage = await openEngage({ config: testConfig(url), log: silent });
    const account = await createAccount(engage, { name: 'Crash', email: 'crash@example.com', password: 'correct horse battery' });
    key = account.api_key;
    seeded = await seedContacts(engage.store, account.account_id, 15_000);
  }, 600_000);
  afterAll(async () => {
    await engage?.close();
  });

  it('resumes the new generation from its checkpoint and ends with the read model a full rebuild gives', async () => {
    const first = await startEngage('serve', url);
    await eventually('the service to project the seeded contacts', async () => {
      const [s] = await contactsState(engage.pool);
      return s && comparePositions(pos(s), seeded.last) >= 0 ? true : undefined;
    }, 300_000);
    const page = await requestJson(first.url!, 'GET', '/v1/contacts?limit=500', { key });
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(500);
    const before = await contactsSnapshot(engage.pool);
    expect(await contactsAsExpected(engage.pool)).toEqual(expectedRows(seeded));

    // ask for a rebuild the way another process would; the running service picks it up
    const generation = await requestRebuild(engage.pool, contactsProjection);
    expect(generation).toBe(2);
    const atKill = await eventually('the new generation to make progress', async () => {
      const standby = (await contactsState(engage.pool)).find((r) => r.generation === generation && !r.active);
      if (standby && BigInt(standby.prepare) > 0n) {
        await first.kill();
        return true;
      }
      return undefined;
    }, 120_000, 5);
    expect(atKill).toBe(true);
    expect(first.child.signalCode).toBe('SIGKILL');

    // the kill landed mid-rebuild: the old generation still serves, the new one stopped part-way
    const killed = await contactsState(engage.pool);
    expect(killed).toEqual([
      expect.objectContaining({ generation: 1, active: true, status: 'running' }),
      expect.objectContaining({ generation: 2, active: false, status: 'rebuilding' }),
    ]);
    const killedAt = pos(killed[1]);
    expect(comparePositions(killedAt, seeded.last)).toBeLessThan(0);
    expect(await contactsSnapshot(engage.pool)).toEqual(before);

    // restart: the standby generation continues from its checkpoint (never back to the start) and swaps in
    const second = await startEngage('serve', url);
    const seen: Position[] = [];
    await eventually('the rebuilt generation to swap in', async () => {
      const rows = await contactsState(engage.pool);
      const g2 = rows.find((r) => r.generation === 2);
      if (g2) seen.push(pos(g2));
      return rows.length === 1 && rows[0].generation === 2 && rows[0].active ? true : undefined;
    }, 300_000, 5);
    for (const p of seen) expect(comparePositions(p, killedAt)).toBeGreaterThanOrEqual(0);
    expect(await contactsState(engage.pool)).toEqual([expect.objectContaining({ generation: 2, active: true, status: 'running' })]);
    expect(comparePositions(pos((await contactsState(engage.pool))[0]), seeded.last)).toBeGreaterThanOrEqual(0);

    // equal to what the events say, and to the generation built incrementally before the crash
    expect(await contactsAsExpected(engage.pool)).toEqual(expectedRows(seeded));
    expect(await contactsSnapshot(engage.pool)).toEqual(before);
    expect((await requestJson(second.url!, 'GET', '/v1/contacts?limit=500', { key })).body).toEqual(page.body);
    const health = await requestJson(second.url!, 'GET', '/health');
    expect(health.body.status).toBe('ok');
    expect(health.body.projections.find((p: { name: string }) => p.name === 'contacts')).toMatchObject({
      status: 'running',
      generation: 2,
      lag: 0,
      position: positionToString(pos((await contactsState(engage.pool))[0])),
    });
    await second.kill();
  }, 600_000);
});
