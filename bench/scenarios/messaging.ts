// Messaging: bulk acceptance latency, end-to-end dispatch throughput through the sandbox provider
// with the messages read model's lag, single-send latency at a fixed rate, and the server's RSS
// over a long run. The engage server (API + projections + workers, one process) runs as a child
// (bench/lib/engage-child.ts) with rate limits off, quiet hours off and a 50 ms sandbox delivery
// delay; the load generator runs here.
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import { messagesProjection } from '../../projections/messages.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { NewEvent } from '../../src/eventstore/port.ts';
import { cpuCost, cpuLine, cpuMeter, perUnit, sampleProcess, startBaseline, startEngage, type ServerChild } from '../lib/child.ts';
import { type BenchDatabase, freshDatabase, PLAIN_EVENTS_TABLE, resetStatementStats, resetWalStats, statementCalls, statementsOf } from '../lib/db.ts';
import { lagProbe } from '../lib/probes.ts';
import { counterDelta, dbCounters } from '../lib/procstat.ts';
import { openLoop } from '../lib/loadgen.ts';
import { figure, type Figure } from '../lib/report.ts';
import { type BenchContext, type Scenario, openLoopTimes, scaled } from '../lib/scenario.ts';
import { now, percentile, progress, sleep, summarise } from '../lib/stats.ts';

const BULK = 10_000;
/** the messages projection's event types (its lag counts only these) */
const MESSAGE_TYPES = messagesProjection.types;

// ─── workload ────────────────────────────────────────────────────────────────────────────────────

/**
 * Recipient i: +1 415 NXX XXXX with NXX = 200 + i / 10,000, valid for libphonenumber (checked with
 * normalisePhone for 0 … 1,200,000) and distinct up to 8,000,000 — so no recipient gets two
 * marketing messages in a run and the daily cap (2) never holds one back.
 */
export const recipient = (i: number) => `+1415${200 + Math.floor(i / 10_000)}${String(i % 10_000).padStart(4, '0')}`;

/** A marketing SMS (transactional: false, so the whole policy runs: suppressions, time zone, daily cap). */
const smsItem = (i: number) => ({ to: recipient(i), channel: 'sms', message: `Hi! Your order ${i} has shipped. Track it in the app. Reply STOP to opt out.` });

const bulkBody = (from: number, n = BULK) => JSON.stringify({ messages: Array.from({ length: n }, (_, k) => smsItem(from + k)) });

/** A transactional email (a receipt): the dispatch figures' workload, as the per-message cost targets name it. */
const receiptItem = (i: number) => ({ to: `customer${i}@example.com`, channel: 'email', transactional: true, subject: `Your receipt ${i}`, message: `Thanks for your order ${i}. It ships tomorrow.` });

const receiptsBody = (from: number, n = BULK) => JSON.stringify({ messages: Array.from({ length: n }, (_, k) => receiptItem(from + k)) });

function client(url: string) {
  return new Pool(url, { connections: 8, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 300_000, bodyTimeout: 300_000 });
}

interface BulkResult {
  ms: number;
  status: number;
  accepted: number;
  failed: number;
}

async function postBulk(http: Pool, key: string, body: string): Promise<BulkResult> {
  const t = now();
  const res = await http.request({ method: 'POST', path: '/v1/messages/bulk', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body });
  const text = await res.body.text();
  const ms = now() - t;
  if (res.statusCode !== 202) return { ms, status: res.statusCode, accepted: 0, failed: 0 };
  const out = JSON.parse(text) as { accepted: number; failed: number };
  return { ms, status: res.statusCode, accepted: out.accepted, failed: out.failed };
}

/** MessageAccepted events shaped as POST /v1/messages/bulk appends them, for the no-HTTP baselines. */
function acceptedEvents(from: number, n: number, accountId: string): { streamId: string; event: NewEvent }[] {
  const createdAt = new Date().toISOString();
  const bulkId = `blk_${randomUUID().replace(/-/g, '').slice(0, 26)}`;
  const meta = { accountId, actor: 'key_01JBENCHKEY000000000000000', requestId: 'req_bench', correlationId: 'req_bench', causationId: 'req_bench' };
  return Array.from({ length: n }, (_, k) => {
    const id = `msg_${randomUUID().replace(/-/g, '').slice(0, 26)}`;
    const item = smsItem(from + k);
    return {
      streamId: `message-${id}`,
      event: {
        type: 'MessageAccepted',
        data: { ...item, transactional: false, account_id: accountId, id, status: 'queued', bulk_id: bulkId, created_at: createdAt },
        metadata: meta,
      },
    };
  });
}

// ─── read-model lag and progress probes ──────────────────────────────────────────────────────────

/** Whether the server's schema holds bulk intakes (a version from before them does not: an A/B run). */
const hasIntakes = new WeakMap<BenchDatabase, Promise<boolean>>();

/**
 * Messages accepted and not sent yet: queued in the read model, or in a bulk's intake (answered,
 * not yet appended to the log: README "The write path").
 */
async function queuedCount(db: BenchDatabase): Promise<number> {
  let intakes = hasIntakes.get(db);
  if (!intakes) hasIntakes.set(db, (intakes = db.pool.query<{ t: string | null }>(`SELECT to_regclass('bulk_intakes')::text AS t`).then((r) => r.rows[0].t !== null)));
  const held = (await intakes) ? ` + (SELECT coalesce(sum(messages), 0) FROM bulk_intakes)` : '';
  const { rows } = await db.pool.query<{ n: number }>(`SELECT ((SELECT count(*) FROM message_states WHERE status = 'queued')${held})::int AS n`);
  return rows[0].n;
}

async function dbNow(db: BenchDatabase): Promise<Date> {
  const { rows } = await db.pool.query<{ t: Date }>('SELECT clock_timestamp() AS t');
  return rows[0].t;
}

/** What reached which stage when, from the log: counts, first/last append time, and per-second counts (relative to t0). */
async function pipelineTimeline(db: BenchDatabase, t0: Date) {
  const { rows: totals } = await db.pool.query<{ type: string; n: number; first: Date; last: Date }>(
    `SELECT type, count(*)::int AS n, min(created_at) AS first, max(created_at) AS last FROM es_events
     WHERE type LIKE 'Message%' GROUP BY type`,
  );
  const { rows: perSecond } = await db.pool.query<{ type: string; s: number; n: number }>(
    `SELECT type, floor(extract(epoch FROM created_at - $1::timestamptz))::int AS s, count(*)::int AS n FROM es_events
     WHERE type IN ('MessageAccepted', 'MessageSent', 'MessageDelivered') GROUP BY 1, 2 ORDER BY 2`,
    [t0],
  );
  const byType = Object.fromEntries(totals.map((r) => [r.type, { n: r.n, first_s: (r.first.getTime() - t0.getTime()) / 1000, last_s: (r.last.getTime() - t0.getTime()) / 1000 }]));
  const series = (type: string) => perSecond.filter((r) => r.type === type).map((r) => [r.s, r.n] as [number, number]);
  return { byType, series };
}

/** Median of the per-second counts, leaving out the first and last (partial) seconds. */
function steadyRate(series: [number, number][]): number {
  const inner = series.slice(1, -1).map(([, n]) => n).sort((a, b) => a - b);
  return inner.length ? percentile(inner, 50) : series.reduce((a, [, n]) => a + n, 0);
}

const round1 = (v: number) => Math.round(v * 10) / 10;

// ─── bulk-accept ─────────────────────────────────────────────────────────────────────────────────

/** Waits (bounded) until the server has sent every queued message: its workers are idle again. */
export async function drained(db: BenchDatabase, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  // twice in a row: a bulk's messages are in neither count between its intake's end and the read model
  for (let zeros = 0; zeros < 2; ) {
    zeros = (await queuedCount(db)) > 0 ? 0 : zeros + 1;
    if (Date.now() > until) throw new Error(`messages still queued after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/**
 * Waits (bounded) until nothing runs: no message queued or waiting for its delivery report, and
 * every read model has applied the whole log (`GET /health`).
 */
async function quiet(db: BenchDatabase, url: string, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM message_states WHERE status IN ('queued', 'sent')`);
    const health = (await (await fetch(`${url}/health`)).json()) as { projections?: { lag: number }[] };
    if (rows[0].n === 0 && (health.projections ?? []).every((p) => p.lag === 0)) return;
    if (Date.now() > until) throw new Error(`the server was still busy after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/**
 * POSTs `rounds` bulks (after one warm-up bulk) to a fresh server with its workers on:
 * `dispatching`, in a row, so the earlier bulks are being sent meanwhile (as in production);
 * `idle`, each once the server is quiet: the one before delivered, and applied by every read model.
 */
async function measureBulks(ctx: BenchContext, rounds: number, mode: 'dispatching' | 'idle') {
  const workers = mode;
  const db = await freshDatabase(ctx.cluster, `bulk_accept_${mode}`, 2);
  let engage: ServerChild | undefined;
  try {
    engage = await startEngage(db.url);
    const { url, key } = engage.info;
    const http = client(url);
    // warm-up bulk (JIT, connections), not counted
    const warm = await postBulk(http, key!, bulkBody(0));
    if (warm.status !== 202) throw new Error(`bulk returned ${warm.status}`);
    if (mode === 'dispatching') await drained(db);
    const bodies = Array.from({ length: rounds }, (_, r) => bulkBody((r + 1) * BULK));
    // BENCH_PG_STATS=1: the statements and the WAL of the measured bulks only (not the warm-up's, nor
    // the cluster's since the bench began)
    await resetStatementStats(db);
    const cpu = cpuMeter(engage.pid, db.name);
    const results: BulkResult[] = [];
    for (const body of bodies) {
      if (mode === 'idle') await quiet(db, url);
      const r = await postBulk(http, key!, body);
      results.push(r);
      progress(`bulk ${results.length}/${rounds} (workers ${workers}): ${r.status} in ${Math.round(r.ms)} ms (${r.accepted} accepted, ${r.failed} failed)`);
    }
    const usage = cpu();
    const statements = await statementsOf(db);
    await http.close();
    const bad = results.filter((r) => r.status !== 202 || r.accepted !== BULK);
    if (bad.length) ctx.notes.push(`bulk-accept: ${bad.length} bulks not fully accepted: ${JSON.stringify(bad.map((b) => ({ status: b.status, accepted: b.accepted, failed: b.failed })))}`);
    const lat = summarise(results.map((r) => r.ms));
    progress(`bulk ${BULK} (workers ${workers}): p50 ${lat.p50} p90 ${lat.p90} max ${lat.max} ms, ${cpuLine(usage)}`);
    return {
      latency_ms: lat,
      latencies_ms: results.map((r) => Math.round(r.ms)),
      ...usage,
      cpu_per_bulk: cpuCost(usage, rounds),
      body_bytes: bodies[0].length,
      ...statements,
    };
  } finally {
    await engage?.stop();
    await db.drop();
  }
}

export const bulkAccept: Scenario = {
  name: 'bulk-accept',
  description: `POST /v1/messages/bulk of ${BULK.toLocaleString('en-US')} sms, ~10 in a row: request → 202`,
  async run(ctx) {
    const rounds = scaled(ctx, 10, 3);
    // baselines first, on their own database (nothing else running): raw multi-row INSERTs of the
    // same rows into a plain table (as one JSON document, the fastest way found; and as jsonb[]
    // arrays, for reference), and appendMany of the same events (the event store, no HTTP)
    const base = await freshDatabase(ctx.cluster, 'bulk_base', 2);
    const raw: number[] = [];
    const rawArrays: number[] = [];
    const appendMany: number[] = [];
    try {
      await base.pool.query(PLAIN_EVENTS_TABLE);
      const store = new PostgresEventStore(base.pool, base.url);
      const insertDoc = `INSERT INTO bench_plain_events (stream_id, stream_revision, event_id, type, data, metadata)
        SELECT s, 0, gen_random_uuid(), 'MessageAccepted', d, m FROM jsonb_to_recordset($1::jsonb) AS u(s text, d jsonb, m jsonb)`;
      const insertArrays = `INSERT INTO bench_plain_events (stream_id, stream_revision, event_id, type, data, metadata)
        SELECT s, 0, gen_random_uuid(), 'MessageAccepted', d, m FROM unnest($1::text[], $2::jsonb[], $3::jsonb[]) AS u(s, d, m)`;
      // encoding the rows is part of each, as it is of an append
      const rawOnce = async (from: number) => {
        const t = now();
        const rows = acceptedEvents(from, BULK, 'acct_bench');
        await base.pool.query(insertDoc, [JSON.stringify(rows.map((r) => ({ s: r.streamId, d: r.event.data, m: { schemaVersion: 1, ...r.event.metadata } })))]);
        return now() - t;
      };
      const rawArraysOnce = async (from: number) => {
        const t = now();
        const rows = acceptedEvents(from, BULK, 'acct_bench');
        await base.pool.query(insertArrays, [rows.map((r) => r.streamId), rows.map((r) => JSON.stringify(r.event.data)), rows.map((r) => JSON.stringify({ schemaVersion: 1, ...r.event.metadata }))]);
        return now() - t;
      };
      const appendOnce = async (from: number) => {
        const t = now();
        const rows = acceptedEvents(from, BULK, 'acct_bench');
        await store.appendMany(rows.map((r) => ({ streamId: r.streamId, events: [r.event], expected: 'no_stream' as const })));
        return now() - t;
      };
      await rawOnce(0);
      await appendOnce(0);
      for (let r = 0; r < rounds; r++) {
        raw.push(await rawOnce((r + 1) * BULK));
        rawArrays.push(await rawArraysOnce((r + 1) * BULK));
        appendMany.push(await appendOnce((r + 1) * BULK));
      }
      await store.close();
      progress(`baseline: raw INSERT of ${BULK} rows p50 ${summarise(raw).p50} ms (as jsonb[] arrays ${summarise(rawArrays).p50} ms); appendMany of ${BULK} events p50 ${summarise(appendMany).p50} ms`);
    } finally {
      await base.drop();
    }

    const on = await measureBulks(ctx, rounds, 'dispatching');
    const idle = await measureBulks(ctx, scaled(ctx, 5, 2), 'idle');
    const baseline = { name: `raw multi-row INSERT of ${BULK.toLocaleString('en-US')} equivalent rows into a plain table (one JSON document)`, value: summarise(raw).p50 };
    return [
      figure({
        scenario: 'bulk-accept',
        name: `POST /v1/messages/bulk (${BULK.toLocaleString('en-US')} sms) p50, earlier bulks dispatching`,
        unit: 'ms',
        better: 'lower',
        value: on.latency_ms.p50,
        target: { op: '<=', value: 500 },
        baseline,
        details: {
          rounds,
          messages_per_bulk: BULK,
          workers: 'dispatching: bulks in a row, the dispatcher sends the earlier ones meanwhile (as in production)',
          ...on,
          baseline_raw_insert_ms: summarise(raw),
          baseline_raw_insert_jsonb_arrays_ms: summarise(rawArrays),
          baseline_append_many_ms: summarise(appendMany),
        },
      }),
      figure({
        scenario: 'bulk-accept',
        name: `POST /v1/messages/bulk (${BULK.toLocaleString('en-US')} sms) p50, workers idle`,
        unit: 'ms',
        better: 'lower',
        value: idle.latency_ms.p50,
        target: { op: '<=', value: 250 },
        baseline,
        details: { workers: 'idle: each bulk is posted once the server is quiet (the one before delivered, every read model caught up)', ...idle },
      }),
    ];
  },
};

// ─── dispatch-throughput ─────────────────────────────────────────────────────────────────────────

/**
 * The event store's floor for the pipeline: per batch of 1,000 messages the four appends the
 * pipeline makes (Accepted, Dispatching, Sent, Delivered, each appendMany at the known revision),
 * with no HTTP, projections or policy.
 */
async function pipelineAppendFloor(ctx: BenchContext, messages: number): Promise<{ rate: number; secs: number; messages: number }> {
  const db = await freshDatabase(ctx.cluster, 'dispatch_base', 2);
  try {
    const store = new PostgresEventStore(db.pool, db.url);
    const batch = 1000;
    const t = now();
    for (let from = 0; from < messages; from += batch) {
      const rows = acceptedEvents(from, Math.min(batch, messages - from), 'acct_bench');
      await store.appendMany(rows.map((r) => ({ streamId: r.streamId, events: [r.event], expected: 'no_stream' as const })));
      const at = new Date().toISOString();
      const step = (type: string, rev: bigint, extra: Record<string, unknown>) =>
        store.appendMany(
          rows.map((r) => {
            const d = r.event.data as { id: string; account_id: string };
            return { streamId: r.streamId, events: [{ type, data: { id: d.id, account_id: d.account_id, at, ...extra }, metadata: { actor: 'dispatcher' } }], expected: rev };
          }),
        );
      await step('MessageDispatching', 0n, { worker: 'bench', attempt: 1, lease_until: at });
      await step('MessageSent', 1n, { provider: 'sandbox', provider_message_id: 'sbx' });
      await step('MessageDelivered', 2n, { provider: 'sandbox' });
    }
    const secs = (now() - t) / 1000;
    await store.close();
    return { rate: messages / secs, secs, messages };
  } finally {
    await db.drop();
  }
}

/** Rows of the bare queue claimed per statement (as the issue that set the target defines it). */
const BARE_QUEUE_CLAIM = 500;
/** Claimers of the bare queue at once: one per core of the machine it was set on. */
const BARE_QUEUE_WORKERS = 2;

/**
 * A bare queue on the same Postgres, the ratio target's baseline: the scenario's messages as rows of
 * one plain table (written before the clock starts), claimed BARE_QUEUE_CLAIM at a time with
 * SKIP LOCKED, marked sent, and two event rows each (claimed, sent) into a plain events table, one
 * statement per batch, BARE_QUEUE_WORKERS claimers at once. No HTTP, no read models, no provider.
 */
async function bareQueue(ctx: BenchContext, messages: number): Promise<{ rate: number; secs: number; messages: number }> {
  const db = await freshDatabase(ctx.cluster, 'bare_queue', BARE_QUEUE_WORKERS + 1);
  try {
    await db.pool.query(PLAIN_EVENTS_TABLE);
    await db.pool.query(`CREATE TABLE bench_queue (
      id text PRIMARY KEY, account_id text NOT NULL, channel text NOT NULL, to_address text NOT NULL, subject text, message text NOT NULL,
      transactional boolean NOT NULL, status text NOT NULL, attempts int NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now(), sent_at timestamptz)`);
    await db.pool.query(`CREATE INDEX bench_queue_queued ON bench_queue (id) WHERE status = 'queued'`);
    const items = Array.from({ length: messages }, (_, i) => receiptItem(i));
    await db.pool.query(
      `INSERT INTO bench_queue (id, account_id, channel, to_address, subject, message, transactional, status)
       SELECT 'msg_' || lpad(n::text, 26, '0'), 'acct_bench', x->>'channel', x->>'to', x->>'subject', x->>'message', true, 'queued'
       FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t(x, n)`,
      [JSON.stringify(items)],
    );
    await db.pool.query('VACUUM (ANALYZE) bench_queue');
    const claim = `WITH c AS (SELECT id FROM bench_queue WHERE status = 'queued' ORDER BY id LIMIT ${BARE_QUEUE_CLAIM} FOR UPDATE SKIP LOCKED),
      u AS (UPDATE bench_queue q SET status = 'sent', attempts = q.attempts + 1, sent_at = now() FROM c WHERE q.id = c.id RETURNING q.id, q.account_id, q.attempts),
      e AS (INSERT INTO bench_plain_events (stream_id, stream_revision, event_id, type, data, metadata)
            SELECT 'message-' || u.id, k.rev, gen_random_uuid(), k.type,
                   jsonb_build_object('id', u.id, 'account_id', u.account_id, 'at', now(), 'attempt', u.attempts, 'provider', 'sandbox'), '{"actor":"dispatcher"}'::jsonb
            FROM u CROSS JOIN (VALUES (1, 'MessageDispatching'), (2, 'MessageSent')) AS k(rev, type) RETURNING 1)
      SELECT (SELECT count(*) FROM u)::int AS n, (SELECT count(*) FROM e)::int AS events`;
    const t = now();
    let sent = 0;
    let events = 0;
    await Promise.all(
      Array.from({ length: BARE_QUEUE_WORKERS }, async () => {
        for (;;) {
          const { rows } = await db.pool.query<{ n: number; events: number }>(claim);
          if (rows[0].n === 0) return;
          sent += rows[0].n;
          events += rows[0].events;
        }
      }),
    );
    const secs = (now() - t) / 1000;
    if (sent !== messages || events !== 2 * messages) throw new Error(`the bare queue sent ${sent} of ${messages} rows with ${events} event rows`);
    return { rate: messages / secs, secs, messages };
  } finally {
    await db.drop();
  }
}

export const dispatchThroughput: Scenario = {
  name: 'dispatch-throughput',
  description: 'bulks accepted as fast as they are, through one engage process to MessageSent (sandbox provider)',
  async run(ctx) {
    const total = Math.ceil(scaled(ctx, 50_000, 10_000) / BULK) * BULK;
    const floor = await pipelineAppendFloor(ctx, Math.min(total, 20_000));
    progress(`baseline: the pipeline's 4 appends per message, appendMany ×1,000, no HTTP/projections: ${Math.round(floor.rate)} messages/s`);
    const bare = await bareQueue(ctx, total);
    progress(`baseline: a bare queue of the same ${total.toLocaleString('en-US')} rows, ${BARE_QUEUE_CLAIM} claimed at a time with SKIP LOCKED, marked sent, two event rows each: ${Math.round(bare.rate)} messages/s`);

    const db = await freshDatabase(ctx.cluster, 'dispatch', 4);
    let engage: ServerChild | undefined;
    try {
      engage = await startEngage(db.url);
      const { url, key } = engage.info;
      const http = client(url);
      const bodies = Array.from({ length: total / BULK }, (_, b) => receiptsBody(b * BULK));
      await resetWalStats(db);
      const t0 = await dbNow(db);
      const start = now();
      const cpu = cpuMeter(engage.pid, db.name);
      const rss = sampleProcess(engage.pid);
      const countersBefore = await dbCounters(db.pool);
      const callsBefore = await statementCalls(db);
      const probe = lagProbe(db, 'messages', MESSAGE_TYPES, url);
      const posts: BulkResult[] = [];
      for (const body of bodies) posts.push(await postBulk(http, key!, body));
      const acceptedAll = (now() - start) / 1000;
      const accepted = posts.reduce((a, p) => a + p.accepted, 0);
      progress(`${accepted.toLocaleString('en-US')} accepted in ${acceptedAll.toFixed(1)} s (bulk p50 ${summarise(posts.map((p) => p.ms)).p50} ms); waiting for dispatch`);
      const deadline = now() + Math.max(120_000, 600_000 * Math.min(1, ctx.scale));
      let queued = await queuedCount(db);
      let lastReport = now();
      // done once none is queued twice in a row (see drained)
      for (let zeros = queued > 0 ? 0 : 1; zeros < 2 && now() < deadline; ) {
        await sleep(1000);
        queued = await queuedCount(db);
        zeros = queued > 0 ? 0 : zeros + 1;
        if (now() - lastReport > 5_000) {
          progress(`${queued.toLocaleString('en-US')} still queued after ${((now() - start) / 1000).toFixed(0)} s`);
          lastReport = now();
        }
      }
      const wall = (now() - start) / 1000;
      const usage = cpu();
      // what each message costs the database in round trips and commits (the probes' own are in it: a few per second)
      const countersAfter = await dbCounters(db.pool);
      const callsAfter = await statementCalls(db);
      const statements = await statementsOf(db);
      const lag = await probe.stop();
      const mem = rss.stop();
      await http.close();
      if (queued > 0) ctx.notes.push(`dispatch-throughput: ${queued} messages still queued at the deadline`);
      const { byType, series } = await pipelineTimeline(db, t0);
      const sent = byType.MessageSent?.n ?? 0;
      const lastSent = byType.MessageSent?.last_s ?? wall;
      const rate = sent / lastSent;
      const sentSteady = steadyRate(series('MessageSent'));
      progress(
        `${sent.toLocaleString('en-US')} sent in ${lastSent.toFixed(1)} s = ${Math.round(rate)} messages/s end to end (steady ${sentSteady}/s); ` +
          `lag p99 ${lag.lag_ms.p99} max ${lag.lag_ms.max} ms; ${cpuLine(usage)}; CPU per message: server ${perUnit(usage.server_cpu_s, sent)} ms, postgres ${perUnit(usage.postgres_cpu_s, sent)} ms`,
      );
      const perMessage = {
        commits: round1((countersAfter.commits - countersBefore.commits) / Math.max(1, sent)),
        ...(callsBefore !== undefined && callsAfter !== undefined ? { statements: round1((callsAfter - callsBefore) / Math.max(1, sent)) } : {}),
      };
      progress(`per message: ${perMessage.commits} commits${perMessage.statements !== undefined ? `, ${perMessage.statements} statements` : ''}`);
      const details = {
        messages: total,
        accepted,
        sent,
        delivered: byType.MessageDelivered?.n ?? 0,
        failed: byType.MessageFailed?.n ?? 0,
        held: byType.MessageHeld?.n ?? 0,
        deferred: byType.MessageDispatchDeferred?.n ?? 0,
        accept_phase_s: round1(acceptedAll),
        accept_rate: Math.round(accepted / acceptedAll),
        bulk_latency_ms: summarise(posts.map((p) => p.ms)),
        last_sent_s: round1(lastSent),
        steady_sent_per_s: sentSteady,
        steady_delivered_per_s: steadyRate(series('MessageDelivered')),
        sent_per_second: series('MessageSent'),
        accepted_per_second: series('MessageAccepted'),
        stages: byType,
        ...usage,
        cpu_per_message: cpuCost(usage, sent),
        database_per_message: perMessage,
        peak_rss_mib: mem.peak_rss_mib,
        config: { DISPATCH_BATCH_SIZE: 500, DISPATCH_CONCURRENCY: 256, SANDBOX_DELIVERY_DELAY_MS: 50, projection_batch: 2000 },
        ...statements,
      };
      // the lag while bulks were still being accepted (HTTP), while their intakes were still appending
      // the messages to the log, and once the last was appended (dispatch only): the backlog counts
      // from the intake's last append, not from the answer to the last bulk (README "The write path")
      const acceptedAtMs = acceptedAll * 1000;
      const appendedAtMs = Math.max(acceptedAtMs, (byType.MessageAccepted?.last_s ?? 0) * 1000);
      const lagOf = (samples: (readonly [number, number])[]) => {
        const v = samples.map(([, ms]) => ms).sort((a, b) => a - b);
        return { samples: v.length, p99: v.length ? percentile(v, 99) : null, max: v.length ? v[v.length - 1] : null };
      };
      const samples = probe.samples();
      const after = samples.filter(([t]) => t > appendedAtMs);
      // from the first sample after the last append at which the read model had applied the bulks' backlog
      const caughtUpAt = after.find(([, ms]) => ms < 1_000)?.[0];
      const lagByPhase = {
        while_accepting: lagOf(samples.filter(([t]) => t <= acceptedAtMs)),
        while_the_intakes_appended: lagOf(samples.filter(([t]) => t > acceptedAtMs && t <= appendedAtMs)),
        intakes_appended_at_ms: Math.round(appendedAtMs),
        after_the_last_append: lagOf(after),
        backlog_applied_after_ms: caughtUpAt === undefined ? null : Math.round(caughtUpAt - appendedAtMs),
        dispatching_once_the_backlog_was_applied: lagOf(caughtUpAt === undefined ? [] : after.filter(([t]) => t >= caughtUpAt)),
      };
      progress(
        `lag p99 while bulks were accepted ${lagByPhase.while_accepting.p99} ms, while their intakes appended (to ${(appendedAtMs / 1000).toFixed(1)} s) ${lagByPhase.while_the_intakes_appended.p99} ms; ` +
          `the backlog applied ${lagByPhase.backlog_applied_after_ms} ms after the last append; then, dispatching only, p99 ${lagByPhase.dispatching_once_the_backlog_was_applied.p99} ms`,
      );
      const lagDetails = { lag_definition: "age (database clock) of the oldest event of the messages projection's types not yet applied; 0 when caught up", sampled_every_ms: 250, ...lag, by_phase: lagByPhase };
      return [
        figure({
          scenario: 'dispatch-throughput',
          name: 'accepted → MessageSent, one process',
          unit: 'messages/s',
          better: 'higher',
          value: rate,
          target: { op: '>=', value: 5_000 },
          baseline: { name: "the pipeline's 4 appends per message (appendMany ×1,000 at known revisions), no HTTP/projections/provider", value: floor.rate },
          details: { ...details, rate_definition: 'MessageSent events / (last MessageSent append − first bulk POST)', baseline_run: floor, bare_queue_run: bare },
        }),
        figure({
          scenario: 'dispatch-throughput',
          name: 'accepted → MessageSent, share of a bare queue',
          unit: '×',
          better: 'higher',
          value: rate / bare.rate,
          target: { op: '>=', value: 0.25 },
          baseline: null,
          details: {
            bare_queue: `the same ${total} rows in one plain table, ${BARE_QUEUE_CLAIM} claimed at a time with SKIP LOCKED by ${BARE_QUEUE_WORKERS} claimers, marked sent, two event rows each, one statement per batch`,
            bare_queue_messages_per_s: Math.round(bare.rate),
            messages_per_s: Math.round(rate),
          },
        }),
        figure({
          scenario: 'dispatch-throughput',
          name: 'messages read model lag p99 (while dispatching)',
          unit: 'ms',
          better: 'lower',
          value: lag.lag_ms.p99,
          target: { op: '<=', value: 1_000 },
          baseline: null,
          details: lagDetails,
        }),
        figure({
          scenario: 'dispatch-throughput',
          name: 'messages read model lag max (while dispatching)',
          unit: 'ms',
          better: 'lower',
          value: lag.lag_ms.max,
          target: { op: '<=', value: 1_000 },
          baseline: null,
        }),
      ];
    } finally {
      await engage?.stop();
      await db.drop();
    }
  },
};

// ─── read-model-cost ─────────────────────────────────────────────────────────────────────────────

/** MessageSent events in the log (what a dispatch run has done, whatever the read models show). */
async function sentCount(db: BenchDatabase): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM es_events WHERE type = 'MessageSent'`);
  return rows[0].n;
}

/** `total` transactional emails in bulks through one fresh engage process: MessageSent per second, first bulk POST → last MessageSent. */
async function dispatchRate(ctx: BenchContext, label: string, total: number, env: Record<string, string>): Promise<number> {
  const db = await freshDatabase(ctx.cluster, label, 4);
  let engage: ServerChild | undefined;
  try {
    engage = await startEngage(db.url, env);
    const http = client(engage.info.url);
    const t0 = await dbNow(db);
    for (let from = 0; from < total; from += BULK) {
      const r = await postBulk(http, engage.info.key!, receiptsBody(from, Math.min(BULK, total - from)));
      if (r.status !== 202) throw new Error(`bulk returned ${r.status}`);
    }
    await http.close();
    const deadline = now() + 600_000;
    while ((await sentCount(db)) < total) {
      if (now() > deadline) throw new Error(`${label}: not every message sent within 600 s`);
      await sleep(250);
    }
    const { byType } = await pipelineTimeline(db, t0);
    return (byType.MessageSent?.n ?? 0) / (byType.MessageSent?.last_s ?? 1);
  } finally {
    await engage?.stop();
    await db.drop();
  }
}

export const readModelCost: Scenario = {
  name: 'read-model-cost',
  description: 'dispatch throughput with one more read model following every message event (a no-op) against without it, in runs off/on/on/off',
  async run(ctx) {
    const total = scaled(ctx, 20_000, 5_000);
    const off: number[] = [];
    const on: number[] = [];
    for (const [i, extra] of [0, 1, 1, 0].entries()) {
      const rate = await dispatchRate(ctx, `rm_cost_${i}`, total, { BENCH_EXTRA_READ_MODELS: String(extra) });
      (extra ? on : off).push(rate);
      progress(`run ${i + 1}/4, ${extra ? 'with' : 'without'} the no-op read model: ${Math.round(rate)} messages/s`);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const cost = Math.max(0, 1 - mean(on) / mean(off)) * 100;
    progress(`one more read model on message events: ${Math.round(mean(off))} → ${Math.round(mean(on))} messages/s (${cost.toFixed(1)}% of dispatch throughput)`);
    return [
      figure({
        scenario: 'read-model-cost',
        name: 'one more read model on message events: dispatch throughput lost',
        unit: '%',
        better: 'lower',
        value: Math.round(cost * 10) / 10,
        target: { op: '<=', value: 5 },
        baseline: null,
        details: { messages_per_run: total, without_per_s: off.map(Math.round), with_per_s: on.map(Math.round), order: 'without, with, with, without' },
      }),
    ];
  },
};

// ─── send-latency ────────────────────────────────────────────────────────────────────────────────

export const sendLatency: Scenario = {
  name: 'send-latency',
  description: 'POST /v1/messages/send at a fixed 300 requests/s (open loop)',
  async run(ctx) {
    const rate = 300;
    const { durationMs, warmupMs } = openLoopTimes(ctx);
    const db = await freshDatabase(ctx.cluster, 'send', 2);
    let engage: ServerChild | undefined;
    let baseline: ServerChild | undefined;
    try {
      baseline = await startBaseline();
      const base = await openLoop({ origin: baseline.info.url, rate, durationMs, warmupMs, expectStatus: 200, request: () => ({ method: 'GET', path: '/baseline' }) });
      progress(`baseline GET /baseline @ ${rate}/s: p50 ${base.latency_ms.p50} p99 ${base.latency_ms.p99} max ${base.latency_ms.max} ms`);
      await baseline.stop();
      baseline = undefined;

      engage = await startEngage(db.url);
      const { url, key } = engage.info;
      const headers = { 'x-api-key': key!, 'content-type': 'application/json' };
      // BENCH_PG_STATS=1: the statements of the measured sends (and their dispatch) only
      await resetStatementStats(db);
      const cpu = cpuMeter(engage.pid, db.name);
      const db0 = await dbCounters(db.pool);
      const r = await openLoop({
        origin: url,
        rate,
        durationMs,
        warmupMs,
        expectStatus: 202,
        request: (i) => ({ method: 'POST', path: '/v1/messages/send', headers, body: JSON.stringify(smsItem(i)) }),
      });
      const usage = cpu();
      const db1 = await dbCounters(db.pool);
      const l = r.latency_ms;
      progress(`POST /v1/messages/send @ ${rate}/s: ${r.ok}/${r.sent} ok, p50 ${l.p50} p90 ${l.p90} p99 ${l.p99} max ${l.max} ms, ${cpuLine(usage)}`);
      const statements = await statementsOf(db);
      if (r.errors) ctx.notes.push(`send-latency: ${r.errors} errors ${JSON.stringify(r.error_kinds)}`);
      // how far the dispatcher kept up meanwhile
      const { rows } = await db.pool.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM message_states GROUP BY status`);
      return [
        figure({
          scenario: 'send-latency',
          name: `POST /v1/messages/send p99 @ ${rate}/s`,
          unit: 'ms',
          better: 'lower',
          value: l.p99,
          target: { op: '<=', value: 30 },
          baseline: { name: `GET /baseline (bare fastify, constant body) @ ${rate}/s`, value: base.latency_ms.p99 },
          details: { ...r, ...usage, cpu_per_message: cpuCost(usage, r.ok + Math.round((rate * warmupMs) / 1000)), database: counterDelta(db0, db1, r.ok + Math.round((rate * warmupMs) / 1000)), statuses_after: Object.fromEntries(rows.map((x) => [x.status, x.n])), workers: 'on', baseline_run: base, ...statements },
        }),
      ];
    } finally {
      await Promise.all([engage?.stop(), baseline?.stop()]);
      await db.drop();
    }
  },
};

// ─── million-rss ─────────────────────────────────────────────────────────────────────────────────

/**
 * How many messages million-rss sends: BENCH_RSS_MESSAGES, else 100,000 × BENCH_SCALE — at the
 * ~600 messages/s one process reaches on 2 shared cores the full million takes ~30 minutes, so the
 * default run sends a tenth and reports RSS against messages sent (the slope) as well.
 */
function rssMessages(ctx: BenchContext): number {
  const given = Number(process.env.BENCH_RSS_MESSAGES);
  const n = Number.isFinite(given) && given > 0 ? given : scaled(ctx, 100_000, 20_000);
  return Math.ceil(n / BULK) * BULK;
}

/** at most this many messages accepted but not yet sent: the run measures a steady pipeline, not a growing backlog */
const MAX_BACKLOG = 50_000;

export const millionRss: Scenario = {
  name: 'million-rss',
  description: 'many messages through the pipeline (bulks, backlog ≤ 50,000): the server’s peak RSS',
  async run(ctx) {
    const total = rssMessages(ctx);
    if (total < 1_000_000) ctx.notes.push(`million-rss: ran ${total.toLocaleString('en-US')} messages (BENCH_RSS_MESSAGES=1000000 for the full million)`);
    const db = await freshDatabase(ctx.cluster, 'million', 2);
    let engage: ServerChild | undefined;
    try {
      engage = await startEngage(db.url);
      const { url, key } = engage.info;
      await sleep(2_000);
      const idle = sampleProcess(engage.pid);
      await sleep(1_000);
      const idleRss = idle.stop().peak_rss_mib;
      const http = client(url);
      const t0 = await dbNow(db);
      const start = now();
      const cpu = cpuMeter(engage.pid, db.name);
      const rss = sampleProcess(engage.pid);
      let accepted = 0;
      let lastReport = now();
      const posts: number[] = [];
      const rssByAccepted: [number, number][] = [];
      for (let from = 0; from < total; from += BULK) {
        // flow control: keep the backlog bounded
        while ((await queuedCount(db)) > MAX_BACKLOG) await sleep(200);
        const r = await postBulk(http, key!, bulkBody(from));
        if (r.status !== 202) throw new Error(`bulk returned ${r.status}`);
        accepted += r.accepted;
        posts.push(r.ms);
        rssByAccepted.push([accepted, rss.samples[rss.samples.length - 1]?.rss_mib ?? NaN]);
        if (now() - lastReport > 10_000) {
          const last = rss.samples[rss.samples.length - 1];
          progress(`${accepted.toLocaleString('en-US')} accepted after ${((now() - start) / 1000).toFixed(0)} s, RSS ${last?.rss_mib} MiB`);
          lastReport = now();
        }
      }
      const deadline = now() + 900_000;
      while ((await queuedCount(db)) > 0 && now() < deadline) await sleep(500);
      const wall = (now() - start) / 1000;
      const usage = cpu();
      const mem = rss.stop();
      await http.close();
      const { byType } = await pipelineTimeline(db, t0);
      const sent = byType.MessageSent?.n ?? 0;
      const rate = sent / (byType.MessageSent?.last_s ?? wall);
      progress(`${sent.toLocaleString('en-US')} sent in ${wall.toFixed(0)} s = ${Math.round(rate)} messages/s; peak RSS ${mem.peak_rss_mib} MiB (idle ${idleRss} MiB); ${cpuLine(usage)}`);
      const series = mem.samples.filter((_, i) => i % 5 === 0).map((s) => [s.t, s.rss_mib]);
      // flat after warm-up: RSS at the end against RSS once a quarter of the messages were accepted,
      // per 100,000 messages in between
      const warm = rssByAccepted.find(([n]) => n >= total / 4) ?? rssByAccepted[0];
      const endRss = mem.samples[mem.samples.length - 1]?.rss_mib ?? NaN;
      const growthPer100k = warm && total > warm[0] ? ((endRss - warm[1]) / (total - warm[0])) * 100_000 : NaN;
      progress(`RSS after warm-up: ${warm?.[1]} MiB at ${warm?.[0].toLocaleString('en-US')} accepted → ${endRss} MiB at the end: ${growthPer100k.toFixed(1)} MiB per 100,000 messages`);
      return [
        figure({
          scenario: 'million-rss',
          name: `RSS growth after warm-up, per 100,000 messages`,
          unit: 'MiB',
          better: 'lower',
          value: Math.round(growthPer100k * 10) / 10,
          target: { op: '<=', value: 10 },
          baseline: null,
          details: {
            definition: 'RSS at the end (everything sent) minus RSS when a quarter of the messages had been accepted, per 100,000 messages in between; ≤ 10 MiB per 100,000 keeps 1,000,000 messages within ~90 MiB of the warm-up level',
            warm_up: { accepted: warm?.[0], rss_mib: warm?.[1] },
            end_rss_mib: endRss,
          },
        }),
        figure({
          scenario: 'million-rss',
          name: `peak RSS, ${total.toLocaleString('en-US')} messages`,
          unit: 'MiB',
          better: 'lower',
          value: mem.peak_rss_mib,
          target: { op: '<=', value: 512 },
          baseline: { name: 'the same server idle after start (before any message)', value: idleRss },
          details: {
            messages: total,
            accepted,
            sent,
            delivered: byType.MessageDelivered?.n ?? 0,
            failed: byType.MessageFailed?.n ?? 0,
            seconds: round1(wall),
            end_rss_mib: mem.samples[mem.samples.length - 1]?.rss_mib,
            rss_series_mib: series,
            rss_mib_by_messages_accepted: rssByAccepted,
            max_backlog: MAX_BACKLOG,
            bulk_latency_ms: summarise(posts),
            ...usage,
            cpu_per_message: cpuCost(usage, sent),
          },
        }),
        figure({
          scenario: 'million-rss',
          name: `throughput over ${total.toLocaleString('en-US')} messages`,
          unit: 'messages/s',
          better: 'higher',
          value: rate,
          target: null,
          baseline: null,
          details: { rate_definition: 'MessageSent events / (last MessageSent append − first bulk POST)' },
        }),
      ];
    } finally {
      await engage?.stop();
      await db.drop();
    }
  },
};

export const messagingScenarios: Scenario[] = [bulkAccept, dispatchThroughput, readModelCost, sendLatency, millionRss];
