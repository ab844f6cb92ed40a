// The projection runner under faults and code changes (issue 7, defects 8–10): transient errors are
// retried and only an event that keeps failing stops a projection (named); a version change restarts
// an in-flight rebuild, each generation runs only its own version's code, and a swap drops the old
// generation's own tables; a failed rebuild is not the live read model failing; a long catch-up does
// not hold every other reader back for its whole length. An event a read model cannot apply (issue
// 26, item 2) is parked after its retries, and the read model goes on for every account.
import type pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NewEvent, type Position, type RecordedEvent, comparePositions, positionToString } from '../../src/eventstore/port.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { Projection } from '../../src/read-models/projection.ts';
import { type RunnerOptions, ProjectionRunner } from '../../src/read-models/runner.ts';
import { readStatuses } from '../../src/read-models/status.ts';
import { dropParked, listParked, retryParked } from '../../src/read-models/parked.ts';
import { requestRebuild } from '../../src/read-models/generations.ts';
import { migratedStoreForSuite, openMigratedStore } from '../support/event-store.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.ts';
import { eventually } from '../support/waits.ts';

const silent = pino({ level: 'silent' });
const db = migratedStoreForSuite();
const runners: ProjectionRunner[] = [];

// before the database closes (hooks registered later run their afterAll first)
afterAll(async () => {
  await Promise.allSettled(runners.map((r) => r.stop()));
});

function runner(projections: Projection[], options: RunnerOptions = {}): ProjectionRunner {
  // each runner its own store (own wake-ups), like its own process
  const own = new PostgresEventStore(db.pool, db.url);
  const r = new ProjectionRunner(db.pool, own, projections, silent, own.wakeup, { controlIntervalMs: 100, retryBaseMs: 20, ...options });
  runners.push(r);
  return r;
}

async function appendNumbered(type: string, first: number, count: number): Promise<Position> {
  const batch: { streamId: string; events: NewEvent[] }[] = [];
  for (let n = first; n < first + count; n++) batch.push({ streamId: `${type.toLowerCase()}-${n}`, events: [{ type, data: { n } }] });
  const results = await db.store.appendMany(batch);
  return results.reduce((a, r) => (comparePositions(r.position, a) > 0 ? r.position : a), results[0].position);
}

/** A read model logging each application of an event with the code version that applied it. */
function ledger(name: string, type: string, version: number, opts: { table?: string; before?: (tx: pg.PoolClient, e: RecordedEvent) => Promise<void> } = {}): Projection {
  const table = opts.table ?? `${name}_ledger`;
  return {
    name,
    version,
    tables: [table],
    types: [type],
    schema: (t) => `CREATE TABLE ${t(table)} (n int NOT NULL, version int NOT NULL)`,
    async apply(tx, events, t) {
      for (const e of events) {
        await opts.before?.(tx, e);
        await tx.query(`INSERT INTO ${t(table)} (n, version) VALUES ($1, $2)`, [e.data.n, version]);
      }
    },
  };
}

async function state(name: string) {
  const { rows } = await db.pool.query(
    `SELECT generation, active, version, status, error, error_event, tables FROM projection_state WHERE name = $1 ORDER BY generation`,
    [name],
  );
  return rows as { generation: number; active: boolean; version: number; status: string; error: string | null; error_event: string | null; tables: string[] }[];
}

async function tableExists(name: string): Promise<boolean> {
  return (await db.pool.query(`SELECT to_regclass($1) IS NOT NULL AS e`, [name])).rows[0].e;
}

/** The events of a type once `count` of them are readable (other transactions on the cluster may delay that). */
async function readableEvents(type: string, count: number, on: PostgresEventStore = db.store): Promise<RecordedEvent[]> {
  return eventually(`${count} ${type} events to be readable`, async () => {
    const got = await on.readAll({ types: [type], maxCount: 10_000 });
    return got.length >= count ? got : undefined;
  });
}

/** The parked events of a read model, as stored. */
async function parkedOf(name: string) {
  const { rows } = await db.pool.query(`SELECT generation, event_id::text, error, attempts FROM parked_events WHERE name = $1 ORDER BY generation, event_id`, [name]);
  return rows as { generation: number; event_id: string; error: string; attempts: number }[];
}

const raise = (code: string) => `DO $$ BEGIN RAISE EXCEPTION 'injected %', '${code}' USING ERRCODE = '${code}'; END $$`;

describe('transient errors in a projection', () => {
  it('retries a serialization failure and a deadlock, applies every event once, and stays running', async () => {
    let injected = 0;
    const p = ledger('flaky', 'Flaky', 1, {
      async before(tx, e) {
        if (e.data.n === 7 && injected === 0) {
          injected++;
          await tx.query(raise('40001'));
        }
        if (e.data.n === 13 && injected === 1) {
          injected++;
          await tx.query(raise('40P01'));
        }
      },
    });
    const last = await appendNumbered('Flaky', 0, 20);
    const r = runner([p], { batchSize: 5 });
    await r.start();
    expect(await r.waitFor(['flaky'], last, 30_000)).toBe(true);
    expect(injected).toBe(2);
    const { rows } = await db.pool.query('SELECT n, count(*)::int AS c FROM flaky_ledger GROUP BY n ORDER BY n');
    expect(rows).toEqual(Array.from({ length: 20 }, (_, n) => ({ n, c: 1 })));
    expect((await state('flaky'))[0]).toMatchObject({ status: 'running', error: null });
    expect(r.isFailing('flaky')).toBeUndefined();
    expect(await parkedOf('flaky')).toEqual([]);
  });

  it('waits out a connection killed in the middle of a batch, never marking the projection failed', async () => {
    let killed = false;
    const p = ledger('killed', 'Killed', 1, {
      async before(tx, e) {
        if (e.data.n === 4 && !killed) {
          killed = true;
          await tx.query('SELECT pg_terminate_backend(pg_backend_pid())');
        }
      },
    });
    const last = await appendNumbered('Killed', 0, 10);
    const r = runner([p], { batchSize: 5, maxAttempts: 1 });
    await r.start();
    expect(await r.waitFor(['killed'], last, 30_000)).toBe(true);
    expect(killed).toBe(true);
    expect((await db.pool.query('SELECT count(*)::int AS c, count(DISTINCT n)::int AS d FROM killed_ledger')).rows[0]).toEqual({ c: 10, d: 10 });
    expect((await state('killed'))[0].status).toBe('running');
    expect(await parkedOf('killed')).toEqual([]);
  });

  it('marks it failed only when the same event keeps failing after the retries, and names the event', async () => {
    let attempts = 0;
    const p = ledger('stuck', 'Stuck', 1, {
      async before(tx, e) {
        if (e.data.n === 3) {
          attempts++;
          await tx.query(raise('40001'));
        }
      },
    });
    await appendNumbered('Stuck', 0, 6);
    const events = await readableEvents('Stuck', 6);
    const culprit = events.find((e) => e.data.n === 3)!;
    const r = runner([p], { batchSize: 5, maxAttempts: 3 });
    await r.start();
    const failed = await eventually('the projection to fail', async () => {
      const [s] = await state('stuck');
      return s?.status === 'failed' ? s : undefined;
    });
    expect(failed.error).toMatch(/injected 40001/);
    expect(failed.error_event).toBe(`Stuck ${culprit.streamId}@0 (id ${culprit.id})`);
    // twice the attempts for a transient error (each attempt also re-applies the event once to find it)
    expect(attempts).toBeGreaterThanOrEqual(6);
    expect((await db.pool.query('SELECT n FROM stuck_ledger ORDER BY n')).rows.map((x) => x.n)).toEqual([0, 1, 2]);
    // a lost race says nothing about the event: it is never parked
    expect(await parkedOf('stuck')).toEqual([]);
  });
});

describe('an event a read model cannot apply', () => {
  it('is parked after its retries (named, with its account and error, logged), the events after it of every account are applied, and a retry or drop settles it', async () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    let broken = true;
    const p = ledger('parking', 'Parking', 1, {
      async before(tx, e) {
        // #3: the read model's own error, until its cause is fixed; #7: a data exception of Postgres, always
        if (broken && e.data.n === 3) throw new Error('cannot apply #3');
        if (e.data.n === 7) await tx.query('SELECT $1::int', ['seven']);
      },
    });
    // two accounts, their events interleaved
    await db.store.appendMany(
      Array.from({ length: 12 }, (_, n) => ({ streamId: `parking-${n}`, events: [{ type: 'Parking', data: { n }, metadata: { accountId: n % 2 ? 'acc_odd' : 'acc_even' } }] })),
    );
    const events = await readableEvents('Parking', 12);
    const [three, seven] = [events.find((e) => e.data.n === 3)!, events.find((e) => e.data.n === 7)!];
    const own = new PostgresEventStore(db.pool, db.url);
    const r = new ProjectionRunner(db.pool, own, [p], log, own.wakeup, { controlIntervalMs: 100, retryBaseMs: 20, batchSize: 5, maxAttempts: 2 });
    runners.push(r);
    await r.start();
    expect(await r.waitFor(['parking'], events.at(-1)!.position, 30_000)).toBe(true);
    const applied = async () => (await db.pool.query('SELECT n FROM parking_ledger ORDER BY n')).rows.map((x) => x.n);
    expect(await applied()).toEqual([0, 1, 2, 4, 5, 6, 8, 9, 10, 11]);

    const parked = await listParked(db.pool, 'parking');
    expect(parked).toEqual([
      expect.objectContaining({ name: 'parking', generation: 1, event_id: three.id, type: 'Parking', stream_id: three.streamId, account_id: 'acc_odd', error: 'cannot apply #3', position: positionToString(three.position) }),
      expect.objectContaining({ name: 'parking', generation: 1, event_id: seven.id, account_id: 'acc_odd', error: expect.stringMatching(/invalid input syntax for type integer/) }),
    ]);
    expect(parked.every((x) => x.attempts >= 2)).toBe(true);
    const [live] = (await readStatuses(db.pool, db.store, [p])).filter((s) => s.name === 'parking');
    expect(live).toMatchObject({ status: 'degraded', parked: 2, lag: 0 });
    expect(r.isFailing('parking')).toBeUndefined();
    // a line an operator can alert on, per parked event
    const logged = lines.filter((l) => l.msg === 'read model event parked');
    expect(logged.map((l) => l.event_id).sort()).toEqual([three.id, seven.id].sort());
    expect(logged[0]).toMatchObject({ projection: 'parking', account_id: 'acc_odd' });
    expect(logged.every((l) => (l.level as number) >= 40 && typeof l.error === 'string')).toBe(true);

    // later events keep flowing
    const later = await appendNumbered('Parking', 12, 3);
    expect(await r.waitFor(['parking'], later, 30_000)).toBe(true);
    expect(await applied()).toEqual([0, 1, 2, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14]);

    // the cause of #3 fixed: a retry applies it once and forgets it; #7 still fails and stays parked
    broken = false;
    const retried = await retryParked(db.pool, db.store, p);
    expect(retried.applied.map((x) => x.event_id)).toEqual([three.id]);
    expect(retried.failed).toEqual([expect.objectContaining({ event_id: seven.id, error: expect.stringMatching(/invalid input syntax/) })]);
    expect((await retryParked(db.pool, db.store, p, three.id)).applied).toEqual([]);
    expect(await applied()).toEqual([0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14]);
    expect(await parkedOf('parking')).toEqual([expect.objectContaining({ generation: 1, event_id: seven.id, attempts: parked[1].attempts + 1 })]);

    // a rebuild starts with nothing parked and parks again what still fails; the old generation's go with it
    const generation = await requestRebuild(db.pool, p);
    await eventually('the rebuild to swap in', async () => {
      const s = await state('parking');
      return s.length === 1 && s[0].generation === generation ? true : undefined;
    });
    expect(await parkedOf('parking')).toEqual([expect.objectContaining({ generation, event_id: seven.id })]);
    expect(await applied()).toEqual([0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14]);

    // dropped: forgotten by the read model (it stays in the log); the read model is running again
    expect(await dropParked(db.pool, 'parking', seven.id)).toBe(1);
    expect(await parkedOf('parking')).toEqual([]);
    expect((await readStatuses(db.pool, db.store, [p])).find((s) => s.name === 'parking')).toMatchObject({ status: 'running', parked: 0 });
    expect((await db.store.readStream(seven.streamId)).map((e) => e.id)).toEqual([seven.id]);
  });
});

describe('a projection whose code version changes', () => {
  it('restarts an in-flight rebuild for the newer version; each generation runs only its own code; the swap drops the old tables', async () => {
    const name = 'versioned';
    const type = 'Versioned';
    await appendNumbered(type, 0, 60);
    const v1 = runner([ledger(name, type, 1, { table: 'versioned_a' })], { batchSize: 20 });
    await v1.start();
    expect(await v1.waitFor([name], (await readableEvents(type, 60)).at(-1)!.position, 30_000)).toBe(true);

    // version 2 (slow) starts a rebuild beside the live generation and is stopped half way
    let v2Batches = 0;
    const v2 = runner([ledger(name, type, 2, { table: 'versioned_a', before: async () => { v2Batches++; await new Promise((r) => setTimeout(r, 10)); } })], { batchSize: 5 });
    await v2.start();
    await eventually('version 2 to be half way', async () => (v2Batches >= 20 ? true : undefined));
    await v2.stop();
    const during = await state(name);
    expect(during.map((s) => [s.generation, s.active, s.version, s.status])).toEqual([[1, true, 1, 'running'], [2, false, 2, 'rebuilding']]);

    // meanwhile the live generation keeps running its own (version 1) code
    const more = await appendNumbered(type, 60, 10);
    expect(await v1.waitFor([name], more, 30_000)).toBe(true);
    const live = await db.pool.query(`SELECT version, count(*)::int AS c FROM versioned_a GROUP BY version`);
    expect(live.rows).toEqual([{ version: 1, c: 70 }]);
    // version 2's code never touched the live generation's tables
    expect((await db.pool.query(`SELECT count(*)::int AS c FROM versioned_a_g1 WHERE version <> 1`)).rows[0].c).toBe(0);

    // version 3 (its table renamed) replaces version 2's stale rebuild, catches up and swaps in
    const v3 = runner([ledger(name, type, 3, { table: 'versioned_b' })], { batchSize: 20 });
    await v3.start();
    const swapped = await eventually('version 3 to swap in', async () => {
      const s = await state(name);
      return s.length === 1 && s[0].active && s[0].version === 3 ? s : undefined;
    });
    expect(swapped[0]).toMatchObject({ generation: 3, status: 'running', tables: ['versioned_b'] });
    expect(await tableExists('versioned_a_g2')).toBe(false);
    // the old generation's own table is dropped, although version 3's code no longer names it
    expect(await tableExists('versioned_a_g1')).toBe(false);
    expect(await tableExists('versioned_a')).toBe(false);
    const rebuilt = await db.pool.query(`SELECT version, count(*)::int AS c, count(DISTINCT n)::int AS d FROM versioned_b GROUP BY version`);
    expect(rebuilt.rows).toEqual([{ version: 3, c: 70, d: 70 }]);

    // the version 1 runner, still running, leaves the newer generation alone
    const later = await appendNumbered(type, 70, 5);
    expect(await v3.waitFor([name], later, 30_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect((await db.pool.query(`SELECT version, count(*)::int AS c FROM versioned_b GROUP BY version`)).rows).toEqual([{ version: 3, c: 75 }]);
    expect(v1.isFailing(name)).toBeUndefined();
  });

  it('a version that keeps its rows in two tables, joined by a view of the old table\'s name, swaps in: readers of that name see the new rows, and the old table goes', async () => {
    const name = 'splitting';
    const type = 'Splitting';
    const first = await appendNumbered(type, 0, 12);
    const v1 = runner([ledger(name, type, 1, { table: 'split_rows' })], { batchSize: 5 });
    await v1.start();
    expect(await v1.waitFor([name], first, 30_000)).toBe(true);
    expect((await db.pool.query('SELECT count(*)::int AS c FROM split_rows')).rows[0].c).toBe(12);

    // version 2: each row's n in one table and its version in another, `split_rows` the view joining them
    const v2: Projection = {
      name,
      version: 2,
      tables: ['split_ns', 'split_versions'],
      views: { split_rows: (t) => `SELECT a.n, b.version FROM ${t('split_ns')} a JOIN ${t('split_versions')} b ON b.n = a.n` },
      types: [type],
      schema: (t) => `CREATE TABLE ${t('split_ns')} (n int PRIMARY KEY); CREATE TABLE ${t('split_versions')} (n int PRIMARY KEY, version int NOT NULL)`,
      async apply(tx, events, t) {
        for (const e of events) {
          await tx.query(`INSERT INTO ${t('split_ns')} (n) VALUES ($1)`, [e.data.n]);
          await tx.query(`INSERT INTO ${t('split_versions')} (n, version) VALUES ($1, 2)`, [e.data.n]);
        }
      },
    };
    const r2 = runner([v2], { batchSize: 5 });
    await r2.start();
    const swapped = await eventually('version 2 to swap in', async () => {
      const s = await state(name);
      return s.length === 1 && s[0].active && s[0].version === 2 ? s : undefined;
    });
    expect(swapped[0]).toMatchObject({ tables: ['split_ns', 'split_versions'] });
    expect(await tableExists(`split_rows_g${swapped[0].generation - 1}`)).toBe(false);
    const more = await appendNumbered(type, 12, 3);
    expect(await r2.waitFor([name], more, 30_000)).toBe(true);
    const { rows } = await db.pool.query('SELECT version, count(*)::int AS c, count(DISTINCT n)::int AS d FROM split_rows GROUP BY version');
    expect(rows).toEqual([{ version: 2, c: 15, d: 15 }]);
    // each table has its own view as well
    expect((await db.pool.query('SELECT count(*)::int AS c FROM split_versions')).rows[0].c).toBe(15);
  });

  it('reports a failed rebuild on its own generation, never as the live read model failing', async () => {
    const name = 'rebuildfails';
    const type = 'RebuildFails';
    const last = await appendNumbered(type, 0, 10);
    const v1 = runner([ledger(name, type, 1)], { batchSize: 5 });
    await v1.start();
    expect(await v1.waitFor([name], last, 30_000)).toBe(true);
    const v2 = runner(
      // a bug of the new code (a table it never made), not an event it cannot apply: that would be parked
      [ledger(name, type, 2, { before: async (tx, e) => { if (e.data.n === 6) await tx.query('SELECT * FROM version_2_forgot_this'); } })],
      { batchSize: 5, maxAttempts: 2 },
    );
    await v2.start();
    await eventually('the rebuild to fail', async () => ((await state(name)).some((s) => s.status === 'failed') ? true : undefined));
    const statuses = (await readStatuses(db.pool, db.store)).filter((s) => s.name === name);
    expect(statuses.map((s) => [s.generation, s.active, s.status])).toEqual([[1, true, 'running'], [2, false, 'failed']]);
    expect(statuses[1].error).toBe('relation "version_2_forgot_this" does not exist');
    expect(v2.isFailing(name)).toBeUndefined();
    expect(v1.isFailing(name)).toBeUndefined();
    // the live generation keeps serving and moving (its own runner)
    const more = await appendNumbered(type, 10, 3);
    expect(await v1.waitFor([name], more, 30_000)).toBe(true);
  });
});

describe('transactions of a catching-up projection', () => {
  // a cluster of its own: this test holds transactions open on purpose, which stalls every reader on the cluster
  let cluster: PrivatePostgres;
  beforeAll(async () => {
    cluster = await startPrivatePostgres();
  });
  afterAll(async () => {
    await cluster?.destroy();
  });

  it('do not hold other readers back for the whole catch-up: an event appended meanwhile is readable long before it ends', async () => {
    const { pool: ownPool, store: own, close } = await openMigratedStore(await cluster.createDatabase('engage'));
    const r = new ProjectionRunner(ownPool, own, [ledger('slowpoke', 'Slow', 1, { before: (tx) => tx.query('SELECT pg_sleep(0.03)').then(() => undefined) })], silent, own.wakeup);
    try {
      const batch = Array.from({ length: 200 }, (_, n) => ({ streamId: `slow-${n}`, events: [{ type: 'Slow', data: { n } }] }));
      await own.appendMany(batch); // about 6 s of applying
      const lastSlow = (await readableEvents('Slow', 200, own)).at(-1)!.position;
      await r.start();
      await new Promise((res) => setTimeout(res, 300));
      const marker = await own.append(`marker-${Date.now()}`, [{ type: 'Marker', data: {} }]);
      await eventually('the marker to be readable', async () => ((await own.readAll({ types: ['Marker'], maxCount: 1 })).length ? true : undefined), 30_000, 20);
      const at = r.position('slowpoke');
      // the projection was still busy with its backlog when the marker became readable
      expect(at === undefined || comparePositions(at, lastSlow) < 0).toBe(true);
      expect(comparePositions(marker.position, lastSlow)).toBeGreaterThan(0);
      expect(await r.waitFor(['slowpoke'], lastSlow, 60_000)).toBe(true);
    } finally {
      await r.stop();
      await close();
    }
  }, 120_000);
});
