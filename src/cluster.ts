// `engage serve --processes N` on node:cluster. The primary resolves the database once (starting the
// embedded Postgres when DATABASE_URL is unset) and migrates it, forks one child that keeps the read
// models and runs the background workers (what `engage worker` runs) and N API children sharing one
// port, creates the first account, holds the API children's rate-limit counters when there is no
// Redis, restarts a child that dies, and on SIGINT/SIGTERM stops the children, then the embedded
// Postgres. Children are told their role and the database through their environment.
import cluster, { type Worker } from 'node:cluster';
import pino, { type Logger } from 'pino';
import { loadConfig } from './config.ts';
import { type Engage, openEngage, resolveDatabase } from './context.ts';
import { freePort } from './db/embedded.ts';
import { withServiceFlags } from './node-flags.ts';
import { answerCounterRequests, ClusterCounters } from './http/plugins/cluster-counters.ts';
import { MemoryCounters } from './http/plugins/rate-limit.ts';
import { bootstrapFirstAccount, startServer } from './server.ts';
import { doublingDelay } from './sleep.ts';
import { startWorkers } from './workers/index.ts';

type Role = 'api' | 'worker';

const ROLE_ENV = 'ENGAGE_CLUSTER_ROLE';
/** the port every API child listens on */
const PORT_ENV = 'ENGAGE_CLUSTER_PORT';
const READY = 'engage:ready';

/** A child that ran this long before dying starts its restarts from the first, shortest backoff again. */
const HEALTHY_AFTER_MS = 60_000;
const RESTART_FIRST_MS = 250;
const RESTART_MAX_MS = 10_000;
/** how long a child may take to finish its requests and close after SIGTERM before it is killed */
const STOP_TIMEOUT_MS = 30_000;

interface ReadyMessage {
  type: typeof READY;
}

/** One place in the cluster (the worker, or API child i), kept across restarts of its process. */
interface Slot {
  role: Role;
  name: string;
  worker?: Worker;
  startedAt: number;
  failures: number;
}

export async function serveProcesses(options: { processes: number; port?: number }): Promise<void> {
  if (cluster.isWorker) return runChild(process.env[ROLE_ENV] as Role);
  return runPrimary(options);
}

// ─── the children ────────────────────────────────────────────────────────────────────────────────

async function runChild(role: Role): Promise<void> {
  const config = loadConfig();
  if (role === 'worker') {
    const engage = await openEngage({ config, runProjections: true, announceCheckpoints: true });
    const workers = await startWorkers(engage);
    stopOnSignal(async () => {
      await workers.stop();
      await engage.close();
    });
    engage.log.info({ pid: process.pid }, 'engage worker process running');
    tellPrimary({ type: READY });
    return;
  }
  if (role !== 'api') throw new Error(`${ROLE_ENV} must be api or worker, not ${String(role)}`);
  const server = await startServer({
    config,
    port: Number(process.env[PORT_ENV]),
    // the read models and the workers run in the worker child; a write's response waits for its
    // checkpoint announcements (ProjectionRunner.follow)
    runProjections: false,
    workers: false,
    // without Redis, the counters live in the primary: one budget per account across the API children
    counters: config.REDIS_URL ? undefined : new ClusterCounters(),
  });
  stopOnSignal(() => server.close());
  server.engage.log.info({ pid: process.pid, url: server.url }, 'engage API process listening');
  tellPrimary({ type: READY });
}

function tellPrimary(message: ReadyMessage) {
  process.send?.(message);
}

/**
 * SIGTERM (from the primary) or SIGINT (Ctrl-C reaches the whole process group) closes the child
 * once: a second signal while it closes must not kill it half way.
 */
function stopOnSignal(close: () => Promise<void>) {
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`engage: closing failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

// ─── the primary ─────────────────────────────────────────────────────────────────────────────────

async function runPrimary(options: { processes: number; port?: number }): Promise<void> {
  const config = loadConfig();
  const log = pino({ level: config.LOG_LEVEL });
  const { url, embedded } = await resolveDatabase(config, log);
  // opening migrates: once here, before any child starts (the children then find nothing to do)
  let engage: Engage | undefined = await openEngage({ config: { ...config, DATABASE_URL: url }, log, runProjections: false });
  const counters = config.REDIS_URL ? undefined : new MemoryCounters();
  // every API child must ask for the same port to share the primary's socket (a child asking for port
  // 0 after another got a port would bind a second socket): port 0 is resolved to a free one here
  const port = (options.port ?? config.PORT) || (await freePort());
  let stopping = false;
  let started = false;
  const slots: Slot[] = [
    { role: 'worker', name: 'worker', startedAt: 0, failures: 0 },
    ...Array.from({ length: options.processes }, (_, i): Slot => ({ role: 'api', name: `api ${i + 1}`, startedAt: 0, failures: 0 })),
  ];
  const restarts = new Set<NodeJS.Timeout>();
  // every child runs with the service's V8 flags, however the primary was started (src/node-flags.ts)
  cluster.setupPrimary({ execArgv: withServiceFlags(process.execArgv) });

  /** Forks the slot's process; resolves once it is ready, rejects if it exits before. */
  const fork = (slot: Slot): Promise<ReadyMessage> => {
    const worker = cluster.fork({ [ROLE_ENV]: slot.role, [PORT_ENV]: String(port), DATABASE_URL: url });
    slot.worker = worker;
    slot.startedAt = Date.now();
    if (slot.role === 'api' && counters) answerCounterRequests(worker, counters);
    worker.once('exit', (code, signal) => exited(slot, worker, code, signal));
    return new Promise((resolve, reject) => {
      const onMessage = (m: unknown) => {
        if ((m as ReadyMessage | null)?.type !== READY) return;
        worker.off('message', onMessage);
        resolve(m as ReadyMessage);
      };
      worker.on('message', onMessage);
      worker.once('exit', (code, signal) => reject(new Error(`the ${slot.name} process exited (code ${code}, signal ${signal}) before it was ready`)));
    });
  };

  const exited = (slot: Slot, worker: Worker, code: number | null, signal: string | null) => {
    if (slot.worker === worker) slot.worker = undefined;
    // before the start is complete, a dying child fails the start (a port in use, a bad setting):
    // restarting it forever would hide that
    if (stopping || !started) return;
    slot.failures = Date.now() - slot.startedAt > HEALTHY_AFTER_MS ? 1 : slot.failures + 1;
    const delayMs = doublingDelay(slot.failures, RESTART_FIRST_MS, RESTART_MAX_MS);
    log.warn({ process: slot.name, pid: worker.process.pid, code, signal, restart_in_ms: delayMs }, 'engage child process exited; restarting it');
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (stopping) return;
      fork(slot).then(
        () => log.info({ process: slot.name, pid: slot.worker?.process.pid }, 'engage child process restarted'),
        // its exit is handled (and restarted again, with a longer wait) like any other
        () => undefined,
      );
    }, delayMs);
    restarts.add(timer);
  };

  const stop = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down');
    for (const t of restarts) clearTimeout(t);
    // the API first, so the writes it finishes still see the read models advance
    await Promise.all(slots.filter((s) => s.role === 'api').map((s) => stopChild(s, log)));
    await Promise.all(slots.filter((s) => s.role === 'worker').map((s) => stopChild(s, log)));
    await engage?.close().catch(() => undefined);
    // after the children: they hold connections to it until they exit
    await embedded?.stop();
    process.exit(exitCode);
  };
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));

  try {
    // the worker child first: it creates the read models' tables before the API children need them
    await fork(slots[0]);
    await Promise.all(slots.slice(1).map(fork));
    started = true;
  } catch (err) {
    log.error({ err }, 'engage could not start its processes');
    await stop(1);
    return;
  }
  // once, here, never in every API child
  await bootstrapFirstAccount(engage, (l) => process.stdout.write(`${l}\n`));
  // the primary needs no database connections of its own from here on
  const opened = engage;
  engage = undefined;
  await opened.close();
  const base = `http://127.0.0.1:${port}`;
  log.info({ url: base, docs: `${base}/docs`, processes: { api: options.processes, worker: 1 } }, 'engage is listening');
}

/** SIGTERM, then SIGKILL if the child has not exited within STOP_TIMEOUT_MS. */
async function stopChild(slot: Slot, log: Logger): Promise<void> {
  const worker = slot.worker;
  if (!worker || worker.isDead()) return;
  const gone = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // a signal, not worker.kill(): that would disconnect the IPC channel first, and an API child still
  // finishing its requests asks the primary for rate-limit counts over it
  worker.process.kill('SIGTERM');
  const timer = setTimeout(() => {
    log.warn({ process: slot.name, pid: worker.process.pid }, `engage child process did not stop within ${STOP_TIMEOUT_MS / 1000} s; killing it`);
    worker.process.kill('SIGKILL');
  }, STOP_TIMEOUT_MS);
  await gone;
  clearTimeout(timer);
}
