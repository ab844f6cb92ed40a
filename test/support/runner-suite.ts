// For the tests of the projection runner and its log tail on a real Postgres (no server): a fresh
// database per file with a store per test, runners started on it, and ledger read models that record
// every event they apply, so a test can compare what each applied with what is in the log.
import type pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { type EventStore, type NewEvent, type Position, comparePositions, positionToString } from '../../src/eventstore/port.ts';
import type { Projection } from '../../src/read-models/projection.ts';
import { ProjectionRunner, type RunnerOptions } from '../../src/read-models/runner.ts';
import { openMigratedStore } from './event-store.ts';
import { freshDatabase } from './harness.ts';

export type OpenedStore = Awaited<ReturnType<typeof openMigratedStore>>;

/**
 * A fresh database for the file (made before its tests), on which `open()` gives each test its own
 * store listening for wake-ups and `startRunner` starts runners (polling their control every 100 ms,
 * with `defaults` under each call's options); after the file, every runner is stopped and every store closed.
 */
export function runnerSuite(defaults: RunnerOptions = {}) {
  let url: string | undefined;
  const opened: OpenedStore[] = [];
  const runners: ProjectionRunner[] = [];
  beforeAll(async () => {
    url = await freshDatabase();
  }, 300_000);
  afterAll(async () => {
    await Promise.allSettled(runners.map((r) => r.stop()));
    for (const o of opened) await o.close();
  });
  return {
    async open(): Promise<OpenedStore> {
      if (!url) throw new Error('the suite database is not made yet (used outside a test?)');
      const o = await openMigratedStore(url);
      opened.push(o);
      await o.store.listen();
      return o;
    },
    /** A runner of `projections` reading through `store` (the opened one, or one wrapping it), started. */
    async startRunner(o: OpenedStore, store: EventStore, projections: Projection[], options: RunnerOptions = {}): Promise<ProjectionRunner> {
      const r = new ProjectionRunner(o.pool, store, projections, pino({ level: 'silent' }), o.store.wakeup, { controlIntervalMs: 100, ...defaults, ...options });
      runners.push(r);
      await r.start();
      return r;
    },
  };
}

/** The store, with a count of the calls made through it that `counts` picks (by method name and arguments). */
export function countingReads(store: EventStore, counts: (method: string, args: unknown[]) => boolean): { store: EventStore; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (typeof prop === 'string' && counts(prop, args)) reads++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: counted, reads: () => reads };
}

export interface LedgerOptions {
  version?: number;
  /** each batch first sleeps this long in its transaction (a read model that lags) */
  batchDelayMs?: number;
  /** each batch first waits for this (a read model held stuck) */
  gate?: () => Promise<void>;
  /** changes every event it is handed (which the runner must not allow) */
  mutate?: boolean;
}

/**
 * A read model recording every application of an event of `types` as a row `{n, position}` (n from the
 * event's data), in the order applied: an event applied twice shows as two rows.
 */
export function ledger(name: string, types: string[], options: LedgerOptions = {}): Projection {
  const table = `${name}_ledger`;
  return {
    name,
    version: options.version ?? 1,
    tables: [table],
    types,
    personalData: 'unused',
    schema: (t) => `CREATE TABLE ${t(table)} (seq bigserial PRIMARY KEY, event_id uuid NOT NULL, n int NOT NULL, position text NOT NULL)`,
    async apply(tx, events, t) {
      if (options.gate) await options.gate();
      if (options.batchDelayMs) await tx.query('SELECT pg_sleep($1)', [options.batchDelayMs / 1000]);
      for (const e of events) {
        if (options.mutate) (e.data as { n: number }).n = -1;
        await tx.query(`INSERT INTO ${t(table)} (event_id, n, position) VALUES ($1, $2, $3)`, [e.id, (e.data as { n: number }).n, positionToString(e.position)]);
      }
    },
  };
}

/** What the ledger `name` applied, in order. */
export async function applied(pool: pg.Pool, name: string): Promise<{ n: number; position: string }[]> {
  const { rows } = await pool.query<{ n: number; position: string }>(`SELECT n, position FROM ${name}_ledger ORDER BY seq`);
  return rows;
}

/**
 * Appends `count` events of `type` numbered from `first` (data `{n, ...data}`), each on its own
 * stream, `perTransaction` to a transaction; returns the position of the last in the log.
 */
export async function appendNumbered(store: EventStore, type: string, first: number, count: number, perTransaction = 100, data: Record<string, unknown> = {}): Promise<Position> {
  let last: Position | undefined;
  for (let start = first; start < first + count; start += perTransaction) {
    const batch: { streamId: string; events: NewEvent[] }[] = [];
    for (let n = start; n < Math.min(first + count, start + perTransaction); n++) batch.push({ streamId: `${type.toLowerCase()}-${n}`, events: [{ type, data: { n, ...data } }] });
    for (const r of await store.appendMany(batch)) if (!last || comparePositions(r.position, last) > 0) last = r.position;
  }
  return last!;
}

/** The positions of the log's events of `type`, in log order. */
export async function logPositions(store: EventStore, type: string): Promise<string[]> {
  return (await store.readAll({ maxCount: 10_000, types: [type] })).map((e) => positionToString(e.position));
}

/** Whether every one of the read models `names` has passed `at`. */
export const allPassed = (r: ProjectionRunner, names: string[], at: Position) =>
  names.every((n) => {
    const p = r.position(n);
    return p !== undefined && comparePositions(p, at) >= 0;
  });
