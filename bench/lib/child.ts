// Server child processes for the messaging, webhook and write-throughput scenarios: the real engage
// server (bench/lib/engage-child.ts) with a given environment, the real CLI (`engage serve
// --processes n`), the bare fastify baselines (bench/http-server.ts baseline | insert), and a
// once-a-second sampler of a process's RSS and CPU.
//
// The server children run as plain JavaScript, built once per bench run (tsconfig.bench.json, into
// .engage/bench-build), the way production runs the service (npm start, start:prod and the Docker
// image run dist/): not through tsx, whose loader costs every isolate (the main thread and each CPU
// work thread) tens of MiB and would be measured as the service's own.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../../src/db/embedded.ts';
import { withServiceFlags } from '../../src/node-flags.ts';
import { processCpu } from './procstat.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../..');

export interface ServerChild {
  proc: ChildProcess;
  pid: number;
  info: { url: string; key?: string; account_id?: string };
  stop(): Promise<void>;
}

/** The settings every messaging/webhook scenario runs engage with (the brief's), before per-scenario overrides. */
export const ENGAGE_BENCH_ENV: Record<string, string> = {
  LOG_LEVEL: 'warn',
  PORT: '0',
  HOST: '127.0.0.1',
  RATE_LIMITS_ENABLED: 'false',
  QUIET_HOURS: 'off',
  SANDBOX_DELIVERY_DELAY_MS: '50',
  WEBHOOK_ALLOW_PRIVATE: 'true',
};

/** BENCH_CPU_PROF=1: a child's node flags for a CPU profile in bench/results/profiles (processes it forks inherit them). */
const cpuProfArgs = () => (process.env.BENCH_CPU_PROF === '1' ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ROOT, 'bench/results/profiles')}`] : []);

const BUILD_DIR = path.join(ROOT, '.engage', 'bench-build');
let build: Promise<void> | undefined;

/** The bench's build of the service and its server children (once per bench run: a few seconds). */
function built(script: string): Promise<string> {
  build ??= promisify(execFile)(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.bench.json'], { cwd: ROOT }).then(() => undefined);
  return build.then(() => path.join(BUILD_DIR, script.replace(/\.ts$/, '.js')));
}

/** A server child (a TypeScript file of the bench, run from its build) that prints `BENCH_READY {…}` on stdout once it listens. */
export async function startProcess(label: string, script: string, args: string[], env: Record<string, string>): Promise<ServerChild> {
  const proc = spawn(process.execPath, [...withServiceFlags(cpuProfArgs()), await built(script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout! });
  const info = await new Promise<ServerChild['info']>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not start within 60 s`)), 60_000);
    proc.once('exit', (code) => reject(new Error(`${label} exited with ${code} before it was ready`)));
    lines.on('line', (line) => {
      if (!line.startsWith('BENCH_READY ')) {
        // keep draining stdout (a full pipe would block the child); show what it says
        process.stderr.write(`  [${label}] ${line}\n`);
        return;
      }
      clearTimeout(timer);
      resolve(JSON.parse(line.slice('BENCH_READY '.length)));
    });
  });
  return {
    proc,
    pid: proc.pid!,
    info,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = once(proc, 'exit');
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The engage server on `databaseUrl` with ENGAGE_BENCH_ENV and `overrides`. */
export function startEngage(databaseUrl: string, overrides: Record<string, string> = {}): Promise<ServerChild> {
  return startProcess('engage', 'bench/lib/engage-child.ts', [], { ...ENGAGE_BENCH_ENV, DATABASE_URL: databaseUrl, ...overrides });
}

/** The bare fastify route the http scenarios use as their baseline (GET /baseline). */
export function startBaseline(): Promise<ServerChild> {
  return startProcess('baseline', 'bench/http-server.ts', ['baseline'], {});
}

/** The bare fastify route doing one INSERT of the posted contact into a plain table (POST /insert), on `databaseUrl`. */
export function startInsertBaseline(databaseUrl: string): Promise<ServerChild> {
  return startProcess('insert baseline', 'bench/http-server.ts', ['insert'], { DATABASE_URL: databaseUrl });
}

/**
 * The real CLI, `engage serve --processes <n>` (src/main.ts, from the bench's build), on an empty
 * database with ENGAGE_BENCH_ENV and `overrides`. On an empty database it creates an account and prints its key
 * once every process listens: that line is the ready signal, and the key the one to load it with.
 * `pid` is the primary's (with its children under it when n > 1).
 */
export async function startEngageServe(databaseUrl: string, processes: number, overrides: Record<string, string> = {}): Promise<ServerChild> {
  const port = await freePort();
  const proc = spawn(process.execPath, [...withServiceFlags(cpuProfArgs()), await built('src/main.ts'), 'serve', '--port', String(port), '--processes', String(processes)], {
    cwd: ROOT,
    env: { ...process.env, ...ENGAGE_BENCH_ENV, DATABASE_URL: databaseUrl, ...overrides },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const label = `engage serve --processes ${processes}`;
  const lines = createInterface({ input: proc.stdout! });
  const key = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not start within 120 s`)), 120_000);
    proc.once('exit', (code) => reject(new Error(`${label} exited with ${code} before it was ready`)));
    lines.on('line', (line) => {
      const printed = /API key:\s+(ek_live_\S+)/.exec(line)?.[1];
      if (printed) {
        clearTimeout(timer);
        resolve(printed);
      }
      // the rest of the first-start banner is not shown; anything else is (and stdout keeps draining)
      else if (!/^\s*$|First start|account:|dashboard:|More accounts/.test(line)) process.stderr.write(`  [engage] ${line}\n`);
    });
  });
  return {
    proc,
    pid: proc.pid!,
    info: { url: `http://127.0.0.1:${port}`, key },
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = once(proc, 'exit');
      proc.kill('SIGTERM');
      // the primary gives its children 30 s to close
      const timer = setTimeout(() => proc.kill('SIGKILL'), 40_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resident set size of a process in bytes (Linux /proc), or undefined when it is gone. */
export function processRss(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface ProcSample {
  /** seconds since the sampler started */
  t: number;
  rss_mib: number;
  /** CPU share over the last interval, percent of one core */
  cpu_percent: number;
}

/** Samples a process's RSS and CPU every `intervalMs` until stop(). */
export function sampleProcess(pid: number, intervalMs = 1000) {
  const samples: ProcSample[] = [];
  const t0 = performance.now();
  let lastCpu = processCpu(pid) ?? 0;
  let lastT = t0;
  const take = () => {
    const rss = processRss(pid);
    const cpu = processCpu(pid);
    const t = performance.now();
    if (rss === undefined || cpu === undefined) return;
    samples.push({
      t: Math.round((t - t0) / 100) / 10,
      rss_mib: Math.round((rss / 2 ** 20) * 10) / 10,
      cpu_percent: Math.round(((cpu - lastCpu) / ((t - lastT) / 1000)) * 100),
    });
    lastCpu = cpu;
    lastT = t;
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    samples,
    stop() {
      clearInterval(timer);
      take();
      const peak = samples.reduce((m, s) => Math.max(m, s.rss_mib), 0);
      return { samples, peak_rss_mib: peak };
    },
  };
}

/**
 * CPU seconds used so far by the Postgres backends serving one database (found by their process
 * title, `postgres: … <dbname> …`), on any local cluster. Backends that exited are not counted,
 * so take deltas over phases in which the pools keep their connections.
 */
export function databaseBackendsCpu(dbName: string): number {
  let total = 0;
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmd.startsWith('postgres:') || !cmd.includes(` ${dbName} `)) continue;
    total += processCpu(pid) ?? 0;
  }
  return total;
}

/** Nanoseconds a thread has spent running and waiting for a CPU (Linux /proc/<pid>/task/<tid>/schedstat). */
function schedstat(pid: number, tid = pid): { run: number; wait: number } | undefined {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
    return { run, wait };
  } catch {
    return undefined;
  }
}

/**
 * CPU use of the server child and of its database's backends over a phase: shares (percent of one
 * core), CPU seconds, and how long the server's main thread (its event loop) waited for a CPU while
 * runnable — on a busy machine that wait, not the code, is where much of a latency goes.
 */
export function cpuMeter(pid: number, dbName: string) {
  const t0 = performance.now();
  const s0 = processCpu(pid) ?? 0;
  const d0 = databaseBackendsCpu(dbName);
  const q0 = schedstat(pid);
  return () => {
    const secs = (performance.now() - t0) / 1000;
    const server = (processCpu(pid) ?? s0) - s0;
    const postgres = databaseBackendsCpu(dbName) - d0;
    const q1 = schedstat(pid);
    return {
      server_cpu_percent: Math.round((server / secs) * 100),
      postgres_cpu_percent: Math.round((postgres / secs) * 100),
      server_cpu_s: Math.round(server * 100) / 100,
      postgres_cpu_s: Math.round(postgres * 100) / 100,
      ...(q0 && q1 ? { server_main_thread_runqueue_wait_percent: Math.round(((q1.wait - q0.wait) / 1e9 / secs) * 100) } : {}),
    };
  };
}

export type CpuUsage = ReturnType<ReturnType<typeof cpuMeter>>;

export const perUnit = (cpuSeconds: number, units: number) => (units > 0 ? Math.round((cpuSeconds * 1000 * 1000) / units) / 1000 : NaN);

export function cpuLine(u: CpuUsage): string {
  return `server CPU ${u.server_cpu_percent}% (its event loop waited for a CPU ${u.server_main_thread_runqueue_wait_percent ?? '?'}% of the time), postgres CPU ${u.postgres_cpu_percent}%`;
}

/** CPU milliseconds per unit of work and the rate two dedicated cores could sustain at that cost (server single-threaded). */
export function cpuCost(u: CpuUsage, units: number) {
  const server = perUnit(u.server_cpu_s, units);
  const postgres = perUnit(u.postgres_cpu_s, units);
  return {
    server_cpu_ms_per_unit: server,
    postgres_cpu_ms_per_unit: postgres,
    cpu_bound_ceiling_per_s_on_2_idle_cores: Math.round(1000 / Math.max(server, (server + postgres) / 2)),
  };
}
