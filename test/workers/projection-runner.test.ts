// The projection runner's guarantees, on a real Postgres: a batch and its checkpoint commit together,
// runners competing for one projection never apply an event twice, and an event a read model cannot
// apply is parked — visibly, in /health and `engage projections status` — and the read model goes on past it.
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NewEvent, type Position, type RecordedEvent, comparePositions, positionToString } from '../../src/eventstore/port.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { Projection } from '../../src/read-models/projection.ts';
import { retryParked } from '../../src/read-models/parked.ts';
import { ProjectionRunner } from '../../src/read-models/runner.ts';
import { GENERATION_LOCK_NAMESPACE } from '../../src/read-models/state.ts';
import { openMigratedStore } from '../support/event-store.ts';
import { migratedDatabase, startTestServer, type TestServer } from '../support/harness.ts';
import { killAllEngageProcesses, runEngage } from '../support/processes.ts';
import { eventually } from '../support/waits.ts';

const silent = pino({ level: 'silent' });

/** One "process": its own pool and event store (and so its own wake-ups). */
type Node = Awaited<ReturnType<typeof openMigratedStore>>;

const nodes: Node[] = [];
const runners: ProjectionRunner[] = [];

async function node(url: string): Promise<Node> {
  const n = await openMigratedStore(url);
  nodes.push(n);
  return n;
}

function runner(n: Node, projections: Projection[], batchSize: number): ProjectionRunner {
  const r = new ProjectionRunner(n.pool, n.store, projections, silent, n.store.wakeup, { batchSize, controlIntervalMs: 100 });
  runners.push(r);
  return r;
}

/**
 * A read model that records every application of an event as a row (no unique key on purpose:
 * an event applied twice shows up as two rows). `tag` says which runner applied it.
 */
function ledgerProjection(
  name: string,
  type: string,
  tag: string,
  failOn?: (e: RecordedEvent) => boolean,
  beforeApply?: (tx: pg.ClientBase) => Promise<void>,
): Projection {
  const table = `${name}_ledger`;
  return {
    name,
    version: 1,
    tables: [table],
    types: [type],
    schema: (t) => `CREATE TABLE ${t(table)} (event_id uuid NOT NULL, n int NOT NULL, position text NOT NULL, applied_by text NOT NULL)`,
    async apply(tx, events, t) {
      await beforeApply?.(tx);
      for (const e of events) {
        if (failOn?.(e)) throw new Error(`cannot apply ${type} #${e.data.n}`);
        await tx.query(`INSERT INTO ${t(table)} (event_id, n, position, applied_by) VALUES ($1, $2, $3, $4)`, [
          e.id,
          e.data.n,
          positionToString(e.position),
          tag,
        ]);
      }
    },
  };
}

/** Appends `count` events of `type` numbered from `first`, spread over streams and transactions. */
async function appendNumbered(store: PostgresEventStore, type: string, first: number, count: number, perTransaction = 200): Promise<Position> {
  let last: Position | undefined;
  for (let start = first; start < first + count; start += perTransaction) {
    const batch: { streamId: string; events: NewEvent[] }[] = [];
    for (let n = start; n < Math.min(first + count, start + perTransaction); n++) {
      batch.push({ streamId: `${type.toLowerCase()}-${n}`, events: [{ type, data: { n }, metadata: { actor: 'test' } }] });
    }
    const results = await store.appendMany(batch);
    for (const r of results) if (!last || comparePositions(r.position, last) > 0) last = r.position;
  }
  return last!;
}

async function stateOf(pool: pg.Pool, name: string) {
  const { rows } = await pool.query(
    `SELECT generation, active, status, error, error_position, error_event, commit_pos::text || '/' || prepare_pos AS position
     FROM projection_state WHERE name = $1 ORDER BY generation`,
    [name],
  );
  return rows as { generation: number; active: boolean; status: string; error: string | null; error_position: string | null; error_event: string | null; position: string }[];
}

/**
 * Every event of a type, once at least `expected` of them are readable: a reader sees only what no
 * open transaction holds back, and other test files share the cluster (README: readers held back).
 */
async function eventsOf(store: PostgresEventStore, type: string, expected = 1): Promise<RecordedEvent[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const all: RecordedEvent[] = [];
    for (;;) {
      const batch = await store.readAll({ after: all.at(-1)?.position, maxCount: 5000, types: [type] });
      if (batch.length === 0) break;
      all.push(...batch);
    }
    if (all.length >= expected || Date.now() > deadline) return all;
    await new Promise((r) => setTimeout(r, 50));
  }
}

afterAll(async () => {
  await Promise.allSettled(runners.map((r) => r.stop()));
  for (const n of nodes) await n.close();
  await killAllEngageProcesses();
});

describe('the projection runner', () => {
  let url: string;
  beforeAll(async () => {
    url = await migratedDatabase();
  }, 300_000);

  it('commits every batch together with its checkpoint: no snapshot ever shows one without the other', async () => {
    const n = await node(url);
    const total = 5000;
    await appendNumbered(n.store, 'Atomic', 0, total);
    const projection = ledgerProjection('atomic', 'Atomic', 'only');
    const r = runner(n, [projection], 50);

    // Observe from outside, each look in one snapshot: applied rows vs events up to the checkpoint.
    const observer = new pg.Client({ connectionString: url });
    await observer.connect();
    const mismatches: string[] = [];
    let midRun = 0;
    let done = false;
    const watching = (async () => {
      while (!done) {
        await observer.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
        const { rows: state } = await observer.query(
          `SELECT commit_pos::text AS commit, prepare_pos::text AS prepare FROM projection_state WHERE name = 'atomic' AND active`,
        );
        if (state.length === 1) {
          const { rows } = await observer.query(
            `SELECT (SELECT count(*)::int FROM atomic_ledger) AS applied,
                    (SELECT count(*)::int FROM es_events WHERE type = 'Atomic'
                       AND (transaction_id, global_position) <= ($1::text::xid8, $2::bigint)) AS upto`,
            [state[0].commit, state[0].prepare],
          );
          if (rows[0].applied !== rows[0].upto) mismatches.push(`checkpoint covers ${rows[0].upto} events but ${rows[0].applied} are applied`);
          if (rows[0].applied > 0 && rows[0].applied < total) midRun++;
          if (rows[0].applied === total) done = true;
        }
        await observer.query('COMMIT');
      }
    })();
    await r.start();
    await watching;
    await observer.end();

    expect(mismatches).toEqual([]);
    // the observer really looked while the runner was between batches
    expect(midRun).toBeGreaterThan(0);
    const [state] = await stateOf(n.pool, 'atomic');
    const events = await eventsOf(n.store, 'Atomic', total);
    expect(state).toMatchObject({ status: 'running', active: true, position: positionToString(events.at(-1)!.position) });
    await r.stop();
  }, 300_000);

  it('moves past a batch its read model calls inert without applying it, and applies the next one from there, the checkpoint stored in the same place', async () => {
    const n = await node(url);
    // one event a batch; the even-numbered ones are inert
    const applied: number[] = [];
    const inertSeen: number[] = [];
    const base = ledgerProjection('inert_ledger', 'Inert', 'only');
    const projection: Projection = {
      ...base,
      async inert(_db, events) {
        const inert = events.every((e) => (e.data as { n: number }).n % 2 === 0);
        if (inert) inertSeen.push(...events.map((e) => (e.data as { n: number }).n));
        return inert;
      },
      async apply(tx, events, t) {
        applied.push(...events.map((e) => (e.data as { n: number }).n));
        return base.apply(tx, events, t);
      },
    };
    await appendNumbered(n.store, 'Inert', 0, 20, 1);
    const events = await eventsOf(n.store, 'Inert', 20);
    const r = runner(n, [projection], 1);
    await r.start();
    expect(await r.waitFor(['inert_ledger'], events.at(-1)!.position, 20_000)).toBe(true);
    // the last (19) was applied: what the read model holds is the odd ones, each once
    expect(applied).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
    // (a batch may be judged again after its skip was dropped: the loop's copy of the state row had
    // moved with an applied batch, so storing the skip found the row changed and read it again; a
    // judgement has no effect)
    expect([...new Set(inertSeen)]).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
    const { rows } = await n.pool.query('SELECT n FROM inert_ledger_ledger ORDER BY n');
    expect(rows.map((x) => x.n)).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
    const [state] = await stateOf(n.pool, 'inert_ledger');
    expect(state).toMatchObject({ status: 'running', active: true, position: positionToString(events.at(-1)!.position) });
    await r.stop();
  }, 60_000);

  it('never applies an event twice when two runners (own pools) race for the same projection', async () => {
    const a = await node(url);
    const b = await node(url);
    await appendNumbered(a.store, 'Raced', 0, 4000);
    // the race made certain: a runner that has won a batch while the other has won none waits, holding
    // the generation's lock, until the other waits for that lock, then loses its batch to a
    // serialization failure (a real one, raised by Postgres) and rolls back; the other gets the lock
    // (at once, or after reading the checkpoint again), finds it unmoved and applies its batch
    const wins = { A: 0, B: 0 };
    const yieldToTheOther = (me: 'A' | 'B') => async (tx: pg.ClientBase) => {
      const other = me === 'A' ? 'B' : 'A';
      if (wins[me] === 0 || wins[other] > 0) {
        wins[me]++;
        return;
      }
      await eventually(`runner ${other} to wait for the generation lock runner ${me} holds`, async () => {
        const { rowCount } = await tx.query(
          `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND classid = $1::bigint::oid AND objid = (hashtext($2)::bigint & 4294967295)::oid`,
          [GENERATION_LOCK_NAMESPACE, 'raced:1'],
        );
        return rowCount ? true : undefined;
      });
      await tx.query(`DO $$ BEGIN RAISE EXCEPTION 'runner ${me} yields a batch to runner ${other}' USING ERRCODE = 'serialization_failure'; END $$`);
    };
    const runnerA = runner(a, [ledgerProjection('raced', 'Raced', 'A', undefined, yieldToTheOther('A'))], 25);
    const runnerB = runner(b, [ledgerProjection('raced', 'Raced', 'B', undefined, yieldToTheOther('B'))], 25);
    await Promise.all([runnerA.start(), runnerB.start()]);
    // more events while both run, from both "processes"
    await Promise.all([appendNumbered(a.store, 'Raced', 4000, 500, 20), appendNumbered(b.store, 'Raced', 4500, 500, 20)]);
    const events = await eventsOf(a.store, 'Raced', 5000);
    expect(events).toHaveLength(5000);
    const last = events.at(-1)!.position;
    expect(await runnerA.waitFor(['raced'], last, 60_000)).toBe(true);
    expect(await runnerB.waitFor(['raced'], last, 60_000)).toBe(true);

    const { rows } = await a.pool.query(
      `SELECT count(*)::int AS applications, count(DISTINCT event_id)::int AS events,
              count(*) FILTER (WHERE applied_by = 'A')::int AS by_a, count(*) FILTER (WHERE applied_by = 'B')::int AS by_b
       FROM raced_ledger`,
    );
    expect(rows[0]).toMatchObject({ applications: 5000, events: 5000 });
    // both runners did win batches, so the race really happened
    expect(rows[0].by_a).toBeGreaterThan(0);
    expect(rows[0].by_b).toBeGreaterThan(0);
    const { rows: dupes } = await a.pool.query(`SELECT event_id FROM raced_ledger GROUP BY event_id HAVING count(*) > 1`);
    expect(dupes).toEqual([]);
    expect(await stateOf(a.pool, 'raced')).toEqual([
      expect.objectContaining({ status: 'running', active: true, error: null, position: positionToString(last) }),
    ]);
    await Promise.all([runnerA.stop(), runnerB.stop()]);
  }, 300_000);

  it("commits a read model's batches without waiting for their WAL flush (the log is what is durable), but not a read model with effects beyond its tables, nor a batch with an event of its flushOn", async () => {
    const n = await node(url);
    /** records, per event, the commit mode of the transaction that applies it */
    const modes = (name: string, extra: Partial<Projection> = {}): Projection => ({
      name,
      version: 1,
      tables: [`${name}_modes`],
      types: ['Moded', 'Flushed'],
      ...extra,
      schema: (t) => `CREATE TABLE ${t(`${name}_modes`)} (n int NOT NULL, mode text NOT NULL)`,
      async apply(tx, events, t) {
        await tx.query(`INSERT INTO ${t(`${name}_modes`)} (n, mode) SELECT unnest($1::int[]), current_setting('synchronous_commit')`, [events.map((e) => e.data.n)]);
      },
    });
    // a backlog first (batches grow past the grouped size: applied on their own), then a trickle (grouped)
    const names = ['moded_async', 'moded_durable', 'moded_flushed'];
    const backlog = await appendNumbered(n.store, 'Moded', 0, 1500);
    const r = runner(n, [modes('moded_async'), modes('moded_durable', { rebuildable: false }), modes('moded_flushed', { flushOn: ['Flushed'] })], 2000);
    await r.start();
    expect(await r.waitFor(names, backlog, 60_000)).toBe(true);
    const trickle = await appendNumbered(n.store, 'Moded', 1500, 20, 2);
    expect(await r.waitFor(names, trickle, 60_000)).toBe(true);
    // an event of its flushOn makes its batch wait (the others' of the batch with it), alone or in a backlog
    const flushedAlone = await appendNumbered(n.store, 'Flushed', 2000, 1);
    expect(await r.waitFor(names, flushedAlone, 60_000)).toBe(true);
    await r.stop();
    const seen = async (table: string, below = 1_000_000) =>
      (await n.pool.query(`SELECT mode, count(*)::int AS events FROM ${table} WHERE n < $1 GROUP BY mode ORDER BY mode`, [below])).rows;
    // (its own Flushed event may have gone in the group transaction of moded_flushed's, which waited for it)
    expect(await seen('moded_async_modes', 2000)).toEqual([{ mode: 'off', events: 1520 }]);
    expect(await seen('moded_durable_modes')).toEqual([{ mode: 'on', events: 1521 }]);
    expect(await seen('moded_flushed_modes')).toEqual([{ mode: 'off', events: 1520 }, { mode: 'on', events: 1 }]);
  }, 300_000);

  it('parks an event it cannot apply, goes on past it, never parks or applies it twice (also across a restart), and applies it on a retry once fixed', async () => {
    const n = await node(url);
    await appendNumbered(n.store, 'Poison', 0, 40, 5);
    const poisoned = (e: RecordedEvent) => e.data.n === 25;
    const r1 = runner(n, [ledgerProjection('poisoned', 'Poison', 'r1', poisoned)], 10);
    await r1.start();

    const events = await eventsOf(n.store, 'Poison', 40);
    const culprit = events.find((e) => e.data.n === 25)!;
    expect(await r1.waitFor(['poisoned'], events.at(-1)!.position, 60_000)).toBe(true);
    const applied = async () => (await n.pool.query(`SELECT n FROM poisoned_ledger ORDER BY n`)).rows.map((x) => x.n);
    const upTo = (end: number, without: number[] = [25]) => Array.from({ length: end }, (_, i) => i).filter((i) => !without.includes(i));
    expect(await applied()).toEqual(upTo(40));
    expect((await stateOf(n.pool, 'poisoned'))[0]).toMatchObject({ status: 'running', error: null, position: positionToString(events.at(-1)!.position) });
    const parked = async () =>
      (await n.pool.query(`SELECT event_id::text, error, attempts, commit_pos::text || '/' || prepare_pos AS position FROM parked_events WHERE name = 'poisoned'`)).rows;
    const [first] = await parked();
    expect(await parked()).toEqual([{ event_id: culprit.id, error: 'cannot apply Poison #25', attempts: 5, position: positionToString(culprit.position) }]);
    expect(r1.isFailing('poisoned')).toBeUndefined();

    // later events are applied
    const later = await appendNumbered(n.store, 'Poison', 40, 10, 5);
    expect(await r1.waitFor(['poisoned'], later, 30_000)).toBe(true);
    expect(await applied()).toEqual(upTo(50));
    await r1.stop();

    // a restarted runner (same broken code) starts past it: nothing parked again, nothing applied twice
    const r2 = runner(n, [ledgerProjection('poisoned', 'Poison', 'r2', poisoned)], 10);
    await r2.start();
    const more = await appendNumbered(n.store, 'Poison', 50, 5, 5);
    expect(await r2.waitFor(['poisoned'], more, 30_000)).toBe(true);
    expect(await applied()).toEqual(upTo(55));
    expect(await parked()).toEqual([first]);
    await r2.stop();

    // with the apply fixed, a retry applies the parked event once and forgets it
    const retried = await retryParked(n.pool, n.store, ledgerProjection('poisoned', 'Poison', 'retry'));
    expect(retried.applied.map((x) => x.event_id)).toEqual([culprit.id]);
    expect(await applied()).toEqual(upTo(55, []));
    expect(await parked()).toEqual([]);
  }, 300_000);
});

describe('a read model with a parked event in a running service', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ READ_YOUR_WRITES_TIMEOUT_MS: '300' });
  });
  afterAll(async () => {
    await server?.close();
  }, 300_000);

  it('shows it in GET /health and `engage projections status` (degraded, exit 3), applies later contacts of every account, and the CLI lists, retries and drops it', async () => {
    const a = await server.newAccount();
    const b = await server.newAccount();
    const before = await server.call('POST', '/v1/contacts', { key: a.key, body: { email: 'before@example.com' } });
    expect(before.status).toBe(201);

    // an event the contacts read model cannot store (a created_at that is not a timestamp)
    const poison = await server.engage.store.append(
      'contact-ct_poison',
      [{ type: 'ContactCreated', data: { account_id: a.accountId, id: 'ct_poison', fields: { email: 'poison@example.com' }, custom_fields: {}, created_at: 'not-a-time' } }],
      'no_stream',
    );
    const [poisonEvent] = await server.engage.store.readStream('contact-ct_poison');
    // (other read models that take ContactCreated, list_growth among them, may park it too, each in its own time;
    // a park stores the checkpoint at the parked event, so an event of the same batch after it is applied by
    // the next pass: the lag reaches 0 a moment after the park is seen)
    const health = await eventually('GET /health to report the parked event, caught up past it', async () => {
      const res = await server.call('GET', '/health');
      const contacts = res.body.projections?.find((p: { name: string }) => p.name === 'contacts');
      return contacts?.parked === 1 && contacts.lag === 0 ? res : undefined;
    });
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('degraded');
    expect(health.body.projections.find((p: { name: string }) => p.name === 'contacts')).toMatchObject({ status: 'degraded', parked: 1, lag: 0 });
    expect(health.body.projections.find((p: { name: string }) => p.name === 'auth')).toMatchObject({ status: 'running', parked: 0 });

    // contacts created after the bad event are applied, in both accounts
    expect((await server.call('POST', '/v1/contacts', { key: a.key, body: { email: 'after@example.com' } })).status).toBe(201);
    expect((await server.call('POST', '/v1/contacts', { key: b.key, body: { email: 'other@example.com' } })).status).toBe(201);
    const emails = async (key: string) => (await server.call('GET', '/v1/contacts', { key })).body.data.map((c: { email: string }) => c.email).sort();
    expect(await eventually('both contacts of account a', async () => ((await emails(a.key)).length === 2 ? emails(a.key) : undefined))).toEqual(['after@example.com', 'before@example.com']);
    // (each POST waits at most 300 ms to read itself: account b's contact may be applied after a's)
    expect(await eventually('the contact of account b', async () => ((await emails(b.key)).length === 1 ? emails(b.key) : undefined))).toEqual(['other@example.com']);

    const status = await runEngage(['projections', 'status', '--json'], server.databaseUrl);
    expect(status.code).toBe(3);
    expect(JSON.parse(status.stdout).find((s: { name: string }) => s.name === 'contacts')).toMatchObject({ status: 'degraded', parked: 1, active: true });
    const plain = await runEngage(['projections', 'status'], server.databaseUrl);
    expect(plain.code).toBe(3);
    expect(plain.stdout).toMatch(/^contacts\s.*degraded.*parked 1/m);

    const listed = await runEngage(['projections', 'parked', 'contacts', '--json'], server.databaseUrl);
    expect(listed.code).toBe(0);
    const [entry] = JSON.parse(listed.stdout);
    expect(JSON.parse(listed.stdout)).toHaveLength(1);
    expect(entry).toMatchObject({ name: 'contacts', event_id: poisonEvent.id, type: 'ContactCreated', stream_id: 'contact-ct_poison', account_id: a.accountId, position: positionToString(poison.position) });
    expect(entry.error).toMatch(/timestamp/);
    const listedPlain = await runEngage(['projections', 'parked'], server.databaseUrl);
    expect(listedPlain.stdout).toMatch(new RegExp(`^contacts\\s.*${poisonEvent.id}.*ContactCreated.*${a.accountId}.*timestamp`, 'm'));

    // a retry that fails again keeps it parked (exit 2, the error named)
    const retried = await runEngage(['projections', 'retry-parked', 'contacts', '--event', poisonEvent.id], server.databaseUrl);
    expect(retried.code).toBe(2);
    expect(retried.stdout + retried.stderr).toMatch(/still parked.*timestamp/);
    const again = JSON.parse((await runEngage(['projections', 'parked', 'contacts', '--json'], server.databaseUrl)).stdout);
    expect(again).toEqual([expect.objectContaining({ event_id: poisonEvent.id, attempts: entry.attempts + 1 })]);

    // bad input is refused, nothing changed
    expect((await runEngage(['projections', 'drop-parked', 'nosuch'], server.databaseUrl)).stderr).toMatch(/unknown projection nosuch/);
    const badId = await runEngage(['projections', 'drop-parked', 'contacts', '--event', 'not-an-id'], server.databaseUrl);
    expect(badId.code).not.toBe(0);
    expect(badId.stderr).toMatch(/event id/);

    const dropped = await runEngage(['projections', 'drop-parked', 'contacts', '--event', poisonEvent.id], server.databaseUrl);
    expect(dropped.code).toBe(0);
    expect(dropped.stdout).toMatch(/dropped 1/);
    expect(JSON.parse((await runEngage(['projections', 'parked', 'contacts', '--json'], server.databaseUrl)).stdout)).toEqual([]);
    const healthAfter = await server.call('GET', '/health');
    expect(healthAfter.body.projections.find((p: { name: string }) => p.name === 'contacts')).toMatchObject({ status: 'running', parked: 0 });
    // it stays in the log
    expect((await server.engage.store.readStream('contact-ct_poison')).map((e) => e.id)).toEqual([poisonEvent.id]);
  }, 300_000);
});
