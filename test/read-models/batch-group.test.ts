// Caught-up read models apply their small batches in one transaction and one commit (README "The
// write path"): each read model that follows an event no longer costs a commit of its own per
// wake-up. One whose lock is held elsewhere, or whose apply fails, is handed back and runs on its own,
// and the others' batches still commit.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Projection } from '../../src/read-models/projection.ts';
import { GENERATION_LOCK_NAMESPACE } from '../../src/read-models/state.ts';
import { allPassed, appendNumbered, applied, ledger, runnerSuite } from '../support/runner-suite.ts';
import { eventually, until } from '../support/waits.ts';

// the state rows are read once at start: a loop re-reading them would join the next group instead
const suite = runnerSuite({ controlIntervalMs: 60_000 });

/** The transactions that last wrote the read models' checkpoints (xmin), by read model. */
async function checkpointWriters(pool: pg.Pool, names: string[]): Promise<Map<string, string>> {
  const { rows } = await pool.query<{ name: string; xmin: string }>(`SELECT name, xmin::text FROM projection_state WHERE name = ANY($1) AND active`, [names]);
  return new Map(rows.map((r) => [r.name, r.xmin]));
}

describe('grouped batches', () => {
  it('three caught-up read models apply each new event in one transaction, their checkpoints in the same commit', async () => {
    const o = await suite.open();
    const names = ['grouped_a', 'grouped_b', 'grouped_c'];
    const r = await suite.startRunner(o, o.store, names.map((n) => ledger(n, ['Grouped'])));
    // caught up first: a loop still starting applies what it finds in its own catch-up transaction
    await eventually('the read models running', async () => (names.every((n) => r.position(n)) ? true : undefined), 10_000);
    for (let n = 0; n < 5; n++) {
      const at = await appendNumbered(o.store, 'Grouped', n, 1);
      await eventually(`event ${n} applied by all three`, async () => (allPassed(r, names, at) ? true : undefined), 10_000);
      // the checkpoints move in the group's own statement, before its commit. Before: one transaction
      // per read model, three xmins
      const byModel = await checkpointWriters(o.pool, names);
      expect(byModel.size).toBe(3);
      expect(new Set(byModel.values()).size, `the transactions that applied event ${n}`).toBe(1);
    }
    for (const name of names) expect((await applied(o.pool, name)).map((x) => x.n)).toEqual([0, 1, 2, 3, 4]);
  });

  it('a read model whose lock is held elsewhere waits for it alone: the others commit meanwhile, and it applies once the lock is let go', async () => {
    const o = await suite.open();
    const names = ['held_a', 'held_b', 'held_c'];
    const r = await suite.startRunner(o, o.store, names.map((n) => ledger(n, ['Held'])));
    await eventually('the read models running', async () => (names.every((n) => r.position(n)) ? true : undefined), 10_000);
    const holder = new pg.Client({ connectionString: o.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [GENERATION_LOCK_NAMESPACE, 'held_b:1']);
      const at = await appendNumbered(o.store, 'Held', 0, 3);
      await eventually('the two others applied', async () => (allPassed(r, ['held_a', 'held_c'], at) ? true : undefined), 10_000);
      expect(allPassed(r, ['held_b'], at)).toBe(false);
      expect(await applied(o.pool, 'held_b')).toEqual([]);
      await holder.query('COMMIT');
      await eventually('held_b applied once its lock was let go', async () => (allPassed(r, ['held_b'], at) ? true : undefined), 10_000);
    } finally {
      await holder.end();
    }
    for (const name of names) expect((await applied(o.pool, name)).map((x) => x.n)).toEqual([0, 1, 2]);
  });

  it('a read model whose apply is stuck holds no other: the group lets go of it, the others commit, and it applies every event once when it moves again', async () => {
    const o = await suite.open();
    let stuck = true;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const gate = async () => {
      if (stuck) await released;
    };
    const names = ['slow_a', 'slow_b', 'slow_c'];
    const r = await suite.startRunner(o, o.store, [ledger('slow_a', ['Slow']), ledger('slow_b', ['Slow'], { gate }), ledger('slow_c', ['Slow'])]);
    await eventually('the read models running', async () => (names.every((n) => r.position(n)) ? true : undefined), 10_000);
    const at = await appendNumbered(o.store, 'Slow', 0, 3, 1);
    // before the bound: the group waited for slow_b's apply, and slow_a and slow_c with it
    await eventually('the two others applied', async () => (allPassed(r, ['slow_a', 'slow_c'], at) ? true : undefined), 10_000);
    expect(allPassed(r, ['slow_b'], at)).toBe(false);
    stuck = false;
    release();
    await eventually('slow_b applied once it moved again', async () => (allPassed(r, ['slow_b'], at) ? true : undefined), 10_000);
    for (const name of names) expect((await applied(o.pool, name)).map((x) => x.n)).toEqual([0, 1, 2]);
  });

  it('a read model whose apply fails is rolled back alone: the others commit, and it parks the event on its own and goes on', async () => {
    const o = await suite.open();
    const healthy = ['failing_a', 'failing_c'];
    const broken: Projection = { ...ledger('failing_b', ['Failing']), name: 'failing_b' };
    const inner = broken.apply.bind(broken);
    broken.apply = async (tx, events, t) => {
      if (events.some((e) => (e.data as { n: number }).n === 1)) throw new Error('cannot apply #1');
      await inner(tx, events, t);
    };
    const r = await suite.startRunner(o, o.store, [ledger('failing_a', ['Failing']), broken, ledger('failing_c', ['Failing'])], { maxAttempts: 2, retryBaseMs: 10 });
    await eventually('the read models running', async () => (['failing_a', 'failing_b', 'failing_c'].every((n) => r.position(n)) ? true : undefined), 10_000);
    const at = await appendNumbered(o.store, 'Failing', 0, 3, 1);
    await eventually('the healthy ones applied', async () => (allPassed(r, healthy, at) ? true : undefined), 10_000);
    for (const name of healthy) expect((await applied(o.pool, name)).map((x) => x.n)).toEqual([0, 1, 2]);
    const passed = await until(() => Promise.resolve(allPassed(r, ['failing_b'], at)), (x) => x, 10_000);
    expect(passed, 'failing_b past the event it parked').toBe(true);
    expect((await applied(o.pool, 'failing_b')).map((x) => x.n)).toEqual([0, 2]);
    const { rows } = await o.pool.query(`SELECT error FROM parked_events WHERE name = 'failing_b'`);
    expect(rows).toEqual([{ error: 'cannot apply #1' }]);
  });
});
