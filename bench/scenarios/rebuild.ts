// Projection rebuild: the contacts read model replayed from 1,000,000 contact events into a new
// generation (requestRebuild + a ProjectionRunner for contacts only) until it swaps in; against a
// set-based INSERT … SELECT of the same final rows.
import { once } from 'node:events';
import pino from 'pino';
import { contactsProjection } from '../../projections/contacts.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { EventStore, Position } from '../../src/eventstore/port.ts';
import type pg from 'pg';
import { tableNamer } from '../../src/read-models/projection.ts';
import { ensureProjection, requestRebuild } from '../../src/read-models/generations.ts';
import { ProjectionRunner } from '../../src/read-models/runner.ts';
import { figure } from '../lib/report.ts';
import { type BenchContext, type Scenario, scaled } from '../lib/scenario.ts';
import { seededDatabase } from '../lib/seed.ts';
import { now, progress } from '../lib/stats.ts';

const BASELINE_TABLE = 'bench_baseline_contacts';
/** the columns the seeded events determine (the read model may have more, left at their defaults) */
const COLUMNS = [
  'id', 'account_id', 'email', 'phone', 'first_name', 'last_name', 'country', 'language', 'timezone',
  'external_id', 'tags', 'custom_fields', 'created_at', 'updated_at',
];

/** The final rows in one statement. Valid for the seeded mix: every update sets the same keys, so the last one wins. */
const BASELINE_SQL = `
  INSERT INTO ${BASELINE_TABLE} (${COLUMNS.join(', ')})
  SELECT c.data->>'id', c.data->>'account_id', f->>'email', f->>'phone', f->>'first_name', f->>'last_name',
    f->>'country', f->>'language', f->>'timezone', f->>'external_id',
    ARRAY(SELECT jsonb_array_elements_text(f->'tags')),
    (c.data->'custom_fields') || coalesce(u.data->'custom_fields', '{}'),
    (c.data->>'created_at')::timestamptz, coalesce(u.data->>'updated_at', c.data->>'created_at')::timestamptz
  FROM es_events c
  CROSS JOIN LATERAL (SELECT type, data FROM es_events e WHERE e.stream_id = c.stream_id ORDER BY e.stream_revision DESC LIMIT 1) last
  CROSS JOIN LATERAL (SELECT CASE WHEN last.type = 'ContactUpdated' THEN last.data END AS data) u
  CROSS JOIN LATERAL (SELECT (c.data->'fields') || coalesce(u.data->'changes', '{}') AS f) ff
  WHERE c.type = 'ContactCreated' AND last.type <> 'ContactDeleted'`;

/**
 * A database seeded with `events` contact events whose live contacts generation is caught up, so a
 * rebuild is requested on a service that is current and its runner is the only reader.
 */
export async function contactsAtHead(ctx: BenchContext, label: string, events: number, partitionEvents?: number) {
  const { shape, db } = await seededDatabase(ctx, label, events, 20, partitionEvents);
  const store = new PostgresEventStore(db.pool, db.url, { partitionEvents });
  await ensureProjection(db.pool, contactsProjection);
  const head = await store.headPosition();
  await db.pool.query(`UPDATE projection_state SET commit_pos = $2::text::xid8, prepare_pos = $3 WHERE name = $1`, [
    contactsProjection.name, head.commit.toString(), head.prepare.toString(),
  ]);
  return { shape, db, store };
}

export const projectionRebuild: Scenario = {
  name: 'projection-rebuild',
  description: 'rebuild of the contacts read model from 1,000,000 contact events',
  async run(ctx) {
    const { shape, db, store } = await contactsAtHead(ctx, 'rebuild', scaled(ctx, 1_000_000, 10_000));
    try {

      // baseline: same table definition (with its indexes), rows derived in SQL
      await db.pool.query(contactsProjection.schema((base) => `bench_baseline_${base}`));
      let t = now();
      await db.pool.query(BASELINE_SQL);
      const baselineSecs = (now() - t) / 1000;
      const baselineRate = shape.events / baselineSecs;
      progress(`baseline INSERT … SELECT of ${shape.liveContacts.toLocaleString('en-US')} final rows: ${baselineSecs.toFixed(1)} s = ${Math.round(baselineRate)} events/s`);

      const normal = await timedRebuild(db.pool, store);
      const { secs, generation, batches, applied } = normal;
      const rate = shape.events / secs;
      progress(`rebuild of ${shape.events.toLocaleString('en-US')} events: ${secs.toFixed(1)} s = ${Math.round(rate)} events/s`);

      // the rebuilt read model must equal the baseline's rows
      const cols = COLUMNS.join(', ');
      const { rows } = await db.pool.query(
        `SELECT (SELECT count(*) FROM contacts)::int AS live,
                (SELECT count(*) FROM (SELECT ${cols} FROM contacts EXCEPT SELECT ${cols} FROM ${BASELINE_TABLE}) d)::int AS only_rebuild,
                (SELECT count(*) FROM (SELECT ${cols} FROM ${BASELINE_TABLE} EXCEPT SELECT ${cols} FROM contacts) d)::int AS only_baseline`,
      );
      const check = rows[0] as { live: number; only_rebuild: number; only_baseline: number };
      if (check.live !== shape.liveContacts || check.only_rebuild || check.only_baseline) {
        ctx.notes.push(`projection-rebuild: read model differs from the baseline rows: ${JSON.stringify(check)}`);
      }
      const figures = [
        figure({
          scenario: 'projection-rebuild',
          name: 'rebuild contacts read model',
          unit: 'events/s',
          better: 'higher',
          value: rate,
          target: { op: '>=', value: 20_000 },
          baseline: { name: `INSERT … SELECT of the ${shape.liveContacts} final rows (same table and indexes)`, value: baselineRate },
          details: {
            ...shape,
            seconds: secs,
            baseline_seconds: baselineSecs,
            generation,
            runner_batch_size: 2000,
            batches,
            mean_batch: batches ? Math.round(applied / batches) : 0,
            rows_check: check,
          },
        }),
      ];
      if (process.env.BENCH_DIAGNOSTICS === '1') {
        // what a rebuild would reach if the new generation got its secondary indexes after the replay
        const late = await timedRebuild(db.pool, store, { lateIndexes: true });
        const lateRate = shape.events / (late.secs + late.indexSecs);
        progress(`diagnostic: replay without secondary indexes ${late.secs.toFixed(1)} s + CREATE INDEX ${late.indexSecs.toFixed(1)} s = ${Math.round(lateRate)} events/s`);
        figures.push(
          figure({
            scenario: 'projection-rebuild',
            name: '(diagnostic) same, indexes built after replay',
            unit: 'events/s',
            better: 'higher',
            value: lateRate,
            target: null,
            baseline: { name: 'as above', value: baselineRate },
            details: { replay_seconds: late.secs, create_index_seconds: late.indexSecs, indexes: late.indexes },
          }),
        );
      }
      return figures;
    } finally {
      await store.close();
      await db.drop();
    }
  },
};

/**
 * requestRebuild + a runner for contacts only, timed until the new generation swaps in. With
 * lateIndexes, the new generation's non-unique indexes are dropped before the replay and created
 * after the swap (timed separately): the cost of a replay that builds its indexes at the end.
 */
export async function timedRebuild(pool: pg.Pool, store: EventStore, opts: { lateIndexes?: boolean } = {}) {
  const runner = new ProjectionRunner(pool, store, [contactsProjection], pino({ level: 'silent' }), store.wakeup);
  const batches: number[] = [];
  let applied = 0;
  let lastReport = now();
  const started = now();
  runner.on('rebuild-progress', (_name: string, _gen: number, _at: Position, n: number) => {
    applied += n;
    batches.push(n);
    if (now() - lastReport > 10_000) {
      lastReport = now();
      progress(`rebuild: ${applied.toLocaleString('en-US')} events, ${Math.round(applied / ((now() - started) / 1000))} events/s`);
    }
  });
  const t = now();
  const swapped = once(runner, 'swapped');
  const generation = await requestRebuild(pool, contactsProjection);
  const indexes = contactsProjection
    .schema(tableNamer(generation))
    .split(';')
    .map((sql) => sql.trim())
    .filter((sql) => /^CREATE\s+INDEX/i.test(sql));
  if (opts.lateIndexes) {
    for (const sql of indexes) await pool.query(`DROP INDEX ${/INDEX\s+(\S+)\s+ON/i.exec(sql)![1]}`);
  }
  await runner.start();
  await swapped;
  const secs = (now() - t) / 1000;
  await runner.stop();
  let indexSecs = 0;
  if (opts.lateIndexes) {
    const ti = now();
    for (const sql of indexes) await pool.query(sql);
    indexSecs = (now() - ti) / 1000;
  }
  return { secs, indexSecs, generation, batches: batches.length, applied, indexes: indexes.length };
}
