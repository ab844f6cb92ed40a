// Tracked events ingestion (issue 12): POST /v1/events in batches of 1,000 over N existing contacts,
// mixed known and unknown (60% by a known email, 20% by a known contact id, 20% by an email nobody
// has yet: a contact created per event), every event with a client id (claimed) and small
// properties (sealed), read-your-writes on (the answer waits for the contacts and contact_events
// read models). The engage server runs as a child (bench/lib/engage-child.ts), rate limits off.
// Baseline, same run: one multi-row INSERT per batch of the same 1,000 event rows into a plain table
// (es_events' columns, no unique key), as many batches in flight as the scenario posts.
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import { cpuCost, cpuLine, cpuMeter, startEngage, type ServerChild } from '../lib/child.ts';
import { freshDatabase, PLAIN_EVENTS_TABLE, resetStatementStats, statementsOf } from '../lib/db.ts';
import { figure, type Figure } from '../lib/report.ts';
import { type BenchContext, type Scenario, scaled } from '../lib/scenario.ts';
import { now, progress, runConcurrent, summarise } from '../lib/stats.ts';

const BATCH = 1000;
/** batches in flight at once (a producer with a few workers) */
const IN_FLIGHT = 4;
const TARGET_EVENTS_PER_S = 10_000;
const NAMES = ['Page Viewed', 'Product Viewed', 'Added To Cart', 'Checkout Started', 'Order Completed', 'Signed In', 'Searched', 'Video Played', 'Coupon Applied', 'Review Written'];
const RUN = Date.now().toString(36);

const knownEmail = (i: number) => `known-${RUN}-${i}@example.com`;

/** Event k of batch b: for a known contact (by email or id) or a new one, with a client id and small properties. */
function event(b: number, k: number, contactIds: readonly string[]) {
  const n = b * BATCH + k;
  const pick = (n * 7919) % contactIds.length;
  const roll = n % 10;
  const contact = roll < 6 ? { email: knownEmail(pick) } : roll < 8 ? { id: contactIds[pick] } : { email: `new-${RUN}-${n}@example.com` };
  return {
    id: `evt-${RUN}-${n}`,
    contact,
    name: NAMES[n % NAMES.length],
    timestamp: new Date(Date.now() - (n % 86_400) * 1000).toISOString(),
    properties: { order_id: `ord_${n}`, total: (n % 500) + 0.99, currency: 'EUR', items: n % 7 },
  };
}

interface Answer {
  ms: number;
  status: number;
  accepted: number;
  failed: number;
  contactIds: string[];
  /** the body of an answer that is not all accepted (for the notes) */
  problem?: string;
}

async function postEvents(http: Pool, key: string, body: string): Promise<Answer> {
  const t = now();
  const res = await http.request({ method: 'POST', path: '/v1/events', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body });
  const text = await res.body.text();
  const ms = now() - t;
  if (res.statusCode !== 200) return { ms, status: res.statusCode, accepted: 0, failed: 0, contactIds: [], problem: text.slice(0, 500) };
  const out = JSON.parse(text) as { accepted: number; failed: number; results: { contact_id?: string }[] };
  return {
    ms, status: res.statusCode, accepted: out.accepted, failed: out.failed, contactIds: out.results.map((r) => r.contact_id ?? ''),
    ...(out.failed ? { problem: text.slice(0, 500) } : {}),
  };
}

/** The same 1,000 rows as one multi-row INSERT into a plain table: what a batch costs the database at least. */
async function baselineRate(ctx: BenchContext, batches: number, contactIds: readonly string[]): Promise<{ events_per_s: number; batch_ms: ReturnType<typeof summarise> }> {
  const db = await freshDatabase(ctx.cluster, 'events_base', IN_FLIGHT);
  try {
    await db.pool.query(PLAIN_EVENTS_TABLE);
    const insert = `INSERT INTO bench_plain_events (stream_id, stream_revision, event_id, type, data, metadata)
      SELECT s, r, gen_random_uuid(), 'EventTracked', d, m FROM jsonb_to_recordset($1::jsonb) AS u(s text, r bigint, d jsonb, m jsonb)`;
    const meta = { schemaVersion: 1, accountId: 'acct_bench', actor: 'key_bench', requestId: 'req_bench', correlationId: 'req_bench', causationId: 'req_bench' };
    const once = (b: number) => {
      const rows = Array.from({ length: BATCH }, (_, k) => {
        const e = event(b, k, contactIds);
        const contactId = 'id' in e.contact ? e.contact.id : `ct_${randomUUID()}`;
        return {
          s: `contact-${contactId}`,
          r: k,
          d: { account_id: 'acct_bench', contact_id: contactId, event_id: e.id, name: e.name, properties: e.properties, timestamp: e.timestamp, received_at: new Date().toISOString() },
          m: meta,
        };
      });
      return db.pool.query(insert, [JSON.stringify(rows)]);
    };
    await once(0);
    const t = now();
    const latencies = await runConcurrent(batches, IN_FLIGHT, (b) => once(b + 1));
    const seconds = (now() - t) / 1000;
    return { events_per_s: Math.round((batches * BATCH) / seconds), batch_ms: summarise(latencies) };
  } finally {
    await db.drop();
  }
}

export const eventsIngest: Scenario = {
  name: 'events-ingest',
  description: `POST /v1/events in batches of ${BATCH.toLocaleString('en-US')} (${IN_FLIGHT} in flight) over existing and new contacts: events/s`,
  async run(ctx): Promise<Figure[]> {
    const contacts = scaled(ctx, 20_000, 1_000);
    const batches = scaled(ctx, 60, 4);
    const db = await freshDatabase(ctx.cluster, 'events_ingest', 2);
    let engage: ServerChild | undefined;
    let http: Pool | undefined;
    const contactIds: string[] = [];
    let measured: { events_per_s: number; batch_ms: ReturnType<typeof summarise>; cpu: Record<string, unknown>; line: string; statements?: unknown[] } | undefined;
    try {
      engage = await startEngage(db.url);
      const { url, key } = engage.info;
      http = new Pool(url, { connections: IN_FLIGHT, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 300_000, bodyTimeout: 300_000 });
      // the existing contacts, made through the same route (unknown emails are created), not measured
      for (let from = 0; from < contacts; from += BATCH) {
        const body = JSON.stringify(Array.from({ length: Math.min(BATCH, contacts - from) }, (_, k) => ({ contact: { email: knownEmail(from + k) }, name: 'Seeded' })));
        const r = await postEvents(http, key!, body);
        if (r.status !== 200 || r.failed) throw new Error(`seeding contacts: ${r.status} ${r.problem}`);
        contactIds.push(...r.contactIds);
      }
      progress(`${contactIds.length.toLocaleString('en-US')} contacts seeded`);
      const bodies = Array.from({ length: batches + 1 }, (_, b) => JSON.stringify(Array.from({ length: BATCH }, (_, k) => event(b, k, contactIds))));
      // warm-up batch (JIT, connections), not counted
      const warm = await postEvents(http, key!, bodies[0]);
      if (warm.status !== 200) throw new Error(`POST /v1/events answered ${warm.status}: ${warm.problem}`);
      // BENCH_PG_STATS=1: the statements of the measured batches only (not the seeding's)
      await resetStatementStats(db);
      const cpu = cpuMeter(engage.pid, db.name);
      const results: Answer[] = [];
      const t = now();
      const latencies = await runConcurrent(batches, IN_FLIGHT, async (b) => {
        const r = await postEvents(http!, key!, bodies[b + 1]);
        results.push(r);
        if (results.length % 10 === 0) progress(`batch ${results.length}/${batches}: ${r.status} in ${Math.round(r.ms)} ms (${r.accepted} accepted, ${r.failed} failed)`);
      });
      const seconds = (now() - t) / 1000;
      const usage = cpu();
      const bad = results.filter((r) => r.status !== 200 || r.accepted !== BATCH);
      if (bad.length) ctx.notes.push(`events-ingest: ${bad.length} batches not fully accepted: ${JSON.stringify(bad.slice(0, 3).map((b) => ({ status: b.status, failed: b.failed, problem: b.problem })))}`);
      const accepted = results.reduce((n, r) => n + r.accepted, 0);
      measured = { events_per_s: Math.round(accepted / seconds), batch_ms: summarise(latencies), cpu: { ...usage, cpu_per_batch: cpuCost(usage, batches) }, line: cpuLine(usage) };
      progress(`${accepted.toLocaleString('en-US')} events in ${seconds.toFixed(1)} s: ${measured.events_per_s} events/s, batch p50 ${measured.batch_ms.p50} ms, ${measured.line}`);
      Object.assign(measured, await statementsOf(db));
    } finally {
      await http?.close();
      await engage?.stop();
      await db.drop();
    }
    if (!measured) throw new Error('events-ingest: nothing measured');
    const base = await baselineRate(ctx, batches, contactIds);
    progress(`baseline: ${base.events_per_s} rows/s (one multi-row INSERT of ${BATCH} rows per batch, ${IN_FLIGHT} in flight)`);
    return [
      figure({
        scenario: 'events-ingest',
        name: `POST /v1/events, batches of ${BATCH.toLocaleString('en-US')} (${IN_FLIGHT} in flight): events/s`,
        unit: 'events/s',
        better: 'higher',
        value: measured.events_per_s,
        target: { op: '>=', value: TARGET_EVENTS_PER_S },
        baseline: { name: `one multi-row INSERT of the same ${BATCH.toLocaleString('en-US')} rows per batch into a plain table, ${IN_FLIGHT} in flight`, value: base.events_per_s },
        details: {
          contacts,
          batches,
          mix: '60% a known email, 20% a known contact id, 20% a new email (a contact created); every event with a client id',
          batch_ms: measured.batch_ms,
          ...measured.cpu,
          baseline_batch_ms: base.batch_ms,
          ...(measured.statements ? { statements: measured.statements } : {}),
        },
      }),
    ];
  },
};
