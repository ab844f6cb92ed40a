// The contacts read model rebuilt from a log whose partitions are archived (README "Archiving old
// partitions"), against the same rebuild from the live table in the same run: BENCH_ARCHIVE_EVENTS
// contact events (10,000,000 unless set) seeded in SQL into partitions of BENCH_LOG_PARTITION
// positions (1,000,000), the contacts read model rebuilt from the table, then every closed partition
// archived to gzip'd JSON lines in a directory, then rebuilt again (the files read first, the table
// after the archive's end). The two rebuilds must leave the same rows.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { archiveLog } from '../../src/eventstore/archive.ts';
import { ArchiveStorage } from '../../src/eventstore/archive-storage.ts';
import { figure } from '../lib/report.ts';
import type { Scenario } from '../lib/scenario.ts';
import { scaled } from '../lib/scenario.ts';
import { now, progress } from '../lib/stats.ts';
import { contactsAtHead, timedRebuild } from './rebuild.ts';

/** One checksum of the contacts rows the seeded events determine, in id order. */
const ROWS_DIGEST = `SELECT count(*)::int AS n, md5(string_agg(concat_ws('|', id, email, phone, first_name, last_name, tags::text, custom_fields::text, created_at, updated_at), ',' ORDER BY id)) AS digest FROM contacts`;

export const archiveRebuild: Scenario = {
  name: 'archive-rebuild',
  description: 'rebuild of the contacts read model from an archived log against the same from the live table',
  async run(ctx) {
    const events = scaled(ctx, Number(process.env.BENCH_ARCHIVE_EVENTS ?? '10000000'), 20_000);
    const partition = Math.max(1_000, Math.round(Number(process.env.BENCH_LOG_PARTITION ?? '1000000') * ctx.scale));
    const { shape, db, store } = await contactsAtHead(ctx, 'archive_rebuild', events, partition);
    const dir = await mkdtemp(path.join(tmpdir(), 'engage-bench-archive-rebuild-'));
    try {
      const live = await timedRebuild(db.pool, store);
      const liveRows = (await db.pool.query(ROWS_DIGEST)).rows[0];
      progress(`archive-rebuild: from the table, ${shape.events.toLocaleString('en-US')} events in ${live.secs.toFixed(1)} s = ${Math.round(shape.events / live.secs)} events/s`);

      const head = await store.headPosition();
      const t0 = now();
      const outcome = await archiveLog(db.pool, { before: head.prepare + 1n, to: dir, storage: new ArchiveStorage() });
      const archiveSecs = (now() - t0) / 1000;
      const archivedEvents = outcome.archived.reduce((n, a) => n + a.events, 0);
      const archivedBytes = outcome.archived.reduce((n, a) => n + a.bytes, 0);
      progress(`archive-rebuild: archived ${outcome.archived.length} partitions, ${archivedEvents.toLocaleString('en-US')} events, ${(archivedBytes / 2 ** 20).toFixed(0)} MiB in ${archiveSecs.toFixed(1)} s (${outcome.stoppedAt?.reason ?? 'all'})`);

      const archived = await timedRebuild(db.pool, store);
      const archivedRows = (await db.pool.query(ROWS_DIGEST)).rows[0];
      progress(`archive-rebuild: from the archive, ${shape.events.toLocaleString('en-US')} events in ${archived.secs.toFixed(1)} s = ${Math.round(shape.events / archived.secs)} events/s`);
      const same = liveRows.n === archivedRows.n && liveRows.digest === archivedRows.digest;
      if (!same || liveRows.n !== shape.liveContacts) ctx.notes.push(`archive-rebuild: rows differ: from the table ${JSON.stringify(liveRows)}, from the archive ${JSON.stringify(archivedRows)}, expected ${shape.liveContacts}`);
      return [
        figure({
          scenario: 'archive-rebuild',
          name: 'rebuild contacts read model from an archived log',
          unit: 'events/s',
          better: 'higher',
          value: shape.events / archived.secs,
          target: null,
          baseline: { name: 'the same rebuild from the live table, same log', value: shape.events / live.secs },
          details: {
            events: shape.events,
            partition_positions: partition,
            archived_partitions: outcome.archived.length,
            archived_events: archivedEvents,
            archived_share: archivedEvents / shape.events,
            archive_seconds: archiveSecs,
            archive_mib: archivedBytes / 2 ** 20,
            live_seconds: live.secs,
            archived_seconds: archived.secs,
            rows: archivedRows.n,
            same_rows: same,
          },
        }),
      ];
    } finally {
      await rm(dir, { recursive: true, force: true });
      await store.close();
      await db.drop();
    }
  },
};
