// Catch-up read of the global log: readAll in batches from START, against raw primary-key paging
// of the same table.
import { START } from '../../src/eventstore/port.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { figure } from '../lib/report.ts';
import { type Scenario, scaled } from '../lib/scenario.ts';
import { seededDatabase } from '../lib/seed.ts';
import { now, progress } from '../lib/stats.ts';

/** The baseline: primary-key paging of the same table, the same columns. */
const RAW_PAGE = `SELECT global_position, transaction_id::text AS txid, stream_id, stream_revision, event_id, type, data, metadata, created_at
  FROM es_events WHERE global_position > $1 ORDER BY global_position LIMIT $2`;

export const catchupRead: Scenario = {
  name: 'catchup-read',
  description: 'readAll from START over the whole global log',
  async run(ctx) {
    const { shape, db } = await seededDatabase(ctx, 'catchup', scaled(ctx, 250_000, 5_000), 4);
    try {
      const store = new PostgresEventStore(db.pool, db.url);

      const viaReadAll = (batch: number) =>
        timedPaging(batch, START, (after) => store.readAll({ after, maxCount: batch }), (last) => last.position);
      const viaRawPaging = (batch: number) =>
        timedPaging(batch, '0', async (after) => (await db.pool.query(RAW_PAGE, [after, batch])).rows, (last): string => last.global_position);
      const best = <T extends { rate: number }>(a: T, b: T) => (a.rate >= b.rate ? a : b);

      await viaRawPaging(1000); // warm the cache: the first pass would measure the disk
      const results: Record<string, { rate: number; secs: number; events: number; calls: number }> = {};
      for (const batch of [1000, 5000]) {
        // two interleaved rounds each, best of two: the machine is shared and noisy
        const r1 = await viaReadAll(batch);
        const b1 = await viaRawPaging(batch);
        const r2 = await viaReadAll(batch);
        const b2 = await viaRawPaging(batch);
        results[`readAll_${batch}`] = best(r1, r2);
        results[`raw_${batch}`] = best(b1, b2);
        progress(`batch ${batch}: readAll ${Math.round(results[`readAll_${batch}`].rate)} events/s, raw paging ${Math.round(results[`raw_${batch}`].rate)} events/s`);
        if (results[`readAll_${batch}`].events !== shape.events) throw new Error(`readAll returned ${results[`readAll_${batch}`].events} of ${shape.events} events`);
      }
      return [1000, 5000].map((batch) =>
        figure({
          scenario: 'catchup-read',
          name: `readAll from START, batches of ${batch}`,
          unit: 'events/s',
          better: 'higher',
          value: results[`readAll_${batch}`].rate,
          target: { op: '>=', value: 100_000 },
          baseline: { name: `raw SELECT … WHERE global_position > $1 ORDER BY global_position LIMIT ${batch}`, value: results[`raw_${batch}`].rate },
          details: { events: shape.events, readAll: results[`readAll_${batch}`], raw: results[`raw_${batch}`], rounds: 'best of 2' },
        }),
      );
    } finally {
      await db.drop();
    }
  },
};

/**
 * Reads the whole log page by page from `start` (`page` returns up to `batch` items after a cursor,
 * `cursorOf` the cursor after an item), until a page comes back short: events and calls counted, timed.
 */
export async function timedPaging<T, C>(batch: number, start: C, page: (after: C) => Promise<T[]>, cursorOf: (last: T) => C) {
  const t = now();
  let after = start;
  let n = 0;
  let calls = 0;
  for (;;) {
    const items = await page(after);
    calls++;
    n += items.length;
    if (items.length === 0) break;
    after = cursorOf(items[items.length - 1]);
    if (items.length < batch) break;
  }
  const secs = (now() - t) / 1000;
  return { rate: n / secs, secs, events: n, calls };
}
