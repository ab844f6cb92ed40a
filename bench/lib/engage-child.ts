// Child process for the messaging and webhook benchmarks: the real engage server (API, projection
// runner and workers, as `engage serve` runs them) with its configuration read from the
// environment the bench gives it (loadConfig(process.env)), plus one fresh account. Logs go to
// stderr; stdout carries one line, BENCH_READY {url, key, account_id, pid}.
//   node .engage/bench-build/bench/lib/engage-child.js (built by bench/lib/child.ts)
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics } from 'node:v8';
import pino from 'pino';
import { createAccount } from '../../src/accounts/service.ts';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { ALL_PROJECTIONS } from '../../projections/index.ts';
import { MESSAGE_EVENT_TYPES } from '../../commands/message.ts';
import type { Projection } from '../../src/read-models/projection.ts';

/**
 * BENCH_EXTRA_READ_MODELS=n: n more read models that follow every message event and do nothing with
 * them (one table each, never written): what one more read model costs the pipeline (read-model-cost).
 */
const extraReadModels = Array.from({ length: Number(process.env.BENCH_EXTRA_READ_MODELS ?? 0) }, (_, i): Projection => ({
  name: `bench_noop_${i}`,
  version: 1,
  tables: [`bench_noop_${i}`],
  schema: (t) => `CREATE TABLE ${t(`bench_noop_${i}`)} (id text PRIMARY KEY)`,
  types: [...MESSAGE_EVENT_TYPES],
  personalData: 'unused',
  apply: async () => undefined,
}));

/**
 * BENCH_WITHOUT_READ_MODELS=a,b: the server runs without these read models (a study of what they
 * cost the pipeline; a worker that reads one of them finds its tables missing or empty).
 */
const without = new Set((process.env.BENCH_WITHOUT_READ_MODELS ?? '').split(',').filter(Boolean));
const projections = [...ALL_PROJECTIONS.filter((p) => !without.has(p.name)), ...extraReadModels];

const config = loadConfig(process.env);
const log = pino({ level: config.LOG_LEVEL }, pino.destination(2));
const server = await startServer({ config, log, projections });
const created = await createAccount(server.engage, { name: 'Bench', email: `bench-${Date.now()}@example.com`, password: 'bench password' });
if (!(await server.engage.runner.waitFor(['auth'], created.position, 10_000))) throw new Error('auth projection did not catch up');
process.stdout.write(`BENCH_READY ${JSON.stringify({ url: server.url, key: created.api_key, account_id: created.account_id, pid: process.pid })}\n`);

// BENCH_MEM_LOG=1: the heap's make-up every 5 s on stderr (where RSS goes)
if (process.env.BENCH_MEM_LOG === '1') {
  const mib = (n: number) => Math.round(n / 2 ** 20);
  setInterval(() => {
    const m = process.memoryUsage();
    // each heap space's committed size (used in brackets): the young generation's semi-spaces, old space, code, large objects
    const spaces = getHeapSpaceStatistics().map((sp) => `${sp.space_name.replace(/_space$/, '')} ${mib(sp.space_size)}(${mib(sp.space_used_size)})`).join(' ');
    process.stderr.write(`  [engage mem] rss ${mib(m.rss)} heapTotal ${mib(m.heapTotal)} heapUsed ${mib(m.heapUsed)} external ${mib(m.external)} arrayBuffers ${mib(m.arrayBuffers)} MiB; ${spaces}\n`);
  }, 5_000).unref();
}

// BENCH_HEAP_PROF=1: what the server allocates, sampled every 16 KiB (objects the collector has freed
// included: garbage is what costs), written as a .heapprofile to bench/results/profiles on stop
const heapSampling = process.env.BENCH_HEAP_PROF === '1' ? new Session() : undefined;
if (heapSampling) {
  heapSampling.connect();
  // (the two include flags are V8's, newer than node's typings of the command)
  await heapSampling.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as { samplingInterval: number });
}

let closing = false;
const shutdown = async () => {
  if (closing) return;
  closing = true;
  if (heapSampling) {
    const { profile } = await heapSampling.post('HeapProfiler.stopSampling');
    const dir = path.resolve(fileURLToPath(import.meta.url), '../../../../../bench/results/profiles');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `engage-${process.pid}-${Date.now()}.heapprofile`), JSON.stringify(profile));
  }
  server.close().then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`engage child: close failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
