// An idle runner reads its read models' state rows (projection_state) once per control interval for
// all of them together, not once per read model: a service with no traffic kept two dozen statements
// a second going for this alone (README "The event log and the read models"). What each loop learns
// from the shared read is still at most one control interval old: a rebuild requested from another
// process is still taken up.
import pg from 'pg';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ProjectionRunner } from '../../src/read-models/runner.ts';
import { requestRebuild } from '../../src/read-models/generations.ts';
import { openMigratedStore } from '../support/event-store.ts';
import { freshDatabase } from '../support/harness.ts';
import { appendNumbered, applied, ledger } from '../support/runner-suite.ts';
import { eventually, sleep } from '../support/waits.ts';

const READ_MODELS = 8;
const CONTROL_MS = 100;

const closing: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closing.reverse()) await close();
});

/** The pool, with a count of the statements sent through its `query` that read projection_state. */
function countingStateReads(pool: pg.Pool): { pool: pg.Pool; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(pool, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (prop !== 'query' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return (...args: unknown[]) => {
        const sql = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string }).text ?? '';
        if (/FROM projection_state/.test(sql)) reads++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { pool: counted, reads: () => reads };
}

describe('the read models of an idle runner', () => {
  it('are controlled by one read of projection_state per interval, not one per read model, and still take up a rebuild asked elsewhere', async () => {
    const node = await openMigratedStore(await freshDatabase());
    closing.push(() => node.close());
    await node.store.listen();
    const models = Array.from({ length: READ_MODELS }, (_, i) => ledger(`idle_${i}`, ['Tock']));
    const counted = countingStateReads(node.pool);
    const runner = new ProjectionRunner(counted.pool, node.store, models, pino({ level: 'silent' }), node.store.wakeup, { controlIntervalMs: CONTROL_MS });
    await runner.start();
    closing.push(() => runner.stop());
    const at = await appendNumbered(node.store, 'Tock', 1, 3);
    expect(await runner.waitFor(models.map((m) => m.name), at, 15_000)).toBe(true);

    // idle over 20 control intervals
    const before = counted.reads();
    await sleep(20 * CONTROL_MS);
    const reads = counted.reads() - before;
    // one a read model an interval was 8 × 20 = 160
    expect(reads).toBeGreaterThanOrEqual(10);
    expect(reads).toBeLessThanOrEqual(2 * 20 + 2);

    // a rebuild asked from elsewhere (another pool: the CLI) is seen within the control interval's reads
    const other = new pg.Pool({ connectionString: node.url, max: 1 });
    closing.push(() => other.end());
    await requestRebuild(other, models[3]);
    await eventually('the rebuilt generation to swap in with every event', async () => {
      const { rows } = await other.query<{ generation: number }>("SELECT generation FROM projection_state WHERE name = 'idle_3' AND active");
      return rows[0]?.generation === 2 ? true : undefined;
    }, 15_000, 20);
    expect((await applied(node.pool, 'idle_3')).map((r) => r.n)).toEqual([1, 2, 3]);
  }, 60_000);
});
