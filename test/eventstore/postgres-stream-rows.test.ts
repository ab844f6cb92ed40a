// The stream rows of the Postgres event store (README "The event log and the read models"): every
// append to an existing stream rewrites its row in es_streams (the revision). That rewrite must stay
// on the row's page, a HOT update that adds no entry to the primary key's index; on pages packed full
// by the streams' creation it moved to another page and added one, for every append.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migratedStoreForSuite, openMigratedStore } from '../support/event-store.ts';
import { updatesOf } from '../support/table-stats.ts';

const db = migratedStoreForSuite(4);

describe('es_streams rows', () => {
  it('an append to an existing stream updates its row in place (HOT), as the pipeline appends: created in bulk, then three rounds', async () => {
    const streams = Array.from({ length: 2_000 }, () => `message-${randomUUID()}`);
    // a store of its own: its sessions end before the counts are read, and a session's counters
    // reach the statistics when it ends (an idle one sends them up to 10 s later)
    const writer = await openMigratedStore(db.url, 2);
    // no autovacuum in this database while it appends: an ANALYZE of the log holds a snapshot, and a
    // page cannot drop the versions of the round before while it does (on a cluster with autovacuum
    // on, Debian's, a whole round then moved off its pages). The log is partitioned: each of its
    // partitions, made first, is a table of its own
    await writer.store.ensurePartitions();
    await db.pool.query(`DO $$ DECLARE p text; BEGIN
      FOR p IN SELECT name FROM es_partitions LOOP EXECUTE format('ALTER TABLE %I SET (autovacuum_enabled = false)', p); END LOOP; END $$;
      ALTER TABLE es_streams SET (autovacuum_enabled = false)`);
    try {
      await writer.store.appendMany(streams.map((s) => ({ streamId: s, events: [{ type: 'MessageAccepted', data: { n: 1 } }], expected: 'no_stream' as const })));
      for (const [i, type] of ['MessageDispatching', 'MessageSent', 'MessageDelivered'].entries()) {
        await writer.store.appendMany(streams.map((s) => ({ streamId: s, events: [{ type, data: {} }], expected: BigInt(i) })));
      }
    } finally {
      await writer.close();
    }
    const updates = streams.length * 3;
    const stats = await updatesOf(db.pool, 'es_streams', updates, 10_000);
    expect(stats.updated).toBe(updates);
    // a few may still move (a page whose dead versions are not pruned yet); before, almost all did
    expect(stats.hot / stats.updated).toBeGreaterThanOrEqual(0.9);
  });
});
