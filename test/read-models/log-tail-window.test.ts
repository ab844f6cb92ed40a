// The log tail's window on a real Postgres, with large events (src/read-models/log-tail.ts): what it
// holds is bounded by bytes as well as by count; it reads ahead only as far as its slowest running
// read model lets it, so a read model that lags but moves keeps taking its events from the window;
// one that is stuck stops holding the window (and the others) after the stall time and reads the log
// itself; and a read model this runner does not run (its live generation is of another version, or
// failed) never holds it.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventStore, type NewEvent, type Position, comparePositions, positionToString } from '../../src/eventstore/port.ts';
import { ensureProjection } from '../../src/read-models/generations.ts';
import type { Projection } from '../../src/read-models/projection.ts';
import { ProjectionRunner, type RunnerOptions } from '../../src/read-models/runner.ts';
import { openMigratedStore } from '../support/event-store.ts';
import { freshDatabase } from '../support/harness.ts';
import { until } from '../support/waits.ts';

const silent = pino({ level: 'silent' });
const KiB = 1024;
const MiB = 1024 * KiB;
/** each event carries a body of this many characters (an html message of the size the issue measured) */
const BODY = 200_000;
/** the window's budget in these tests: ten such events */
const BUDGET = 2 * MiB;

type Opened = Awaited<ReturnType<typeof openMigratedStore>>;
const opened: Opened[] = [];
const runners: ProjectionRunner[] = [];

afterAll(async () => {
  await Promise.allSettled(runners.map((r) => r.stop()));
  for (const o of opened) await o.close();
});

/** The store, with a count of the readAll calls made for exactly these types (a read model reading the log itself). */
function countingReadsOf(store: EventStore, types: readonly string[]): { store: EventStore; reads: () => number } {
  let reads = 0;
  const key = [...types].sort().join(',');
  const counted = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (prop === 'readAll' && typeof value === 'function') {
        return (...args: unknown[]) => {
          const options = args[0] as { types?: string[] } | undefined;
          if (options?.types && [...options.types].sort().join(',') === key) reads++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: counted, reads: () => reads };
}

/** A read model recording every application of an event as a row, in the order applied. */
function ledger(name: string, types: string[], options: { version?: number; slow?: boolean; gate?: () => Promise<void> } = {}): Projection {
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
      if (options.slow) await tx.query('SELECT pg_sleep(0.03)');
      for (const e of events) {
        await tx.query(`INSERT INTO ${t(table)} (event_id, n, position) VALUES ($1, $2, $3)`, [e.id, (e.data as { n: number }).n, positionToString(e.position)]);
      }
    },
  };
}

/** Appends `count` events of ~200 KB each, ten to a transaction; returns the last one's position. */
async function appendLarge(store: EventStore, type: string, count: number): Promise<Position> {
  let last: Position | undefined;
  const body = 'x'.repeat(BODY);
  for (let start = 0; start < count; start += 10) {
    const batch: { streamId: string; events: NewEvent[] }[] = [];
    for (let n = start; n < Math.min(count, start + 10); n++) batch.push({ streamId: `${type.toLowerCase()}-${n}`, events: [{ type, data: { n, html: body } }] });
    for (const r of await store.appendMany(batch)) if (!last || comparePositions(r.position, last) > 0) last = r.position;
  }
  return last!;
}

async function appliedPositions(o: Opened, name: string): Promise<string[]> {
  const { rows } = await o.pool.query<{ position: string }>(`SELECT position FROM ${name}_ledger ORDER BY seq`);
  return rows.map((r) => r.position);
}

async function logPositions(o: Opened, type: string): Promise<string[]> {
  return (await o.store.readAll({ maxCount: 10_000, types: [type] })).map((e) => positionToString(e.position));
}

function startRunner(o: Opened, store: EventStore, projections: Projection[], options: RunnerOptions = {}) {
  const r = new ProjectionRunner(o.pool, store, projections, silent, o.store.wakeup, { controlIntervalMs: 100, tailMaxBytes: BUDGET, ...options });
  runners.push(r);
  return r;
}

const passed = (r: ProjectionRunner, names: string[], at: Position) =>
  names.every((n) => {
    const p = r.position(n);
    return p !== undefined && comparePositions(p, at) >= 0;
  });

describe('the log tail window', () => {
  let url: string;
  beforeAll(async () => {
    url = await freshDatabase();
  }, 300_000);

  it('stays under its byte budget with 200 KB events and a lagging read model, which keeps taking its events from the window', async () => {
    const o = await openMigratedStore(url);
    opened.push(o);
    await o.store.listen();
    const slowTypes = ['TailLarge', 'TailLargeSlowOnly'];
    const counted = countingReadsOf(o.store, slowTypes);
    const runner = startRunner(o, counted.store, [ledger('win_fast', ['TailLarge', 'TailLargeFastOnly']), ledger('win_slow', slowTypes, { slow: true })], { batchSize: 4 });
    await runner.start();
    expect(await until(() => ['win_fast', 'win_slow'].every((n) => runner.position(n)), Boolean, 10_000, 20)).toBe(true);
    const before = counted.reads();

    const count = 120;
    const last = await appendLarge(o.store, 'TailLarge', count);
    expect(await until(() => passed(runner, ['win_fast', 'win_slow'], last), Boolean, 120_000, 20)).toBe(true);

    const stats = runner.tailStats();
    // 120 events of 200 KB (24 MB) went by: the window never held more than its budget
    expect(stats.peakBytes).toBeGreaterThan(0);
    expect(stats.peakBytes).toBeLessThanOrEqual(BUDGET);
    // the lagging read model was never left behind the window (the reader waited for it): it read no event from the log itself
    expect(counted.reads() - before).toBe(0);
    const inLog = await logPositions(o, 'TailLarge');
    expect(inLog).toHaveLength(count);
    for (const name of ['win_fast', 'win_slow']) expect(await appliedPositions(o, name)).toEqual(inLog);
  });

  it('a stuck read model neither pins the window nor holds the others; once it moves again it reads the log itself and applies every event once', async () => {
    const o = await openMigratedStore(url);
    opened.push(o);
    await o.store.listen();
    let stuck = false;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const gate = async () => {
      if (stuck) await released;
    };
    const runner = startRunner(o, o.store, [ledger('stuck_fast', ['TailStuck']), ledger('stuck_stuck', ['TailStuck'], { gate })], { tailStallMs: 300 });
    await runner.start();
    const head = await o.store.headPosition();
    expect(await until(() => passed(runner, ['stuck_fast', 'stuck_stuck'], head), Boolean, 10_000, 20)).toBe(true);
    const stuckAt = runner.position('stuck_stuck')!;

    stuck = true;
    const count = 60;
    const last = await appendLarge(o.store, 'TailStuck', count);
    // the other read model is not held by the stuck one: it applies all 60
    expect(await until(() => passed(runner, ['stuck_fast'], last), Boolean, 60_000, 20)).toBe(true);
    expect(comparePositions(runner.position('stuck_stuck')!, stuckAt)).toBe(0);
    // and the window lets go of what the stuck one has not read: nothing is kept for it
    const stats = await until(() => runner.tailStats(), (s) => s.events === 0, 10_000, 20);
    expect(stats.events).toBe(0);
    expect(stats.bytes).toBe(0);
    expect(stats.peakBytes).toBeLessThanOrEqual(BUDGET);

    stuck = false;
    release();
    expect(await until(() => passed(runner, ['stuck_stuck'], last), Boolean, 60_000, 20)).toBe(true);
    const inLog = await logPositions(o, 'TailStuck');
    expect(inLog).toHaveLength(count);
    for (const name of ['stuck_fast', 'stuck_stuck']) expect(await appliedPositions(o, name)).toEqual(inLog);
  });

  it('a read model whose live generation is of another version, or failed, does not hold the window', async () => {
    const o = await openMigratedStore(url);
    opened.push(o);
    await o.store.listen();
    // other_newer's live generation was built by newer code (a rolling deploy); other_failed's live generation failed
    await ensureProjection(o.pool, ledger('other_newer', ['TailOther'], { version: 2 }));
    await ensureProjection(o.pool, ledger('other_failed', ['TailOther']));
    await o.pool.query(`UPDATE projection_state SET status = 'failed', error = 'failed before this test' WHERE name = 'other_failed'`);
    const runner = startRunner(o, o.store, [ledger('other_live', ['TailOther']), ledger('other_newer', ['TailOther']), ledger('other_failed', ['TailOther'])]);
    await runner.start();
    expect(await until(() => runner.position('other_live'), Boolean, 10_000, 20)).toBeTruthy();

    const count = 60;
    const last = await appendLarge(o.store, 'TailOther', count);
    expect(await until(() => passed(runner, ['other_live'], last), Boolean, 60_000, 20)).toBe(true);
    // the window keeps nothing the read model it runs has passed
    const stats = await until(() => runner.tailStats(), (s) => s.events === 0, 10_000, 20);
    expect(stats.events).toBe(0);
    expect(stats.bytes).toBe(0);
    expect(stats.peakBytes).toBeLessThanOrEqual(BUDGET);
    expect(await appliedPositions(o, 'other_live')).toEqual(await logPositions(o, 'TailOther'));
  });
});
