// The log tail's window on a real Postgres, with large events (src/read-models/log-tail.ts): what it
// holds is bounded by bytes as well as by count; it reads ahead only as far as its slowest running
// read model lets it, so a read model that lags but moves keeps taking its events from the window;
// one that is stuck stops holding the window (and the others) after the stall time and reads the log
// itself; and a read model this runner does not run (its live generation is of another version, or
// failed) never holds it.
import { describe, expect, it } from 'vitest';
import { type EventStore, type Position, type ReadAllOptions, comparePositions } from '../../src/eventstore/port.ts';
import { ensureProjection } from '../../src/read-models/generations.ts';
import { type OpenedStore, allPassed, appendNumbered, applied, countingReads, ledger, logPositions, runnerSuite } from '../support/runner-suite.ts';
import { until } from '../support/waits.ts';

const KiB = 1024;
const MiB = 1024 * KiB;
/** each event carries a body of this many characters (an html message of the size the issue measured) */
const BODY = 200_000;
/** the window's budget in these tests: ten such events */
const BUDGET = 2 * MiB;

const suite = runnerSuite({ tailMaxBytes: BUDGET });

/** Appends `count` events of ~200 KB each, ten to a transaction; returns the last one's position. */
const appendLarge = (store: EventStore, type: string, count: number): Promise<Position> => appendNumbered(store, type, 0, count, 10, { html: 'x'.repeat(BODY) });

const appliedPositions = async (o: OpenedStore, name: string) => (await applied(o.pool, name)).map((r) => r.position);

describe('the log tail window', () => {
  it('stays under its byte budget with 200 KB events and a lagging read model, which keeps taking its events from the window', async () => {
    const o = await suite.open();
    const slowTypes = ['TailLarge', 'TailLargeSlowOnly'];
    // a read of the log for exactly the slow read model's types is that read model reading the log itself
    const ofSlowTypes = (types: readonly string[] = []) => [...types].sort().join() === [...slowTypes].sort().join();
    const counted = countingReads(o.store, (method, [options]) => method === 'readAll' && ofSlowTypes((options as ReadAllOptions | undefined)?.types));
    const runner = await suite.startRunner(o, counted.store, [ledger('win_fast', ['TailLarge', 'TailLargeFastOnly']), ledger('win_slow', slowTypes, { batchDelayMs: 30 })], { batchSize: 4 });
    expect(await until(() => ['win_fast', 'win_slow'].every((n) => runner.position(n)), Boolean, 10_000, 20)).toBe(true);
    const before = counted.reads();

    const count = 120;
    const last = await appendLarge(o.store, 'TailLarge', count);
    expect(await until(() => allPassed(runner, ['win_fast', 'win_slow'], last), Boolean, 120_000, 20)).toBe(true);

    const stats = runner.tailStats();
    // 120 events of 200 KB (24 MB) went by: the window never held more than its budget
    expect(stats.peakBytes).toBeGreaterThan(0);
    expect(stats.peakBytes).toBeLessThanOrEqual(BUDGET);
    // the lagging read model was never left behind the window (the reader waited for it): it read no event from the log itself
    expect(counted.reads() - before).toBe(0);
    const inLog = await logPositions(o.store, 'TailLarge');
    expect(inLog).toHaveLength(count);
    for (const name of ['win_fast', 'win_slow']) expect(await appliedPositions(o, name)).toEqual(inLog);
  });

  it('a stuck read model neither pins the window nor holds the others; once it moves again it reads the log itself and applies every event once', async () => {
    const o = await suite.open();
    let stuck = false;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const gate = async () => {
      if (stuck) await released;
    };
    const runner = await suite.startRunner(o, o.store, [ledger('stuck_fast', ['TailStuck']), ledger('stuck_stuck', ['TailStuck'], { gate })], { tailStallMs: 300 });
    const head = await o.store.headPosition();
    expect(await until(() => allPassed(runner, ['stuck_fast', 'stuck_stuck'], head), Boolean, 10_000, 20)).toBe(true);
    const stuckAt = runner.position('stuck_stuck')!;

    stuck = true;
    const count = 60;
    const last = await appendLarge(o.store, 'TailStuck', count);
    // the other read model is not held by the stuck one: it applies all 60
    expect(await until(() => allPassed(runner, ['stuck_fast'], last), Boolean, 60_000, 20)).toBe(true);
    expect(comparePositions(runner.position('stuck_stuck')!, stuckAt)).toBe(0);
    // and the window lets go of what the stuck one has not read: nothing is kept for it
    const stats = await until(() => runner.tailStats(), (s) => s.events === 0, 10_000, 20);
    expect(stats.events).toBe(0);
    expect(stats.bytes).toBe(0);
    expect(stats.peakBytes).toBeLessThanOrEqual(BUDGET);

    stuck = false;
    release();
    expect(await until(() => allPassed(runner, ['stuck_stuck'], last), Boolean, 60_000, 20)).toBe(true);
    const inLog = await logPositions(o.store, 'TailStuck');
    expect(inLog).toHaveLength(count);
    for (const name of ['stuck_fast', 'stuck_stuck']) expect(await appliedPositions(o, name)).toEqual(inLog);
  });

  it('a read model whose live generation is of another version, or failed, does not hold the window', async () => {
    const o = await suite.open();
    // other_newer's live generation was built by newer code (a rolling deploy); other_failed's live generation failed
    await ensureProjection(o.pool, ledger('other_newer', ['TailOther'], { version: 2 }));
    await ensureProjection(o.pool, ledger('other_failed', ['TailOther']));
    await o.pool.query(`UPDATE projection_state SET status = 'failed', error = 'failed before this test' WHERE name = 'other_failed'`);
    const runner = await suite.startRunner(o, o.store, [ledger('other_live', ['TailOther']), ledger('other_newer', ['TailOther']), ledger('other_failed', ['TailOther'])]);
    expect(await until(() => runner.position('other_live'), Boolean, 10_000, 20)).toBeTruthy();

    const count = 60;
    const last = await appendLarge(o.store, 'TailOther', count);
    expect(await until(() => allPassed(runner, ['other_live'], last), Boolean, 60_000, 20)).toBe(true);
    // the window keeps nothing the read model it runs has passed
    const stats = await until(() => runner.tailStats(), (s) => s.events === 0, 10_000, 20);
    expect(stats.events).toBe(0);
    expect(stats.bytes).toBe(0);
    expect(stats.peakBytes).toBeLessThanOrEqual(BUDGET);
    expect(await appliedPositions(o, 'other_live')).toEqual(await logPositions(o.store, 'TailOther'));
  });
});
