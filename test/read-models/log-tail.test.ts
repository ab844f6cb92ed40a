// The runner's one reader of the log (src/read-models/log-tail.ts), on a real Postgres: however many
// read models a runner keeps, an append is read from the log once, not once per read model; a read
// model that falls behind the window reads the log itself and still applies every event once, in
// order; an event that commits out of order is not skipped; and the shared events cannot be changed
// by one read model under another.
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { comparePositions } from '../../src/eventstore/port.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { listParked } from '../../src/read-models/parked.ts';
import { allPassed, appendNumbered, applied, countingReads, ledger, logPositions, runnerSuite } from '../support/runner-suite.ts';
import { until } from '../support/waits.ts';

const suite = runnerSuite();

describe('the log tail', () => {
  it('reads an append from the log once, however many read models the runner keeps', async () => {
    const o = await suite.open();
    const names = Array.from({ length: 20 }, (_, i) => `tail_many_${i}`);
    // half of them handle the appended type, half another one (they still see the append go by)
    const projections = names.map((name, i) => ledger(name, [i % 2 ? 'TailManyOther' : 'TailMany']));
    const counted = countingReads(o.store, (method) => method === 'readAll' || method === 'headPosition');
    const runner = await suite.startRunner(o, counted.store, projections);
    const first = await appendNumbered(o.store, 'TailMany', 0, 1);
    expect(await until(() => allPassed(runner, names, first), Boolean, 30_000, 20)).toBe(true);

    const before = counted.reads();
    const started = Date.now();
    const appends = 10;
    let last = first;
    for (let i = 1; i <= appends; i++) {
      last = await appendNumbered(o.store, 'TailMany', i, 1);
      expect(await until(() => allPassed(runner, names, last), Boolean, 10_000, 5)).toBe(true);
    }
    const reads = counted.reads() - before;
    // one read per append (or two, when a wake-up lands just before the append's commit), plus one
    // poll for each second the appends took (a slow machine takes several): never one per read model
    // (20 per append and more)
    const polls = Math.ceil((Date.now() - started) / 1_000) + 1;
    expect(reads).toBeLessThanOrEqual(2 * appends + polls);
    for (const [i, name] of names.entries()) {
      expect((await applied(o.pool, name)).map((r) => r.n)).toEqual(i % 2 ? [] : Array.from({ length: appends + 1 }, (_, k) => k));
    }
  });

  it('a read-your-writes wait for a position the tail has read does not read the log again', async () => {
    const o = await suite.open();
    const names = ['tail_seen_a', 'tail_seen_b'];
    const counted = countingReads(o.store, (method) => method === 'readAll');
    const runner = await suite.startRunner(o, counted.store, names.map((name) => ledger(name, ['TailSeen'])));
    const last = await appendNumbered(o.store, 'TailSeen', 0, 1);
    expect(await until(() => allPassed(runner, names, last), Boolean, 30_000, 20)).toBe(true);
    const before = counted.reads();
    const started = Date.now();
    // as many writes' waits as a busy second brings, each for what the read models have applied
    // (each a moment apart: the tail gets to read between them, as it does between requests)
    for (let i = 0; i < 50; i++) {
      expect(await runner.waitFor(names, last, 5_000)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // the tail's own once-a-second poll at most, never a read per wait
    expect(counted.reads() - before).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 1_000) + 1);
  });

  it('a read model behind the window reads the log itself, and every read model applies every event once, in log order', async () => {
    const o = await suite.open();
    const runner = await suite.startRunner(o, o.store, [ledger('tail_fast', ['TailBehind']), ledger('tail_slow', ['TailBehind'], { batchDelayMs: 20 })], { tailCapacity: 50, batchSize: 20 });
    const last = await appendNumbered(o.store, 'TailBehind', 0, 1000, 50);
    expect(await until(() => allPassed(runner, ['tail_fast', 'tail_slow'], last), Boolean, 60_000, 20)).toBe(true);
    const inLog = await logPositions(o.store, 'TailBehind');
    for (const name of ['tail_fast', 'tail_slow']) {
      const rows = await applied(o.pool, name);
      expect(rows.map((r) => r.position)).toEqual(inLog);
      expect(new Set(rows.map((r) => r.n)).size).toBe(1000);
    }
  });

  it('does not skip an event that commits after a later-positioned one', async () => {
    const o = await suite.open();
    const runner = await suite.startRunner(o, o.store, [ledger('tail_ooo', ['TailHeld', 'TailFree'])]);
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
    const o = await suite.open();
    const runner = await suite.startRunner(o, o.store, [ledger('tail_mutates', ['TailShared'], { mutate: true }), ledger('tail_reads', ['TailShared'])], { maxAttempts: 1, retryBaseMs: 1 });
    // both caught up before the append: the window holds an event for the read models positioned in
    // it, and one still reading the log on its own when the other passed the event is handed the
    // log's own copy (not shared, not frozen), which it may change without harm: that race, not the
    // runner, made this test fail once in a while on a slow run
    const names = ['tail_mutates', 'tail_reads'];
    expect(await until(() => names.every((n) => runner.position(n) !== undefined), Boolean, 10_000, 20)).toBe(true);
    const last = await appendNumbered(o.store, 'TailShared', 7, 1);
    expect(await until(() => allPassed(runner, ['tail_reads'], last), Boolean, 10_000, 20)).toBe(true);
    expect((await applied(o.pool, 'tail_reads')).map((r) => r.n)).toEqual([7]);
    // the read model's own error on an event parks it (README "Parked events") rather than stopping the read model
    const parked = await until(() => listParked(o.pool, 'tail_mutates'), (rows) => rows.length > 0, 10_000, 20);
    expect(parked.map((r) => r.error)).toEqual([expect.stringMatching(/read.only|frozen|Cannot assign/i)]);
    expect(await applied(o.pool, 'tail_mutates')).toEqual([]);
  });
});

