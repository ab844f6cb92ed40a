// HTTP latency at a fixed request rate (open loop): POST /v1/contacts with read-your-writes and
// GET /v1/contacts, each against a bare fastify route at the same rate. Servers run in child
// processes so the generator does not share their event loop.
import type pg from 'pg';
import { type ServerChild, startProcess } from '../lib/child.ts';
import { freshDatabase, statementsOf } from '../lib/db.ts';
import { benchContact } from '../lib/seed.ts';
import { type LoadResult, openLoop } from '../lib/loadgen.ts';
import { clusterCpuDelta, counterDelta, dbCounters, embeddedPostgresCpu, processCpu } from '../lib/procstat.ts';
import { figure, type Figure } from '../lib/report.ts';
import { type BenchContext, type Scenario, openLoopTimes } from '../lib/scenario.ts';
import { progress, runConcurrent } from '../lib/stats.ts';

type Child = ServerChild;

/** The bench's http server (bench/http-server.ts) in a mode: the real engage server or the bare fastify baseline. */
const startChild = (mode: 'engage' | 'baseline', env: Record<string, string>): Promise<Child> => startProcess(`${mode} server`, 'bench/http-server.ts', [mode], env);

/** whether the cluster is the embedded one, whose backends we can find in /proc */
let ownCluster = false;

async function phase(label: string, child: Child, pool: pg.Pool | undefined, run: () => Promise<LoadResult>) {
  const cpu0 = processCpu(child.proc.pid);
  const pg0 = ownCluster ? embeddedPostgresCpu() : undefined;
  const db0 = pool ? await dbCounters(pool) : undefined;
  const t0 = performance.now();
  const result = await run();
  const wall = (performance.now() - t0) / 1000;
  const cpu1 = processCpu(child.proc.pid);
  const pg1 = ownCluster ? embeddedPostgresCpu() : undefined;
  const db1 = pool ? await dbCounters(pool) : undefined;
  const pct = (a?: number, b?: number) => (a !== undefined && b !== undefined ? Math.round(((b - a) / wall) * 100) : undefined);
  const serverCpu = pct(cpu0, cpu1);
  const pgDelta = clusterCpuDelta(pg0, pg1);
  const postgresCpu = pgDelta === undefined ? undefined : Math.round((pgDelta / wall) * 100);
  const requests = result.fired_with_warmup;
  const l = result.latency_ms;
  progress(
    `${label}: ${result.ok}/${result.sent} ok, ${result.errors} errors, p50 ${l.p50} p90 ${l.p90} p99 ${l.p99} max ${l.max} ms` +
      (serverCpu !== undefined ? `, server CPU ${serverCpu}%` : '') +
      (postgresCpu !== undefined ? `, postgres CPU ${postgresCpu}%` : '') +
      (cpu0 !== undefined && cpu1 !== undefined ? ` (${(((cpu1 - cpu0) * 1000) / Math.max(1, requests)).toFixed(2)} ms server CPU/request)` : ''),
  );
  // CPU per request is steadier than latency on a shared machine: it says what the rate costs
  const perRequest = (seconds?: number) => (seconds === undefined ? undefined : Math.round(((seconds * 1000) / Math.max(1, requests)) * 100) / 100);
  return {
    ...result,
    server_cpu_percent: serverCpu,
    postgres_cpu_percent: postgresCpu,
    server_cpu_ms_per_request: perRequest(cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : undefined),
    postgres_cpu_ms_per_request: perRequest(pgDelta),
    ...(db0 && db1 ? { database: counterDelta(db0, db1, requests) } : {}),
  };
}

type PhaseResult = Awaited<ReturnType<typeof phase>>;

/**
 * A p99 figure of `r` against the bare fastify route run at the same rate (`base`). A latency target
 * is not met by failing requests: any error fails the figure and is noted.
 */
function p99Figure(
  ctx: BenchContext,
  f: { scenario: string; request: string; rate: number; targetMs: number; r: PhaseResult; base: PhaseResult; details: Record<string, unknown> },
): Figure {
  const { scenario, rate, r, base } = f;
  const result = figure({
    scenario,
    name: `${f.request} p99 @ ${rate}/s`,
    unit: 'ms',
    better: 'lower',
    value: r.latency_ms.p99,
    target: { op: '<=', value: f.targetMs },
    baseline: { name: `GET /baseline (bare fastify, constant body) @ ${rate}/s`, value: base.latency_ms.p99 },
    details: { ...r, ...f.details, baseline_run: base },
  });
  if (r.errors) {
    result.pass = false;
    ctx.notes.push(`${scenario}: ${r.errors} errors ${JSON.stringify(r.error_kinds)}`);
  }
  return result;
}

const RUN = Date.now().toString(36);
const contactBody = (i: number) => JSON.stringify(benchContact(RUN, i));

export function httpScenarios(only: (name: string) => boolean): Scenario[] {
  const wantCreate = only('http-create');
  const wantList = only('http-list');
  if (!wantCreate && !wantList) return [];
  return [
    {
      name: wantCreate && wantList ? 'http' : wantCreate ? 'http-create' : 'http-list',
      description: 'POST /v1/contacts at 200 req/s, GET /v1/contacts at 1,000 req/s (open loop)',
      async run(ctx) {
        ctx.notes.push('http: rate limits are OFF (RATE_LIMITS_ENABLED=false): one account\'s 500 requests/min limit would otherwise cap the run');
        ownCluster = ctx.cluster.mode === 'embedded';
        const db = await freshDatabase(ctx.cluster, 'http', 2);
        const { durationMs, warmupMs } = openLoopTimes(ctx);
        let engage: Child | undefined;
        let baseline: Child | undefined;
        const figures: Figure[] = [];
        try {
          engage = await startChild('engage', { DATABASE_URL: db.url });
          baseline = await startChild('baseline', {});
          const { url, key } = engage.info;
          const auth = { 'x-api-key': key! };
          const baseGet = (rate: number) => () =>
            openLoop({ origin: baseline!.info.url, rate, durationMs, warmupMs, expectStatus: 200, request: () => ({ method: 'GET', path: '/baseline' }) });

          let created = 0;
          if (wantCreate) {
            const rate = 200;
            const base = await phase(`baseline GET /baseline @ ${rate}/s`, baseline, undefined, baseGet(rate));
            const r = await phase(`POST /v1/contacts @ ${rate}/s`, engage, db.pool, () =>
              openLoop({
                origin: url,
                rate,
                durationMs,
                warmupMs,
                expectStatus: 201,
                request: (i) => ({ method: 'POST', path: '/v1/contacts', headers: { ...auth, 'content-type': 'application/json' }, body: contactBody(i) }),
              }),
            );
            created = r.ok;
            // read-your-writes: every created contact is in the read model when its POST returns
            const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM contacts`);
            const statements = await statementsOf(db);
            figures.push(p99Figure(ctx, { scenario: 'http-create', request: 'POST /v1/contacts', rate, targetMs: 50, r, base, details: { contacts_in_read_model: rows[0].n, ...statements } }));
          }
          if (wantList) {
            if (created < 100) {
              // the list needs a full page to return: create some contacts first (closed loop, not measured)
              await runConcurrent(500, 16, async (i) => {
                const res = await fetch(`${url}/v1/contacts`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: contactBody(1_000_000 + i) });
                await res.arrayBuffer();
              });
            }
            const rate = 1000;
            const base = await phase(`baseline GET /baseline @ ${rate}/s`, baseline, undefined, baseGet(rate));
            const r = await phase(`GET /v1/contacts @ ${rate}/s`, engage, db.pool, () =>
              openLoop({ origin: url, rate, durationMs, warmupMs, expectStatus: 200, request: () => ({ method: 'GET', path: '/v1/contacts', headers: auth }) }),
            );
            figures.push(p99Figure(ctx, { scenario: 'http-list', request: 'GET /v1/contacts', rate, targetMs: 20, r, base, details: { page_size: 50 } }));
          }
          return figures;
        } finally {
          await Promise.all([engage?.stop(), baseline?.stop()]);
          await db.drop();
        }
      },
    },
  ];
}
