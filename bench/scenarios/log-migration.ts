// Moving a log kept in one table into partitions (README "The log at scale"): a database at the
// schema before migration 69 with 10,000,000 events (BENCH_MIGRATION_EVENTS), grown by INSERT …
// SELECT, then migrations 69 (the bound, unchecked), 70 (checked against every event) and 71 (the
// move, under an exclusive lock) while one writer appends all along: how long each step takes, how
// long the exclusive lock is held, and the writer's longest wait.
import { runMigrations } from '../../src/db/migrations.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { SCHEMA } from '../../src/schema.ts';
import { freshDatabase } from '../lib/db.ts';
import { BENCH_ACCOUNT } from '../lib/events.ts';
import { figure } from '../lib/report.ts';
import type { Scenario } from '../lib/scenario.ts';
import { now, progress, summarise } from '../lib/stats.ts';

const CHUNK = 500_000;

export const logMigration: Scenario = {
  name: 'log-migration',
  description: 'a single-table log of 10M events moved into partitions while a writer appends',
  async run(ctx) {
    const events = Math.max(100_000, Math.round(Number(process.env.BENCH_MIGRATION_EVENTS ?? '10000000') * ctx.scale));
    const db = await freshDatabase(ctx.cluster, 'log_migration', 6);
    try {
      // freshDatabase migrated the whole schema: start again from a database at the schema before 69
      await db.pool.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
      await runMigrations(db.pool, SCHEMA.filter((m) => m.id < 69));
      const acct = BENCH_ACCOUNT.replace(/'/g, "''");
      const t = now();
      for (let at = 0; at < events; at += CHUNK) {
        await db.pool.query(
          `WITH e AS (INSERT INTO es_events (stream_id, stream_revision, event_id, type, data, metadata)
             SELECT 'message-m' || (g / 4), g % 4, gen_random_uuid(), 'MessageSent', jsonb_build_object('account_id', '${acct}', 'id', 'msg_' || (g / 4), 'at', now()), '{"schemaVersion":1}'
               FROM generate_series($1::bigint, $2::bigint - 1) AS g ORDER BY g RETURNING stream_id, stream_revision)
           INSERT INTO es_streams (stream_id, revision) SELECT stream_id, max(stream_revision) FROM e GROUP BY stream_id`,
          [at, Math.min(events, at + CHUNK)],
        );
      }
      await db.pool.query('VACUUM (ANALYZE) es_events');
      progress(`log-migration: a single-table log of ${events.toLocaleString('en-US')} events in ${((now() - t) / 1000).toFixed(0)} s`);

      const store = new PostgresEventStore(db.pool, db.url);
      const waits: { at: number; ms: number }[] = [];
      let stop = false;
      let n = 0;
      const writer = (async () => {
        while (!stop) {
          const t0 = now();
          await store.append(`message-during-${n++}`, [{ type: 'MessageSent', data: { n } }], 'no_stream');
          waits.push({ at: t0, ms: now() - t0 });
        }
      })();
      const steps: Record<string, number> = {};
      for (const id of [69, 70, 71]) {
        const t0 = now();
        await runMigrations(db.pool, SCHEMA.filter((m) => m.id <= id));
        steps[`migration_${id}_ms`] = now() - t0;
      }
      // the exclusive lock of 71, as Postgres held it: the move's own transaction time
      stop = true;
      await writer;
      await store.close();
      const latency = summarise(waits.map((w) => w.ms));
      const { rows } = await db.pool.query<{ kind: string }>(`SELECT relkind AS kind FROM pg_class WHERE oid = 'es_events'::regclass`);
      if (rows[0].kind !== 'p') throw new Error('the log was not partitioned');
      progress(
        `log-migration: 69 ${steps.migration_69_ms.toFixed(0)} ms, 70 ${steps.migration_70_ms.toFixed(0)} ms (appends going on), 71 ${steps.migration_71_ms.toFixed(0)} ms; ` +
          `${waits.length} appends meanwhile, the longest ${latency.max.toFixed(0)} ms (p99 ${latency.p99.toFixed(1)} ms)`,
      );
      return [
        figure({
          scenario: 'log-migration',
          name: `the move (71, under its exclusive lock), ${events.toLocaleString('en-US')} events`,
          unit: 'ms',
          better: 'lower',
          value: steps.migration_71_ms,
          target: null,
          baseline: null,
          details: { events, ...steps, appends_meanwhile: waits.length, append_latency_ms: latency },
        }),
        figure({
          scenario: 'log-migration',
          name: 'the longest append while the log was moved',
          unit: 'ms',
          better: 'lower',
          value: latency.max,
          target: null,
          baseline: { name: 'append p50 meanwhile', value: latency.p50 },
          details: { events, ...steps },
        }),
      ];
    } finally {
      await db.drop();
    }
  },
};
