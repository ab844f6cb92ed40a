// The runner sizes a read model's batches by what its events cost: a batch's own cost (its
// transaction, a lock wait) is no evidence about an event's, so one slow batch of a caught-up read
// model does not shrink its batches for good, and batches grow again while they stay under the
// transaction target (README "The event log and the read models").
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { NewEvent } from '../../src/eventstore/port.ts';
import type { Projection } from '../../src/read-models/projection.ts';
import { ProjectionRunner } from '../../src/read-models/runner.ts';
import { openMigratedStore } from '../support/event-store.ts';
import { freshDatabase } from '../support/harness.ts';
import { eventually } from '../support/waits.ts';

const TARGET_MS = 1_000;
const closing: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closing.reverse()) await close();
});

/**
 * A read model whose every batch costs `batchCostMs` whatever its size (a statement per batch that
 * waits, like a lock), and `slowFirstMs` for its first batch; it records the size of each batch.
 */
function fixedCostProjection(batchCostMs: number, slowFirstMs: number) {
  const sizes: number[] = [];
  let applied = 0;
  const projection: Projection = {
    name: 'fixed_cost',
    version: 1,
    tables: [],
    types: ['Tick'],
    schema: () => 'SELECT 1',
    async apply(tx, events) {
      await tx.query('SELECT pg_sleep($1)', [(sizes.length === 0 ? slowFirstMs : batchCostMs) / 1000]);
      sizes.push(events.length);
      applied += events.length;
    },
  };
  return { projection, sizes, applied: () => applied };
}

const ticks = (from: number, count: number): { streamId: string; events: NewEvent[] }[] =>
  Array.from({ length: count }, (_, i) => ({ streamId: `tick-${from + i}`, events: [{ type: 'Tick', data: { n: from + i }, metadata: { actor: 'test' } }] }));

describe('batch sizes', () => {
  it('one slow batch of one event, then batches that each cost more than half the target: a burst still goes in growing batches', async () => {
    const node = await openMigratedStore(await freshDatabase());
    closing.push(() => node.close());
    const model = fixedCostProjection(TARGET_MS * 0.55, TARGET_MS * 1.2);
    const runner = new ProjectionRunner(node.pool, node.store, [model.projection], pino({ level: 'silent' }), node.store.wakeup, {
      batchSize: 2000, controlIntervalMs: 100, transactionTargetMs: TARGET_MS,
    });
    closing.push(() => runner.stop());
    await runner.start();
    // caught up: one event, in a batch slower than the target (a lock wait, say)
    await node.store.appendMany(ticks(0, 1));
    await eventually('the first event applied', async () => (model.applied() === 1 ? true : undefined), 30_000);
    // a burst: each batch costs 0.55 × the target whatever its size, so bigger batches are cheaper per event
    await node.store.appendMany(ticks(1, 40));
    await eventually('the burst applied', async () => (model.applied() === 41 ? true : undefined), 60_000);
    const burst = model.sizes.slice(1);
    // before: the slow batch set the size to 1, and a batch over half the target never let it grow (40 batches)
    expect(burst.length, `batches of the burst: ${burst.join(', ')}`).toBeLessThanOrEqual(8);
  });
});
