// The log at scale (README "The log at scale"): append and catch-up read rates with 1M and 10M
// events in the log (BENCH_LOG_LEVELS, e.g. 1000000,10000000,30000000), each against its rate at
// the first level in the same run; the time to attach the next partition while 32 writers append,
// and their p99 latency meanwhile against before it; disk used per million events. The log is
// grown by INSERT … SELECT (message-shaped events, four per stream), not through the API, in
// partitions of BENCH_LOG_PARTITION positions (1,000,000: at 10M events the log has as many
// partitions as a log of 100M in partitions of the default 10,000,000).
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { archiveLog } from '../../src/eventstore/archive.ts';
import { ArchiveStorage } from '../../src/eventstore/archive-storage.ts';
import { ensurePartitions, logPartitions } from '../../src/eventstore/partitions.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { type NewEvent, type Position, START } from '../../src/eventstore/port.ts';
import { freshDatabase } from '../lib/db.ts';
import { BENCH_ACCOUNT } from '../lib/events.ts';
import { type Figure, figure } from '../lib/report.ts';
import { type Scenario } from '../lib/scenario.ts';
import { now, progress, runConcurrent, summarise } from '../lib/stats.ts';

const CONCURRENCY = 32;
const GROW_CHUNK = 250_000;
/** the bare appends to existing streams: statements of CONCURRENCY streams each (10,016 appends) */
const BARE_BATCHES = 313;
/** the streams appended to by the "recent" figure: the newest of each level's seed */
const RECENT_STREAMS = 50_000;

const sent = (i: number): NewEvent => ({
  type: 'MessageSent',
  data: { account_id: BENCH_ACCOUNT, id: `msg_${i}`, provider: 'sandbox', provider_message_id: randomUUID(), at: new Date().toISOString() },
  metadata: { accountId: BENCH_ACCOUNT, actor: 'dispatcher' },
});

/** Grows the log to `to` events: streams of four message events, chunk by chunk (a transaction each). */
async function grow(pool: import('pg').Pool, from: number, to: number, partition: number): Promise<void> {
  await ensurePartitions(pool, partition, to - from + partition);
  const acct = BENCH_ACCOUNT.replace(/'/g, "''");
  for (let at = from; at < to; at += GROW_CHUNK) {
    const end = Math.min(to, at + GROW_CHUNK);
    await pool.query(
      `WITH s AS (SELECT g / 4 AS m, g % 4 AS rev FROM generate_series($1::bigint, $2::bigint - 1) AS g),
       e AS (INSERT INTO es_events (stream_id, stream_revision, event_id, type, data, metadata)
         SELECT 'message-bench' || s.m, s.rev, gen_random_uuid(), (ARRAY['MessageAccepted','MessageDispatching','MessageSent','MessageDelivered'])[s.rev + 1],
                jsonb_build_object('account_id', '${acct}', 'id', 'msg_bench' || s.m, 'to_hash', md5(s.m::text), 'channel', 'email', 'at', now()),
                jsonb_build_object('schemaVersion', 1, 'accountId', '${acct}', 'actor', 'bench')
           FROM s ORDER BY s.m, s.rev RETURNING stream_id, stream_revision, global_position)
       INSERT INTO es_streams (stream_id, revision, first_position)
         SELECT e.stream_id, max(e.stream_revision), min(e.global_position) FROM e GROUP BY e.stream_id`,
      [at, end],
    );
  }
  await pool.query('VACUUM (ANALYZE) es_events');
  await pool.query('VACUUM (ANALYZE) es_streams');
  // the seed's dirty pages written out now, not by a checkpoint while the level is measured
  await checkpoint(pool);
}

/** The full-page images the cluster has written to its WAL (cluster-wide: the bench's database is the only one writing). */
async function fullPageImages(pool: import('pg').Pool): Promise<number> {
  const { rows } = await pool.query<{ fpi: string }>('SELECT wal_fpi::text AS fpi FROM pg_stat_wal');
  return Number(rows[0].fpi);
}

/** A checkpoint, where the role may ask for one (on an external server it may not: then none). */
async function checkpoint(pool: import('pg').Pool): Promise<void> {
  await pool.query('CHECKPOINT').catch(() => undefined);
}

interface LevelRates {
  events: number;
  partitions: number;
  append_single: number;
  append_single_p99_ms: number;
  append_existing: number;
  /** appends to the newest streams only: a message's later events come minutes after its first */
  append_recent: number;
  append_many: number;
  catchup: number;
  read_stream: number;
  /** the bound under both: a stream's row looked up by its key, bare (no append, no event read) */
  stream_row_lookup: number;
  /** the bound under an append to an existing stream: its row rewritten by its key, bare (no event written) */
  stream_row_update: number;
  /** the bound under an append to an existing stream, whole: rows moved on and events written, bare, batched as the group commit batches */
  bare_append_existing: number;
  /** full-page images written to the WAL per append to an existing stream, and per bare row update */
  fpi_per_existing_append: number;
  fpi_per_row_update: number;
  mib_per_million: number;
}

export const logScale: Scenario = {
  name: 'log-scale',
  description: 'append and catch-up read rates as the log grows, partition attach under load, disk per million events',
  async run(ctx) {
    const levels = (process.env.BENCH_LOG_LEVELS ?? '1000000,10000000').split(',').map((s) => Math.max(10_000, Math.round(Number(s) * ctx.scale)));
    const partition = Math.max(1_000, Math.round(Number(process.env.BENCH_LOG_PARTITION ?? '1000000') * ctx.scale));
    const db = await freshDatabase(ctx.cluster, 'log_scale', CONCURRENCY + 4);
    const store = new PostgresEventStore(db.pool, db.url, { partitionEvents: partition });
    const rates: LevelRates[] = [];
    let attach: Record<string, unknown> = {};
    let archive: { events: number; mib_per_million: number; catch_up_from_archive: number; catch_up_from_table: number } & Record<string, number> = {
      events: 0, mib_per_million: 0, catch_up_from_archive: 0, catch_up_from_table: 0,
    };
    try {
      let size = 0;
      let n = 0;
      for (const level of levels) {
        const t = now();
        await grow(db.pool, size, level, partition);
        // the measurement's own appends (a few tens of thousands) sit on top; the level names what the seed made
        size = level;
        progress(`log-scale: log grown to ${level.toLocaleString('en-US')} events in ${((now() - t) / 1000).toFixed(0)} s`);

        const rate = async (count: number, concurrency: number, fn: (i: number) => Promise<unknown>) => {
          // each phase from a checkpoint: none pays for writing out the pages an earlier one dirtied
          await checkpoint(db.pool);
          const fpi0 = await fullPageImages(db.pool);
          const t0 = now();
          const lat = await runConcurrent(count, concurrency, fn);
          const rate = count / ((now() - t0) / 1000);
          return { rate, latency: summarise(lat), fpi_per_call: ((await fullPageImages(db.pool)) - fpi0) / count };
        };
        await rate(2_000, CONCURRENCY, () => store.append(`bench-warm-${n++}`, [sent(n)], 'no_stream'));
        const single = await rate(10_000, CONCURRENCY, () => store.append(`bench-new-${n++}`, [sent(n)], 'no_stream'));
        // a seeded stream of four events, a fifth appended at its revision (the streams touched once each)
        const streams = Math.floor(level / 4);
        const existing = await rate(10_000, CONCURRENCY, (i) => store.append(`message-bench${Math.floor((i * 7_919 + level) % streams)}`, [sent(i)], 'any'));
        // the least an append to an existing stream is, bare, sent as the appends' group commit
        // sends them (one statement at a time, each for the 32 writers' streams): the streams' rows
        // moved on and their events written into the log, no expectation judged, no function, no
        // JSON request. The same places reached as by the appends: the streams' rows, the log's tail.
        // Measured right after them, from a checkpoint too (other streams: at most what they left cached helps)
        const bareAppends = await rate(BARE_BATCHES, 1, async (b) => {
          const ids = Array.from({ length: CONCURRENCY }, (_, j) => `message-bench${Math.floor(((b * CONCURRENCY + j) * 15_485_863 + 17) % streams)}`);
          await db.pool.query(
            `WITH s AS (UPDATE es_streams SET revision = revision + 1 WHERE stream_id = ANY($1::text[]) RETURNING stream_id, revision)
             INSERT INTO es_events (stream_id, stream_revision, event_id, type, data, metadata)
             SELECT s.stream_id, s.revision, gen_random_uuid(), 'MessageSent',
                    jsonb_build_object('account_id', $2::text, 'id', 'msg_' || s.stream_id, 'provider', 'sandbox', 'provider_message_id', gen_random_uuid(), 'at', now()),
                    jsonb_build_object('accountId', $2::text, 'actor', 'dispatcher')
               FROM s`,
            [ids, BENCH_ACCOUNT],
          );
        });
        // the same to the newest RECENT_STREAMS streams of this level's seed, each once (the working
        // set of a sender: its messages' later events follow their first within minutes)
        const recent = await rate(10_000, CONCURRENCY, (i) => store.append(`message-bench${streams - 1 - ((i * 7_919) % RECENT_STREAMS)}`, [sent(i)], 'any'));
        const many = await rate(40, 1, async () => store.appendMany(Array.from({ length: 1_000 }, () => ({ streamId: `bench-many-${n++}`, events: [sent(n)], expected: 'no_stream' as const }))));
        // catch-up: 250,000 events from a position that far behind the head
        const { rows } = await db.pool.query<{ txid: string; gp: string }>(
          `SELECT transaction_id::text AS txid, global_position::text AS gp FROM es_events WHERE global_position = (SELECT max(global_position) - 250000 FROM es_events)`,
        );
        let after: Position = { commit: BigInt(rows[0].txid), prepare: BigInt(rows[0].gp) };
        await checkpoint(db.pool);
        const tc = now();
        let read = 0;
        while (read < 250_000) {
          const batch = await store.readAll({ after, maxCount: 1_000 });
          if (batch.length === 0) break;
          read += batch.length;
          after = batch[batch.length - 1].position;
        }
        const catchup = read / ((now() - tc) / 1000);
        const reads = await rate(5_000, 16, (i) => store.readStream(`message-bench${Math.floor((i * 104_729 + 13) % streams)}`));
        const lookups = await rate(10_000, CONCURRENCY, (i) => db.pool.query('SELECT revision FROM es_streams WHERE stream_id = $1', [`message-bench${Math.floor((i * 15_485_863 + 7) % streams)}`]));
        // the row an append to an existing stream rewrites, rewritten bare at as many random places
        // (its values kept): the page reads and the WAL's full-page images any keyed write pays there
        const updates = await rate(10_000, CONCURRENCY, (i) =>
          db.pool.query('UPDATE es_streams SET revision = revision WHERE stream_id = $1', [`message-bench${Math.floor((i * 15_485_863 + 11) % streams)}`]),
        );
        const disk = await db.pool.query<{ bytes: string; events: string }>(
          `SELECT (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'es_events'::regclass)::text AS bytes,
                  (SELECT count(*) FROM es_events)::text AS events`,
        );
        const r: LevelRates = {
          events: level,
          partitions: (await logPartitions(db.pool)).length,
          append_single: single.rate,
          append_single_p99_ms: single.latency.p99,
          append_existing: existing.rate,
          append_recent: recent.rate,
          append_many: many.rate * 1_000,
          catchup,
          read_stream: reads.rate,
          stream_row_lookup: lookups.rate,
          stream_row_update: updates.rate,
          bare_append_existing: bareAppends.rate * CONCURRENCY,
          fpi_per_existing_append: existing.fpi_per_call,
          fpi_per_row_update: updates.fpi_per_call,
          mib_per_million: Number(disk.rows[0].bytes) / 2 ** 20 / (Number(disk.rows[0].events) / 1e6),
        };
        rates.push(r);
        progress(
          `log-scale @ ${level.toLocaleString('en-US')} (${r.partitions} partitions): append ${Math.round(r.append_single)}/s (p99 ${r.append_single_p99_ms.toFixed(1)} ms), ` +
            `to existing ${Math.round(r.append_existing)}/s (recent ${Math.round(r.append_recent)}/s), appendMany ${Math.round(r.append_many)} events/s, catch-up ${Math.round(r.catchup)} events/s, ` +
            `readStream ${Math.round(r.read_stream)}/s, bare stream row look-up ${Math.round(r.stream_row_lookup)}/s, bare row update ${Math.round(r.stream_row_update)}/s, bare append to an existing stream ${Math.round(r.bare_append_existing)}/s, ` +
            `full-page images per existing-stream append ${r.fpi_per_existing_append.toFixed(2)} (per bare update ${r.fpi_per_row_update.toFixed(2)}), ${r.mib_per_million.toFixed(0)} MiB per million events`,
        );
      }

      // the next partitions attached while 32 writers append: how long it takes, and the appends' p99 meanwhile against before
      {
        const lat: { at: number; ms: number }[] = [];
        let stop = false;
        const writers = Array.from({ length: CONCURRENCY }, async () => {
          while (!stop) {
            const t0 = now();
            await store.append(`bench-attach-${n++}`, [sent(n)], 'no_stream');
            lat.push({ at: t0, ms: now() - t0 });
          }
        });
        await new Promise((r) => setTimeout(r, 3_000));
        const t0 = now();
        const before = (await logPartitions(db.pool)).length;
        await ensurePartitions(db.pool, partition, partition * 4);
        const t1 = now();
        const made = (await logPartitions(db.pool)).length - before;
        await new Promise((r) => setTimeout(r, 1_000));
        stop = true;
        await Promise.all(writers);
        const beforeLat = lat.filter((l) => l.at < t0 && l.at >= t0 - 2_500).map((l) => l.ms);
        const during = lat.filter((l) => l.at + l.ms >= t0 && l.at <= t1).map((l) => l.ms);
        attach = { partitions_made: made, attach_ms: t1 - t0, per_partition_ms: (t1 - t0) / Math.max(1, made), appends_before: summarise(beforeLat), appends_during: summarise(during) };
        progress(`log-scale: ${made} partitions attached in ${(t1 - t0).toFixed(0)} ms under load; append p99 ${summarise(during).p99.toFixed(1)} ms during, ${summarise(beforeLat).p99.toFixed(1)} ms before`);
      }

      // the first full partition archived: how long, its file's size, and the catch-up read through
      // it against the same read over the next partition, still in the table
      {
        const dir = await mkdtemp(path.join(tmpdir(), 'engage-bench-archive-'));
        try {
          const t0 = now();
          const outcome = await archiveLog(db.pool, { before: BigInt(partition) + 1n, to: dir, storage: new ArchiveStorage() });
          const secs = (now() - t0) / 1000;
          const events = outcome.archived.reduce((s, a) => s + a.events, 0);
          const bytes = outcome.archived.reduce((s, a) => s + a.bytes, 0);
          const readFrom = async (after: Position, count: number) => {
            const tr = now();
            let read = 0;
            while (read < count) {
              const batch = await store.readAll({ after, maxCount: 1_000 });
              if (batch.length === 0) break;
              read += batch.length;
              after = batch[batch.length - 1].position;
            }
            return { read, rate: read / ((now() - tr) / 1000), end: after };
          };
          const fromArchive = await readFrom(START, events);
          const fromTable = await readFrom(fromArchive.end, events);
          archive = {
            partitions: outcome.archived.length,
            events,
            seconds: secs,
            events_per_second: events / secs,
            mib_per_million: bytes / 2 ** 20 / (events / 1e6),
            catch_up_from_archive: fromArchive.rate,
            catch_up_from_table: fromTable.rate,
          };
          progress(
            `log-scale: archived ${events.toLocaleString('en-US')} events in ${secs.toFixed(1)} s (${(bytes / 2 ** 20).toFixed(0)} MiB); catch-up ${Math.round(fromArchive.rate)} events/s from the archive, ${Math.round(fromTable.rate)} from the table`,
          );
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }
    } finally {
      await store.close();
      await db.drop();
    }

    const first = rates[0];
    const figures: Figure[] = [];
    /** a figure per level after the first, against the first; within 15% of it, unless `targeted` is false (information only) */
    const within = (name: string, unit: string, pick: (r: LevelRates) => number, targeted = true) => {
      for (const r of rates.slice(1)) {
        figures.push(
          figure({
            scenario: 'log-scale',
            name: `${name} at ${r.events.toLocaleString('en-US')} events`,
            unit,
            better: 'higher',
            value: pick(r),
            target: targeted ? { op: '>=', value: pick(first) * 0.85 } : null,
            baseline: { name: `the same at ${first.events.toLocaleString('en-US')} events`, value: pick(first) },
            details: { ...r },
          }),
        );
      }
    };
    within('append 1 event, new streams', 'events/s', (r) => r.append_single);
    within('append 1 event, existing streams', 'events/s', (r) => r.append_existing);
    within(`append 1 event, existing streams among the newest ${RECENT_STREAMS.toLocaleString('en-US')}`, 'events/s', (r) => r.append_recent);
    within('appendMany 1,000 new streams', 'events/s', (r) => r.append_many);
    within('catch-up read, 250,000 events', 'events/s', (r) => r.catchup);
    within('readStream of a 4-event stream', 'streams/s', (r) => r.read_stream);
    // the bound under the two appends' and reads' figures of existing streams: random rows of
    // es_streams, whose table outgrows the cache as the log grows (information, not a target)
    within('bare append 1 event, existing streams', 'events/s', (r) => r.bare_append_existing, false);
    within("bare rewrite of a stream's row", 'rows/s', (r) => r.stream_row_update, false);
    within("bare look-up of a stream's row", 'rows/s', (r) => r.stream_row_lookup, false);
    const during = attach.appends_during as { p99: number } | undefined;
    const beforeLat = attach.appends_before as { p99: number } | undefined;
    if (during && beforeLat) {
      figures.push(
        figure({
          scenario: 'log-scale',
          name: 'append p99 while partitions are attached',
          unit: 'ms',
          better: 'lower',
          value: during.p99,
          target: null,
          baseline: { name: 'append p99 in the 2.5 s before', value: beforeLat.p99 },
          details: { ...attach, levels: rates },
        }),
      );
    }
    if (archive.events > 0) {
      figures.push(
        figure({
          scenario: 'log-scale',
          name: `catch-up read from the archive (${archive.events.toLocaleString('en-US')} events)`,
          unit: 'events/s',
          better: 'higher',
          value: archive.catch_up_from_archive,
          target: null,
          baseline: { name: 'the same read over as many events in the table', value: archive.catch_up_from_table },
          details: archive,
        }),
        figure({
          scenario: 'log-scale',
          name: 'disk per million events, archived (gzip JSON lines)',
          unit: 'MiB',
          better: 'lower',
          value: archive.mib_per_million,
          target: null,
          baseline: { name: 'live (table and indexes)', value: rates.at(-1)!.mib_per_million },
          details: archive,
        }),
      );
    }
    figures.push(
      figure({
        scenario: 'log-scale',
        name: `disk per million events (at ${rates.at(-1)!.events.toLocaleString('en-US')})`,
        unit: 'MiB',
        better: 'lower',
        value: rates.at(-1)!.mib_per_million,
        target: null,
        baseline: null,
        details: { levels: rates.map((r) => ({ events: r.events, mib_per_million: r.mib_per_million })) },
      }),
    );
    return figures;
  },
};
