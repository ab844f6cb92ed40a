// Append throughput: single-event appends from 32 concurrent writers, and 1,000-event batches,
// each against raw INSERTs of the same rows into a plain table in the same run.
import { randomUUID } from 'node:crypto';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { NewEvent } from '../../src/eventstore/port.ts';
import { freshDatabase, PLAIN_EVENTS_TABLE } from '../lib/db.ts';
import { contactCreated, contactUpdated, encodeRows } from '../lib/events.ts';
import { figure } from '../lib/report.ts';
import { type Scenario, scaled } from '../lib/scenario.ts';
import { now, progress, runConcurrent, summarise } from '../lib/stats.ts';

const CONCURRENCY = 32;
const BATCH = 1000;

const INSERT_ONE = `INSERT INTO bench_plain_events (stream_id, stream_revision, event_id, type, data, metadata) VALUES ($1, $2, $3, $4, $5, $6)`;
const INSERT_MANY = `INSERT INTO bench_plain_events (stream_id, stream_revision, event_id, type, data, metadata)
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[])`;
// the same rows as one JSON document: node-postgres escapes each element of an array parameter into
// an array literal, which for 1,000 JSON strings costs more than the INSERT itself
const INSERT_MANY_JSON = `INSERT INTO bench_plain_events (stream_id, stream_revision, event_id, type, data, metadata)
  SELECT s, r, i, t, d, m FROM jsonb_to_recordset($1::jsonb) AS u(s text, r bigint, i uuid, t text, d jsonb, m jsonb)`;

export const appendSingle: Scenario = {
  name: 'append-single',
  description: `single-event appends, ${CONCURRENCY} concurrent writers`,
  async run(ctx) {
    const total = scaled(ctx, 30_000, 2_000);
    // one connection per writer: the pool is not what is measured
    const db = await freshDatabase(ctx.cluster, 'append_single', CONCURRENCY + 2);
    try {
      const store = new PostgresEventStore(db.pool, db.url);
      await db.pool.query(PLAIN_EVENTS_TABLE);
      // warm up connections and caches
      await runConcurrent(1_000, CONCURRENCY, (i) => store.append(`contact-warm-${i}`, [contactCreated(i)], 'no_stream'));
      await runConcurrent(1_000, CONCURRENCY, (i) => {
        const r = encodeRows([{ streamId: `warm-${i}`, revision: 0, event: contactCreated(i) }]);
        return db.pool.query(INSERT_ONE, [r.sids[0], r.revs[0], r.ids[0], r.types[0], r.datas[0], r.metas[0]]);
      });

      const measure = async (label: string, fn: (i: number) => Promise<unknown>) => {
        const t = now();
        const lat = await runConcurrent(total, CONCURRENCY, fn);
        const secs = (now() - t) / 1000;
        const rate = total / secs;
        progress(`${label}: ${total} events in ${secs.toFixed(2)} s = ${Math.round(rate)} events/s`);
        return { rate, secs, latency_ms: summarise(lat) };
      };

      const baseline = await measure('raw single-row INSERT', (i) => {
        const r = encodeRows([{ streamId: `contact-raw-${i}`, revision: 0, event: contactCreated(i) }]);
        return db.pool.query(INSERT_ONE, [r.sids[0], r.revs[0], r.ids[0], r.types[0], r.datas[0], r.metas[0]]);
      });
      const own = await measure('append, own stream each (no_stream)', (i) => store.append(`contact-own-${i}`, [contactCreated(i)], 'no_stream'));
      const SHARED = 8;
      const shared = await measure(`append, ${SHARED} shared streams (any)`, (i) =>
        store.append(`contact-shared-${i % SHARED}`, [contactUpdated(i % SHARED, i)], 'any'),
      );
      const base = { name: `raw single-row INSERT into a plain table, ${CONCURRENCY} concurrent`, value: baseline.rate };
      const common = { concurrency: CONCURRENCY, events: total, pool_size: CONCURRENCY + 2 };
      return [
        figure({
          scenario: 'append-single',
          name: 'append 1 event, own streams',
          unit: 'events/s',
          better: 'higher',
          value: own.rate,
          target: { op: '>=', value: 3_000 },
          baseline: base,
          details: { ...common, expected: 'no_stream', seconds: own.secs, append_latency_ms: own.latency_ms, baseline_latency_ms: baseline.latency_ms },
        }),
        figure({
          scenario: 'append-single',
          name: `append 1 event, ${SHARED} shared streams`,
          unit: 'events/s',
          better: 'higher',
          value: shared.rate,
          target: { op: '>=', value: 3_000 },
          baseline: base,
          details: { ...common, streams: SHARED, expected: 'any', seconds: shared.secs, append_latency_ms: shared.latency_ms },
        }),
      ];
    } finally {
      await db.drop();
    }
  },
};

export const appendBatch: Scenario = {
  name: 'append-batch',
  description: `batched appends, ${BATCH} events per call, one caller`,
  async run(ctx) {
    const calls = scaled(ctx, 200, 10);
    const db = await freshDatabase(ctx.cluster, 'append_batch', 4);
    try {
      const store = new PostgresEventStore(db.pool, db.url);
      await db.pool.query(PLAIN_EVENTS_TABLE);
      // events are built before each timed call: the caller's object building is not the store's cost
      const manyStreams = (call: number) =>
        Array.from({ length: BATCH }, (_, k) => {
          const i = call * BATCH + k;
          return { streamId: `contact-${i}`, events: [contactCreated(i)] as NewEvent[], expected: 'no_stream' as const };
        });
      const measure = async (label: string, prepare: (call: number) => unknown, fn: (input: any, call: number) => Promise<unknown>) => {
        const lat: number[] = [];
        for (let c = 0; c < calls; c++) {
          const input = prepare(c);
          const t = now();
          await fn(input, c);
          lat.push(now() - t);
        }
        const secs = lat.reduce((a, b) => a + b, 0) / 1000;
        const rate = (calls * BATCH) / secs;
        progress(`${label}: ${calls} calls × ${BATCH} in ${secs.toFixed(2)} s = ${Math.round(rate)} events/s`);
        return { rate, secs, call_latency_ms: summarise(lat) };
      };
      // warm-up
      for (let c = 0; c < 3; c++) await store.appendMany(manyStreams(1_000_000 + c));

      const rawUnnest = await measure(
        'raw unnest INSERT (array parameters)',
        (c) => manyStreams(2_000_000 + c),
        (batch: ReturnType<typeof manyStreams>) => {
          const r = encodeRows(batch.map((b) => ({ streamId: b.streamId, revision: 0, event: b.events[0] })));
          return db.pool.query(INSERT_MANY, [r.sids, r.revs, r.ids, r.types, r.datas, r.metas]);
        },
      );
      const rawJson = await measure(
        'raw INSERT … jsonb_to_recordset (one JSON parameter)',
        (c) => manyStreams(3_000_000 + c),
        (batch: ReturnType<typeof manyStreams>) =>
          db.pool.query(INSERT_MANY_JSON, [
            JSON.stringify(batch.map((b) => ({ s: b.streamId, r: 0, i: randomUUID(), t: b.events[0].type, d: b.events[0].data, m: { schemaVersion: 1, ...b.events[0].metadata } }))),
          ]),
      );
      // the baseline is the faster way of writing the same rows raw: a floor, not a straw man
      const baseline = rawUnnest.rate >= rawJson.rate ? { ...rawUnnest, how: 'unnest of array parameters' } : { ...rawJson, how: 'jsonb_to_recordset of one JSON parameter' };
      const many = await measure('appendMany across 1,000 streams', manyStreams, (batch: ReturnType<typeof manyStreams>) => store.appendMany(batch));
      const one = await measure(
        'append 1,000 to one stream',
        (c) => Array.from({ length: BATCH }, (_, k) => contactUpdated(c, k)),
        (events: NewEvent[], c) => store.append(`contact-import-${c}`, events, 'no_stream'),
      );
      const base = { name: `raw multi-row INSERT of the same rows into a plain table (${baseline.how}; the faster of the two raw forms)`, value: baseline.rate };
      const common = {
        events_per_call: BATCH,
        calls,
        concurrency: 1,
        raw_unnest: { events_per_s: rawUnnest.rate, call_latency_ms: rawUnnest.call_latency_ms },
        raw_jsonb_to_recordset: { events_per_s: rawJson.rate, call_latency_ms: rawJson.call_latency_ms },
      };
      const measured = [
        ['appendMany, 1,000 streams × 1 event', many],
        ['append, 1 stream × 1,000 events', one],
      ] as const;
      return measured.map(([name, m]) =>
        figure({
          scenario: 'append-batch',
          name,
          unit: 'events/s',
          better: 'higher',
          value: m.rate,
          target: { op: '>=', value: 50_000, maxRatio: 3 },
          baseline: base,
          details: { ...common, call_latency_ms: m.call_latency_ms },
        }),
      );
    } finally {
      await db.drop();
    }
  },
};
