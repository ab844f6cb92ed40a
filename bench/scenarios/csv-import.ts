// csv-import: 1,000,000 contact rows (email, names, phone, country, tags; generated as a stream,
// never whole in memory) uploaded as a text/csv body to a real engage server child (API, read
// models and workers in one process, bench/lib/engage-child.ts), from the first byte sent to the
// import's `completed` (GET /v1/contacts/imports/:id polled), with the server's RSS sampled every
// 250 ms throughout. Baseline in the same run: COPY of the same rows, from the same stream, into a
// plain table of the contacts read model's columns (no key, no index).
import { readdirSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { Pool } from 'undici';
import { recipient } from './messaging.ts';
import { sampleProcess, startEngage, type ServerChild } from '../lib/child.ts';
import { processCpu } from '../lib/procstat.ts';
import { freshDatabase, resetWalStats, statementsOf } from '../lib/db.ts';
import { figure, type Figure } from '../lib/report.ts';
import { type BenchContext, type Scenario, scaled } from '../lib/scenario.ts';
import { now, progress, sleep } from '../lib/stats.ts';

const ROWS = 1_000_000;
const TARGET_SECONDS = 90;
const TARGET_RSS_MIB = 300;
const HEADER = 'email,first_name,last_name,phone,country,tags\n';
const COUNTRIES = ['US', 'FR', 'GB', 'DE', 'ES'];

/** Row i of the file (one line). Phones are valid US numbers (bench/scenarios/messaging.ts recipient). */
const row = (i: number) => `person-${i}@example.com,First${i},Last ${i % 997},${recipient(i)},${COUNTRIES[i % COUNTRIES.length]},"customer,cohort-${i % 12}"\n`;

/** CPU seconds (user + system) of a process and its parent's id, from /proc; undefined once it is gone. */
function cpuOf(pid: number): { ppid: number; cpu: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(') ') + 2).split(' ');
    return { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / 100 };
  } catch {
    return undefined;
  }
}

/**
 * The CPU seconds the database cluster's processes (the postmaster of `backendPid` and every child
 * of it) use from now on, sampled every second so that a backend which exits keeps what it used:
 * with the server's own CPU, where the import's cost is spent whatever else the machine runs. Local
 * clusters only (undefined otherwise).
 */
function sampleClusterCpu(backendPid: number) {
  const postmaster = cpuOf(backendPid)?.ppid;
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const take = () => {
    if (!postmaster) return;
    for (const name of readdirSync('/proc')) {
      const pid = Number(name);
      if (!Number.isInteger(pid)) continue;
      const s = cpuOf(pid);
      if (!s || (s.ppid !== postmaster && pid !== postmaster)) continue;
      if (!first.has(pid)) first.set(pid, started ? 0 : s.cpu);
      last.set(pid, s.cpu);
    }
  };
  let started = false;
  take();
  started = true;
  const timer = setInterval(take, 1000);
  return {
    stop(): number | undefined {
      clearInterval(timer);
      take();
      if (!postmaster) return undefined;
      let total = 0;
      for (const [pid, cpu] of last) total += cpu - (first.get(pid) ?? 0);
      return Math.round(total * 10) / 10;
    },
  };
}

/** The file as a stream of ~256 KiB pieces, made as they are read. */
function csvStream(rows: number): Readable {
  return Readable.from(
    (function* () {
      yield HEADER;
      let piece = '';
      for (let i = 0; i < rows; i++) {
        piece += row(i);
        if (piece.length >= 256 * 1024) {
          yield piece;
          piece = '';
        }
      }
      if (piece) yield piece;
    })(),
    { objectMode: false },
  );
}

async function copyBaseline(ctx: BenchContext, rows: number): Promise<{ seconds: number; rows_per_s: number }> {
  const db = await freshDatabase(ctx.cluster, 'csv_import_copy', 2);
  try {
    await db.pool.query(`CREATE TABLE bench_plain_contacts (email text, first_name text, last_name text, phone text, country text, tags text)`);
    const client = await db.pool.connect();
    try {
      const t = now();
      await pipeline(csvStream(rows), client.query(copyFrom('COPY bench_plain_contacts FROM STDIN (FORMAT csv, HEADER true)')));
      const seconds = (now() - t) / 1000;
      return { seconds: Math.round(seconds * 100) / 100, rows_per_s: Math.round(rows / seconds) };
    } finally {
      client.release();
    }
  } finally {
    await db.drop();
  }
}

export const csvImport: Scenario = {
  name: 'csv-import',
  description: `POST /v1/contacts/import of ${ROWS.toLocaleString('en-US')} rows (text/csv, streamed) → completed, server RSS sampled`,
  async run(ctx) {
    const rows = scaled(ctx, ROWS, 1000);
    const base = await copyBaseline(ctx, rows);
    progress(`baseline COPY of ${rows} rows: ${base.seconds} s (${base.rows_per_s} rows/s)`);

    const db = await freshDatabase(ctx.cluster, 'csv_import', 2);
    let engage: ServerChild | undefined;
    try {
      engage = await startEngage(db.url);
      const { url, key } = engage.info;
      const http = new Pool(url, { connections: 2, headersTimeout: 600_000, bodyTimeout: 600_000 });
      const backendPid = (await db.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const clusterCpu = sampleClusterCpu(backendPid);
      const serverCpu0 = processCpu(engage.pid) ?? 0;
      await resetWalStats(db);
      const rss = sampleProcess(engage.pid, 250);
      const t0 = now();
      const res = await http.request({ method: 'POST', path: '/v1/contacts/import?file_name=bench.csv', headers: { 'x-api-key': key!, 'content-type': 'text/csv' }, body: csvStream(rows) });
      const accepted = JSON.parse(await res.body.text()) as { id: string; rows_total: number };
      const acceptedS = (now() - t0) / 1000;
      if (res.statusCode !== 202) throw new Error(`import answered ${res.statusCode}: ${JSON.stringify(accepted)}`);
      progress(`202 after ${acceptedS.toFixed(1)} s (${accepted.rows_total} rows stored)`);
      let last: { status: string; rows_imported: number; rows_updated: number; rows_failed: number } | undefined;
      for (;;) {
        const r = await http.request({ method: 'GET', path: `/v1/contacts/imports/${accepted.id}`, headers: { 'x-api-key': key! } });
        last = JSON.parse(await r.body.text());
        if (last!.status === 'completed' || last!.status === 'failed') break;
        if (now() - t0 > 30 * 60_000) throw new Error('the import did not end within 30 minutes');
        progress(`${last!.status}: ${last!.rows_imported} imported after ${((now() - t0) / 1000).toFixed(1)} s, RSS ${rss.samples.at(-1)?.rss_mib ?? '?'} MiB`);
        await sleep(1000);
      }
      const seconds = (now() - t0) / 1000;
      const memory = rss.stop();
      const cpu = { server_cpu_s: Math.round(((processCpu(engage.pid) ?? 0) - serverCpu0) * 10) / 10, database_cpu_s: clusterCpu.stop() };
      await http.close();
      if (last!.status !== 'completed' || last!.rows_imported !== rows) ctx.notes.push(`csv-import: the import ended ${last!.status} with ${JSON.stringify(last)}`);
      const rate = Math.round(rows / seconds);
      progress(`completed after ${seconds.toFixed(1)} s (${rate} rows/s), peak RSS ${memory.peak_rss_mib} MiB`);
      // CPU per row: what the import costs whatever else the machine runs (wall time is noisy on a shared one)
      const perRow = (s: number | undefined) => (s === undefined ? '?' : ((s / rows) * 1e6).toFixed(0));
      progress(`CPU: server ${cpu.server_cpu_s} s (${perRow(cpu.server_cpu_s)} µs/row), database ${cpu.database_cpu_s ?? '?'} s (${perRow(cpu.database_cpu_s)} µs/row)`);
      const statements = await statementsOf(db);
      const details = { ...statements, rows, seconds_to_202: Math.round(acceptedS * 100) / 100, seconds_to_completed: Math.round(seconds * 100) / 100, final: last, ...cpu, columns: HEADER.trim(), rss_samples: memory.samples };
      const figures: Figure[] = [
        figure({
          scenario: 'csv-import',
          name: 'rows/s, first byte → completed',
          unit: 'rows/s',
          better: 'higher',
          value: rate,
          // 1,000,000 rows in 90 s
          target: { op: '>=', value: Math.ceil(ROWS / TARGET_SECONDS) },
          baseline: { name: 'COPY of the same rows into a plain table', value: base.rows_per_s },
          details: { ...details, baseline: base },
        }),
        figure({
          scenario: 'csv-import',
          name: 'server peak RSS during the import',
          unit: 'MiB',
          better: 'lower',
          value: memory.peak_rss_mib,
          target: { op: '<=', value: TARGET_RSS_MIB },
          baseline: memory.samples.length ? { name: 'the server before the upload', value: memory.samples[0].rss_mib } : null,
        }),
      ];
      if (rows === ROWS) {
        figures.push(
          figure({ scenario: 'csv-import', name: 'seconds to completed (1,000,000 rows)', unit: 's', better: 'lower', value: Math.round(seconds * 10) / 10, target: { op: '<=', value: TARGET_SECONDS }, baseline: { name: 'COPY', value: base.seconds } }),
        );
      }
      return figures;
    } finally {
      await engage?.stop();
      await db.drop();
    }
  },
};
