// The projection runner under faults and code changes (issue 7, defects 8–10): transient errors are
// retried and only an event that keeps failing stops a projection (named); a version change restarts
// an in-flight rebuild, each generation runs only its own version's code, and a swap drops the old
// generation's own tables; a failed rebuild is not the live read model failing; a long catch-up does
// not hold every other reader back for its whole length.
import type pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NewEvent, type Position, type RecordedEvent, comparePositions } from '../../src/eventstore/port.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { Projection } from '../../src/read-models/projection.ts';
import { type RunnerOptions, ProjectionRunner } from '../../src/read-models/runner.ts';
import { readStatuses } from '../../src/read-models/status.ts';
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

  it('reports a failed rebuild on its own generation, never as the live read model failing', async () => {
    const name = 'rebuildfails';
    const type = 'RebuildFails';
    const last = await appendNumbered(type, 0, 10);
    const v1 = runner([ledger(name, type, 1)], { batchSize: 5 });
    await v1.start();
    expect(await v1.waitFor([name], last, 30_000)).toBe(true);
    const v2 = runner(
      [ledger(name, type, 2, { before: async (_tx, e) => { if (e.data.n === 6) throw new Error('version 2 cannot read #6'); } })],
      { batchSize: 5, maxAttempts: 2 },
    );
    await v2.start();
    await eventually('the rebuild to fail', async () => ((await state(name)).some((s) => s.status === 'failed') ? true : undefined));
    const statuses = (await readStatuses(db.pool, db.store)).filter((s) => s.name === name);
    expect(statuses.map((s) => [s.generation, s.active, s.status])).toEqual([[1, true, 'running'], [2, false, 'failed']]);
    expect(statuses[1].error).toBe('version 2 cannot read #6');
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
