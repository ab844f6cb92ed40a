// `npm run bench`: runs the benchmark scenarios against a fresh database each, prints a table and
// writes bench/results/<timestamp>.json and bench/results/latest.json.
//   npm run bench -- bulk-accept send-latency   run only these scenarios (or BENCH_ONLY=a,b)
//   BENCH_SCALE=0.1                         shrink workloads and durations
//   DATABASE_URL=postgres://…               use this cluster instead of the embedded one
//   BENCH_KEEP_DB=1                         keep the scenario databases for inspection
//   BENCH_CPU_PROF=1                        --cpu-prof the HTTP server child (bench/results/profiles)
//   BENCH_DIAGNOSTICS=1                     also time a rebuild that builds its indexes after the replay
//   BENCH_PG_STATS=1                        the embedded cluster with pg_stat_statements: statements by time
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCluster } from './lib/db.ts';
import { type Figure, renderTable, writeResults } from './lib/report.ts';
import type { BenchContext, Scenario } from './lib/scenario.ts';
import { appendBatch, appendSingle } from './scenarios/append.ts';
import { archiveRebuild } from './scenarios/archive-rebuild.ts';
import { campaignPersonalised, campaignScenario } from './scenarios/campaign.ts';
import { catchupRead } from './scenarios/catchup.ts';
import { eventsIngest } from './scenarios/events.ts';
import { csvImport } from './scenarios/csv-import.ts';
import { httpScenarios } from './scenarios/http.ts';
import { personalDataScenario } from './scenarios/personal-data.ts';
import { projectionRebuild } from './scenarios/rebuild.ts';
import { messagingScenarios } from './scenarios/messaging.ts';
import { segmentCount } from './scenarios/segments.ts';
import { streamSnapshots } from './scenarios/snapshots.ts';
import { logScale } from './scenarios/log-scale.ts';
import { logMigration } from './scenarios/log-migration.ts';
import { webhookScenarios } from './scenarios/webhooks.ts';
import { webhookReplay } from './scenarios/webhook-replay.ts';
import { writeThroughput } from './scenarios/write-throughput.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const KNOWN = ['append-single', 'append-batch', 'catchup-read', 'projection-rebuild', 'personal-data', 'http-create', 'http-list'];
KNOWN.push(...messagingScenarios.map((s) => s.name), ...webhookScenarios.map((s) => s.name), webhookReplay.name);
KNOWN.push(writeThroughput.name, campaignScenario.name, campaignPersonalised.name, segmentCount.name, eventsIngest.name, csvImport.name, streamSnapshots.name, logScale.name, logMigration.name, archiveRebuild.name);

/** The scenarios asked for: `npm run bench -- <scenario> …` and/or BENCH_ONLY=a,b (none: all). */
function parseOnly(): (name: string) => boolean {
  const names = [...process.argv.slice(2), ...(process.env.BENCH_ONLY ?? '').split(',')].map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) return () => true;
  const expanded = names.flatMap((n) => (n === 'http' ? ['http-create', 'http-list'] : [n]));
  const unknown = expanded.filter((n) => !KNOWN.includes(n));
  if (unknown.length) throw new Error(`bench: unknown scenario ${unknown.join(', ')} (known: ${KNOWN.join(', ')}, http)`);
  return (name) => expanded.includes(name);
}

/** The code measured: commit and any uncommitted files (the tree may be dirty while work is in progress). */
function codeVersion(): { commit: string | null; dirty_files: string[] } {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: path.join(here, '..'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trimEnd();
  try {
    const dirty = git('status', '--porcelain', '--untracked-files=no').split('\n').filter(Boolean).map((l) => l.slice(3));
    return { commit: git('rev-parse', 'HEAD'), dirty_files: dirty };
  } catch {
    return { commit: null, dirty_files: [] };
  }
}

async function main() {
  const startedAt = new Date();
  const code = codeVersion();
  const scale = Number(process.env.BENCH_SCALE ?? '1');
  if (!Number.isFinite(scale) || scale <= 0) throw new Error(`BENCH_SCALE must be a positive number, not ${process.env.BENCH_SCALE}`);
  const only = parseOnly();
  const scenarios: Scenario[] = [appendSingle, appendBatch, catchupRead, projectionRebuild, personalDataScenario].filter((s) => only(s.name));
  scenarios.push(...httpScenarios(only));
  scenarios.push(...[...messagingScenarios, ...webhookScenarios, webhookReplay].filter((s) => only(s.name)));
  if (only(writeThroughput.name)) scenarios.push(writeThroughput);
  if (only(campaignScenario.name)) scenarios.push(campaignScenario);
  if (only(campaignPersonalised.name)) scenarios.push(campaignPersonalised);
  if (only(segmentCount.name)) scenarios.push(segmentCount);
  if (only(eventsIngest.name)) scenarios.push(eventsIngest);
  if (only(csvImport.name)) scenarios.push(csvImport);
  if (only(streamSnapshots.name)) scenarios.push(streamSnapshots);
  // these grow logs of ten million events and more (minutes each): only when named
  const named = (s: Scenario) => [...process.argv.slice(2), ...(process.env.BENCH_ONLY ?? '').split(',')].some((n) => n.trim() === s.name);
  if (named(logScale)) scenarios.push(logScale);
  if (named(logMigration)) scenarios.push(logMigration);
  if (named(archiveRebuild)) scenarios.push(archiveRebuild);

  const cluster = await openCluster();
  const ctx: BenchContext = { cluster, scale, notes: [] };
  const machine = {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model,
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadavg_at_start: os.loadavg().map((v) => Math.round(v * 100) / 100),
  };
  process.stderr.write(
    `engage bench: ${scenarios.map((s) => s.name).join(', ')} | scale ${scale} | Postgres ${cluster.serverVersion} (${cluster.mode}) | ${machine.cpus} CPUs, load ${machine.loadavg_at_start.join(' ')}\n`,
  );

  const figures: Figure[] = [];
  const runs: Record<string, { seconds: number; loadavg_before: number[]; loadavg_after?: number[]; error?: string }> = {};
  const load = () => os.loadavg().map((v) => Math.round(v * 100) / 100);
  try {
    for (const s of scenarios) {
      const loadavg_before = load();
      process.stderr.write(`\n▸ ${s.name}: ${s.description} (load ${loadavg_before.join(' ')})\n`);
      if (loadavg_before[0] > machine.cpus) process.stderr.write(`  ! the machine is busy (1-min load ${loadavg_before[0]} on ${machine.cpus} CPUs): figures will be low and noisy\n`);
      const t = performance.now();
      try {
        figures.push(...(await s.run(ctx)));
        runs[s.name] = { seconds: Math.round((performance.now() - t) / 100) / 10, loadavg_before, loadavg_after: load() };
      } catch (err) {
        const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
        process.stderr.write(`  ✗ ${s.name} failed: ${message}\n`);
        runs[s.name] = { seconds: Math.round((performance.now() - t) / 100) / 10, loadavg_before, loadavg_after: load(), error: message };
      }
      // the scenario's own load shows in the 1-minute average after it; the 5- and 15-minute ones say
      // more about what else ran
      process.stderr.write(`  ${s.name}: ${runs[s.name].seconds} s, load before ${loadavg_before.join(' ')} → after ${runs[s.name].loadavg_after!.join(' ')}\n`);
    }
  } finally {
    await cluster.stop();
  }

  const finishedAt = new Date();
  process.stdout.write(`\n${renderTable(figures)}\n`);
  process.stdout.write('\n× base: slowdown against the baseline measured in the same run (baseline/value for rates, value/baseline for latencies).\n');
  for (const n of ctx.notes) process.stdout.write(`note: ${n}\n`);
  const failed = Object.entries(runs).filter(([, r]) => r.error);
  for (const [name] of failed) process.stdout.write(`error: scenario ${name} did not finish (see the log above)\n`);

  const file = writeResults(
    path.join(here, 'results'),
    {
      started_at: startedAt.toISOString(),
      finished_at: finishedAt.toISOString(),
      duration_s: Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000),
      scale,
      only: process.env.BENCH_ONLY ?? null,
      machine,
      code,
      postgres: { mode: cluster.mode, version: cluster.serverVersion, settings: cluster.settings },
      ratio_meaning: 'slowdown against the baseline: baseline/value for rates, value/baseline for latencies (1 = as fast as the baseline)',
      scenarios: runs,
      figures,
      notes: ctx.notes,
    },
    startedAt,
  );
  process.stdout.write(`\n${figures.filter((f) => f.pass === true).length}/${figures.filter((f) => f.pass !== null).length} targets met · ${Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000)} s · results: ${path.relative(process.cwd(), file)}\n`);
  if (failed.length) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
