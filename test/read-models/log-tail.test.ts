// The runner's one reader of the log (src/read-models/log-tail.ts), on a real Postgres: however many
// read models a runner keeps, an append is read from the log once, not once per read model; a read
// model that falls behind the window reads the log itself and still applies every event once, in
// order; an event that commits out of order is not skipped; and the shared events cannot be changed
// by one read model under another.
import type pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventStore, type NewEvent, type Position, comparePositions, positionToString } from '../../src/eventstore/port.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { Projection } from '../../src/read-models/projection.ts';
import { ProjectionRunner } from '../../src/read-models/runner.ts';
import { openMigratedStore } from '../support/event-store.ts';
import { freshDatabase } from '../support/harness.ts';
import { until } from '../support/waits.ts';
import { listParked } from '../../src/read-models/parked.ts';

const silent = pino({ level: 'silent' });

type Opened = Awaited<ReturnType<typeof openMigratedStore>>;
const opened: Opened[] = [];
const runners: ProjectionRunner[] = [];

afterAll(async () => {
  await Promise.allSettled(runners.map((r) => r.stop()));
  for (const o of opened) await o.close();
});

/** The store, with a count of the reads of the log made through it (readAll and head queries). */
function countingReads(store: EventStore): { store: EventStore; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if ((prop === 'readAll' || prop === 'headPosition') && typeof value === 'function') {
        return (...args: unknown[]) => {
          reads++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: counted, reads: () => reads };
}

/** A read model recording every application of an event as a row, in the order applied (an event applied twice shows as two rows). */
function ledger(name: string, types: string[], options: { slow?: boolean; mutate?: boolean } = {}): Projection {
  const table = `${name}_ledger`;
  return {
    name,
    version: 1,
    tables: [table],
    types,
    personalData: 'unused',
    schema: (t) => `CREATE TABLE ${t(table)} (seq bigserial PRIMARY KEY, event_id uuid NOT NULL, n int NOT NULL, position text NOT NULL)`,
    async apply(tx, events, t) {
      if (options.slow) await tx.query('SELECT pg_sleep(0.02)');
      for (const e of events) {
        if (options.mutate) (e.data as { n: number }).n = -1;
        await tx.query(`INSERT INTO ${t(table)} (event_id, n, position) VALUES ($1, $2, $3)`, [e.id, (e.data as { n: number }).n, positionToString(e.position)]);
      }
    },
  };
}

async function appendNumbered(store: EventStore, type: string, first: number, count: number, perTransaction = 100): Promise<Position> {
  let last: Position | undefined;
  for (let start = first; start < first + count; start += perTransaction) {
    const batch: { streamId: string; events: NewEvent[] }[] = [];
    for (let n = start; n < Math.min(first + count, start + perTransaction); n++) batch.push({ streamId: `${type.toLowerCase()}-${n}`, events: [{ type, data: { n } }] });
    for (const r of await store.appendMany(batch)) if (!last || comparePositions(r.position, last) > 0) last = r.position;
  }
  return last!;
}

async function applied(pool: pg.Pool, name: string): Promise<{ n: number; position: string }[]> {
  const { rows } = await pool.query<{ n: number; position: string }>(`SELECT n, position FROM ${name}_ledger ORDER BY seq`);
  return rows;
}

function startRunner(o: Opened, store: EventStore, projections: Projection[], options: ConstructorParameters<typeof ProjectionRunner>[5] = {}) {
  const r = new ProjectionRunner(o.pool, store, projections, silent, o.store.wakeup, { controlIntervalMs: 100, ...options });
  runners.push(r);
  return r;
}

const allPassed = (r: ProjectionRunner, names: string[], at: Position) => names.every((n) => {
  const p = r.position(n);
  return p !== undefined && comparePositions(p, at) >= 0;
});

describe('the log tail', () => {
  let url: string;
  beforeAll(async () => {
    url = await freshDatabase();
  }, 300_000);

  it('reads an append from the log once, however many read models the runner keeps', async () => {
    const o = await openMigratedStore(url);
    opened.push(o);
    await o.store.listen();
    const names = Array.from({ length: 20 }, (_, i) => `tail_many_${i}`);
    // half of them handle the appended type, half another one (they still see the append go by)
    const projections = names.map((name, i) => ledger(name, [i % 2 ? 'TailManyOther' : 'TailMany']));
    const counted = countingReads(o.store);
    const runner = startRunner(o, counted.store, projections);
    await runner.start();
    const first = await appendNumbered(o.store, 'TailMany', 0, 1);
    expect(await until(() => allPassed(runner, names, first), Boolean, 30_000, 20)).toBe(true);

    const before = counted.reads();
    const appends = 10;
    let last = first;
    for (let i = 1; i <= appends; i++) {
      last = await appendNumbered(o.store, 'TailMany', i, 1);
      expect(await until(() => allPassed(runner, names, last), Boolean, 10_000, 5)).toBe(true);
    }
    const reads = counted.reads() - before;
    // one read per append (or two, when a wake-up lands just before the append's commit), plus the
    // once-a-second polls: never one per read model (20 per append and more)
    expect(reads).toBeLessThanOrEqual(2 * appends + 4);
    for (const [i, name] of names.entries()) {
      expect((await applied(o.pool, name)).map((r) => r.n)).toEqual(i % 2 ? [] : Array.from({ length: appends + 1 }, (_, k) => k));
    }
  });

  it('a read model behind the window reads the log itself, and every read model applies every event once, in log order', async () => {
    const o = await openMigratedStore(url);
    opened.push(o);
    await o.store.listen();
    const runner = startRunner(o, o.store, [ledger('tail_fast', ['TailBehind']), ledger('tail_slow', ['TailBehind'], { slow: true })], { tailCapacity: 50, batchSize: 20 });
    await runner.start();
    const last = await appendNumbered(o.store, 'TailBehind', 0, 1000, 50);
    expect(await until(() => allPassed(runner, ['tail_fast', 'tail_slow'], last), Boolean, 60_000, 20)).toBe(true);
    const inLog = (await o.store.readAll({ maxCount: 5000, types: ['TailBehind'] })).map((e) => positionToString(e.position));
    for (const name of ['tail_fast', 'tail_slow']) {
      const rows = await applied(o.pool, name);
      expect(rows.map((r) => r.position)).toEqual(inLog);
      expect(new Set(rows.map((r) => r.n)).size).toBe(1000);
    }
  });

  it('does not skip an event that commits after a later-positioned one', async () => {
    const o = await openMigratedStore(url);
    opened.push(o);
    await o.store.listen();
    const runner = startRunner(o, o.store, [ledger('tail_ooo', ['TailHeld', 'TailFree'])]);
    await runner.start();
    expect(await until(() => runner.position('tail_ooo'), (p) => p !== undefined, 10_000, 20)).toBeDefined();
    // the held append's row has the earlier global position; it commits after the free one
    const client = await o.pool.connect();
    let open = true;
    try {
      await client.query('BEGIN');
      const inTx = { query: (...args: unknown[]) => (client.query as (...a: unknown[]) => unknown)(...args) } as unknown as pg.Pool;
      const held = await new PostgresEventStore(inTx).append('tailheld-1', [{ type: 'TailHeld', data: { n: 1 } }], 'no_stream');
      const free = await o.store.append('tailfree-2', [{ type: 'TailFree', data: { n: 2 } }], 'no_stream');
      expect(held.position.prepare < free.position.prepare).toBe(true);
      // the free event is committed, but nothing may be read past the open transaction
      await new Promise((r) => setTimeout(r, 300));
      expect(await applied(o.pool, 'tail_ooo')).toEqual([]);
      await client.query('COMMIT');
      open = false;
      const last = comparePositions(held.position, free.position) > 0 ? held.position : free.position;
      expect(await until(() => allPassed(runner, ['tail_ooo'], last), Boolean, 20_000, 20)).toBe(true);
      expect((await applied(o.pool, 'tail_ooo')).map((r) => r.n).sort()).toEqual([1, 2]);
    } finally {
      if (open) await client.query('ROLLBACK');
      client.release();
    }
  });

  it('hands every read model the same events frozen: one that changes an event fails on it (the event is parked), and the others read it unchanged', async () => {
    const o = await openMigratedStore(url);
    opened.push(o);
    await o.store.listen();
    const runner = startRunner(o, o.store, [ledger('tail_mutates', ['TailShared'], { mutate: true }), ledger('tail_reads', ['TailShared'])], { maxAttempts: 1, retryBaseMs: 1 });
    await runner.start();
    expect(await until(() => runner.position('tail_reads'), (p) => p !== undefined, 10_000, 20)).toBeDefined();
    const last = await appendNumbered(o.store, 'TailShared', 7, 1);
    expect(await until(() => allPassed(runner, ['tail_reads'], last), Boolean, 10_000, 20)).toBe(true);
    expect((await applied(o.pool, 'tail_reads')).map((r) => r.n)).toEqual([7]);
    // the read model's own error on an event parks it (README "Parked events") rather than stopping the read model
    const parked = await until(() => listParked(o.pool, 'tail_mutates'), (rows) => rows.length > 0, 10_000, 20);
    expect(parked.map((r) => r.error)).toEqual([expect.stringMatching(/read.only|frozen|Cannot assign/i)]);
    expect(await applied(o.pool, 'tail_mutates')).toEqual([]);
  });
});

