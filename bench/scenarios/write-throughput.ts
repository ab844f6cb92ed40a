// Write throughput (issue 11): POST /v1/contacts and POST /v1/messages/send with read-your-writes on
// and rate limits off, closed loop with 16 connections, through the real CLI as `engage serve` (one
// process) and `engage serve --processes 2` (two API processes, one for the read models and
// workers), against a bare fastify route doing one INSERT of the same contact row into a plain table
// of the same database (bench/http-server.ts insert), measured in the same run.
import type pg from 'pg';
import { type ServerChild, startEngageServe, startInsertBaseline, databaseBackendsCpu } from '../lib/child.ts';
import { type BenchDatabase, freshDatabase, resetStatementStats, statementsOf } from '../lib/db.ts';
import { type ClosedLoopResult, closedLoop, type RequestSpec } from '../lib/loadgen.ts';
import { counterDelta, dbCounters, processTreeCpu } from '../lib/procstat.ts';
import { figure, type Figure } from '../lib/report.ts';
import { type BenchContext, type Scenario, scaled } from '../lib/scenario.ts';
import { benchContact } from '../lib/seed.ts';
import { progress, sleep } from '../lib/stats.ts';

const CONNECTIONS = 16;
const P99_TARGET_MS = 50;
/** engage must reach at least this share of the baseline's requests per second */
const SHARE_OF_BASELINE = 0.5;

const RUN = Date.now().toString(36);

/** The contact every request posts (i makes the email unique): the same row engage and the baseline write. */
const contact = (i: number) => benchContact(`wt-${RUN}`, i);

/**
 * A marketing SMS to recipient i: +1 415 NXX XXXX, distinct for every i of a run, so the daily
 * marketing cap (2 per recipient) never holds one back.
 */
const sms = (i: number) => ({
  to: `+1415${200 + Math.floor(i / 10_000)}${String(i % 10_000).padStart(4, '0')}`,
  channel: 'sms',
  message: `Hi! Your order ${i} has shipped. Track it in the app. Reply STOP to opt out.`,
});

const json = (headers: Record<string, string>, path: string, body: unknown): RequestSpec => ({
  method: 'POST',
  path,
  headers: { ...headers, 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

interface Measured extends ClosedLoopResult {
  /** with BENCH_PG_STATS=1: the phase's statements by total time */
  statements?: Awaited<ReturnType<typeof statementsOf>>['statements'];
  /** CPU of the server's processes (the primary and its children) and of the database's backends, percent of one core */
  server_cpu_percent?: number;
  postgres_cpu_percent: number;
  server_cpu_ms_per_request?: number;
  postgres_cpu_ms_per_request: number;
  database: Record<string, number>;
}

/** One closed-loop phase with what it cost: the server's process tree, the database's backends, its counters. */
async function phase(label: string, server: ServerChild, db: BenchDatabase, run: () => Promise<ClosedLoopResult>): Promise<Measured> {
  const cpu0 = processTreeCpu(server.pid);
  const pg0 = databaseBackendsCpu(db.name);
  const counters0 = await dbCounters(db.pool);
  await resetStatementStats(db);
  const t0 = performance.now();
  const r = await run();
  const wall = (performance.now() - t0) / 1000;
  const cpu1 = processTreeCpu(server.pid);
  const pgCpu = databaseBackendsCpu(db.name) - pg0;
  const counters1 = await dbCounters(db.pool);
  // the costs cover the warm-up too: per request of the whole phase
  const requests = Math.max(1, Math.round(r.completed * (wall / r.duration_s)));
  const serverCpu = cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : undefined;
  const measured: Measured = {
    ...r,
    server_cpu_percent: serverCpu === undefined ? undefined : Math.round((serverCpu / wall) * 100),
    postgres_cpu_percent: Math.round((pgCpu / wall) * 100),
    server_cpu_ms_per_request: serverCpu === undefined ? undefined : Math.round(((serverCpu * 1000) / requests) * 100) / 100,
    postgres_cpu_ms_per_request: Math.round(((pgCpu * 1000) / requests) * 100) / 100,
    database: counterDelta(counters0, counters1, requests),
    ...(await statementsOf(db)),
  };
  const l = r.latency_ms;
  progress(
    `${label}: ${r.rate} req/s (${r.ok} ok, ${r.errors} errors), p50 ${l.p50} p99 ${l.p99} max ${l.max} ms, ` +
      `server CPU ${measured.server_cpu_percent ?? '?'}%, postgres CPU ${measured.postgres_cpu_percent}%`,
  );
  return measured;
}

/** The req/s and p99 figures of one engage run of one request against the baseline. */
function figures(ctx: BenchContext, request: string, processes: number, r: Measured, base: Measured, details: Record<string, unknown>): Figure[] {
  const scenario = 'write-throughput';
  const where = processes === 1 ? '1 process' : `--processes ${processes}`;
  const baseName = `POST /insert (bare fastify, one INSERT into a plain table), ${CONNECTIONS} connections`;
  const all = { ...r, ...details, processes, baseline_run: base };
  const rate = figure({
    scenario,
    name: `${request} req/s, ${CONNECTIONS} connections (${where})`,
    unit: 'req/s',
    better: 'higher',
    value: r.rate,
    target: { op: '>=', value: Math.round(base.rate * SHARE_OF_BASELINE) },
    baseline: { name: `${baseName}: req/s`, value: base.rate },
    details: all,
  });
  const p99 = figure({
    scenario,
    name: `${request} p99, ${CONNECTIONS} connections (${where})`,
    unit: 'ms',
    better: 'lower',
    value: r.latency_ms.p99,
    target: { op: '<=', value: P99_TARGET_MS },
    baseline: { name: `${baseName}: p99`, value: base.latency_ms.p99 },
    details: { p50_ms: r.latency_ms.p50, req_per_s: r.rate, processes },
  });
  // a target is not met by failing requests
  if (r.errors) {
    rate.pass = false;
    p99.pass = false;
    ctx.notes.push(`write-throughput: ${request} (${where}): ${r.errors} errors ${JSON.stringify(r.error_kinds)}`);
  }
  return [rate, p99];
}

/** Waits until the printed key answers (the auth read model has it), so no measured request meets a 401. */
async function untilKeyWorks(url: string, key: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${url}/v1/account/me`, { headers: { 'x-api-key': key } });
    await res.arrayBuffer();
    if (res.status === 200) return;
    if (Date.now() > deadline) throw new Error(`the printed API key still answers ${res.status} after 30 s`);
    await sleep(100);
  }
}

async function count(pool: pg.Pool, table: string): Promise<number> {
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0].n;
}

export const writeThroughput: Scenario = {
  name: 'write-throughput',
  description: `POST /v1/contacts and POST /v1/messages/send, closed loop with ${CONNECTIONS} connections, 1 process and --processes 2, against one INSERT per request`,
  async run(ctx) {
    ctx.notes.push('write-throughput: rate limits are OFF (RATE_LIMITS_ENABLED=false): one account\'s limits would otherwise cap the run');
    const durationMs = scaled(ctx, 15_000, 3_000);
    const warmupMs = scaled(ctx, 2_000, 1_000);
    const load = (origin: string, expectStatus: number, request: (i: number) => RequestSpec) => () =>
      closedLoop({ origin, connections: CONNECTIONS, durationMs, warmupMs, expectStatus, request });
    const out: Figure[] = [];
    // one database per engage run, each starting from an empty log; the baseline writes into the first
    const databases: BenchDatabase[] = [];
    let server: ServerChild | undefined;
    try {
      const first = await freshDatabase(ctx.cluster, 'write_throughput', 2);
      databases.push(first);
      server = await startInsertBaseline(first.url);
      const base = await phase(`baseline POST /insert, ${CONNECTIONS} connections`, server, first, load(server.info.url, 201, (i) => json({}, '/insert', contact(i))));
      await server.stop();
      server = undefined;

      for (const processes of (process.env.BENCH_WT_PROCESSES ?? '1,2').split(',').map(Number)) {
        const db = processes === 1 ? first : await freshDatabase(ctx.cluster, 'write_throughput', 2);
        if (db !== first) databases.push(db);
        server = await startEngageServe(db.url, processes);
        const { url, key } = server.info;
        await untilKeyWorks(url, key!);
        const auth = { 'x-api-key': key! };
        const where = processes === 1 ? '1 process' : `--processes ${processes}`;

        const contacts = await phase(`POST /v1/contacts (${where})`, server, db, load(url, 201, (i) => json(auth, '/v1/contacts', contact(i))));
        out.push(...figures(ctx, 'POST /v1/contacts', processes, contacts, base, { contacts_in_read_model: await count(db.pool, 'contacts') }));

        const sends = await phase(`POST /v1/messages/send (${where})`, server, db, load(url, 202, (i) => json(auth, '/v1/messages/send', sms(i))));
        out.push(...figures(ctx, 'POST /v1/messages/send', processes, sends, base, { messages_in_read_model: await count(db.pool, 'messages') }));
        await server.stop();
        server = undefined;
      }
      return out;
    } finally {
      await server?.stop();
      for (const db of databases) await db.drop();
    }
  },
};
