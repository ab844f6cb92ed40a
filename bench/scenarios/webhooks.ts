// Outbound webhooks: append → first delivery attempt latency at 500 events/s, and delivery
// throughput to healthy receivers while one receiver is dead. The engage server runs as a child
// (bench/lib/engage-child.ts, WEBHOOK_ALLOW_PRIVATE=true); the receivers (node:http on 127.0.0.1)
// and the event source run here. The retry schedule's exactness is covered by the tests, not here.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { Pool } from 'undici';
import { webhookOutboxProjection } from '../../projections/webhook-outbox.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { NewEvent, RecordedEvent } from '../../src/eventstore/port.ts';
import { createPool } from '../../src/db/pool.ts';
import { cpuCost, cpuLine, cpuMeter, startEngage, type ServerChild } from '../lib/child.ts';
import { freshDatabase } from '../lib/db.ts';
import { lagProbe } from '../lib/probes.ts';
import { contactCreated } from '../lib/events.ts';
import { openLoop } from '../lib/loadgen.ts';
import { figure } from '../lib/report.ts';
import { type BenchContext, type Scenario, openLoopTimes, scaled } from '../lib/scenario.ts';
import { now, percentile, progress, runConcurrent, sleep, summarise } from '../lib/stats.ts';

/** wall-clock time in ms with sub-ms resolution (comparable with the database's clock_timestamp()) */
export const epochMs = () => performance.timeOrigin + performance.now();

// ─── receivers ───────────────────────────────────────────────────────────────────────────────────

export interface Arrival {
  at: number;
  id: string;
  created_at: string;
}

export interface Receiver {
  url: string;
  arrivals: Arrival[];
  close(): Promise<void>;
}

function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      resolve(typeof a === 'object' && a ? a.port : 0);
    });
  });
}

/** A healthy receiver: records when each delivery arrived (and its event id and created_at), answers 204 at once. */
export async function healthyReceiver(): Promise<Receiver> {
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = epochMs();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; created_at: string };
        arrivals.push({ at, id: body.id, created_at: body.created_at });
      } catch {
        /* not a delivery */
      }
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrivals,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A dead receiver: accepts connections and never answers (each attempt runs into WEBHOOK_TIMEOUT_MS). */
async function deadReceiver(): Promise<Receiver & { connections: () => number }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createTcpServer((sock) => {
    accepted++;
    sockets.add(sock);
    sock.on('error', () => undefined);
    sock.on('close', () => sockets.delete(sock));
    sock.resume(); // read and drop the request
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrivals: [],
    connections: () => accepted,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

// ─── engage helpers ──────────────────────────────────────────────────────────────────────────────

export async function createEndpoint(engage: ServerChild, url: string, events: string[]): Promise<string> {
  const res = await fetch(`${engage.info.url}/v1/webhook-endpoints`, {
    method: 'POST',
    headers: { 'x-api-key': engage.info.key!, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events }),
  });
  const body = (await res.json()) as { id?: string };
  if (res.status !== 201 || !body.id) throw new Error(`creating a webhook endpoint: ${res.status} ${JSON.stringify(body)}`);
  return body.id;
}

const RUN = randomBytes(3).toString('hex');

/** ContactCreated for the child's account, as the contacts service appends it (bench/lib/events.ts shape). */
function contactEvent(i: number, accountId: string): { streamId: string; event: NewEvent } {
  const e = contactCreated(i);
  const data = { ...(e.data as Record<string, unknown>), account_id: accountId, id: `ct_01JBENCH${RUN}${String(i).padStart(11, '0')}` };
  return { streamId: `contact-${data.id as string}`, event: { ...e, data, metadata: { ...e.metadata, accountId } } };
}

/** Appends ContactCreated events at a fixed rate (open loop, one append each) for durationMs; returns how many. */
async function appendAtRate(store: PostgresEventStore, accountId: string, rate: number, durationMs: number, offset: number) {
  const total = Math.round((rate * durationMs) / 1000);
  const interval = 1000 / rate;
  const inflight = new Set<Promise<unknown>>();
  const lags: number[] = [];
  let errors = 0;
  const start = now() + 10;
  for (let i = 0; i < total; ) {
    const due = start + i * interval;
    const t = now();
    if (due > t) {
      await sleep(due - t);
      continue;
    }
    lags.push(t - due);
    const { streamId, event } = contactEvent(offset + i, accountId);
    const p = store
      .append(streamId, [event], 'no_stream')
      .catch(() => {
        errors++;
      })
      .finally(() => inflight.delete(p));
    inflight.add(p);
    i++;
  }
  await Promise.all([...inflight]);
  const lag = summarise(lags);
  return { appended: total - errors, errors, send_lag_ms: { p99: lag.p99, max: lag.max } };
}

export async function waitFor(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = now() + timeoutMs;
  while (!cond()) {
    if (now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

const round1 = (v: number) => Math.round(v * 10) / 10;

// ─── webhook-latency ─────────────────────────────────────────────────────────────────────────────

/** The floor of any catch-up consumer: append → a bare subscriber in another pool (LISTEN/NOTIFY wake-up, readAll) at the same rate. */
async function subscriberFloor(ctx: BenchContext, rate: number, durationMs: number) {
  const db = await freshDatabase(ctx.cluster, 'webhook_base', 16);
  const readerPool = createPool(db.url, 4);
  const writer = new PostgresEventStore(db.pool, db.url);
  const reader = new PostgresEventStore(readerPool, db.url);
  try {
    await reader.listen();
    const latencies: number[] = [];
    const foreign = lagProbe(db, '-', []);
    const sub = reader.subscribeToAll({ types: ['ContactCreated'] });
    const consumed = (async () => {
      for await (const e of sub as AsyncIterable<RecordedEvent>) latencies.push(epochMs() - e.createdAt.getTime());
    })();
    const r = await appendAtRate(writer, 'acct_bench', rate, durationMs, 0);
    await waitFor(() => latencies.length >= r.appended, 10_000);
    await sub.stop();
    await consumed;
    const f = await foreign.stop();
    return { ...r, latency_ms: summarise(latencies), oldest_transaction_of_other_databases_ms: f.oldest_transaction_of_other_databases_ms };
  } finally {
    await writer.close();
    await reader.close();
    await readerPool.end();
    await db.drop();
  }
}

export const webhookLatency: Scenario = {
  name: 'webhook-latency',
  description: 'contact.created at 500 events/s: append → arrival at the receiver',
  async run(ctx) {
    const rate = 500;
    const { durationMs, warmupMs } = openLoopTimes(ctx);
    // events appended straight into the event store from here (one append each, open loop), unless
    // BENCH_WEBHOOK_SOURCE=http: POST /v1/contacts into the same server, which on 2 shared cores
    // does not sustain 500 creates/s beside the webhook pipeline (69/s achieved in a trial run)
    const source = process.env.BENCH_WEBHOOK_SOURCE === 'http' ? 'http' : 'append';

    const floor = await subscriberFloor(ctx, rate, durationMs);
    progress(`baseline: append → bare subscriber @ ${rate}/s: p50 ${floor.latency_ms.p50} p99 ${floor.latency_ms.p99} max ${floor.latency_ms.max} ms (oldest transaction of other databases meanwhile: ${floor.oldest_transaction_of_other_databases_ms} ms)`);

    const db = await freshDatabase(ctx.cluster, 'webhook_latency', 16);
    let engage: ServerChild | undefined;
    const receiver = await healthyReceiver();
    const store = new PostgresEventStore(db.pool, db.url);
    try {
      engage = await startEngage(db.url);
      const accountId = engage.info.account_id!;
      await createEndpoint(engage, receiver.url, ['contact.created']);
      const cpu = cpuMeter(engage.pid, db.name);
      // the outbox projection's share: how far behind the log it is while the load runs
      const outboxProbe = lagProbe(db, 'webhook_outbox', webhookOutboxProjection.types);
      let load: Record<string, unknown>;
      let measuredFrom: number;
      let expected: number;
      if (source === 'http') {
        measuredFrom = epochMs() + 20 + warmupMs;
        const headers = { 'x-api-key': engage.info.key!, 'content-type': 'application/json' };
        const r = await openLoop({
          origin: engage.info.url,
          rate,
          durationMs,
          warmupMs,
          expectStatus: 201,
          request: (i) => ({
            method: 'POST',
            path: '/v1/contacts',
            headers,
            body: JSON.stringify({ email: `hook-${RUN}-${i}@example.com`, first_name: 'Ada', last_name: `Lovelace ${i}`, tags: ['bench'] }),
          }),
        });
        progress(`POST /v1/contacts @ ${rate}/s: ${r.ok}/${r.sent} ok (achieved ${r.achieved_rate}/s), p99 ${r.latency_ms.p99} ms`);
        if (r.errors) ctx.notes.push(`webhook-latency: ${r.errors} contact creates failed ${JSON.stringify(r.error_kinds)}`);
        load = { source: 'POST /v1/contacts (open loop)', create: r };
        // creates that succeeded, warm-up included (the receiver sees those too)
        const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM es_events WHERE type = 'ContactCreated'`);
        expected = rows[0].n;
      } else {
        await appendAtRate(store, accountId, rate, warmupMs, 1_000_000);
        measuredFrom = epochMs();
        const r = await appendAtRate(store, accountId, rate, durationMs, 0);
        progress(`appended ${r.appended} ContactCreated @ ${rate}/s (${r.errors} errors)`);
        load = { source: 'PostgresEventStore.append from the bench process, one event each (open loop)', append: r };
        expected = r.appended + Math.round((rate * warmupMs) / 1000);
      }
      const complete = await waitFor(() => receiver.arrivals.length >= expected, 30_000);
      const usage = cpu();
      const outboxLag = await outboxProbe.stop();
      const measured = receiver.arrivals.filter((a) => Date.parse(a.created_at) >= measuredFrom);
      const latencies = measured.map((a) => a.at - Date.parse(a.created_at));
      const lat = summarise(latencies);
      const unique = new Set(receiver.arrivals.map((a) => a.id)).size;
      progress(
        `append → arrival: p50 ${lat.p50} p90 ${lat.p90} p99 ${lat.p99} max ${lat.max} ms over ${lat.count} deliveries ` +
          `(${receiver.arrivals.length}/${expected} arrived${complete ? '' : ', INCOMPLETE'}); outbox lag p50 ${outboxLag.lag_ms.p50} p99 ${outboxLag.lag_ms.p99} ms; ${cpuLine(usage)}`,
      );
      if (!complete) ctx.notes.push(`webhook-latency: only ${receiver.arrivals.length} of ${expected} deliveries arrived within 30 s of the end`);
      return [
        figure({
          scenario: 'webhook-latency',
          name: `append → first delivery attempt p99 @ ${rate} events/s`,
          unit: 'ms',
          better: 'lower',
          value: lat.p99,
          target: { op: '<=', value: 250 },
          baseline: { name: `append → a bare catch-up subscriber (LISTEN/NOTIFY + readAll) in another pool @ ${rate}/s`, value: floor.latency_ms.p99 },
          details: {
            latency_ms: lat,
            latency_definition: 'receiver arrival time − the payload created_at (the event append time, es_events.created_at), same machine clock',
            deliveries_expected: expected,
            deliveries_arrived: receiver.arrivals.length,
            duplicates: receiver.arrivals.length - unique,
            ...load,
            outbox_lag: outboxLag,
            ...usage,
            baseline_run: floor,
          },
        }),
      ];
    } finally {
      await engage?.stop();
      await store.close();
      await receiver.close();
      await db.drop();
    }
  },
};

// ─── webhook-throughput ──────────────────────────────────────────────────────────────────────────

const HEALTHY = 4;

/** The floor: bare undici POSTs of delivery-sized bodies to the same receivers, 32 at a time each (the sender's per-host limit). */
async function postFloor(receivers: Receiver[], total: number, body: string) {
  const pools = receivers.map((r) => new Pool(new URL(r.url).origin, { connections: 32, pipelining: 1 }));
  try {
    const t = now();
    await runConcurrent(total, 32 * receivers.length, async (i) => {
      const p = pools[i % pools.length];
      const res = await p.request({ method: 'POST', path: '/hook', headers: { 'content-type': 'application/json' }, body });
      await res.body.dump();
    });
    const secs = (now() - t) / 1000;
    return { requests: total, seconds: round1(secs), rate: total / secs };
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
}

export const webhookThroughput: Scenario = {
  name: 'webhook-throughput',
  description: `deliveries/s to ${HEALTHY} healthy receivers while a 5th (dead) endpoint never answers`,
  async run(ctx) {
    const events = scaled(ctx, 15_000, 2_000);
    const expected = events * HEALTHY;
    const db = await freshDatabase(ctx.cluster, 'webhook_throughput', 4);
    const healthy = await Promise.all(Array.from({ length: HEALTHY }, () => healthyReceiver()));
    const dead = await deadReceiver();
    const store = new PostgresEventStore(db.pool, db.url);
    let engage: ServerChild | undefined;
    try {
      // the floor first, with nothing else running
      const sample = contactEvent(0, 'acct_bench');
      const sampleBody = JSON.stringify({ id: 'evt_x', type: 'contact.created', created_at: new Date().toISOString(), account_id: 'acct_bench', data: sample.event.data });
      const floor = await postFloor(healthy, Math.min(expected, 20_000), sampleBody);
      for (const r of healthy) r.arrivals.length = 0;
      progress(`baseline: bare POSTs to ${HEALTHY} receivers, 32 concurrent each: ${Math.round(floor.rate)} requests/s`);

      engage = await startEngage(db.url);
      const accountId = engage.info.account_id!;
      const endpointIds = [];
      for (const r of healthy) endpointIds.push(await createEndpoint(engage, r.url, []));
      const deadId = await createEndpoint(engage, dead.url, []);
      const cpu = cpuMeter(engage.pid, db.name);
      const benchCpu0 = process.cpuUsage();
      const t = now();
      for (let from = 0; from < events; from += 1000) {
        const batch = Array.from({ length: Math.min(1000, events - from) }, (_, k) => contactEvent(from + k, accountId));
        await store.appendMany(batch.map((b) => ({ streamId: b.streamId, events: [b.event], expected: 'no_stream' as const })));
      }
      const appendSecs = (now() - t) / 1000;
      progress(`appended ${events.toLocaleString('en-US')} ContactCreated in ${appendSecs.toFixed(1)} s; ${expected.toLocaleString('en-US')} healthy deliveries due`);
      const count = () => healthy.reduce((a, r) => a + r.arrivals.length, 0);
      const timeoutMs = Math.max(120_000, Math.round(300_000 * Math.min(1, ctx.scale)));
      let lastReport = now();
      const complete = await waitFor(() => {
        if (now() - lastReport > 10_000) {
          progress(`${count().toLocaleString('en-US')} / ${expected.toLocaleString('en-US')} delivered after ${((now() - t) / 1000).toFixed(0)} s`);
          lastReport = now();
        }
        return count() >= expected;
      }, timeoutMs);
      const usage = cpu();
      const bench = process.cpuUsage(benchCpu0);
      const wall = (now() - t) / 1000;
      const all = healthy.flatMap((r) => r.arrivals).sort((a, b) => a.at - b.at);
      const first = all[0]?.at ?? 0;
      const last = all[all.length - 1]?.at ?? 0;
      const rate = all.length / ((last - first) / 1000);
      const perSecond = new Map<number, number>();
      for (const a of all) perSecond.set(Math.floor((a.at - first) / 1000), (perSecond.get(Math.floor((a.at - first) / 1000)) ?? 0) + 1);
      const series = [...perSecond.entries()].sort((a, b) => a[0] - b[0]);
      const inner = series.slice(1, -1).map(([, n]) => n).sort((a, b) => a - b);
      const unique = healthy.reduce((a, r) => a + new Set(r.arrivals.map((x) => x.id)).size, 0);
      const { rows: statuses } = await db.pool.query<{ endpoint_id: string; status: string; n: number; attempts: number }>(
        `SELECT endpoint_id, status, count(*)::int AS n, sum(attempts)::int AS attempts FROM webhook_deliveries GROUP BY 1, 2 ORDER BY 1, 2`,
      );
      const { rows: dbRate } = await db.pool.query<{ n: number; secs: number }>(
        `SELECT count(*)::int AS n, extract(epoch FROM max(delivered_at) - min(delivered_at))::float8 AS secs FROM webhook_deliveries
         WHERE status = 'delivered' AND endpoint_id <> $1`,
        [deadId],
      );
      progress(
        `${all.length.toLocaleString('en-US')} healthy deliveries in ${((last - first) / 1000).toFixed(1)} s = ${Math.round(rate)}/s (steady ${inner.length ? percentile(inner, 50) : '-'}/s)` +
          `${complete ? '' : ' INCOMPLETE'}; dead receiver: ${dead.connections()} connections; ${cpuLine(usage)}; CPU per delivery: ${JSON.stringify(cpuCost(usage, all.length))}`,
      );
      if (!complete) ctx.notes.push(`webhook-throughput: ${all.length} of ${expected} healthy deliveries arrived within ${timeoutMs / 1000} s`);
      return [
        figure({
          scenario: 'webhook-throughput',
          name: `deliveries to ${HEALTHY} healthy receivers, 1 dead`,
          unit: 'deliveries/s',
          better: 'higher',
          value: rate,
          target: { op: '>=', value: 2_000 },
          baseline: { name: `bare undici POSTs of a delivery body to the same ${HEALTHY} receivers, 32 concurrent each`, value: floor.rate },
          details: {
            events,
            deliveries_expected: expected,
            deliveries_arrived: all.length,
            duplicates: all.length - unique,
            complete,
            rate_definition: 'healthy arrivals / (last arrival − first arrival), receiver clock',
            steady_per_s: inner.length ? percentile(inner, 50) : null,
            per_second: series,
            from_table: { delivered: dbRate[0]?.n, rate: dbRate[0]?.secs ? Math.round(dbRate[0].n / dbRate[0].secs) : null },
            append_seconds: round1(appendSecs),
            wall_seconds: round1(wall),
            dead_endpoint: { id: deadId, connections_accepted: dead.connections() },
            delivery_rows: statuses.map((s) => ({ endpoint: s.endpoint_id === deadId ? 'dead' : s.endpoint_id, status: s.status, rows: s.n, attempts: s.attempts })),
            ...usage,
            cpu_per_delivery: cpuCost(usage, all.length),
            bench_process_cpu_percent: Math.round(((bench.user + bench.system) / 1e6 / wall) * 100),
            config: { WEBHOOK_CONCURRENCY: 256, WEBHOOK_PER_HOST_CONCURRENCY: 32, WEBHOOK_TIMEOUT_MS: 10_000 },
            baseline_run: floor,
          },
        }),
      ];
    } finally {
      await engage?.stop();
      await store.close();
      await Promise.all([...healthy.map((r) => r.close()), dead.close()]);
      await db.drop();
    }
  },
};

export const webhookScenarios: Scenario[] = [webhookLatency, webhookThroughput];
