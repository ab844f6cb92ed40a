// The benchmark's Postgres: DATABASE_URL when set, else the embedded cluster under ./.engage/bench,
// and a fresh database per scenario so no scenario sees another's rows.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { migrate } from '../../src/schema.ts';
import { createPool } from '../../src/db/pool.ts';
import { progress } from './stats.ts';

export interface Cluster {
  mode: 'external' | 'embedded';
  adminUrl: string;
  serverVersion: string;
  settings: Record<string, string>;
  stop(): Promise<void>;
}

export const EMBEDDED_DATA_DIR = './.engage/bench';

/**
 * A cluster left running (an earlier run stopped before it could stop it) is reused as it is, with
 * the settings it was started with: a run that asked for others (BENCH_PG_SHARED_BUFFERS,
 * BENCH_PG_SETTINGS, BENCH_PG_STATS) would measure without them. It stops instead.
 */
async function refuseIgnoredFlags(client: pg.Client, flags: readonly string[]): Promise<void> {
  const norm = (v: string) => v.toLowerCase().replace(/\s+/g, '');
  for (let i = 0; i + 1 < flags.length; i += 2) {
    const at = flags[i + 1].indexOf('=');
    const [name, wanted] = [flags[i + 1].slice(0, at), flags[i + 1].slice(at + 1)];
    const { rows } = await client.query<{ v: string | null }>('SELECT current_setting($1, true) AS v', [name]);
    const has = rows[0]?.v ?? '(unset)';
    if (norm(has) !== norm(wanted)) {
      throw new Error(`bench: the embedded cluster in ${EMBEDDED_DATA_DIR} was already running (left by an earlier run?) with ${name}=${has}, not ${wanted}: stop it (its postmaster.pid names the process) and run again`);
    }
  }
}

export async function openCluster(): Promise<Cluster> {
  let adminUrl = process.env.DATABASE_URL;
  let stop: () => Promise<void> = async () => undefined;
  let mode: Cluster['mode'] = 'external';
  let serverFlags: string[] = [];
  let reused = false;
  if (!adminUrl) {
    // BENCH_PG_STATS=1: the statements' time per scenario, from pg_stat_statements (statementStats)
    serverFlags = process.env.BENCH_PG_STATS === '1' ? ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all', '-c', 'pg_stat_statements.track_planning=on'] : [];
    // BENCH_PG_SHARED_BUFFERS=4GB: a host whose cache is sized for its log (README "The log at scale")
    if (process.env.BENCH_PG_SHARED_BUFFERS) serverFlags.push('-c', `shared_buffers=${process.env.BENCH_PG_SHARED_BUFFERS}`);
    // BENCH_PG_SETTINGS=wal_compression=lz4,max_wal_size=4GB: any other server settings, for a run that asks what they change
    for (const setting of (process.env.BENCH_PG_SETTINGS ?? '').split(',').filter(Boolean)) serverFlags.push('-c', setting.trim());
    const embedded = await startEmbeddedPostgres({ dataDir: EMBEDDED_DATA_DIR, database: 'postgres', serverFlags });
    adminUrl = embedded.connectionString;
    stop = embedded.stop;
    reused = !embedded.started;
    mode = 'embedded';
  }
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; setting: string; unit: string | null }>(
      `SELECT name, setting, unit FROM pg_settings
       WHERE name IN ('server_version', 'shared_buffers', 'fsync', 'synchronous_commit', 'max_connections', 'work_mem', 'jit', 'wal_compression', 'max_wal_size')`,
    );
    const settings = Object.fromEntries(rows.map((r) => [r.name, r.unit ? `${r.setting} (${r.unit})` : r.setting]));
    if (reused) await refuseIgnoredFlags(client, serverFlags);
    return { mode, adminUrl, serverVersion: settings.server_version ?? '?', settings, stop };
  } finally {
    await client.end();
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export interface BenchDatabase {
  url: string;
  name: string;
  /** a pool of `max` connections on the fresh database, migrated */
  pool: pg.Pool;
  drop(): Promise<void>;
}

/** Creates and migrates an empty database for one scenario; drop() removes it (unless BENCH_KEEP_DB=1). */
export async function freshDatabase(cluster: Cluster, label: string, poolSize = 20): Promise<BenchDatabase> {
  const name = `engage_bench_${label.replace(/[^a-z0-9]/g, '_')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: cluster.adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(cluster.adminUrl, name);
  const pool = createPool(url, poolSize);
  await migrate(pool);
  return {
    url,
    name,
    pool,
    async drop() {
      await pool.end().catch(() => undefined);
      if (process.env.BENCH_KEEP_DB === '1') return;
      const c = new pg.Client({ connectionString: cluster.adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * A plain table with the columns of es_events and nothing else (no unique key, no extra index, no
 * trigger): copied from the migrated event store (src/eventstore/postgres.ts), so it cannot drift.
 * Run on a database from freshDatabase (migrated).
 */
export const PLAIN_EVENTS_TABLE = `
CREATE TABLE IF NOT EXISTS bench_plain_events (
  LIKE es_events INCLUDING DEFAULTS INCLUDING IDENTITY,
  PRIMARY KEY (global_position)
);`;

export interface StatementStat {
  query: string;
  calls: number;
  total_ms: number;
  /** planning time (pg_stat_statements.track_planning): a statement planned on every call shows it here */
  plan_ms: number;
  mean_ms: number;
  rows: number;
  /** the WAL it wrote (pg_stat_statements.wal_bytes), MiB */
  wal_mib: number;
  share: number;
  toplevel: boolean;
}

/**
 * With BENCH_PG_STATS=1: the statements run in this scenario's database by total execution time
 * (pg_stat_statements, track=all, so statements inside functions count on their own too). Empty
 * when the extension is not loaded.
 */
export async function statementStats(db: BenchDatabase, top = 15): Promise<StatementStat[]> {
  if (process.env.BENCH_PG_STATS !== '1') return [];
  try {
    await db.pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    // share: of the time of the statements the clients sent (a function's inner statements are in
    // its caller's time as well as listed on their own, toplevel false)
    const { rows } = await db.pool.query<{ query: string; calls: string; total: number; plan: number; rows: string; all_total: number; toplevel: boolean; wal: string }>(
      `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 600) AS query, calls, total_exec_time AS total, total_plan_time AS plan, rows, toplevel, wal_bytes::text AS wal,
              sum(total_exec_time + total_plan_time) FILTER (WHERE toplevel) OVER () AS all_total
         FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        ORDER BY total_exec_time + total_plan_time DESC LIMIT $1`,
      [top],
    );
    return rows.map((r) => ({
      query: r.query,
      calls: Number(r.calls),
      total_ms: Math.round(r.total),
      plan_ms: Math.round(r.plan),
      mean_ms: Math.round((r.total / Number(r.calls)) * 1000) / 1000,
      rows: Number(r.rows),
      wal_mib: Math.round(Number(r.wal) / 104857.6) / 10,
      share: Math.round(((r.total + r.plan) / r.all_total) * 1000) / 1000,
      toplevel: r.toplevel,
    }));
  } catch {
    return [];
  }
}

/**
 * With BENCH_PG_STATS=1: how many statements the clients sent to this scenario's database so far
 * (top-level only; a function's inner statements are not counted again). Undefined without the extension.
 */
export async function statementCalls(db: BenchDatabase): Promise<number | undefined> {
  if (process.env.BENCH_PG_STATS !== '1') return undefined;
  return (await statementTotals(db))?.calls;
}

/**
 * With BENCH_PG_STATS=1: the statements the clients sent to this database, all together (top-level
 * only): calls, time executing and time planning (a statement sent unprepared is planned on every
 * call). Undefined without the extension.
 */
async function statementTotals(db: BenchDatabase): Promise<{ calls: number; exec_ms: number; plan_ms: number } | undefined> {
  try {
    await db.pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const { rows } = await db.pool.query<{ calls: string | null; exec: number | null; plan: number | null }>(
      `SELECT sum(calls)::text AS calls, sum(total_exec_time) AS exec, sum(total_plan_time) AS plan
         FROM pg_stat_statements WHERE toplevel AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    const r = rows[0];
    return { calls: Number(r?.calls ?? 0), exec_ms: Math.round(r?.exec ?? 0), plan_ms: Math.round(r?.plan ?? 0) };
  } catch {
    return undefined;
  }
}

/** With BENCH_PG_STATS=1: forgets the statements counted so far in the cluster, so the next statementsOf covers only what follows. */
export async function resetStatementStats(db: BenchDatabase): Promise<void> {
  if (process.env.BENCH_PG_STATS !== '1') return;
  await db.pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset()').catch(() => undefined);
  // the table counters too (tableScans): this database's only
  await db.pool.query('SELECT pg_stat_reset()').catch(() => undefined);
  await resetWalStats(db);
}

/** With BENCH_PG_STATS=1: forgets the cluster's WAL and checkpoint counters (cluster-wide: call it where the measured part starts). */
export async function resetWalStats(db: BenchDatabase): Promise<void> {
  if (process.env.BENCH_PG_STATS !== '1') return;
  await db.pool.query(`SELECT pg_stat_reset_shared('wal')`).catch(() => undefined);
  await db.pool.query(`SELECT pg_stat_reset_shared('checkpointer')`).catch(() => undefined);
}

interface WalStats {
  wal_mib: number;
  records: number;
  full_page_images: number;
  checkpoints_timed?: number;
  checkpoints_requested?: number;
}

/**
 * With BENCH_PG_STATS=1, the cluster's WAL since the reset: how much, how many records, how many
 * full-page images (a page's first change after a checkpoint writes the whole page: a table or index
 * written at random places pays it on most of its writes), and the checkpoints (Postgres 17+).
 */
async function walAndCheckpoints(db: BenchDatabase): Promise<WalStats | undefined> {
  // without the reset (resetWalStats) the counters are the cluster's since it was made, across runs
  if (process.env.BENCH_PG_STATS !== '1') return undefined;
  try {
    const { rows } = await db.pool.query<{ wal_bytes: string; wal_records: string; wal_fpi: string }>('SELECT wal_bytes::text, wal_records::text, wal_fpi::text FROM pg_stat_wal');
    const wal = rows[0];
    if (!wal) return undefined;
    const out: WalStats = { wal_mib: Math.round(Number(wal.wal_bytes) / 1048576), records: Number(wal.wal_records), full_page_images: Number(wal.wal_fpi) };
    const cp = await db.pool.query<{ timed: string; requested: string }>('SELECT num_timed::text AS timed, num_requested::text AS requested FROM pg_stat_checkpointer').catch(() => undefined);
    if (cp?.rows[0]) Object.assign(out, { checkpoints_timed: Number(cp.rows[0].timed), checkpoints_requested: Number(cp.rows[0].requested) });
    return out;
  } catch {
    return undefined;
  }
}

/** With BENCH_PG_STATS=1: the database's statements by total time, the top few printed (for a figure's details). */
export async function statementsOf(
  db: BenchDatabase,
): Promise<{ statements?: StatementStat[]; round_trips?: { calls: number; query: string }[]; table_scans?: TableScans[]; table_writes?: TableWrites[]; wal?: WalStats }> {
  const statements = await statementStats(db);
  const totals = statements.length ? await statementTotals(db) : undefined;
  if (totals) {
    const share = totals.exec_ms + totals.plan_ms > 0 ? Math.round((totals.plan_ms / (totals.exec_ms + totals.plan_ms)) * 100) : 0;
    progress(`  pg statements sent: ${totals.calls} calls, ${totals.exec_ms} ms executing + ${totals.plan_ms} ms planning (${share}% planning)`);
  }
  for (const st of statements.slice(0, 12)) progress(`  pg ${(st.share * 100).toFixed(1)}%${st.toplevel ? '' : ' (inner)'} ${st.total_ms} ms + plan ${st.plan_ms} ms / ${st.calls} calls, WAL ${st.wal_mib} MiB: ${st.query}`);
  const roundTrips = await topLevelByCalls(db);
  for (const st of roundTrips.slice(0, Number(process.env.BENCH_PG_CALLS ?? 20))) progress(`  pg calls ${st.calls}: ${st.query.slice(0, 160)}`);
  const { scans, writes } = await tableCounters(db);
  for (const t of scans) progress(`  pg scans ${t.table}: ${t.seq_scans} sequential scans read ${t.rows_scanned} rows (${t.live_rows} rows live; ${t.index_scans} index scans)`);
  for (const t of writes) progress(`  pg writes ${t.table}: ${t.inserts} inserted, ${t.updates} updated (${t.hot_updates} on the same page, no index touched), ${t.deletes} deleted; ${t.indexes} indexes`);
  const wal = await walAndCheckpoints(db);
  if (wal) {
    const checkpoints = wal.checkpoints_timed === undefined ? '' : `; checkpoints: ${wal.checkpoints_timed} timed, ${wal.checkpoints_requested} requested`;
    progress(`  pg wal: ${wal.wal_mib} MiB, ${wal.records} records, ${wal.full_page_images} full-page images${checkpoints}`);
  }
  return statements.length ? { statements, round_trips: roundTrips, table_scans: scans, table_writes: writes, ...(wal ? { wal } : {}) } : {};
}

interface TableScans {
  table: string;
  seq_scans: number;
  rows_scanned: number;
  index_scans: number;
  live_rows: number;
}

interface TableWrites {
  table: string;
  inserts: number;
  updates: number;
  hot_updates: number;
  deletes: number;
  indexes: number;
}

/**
 * With BENCH_PG_STATS=1, from the table counters since the reset (each backend reports them within
 * seconds: the last moments may be missing):
 * - scans: the tables read most by sequential scans. A batch statement that scans a table growing
 *   with the history shows here;
 * - writes: the tables written most (rows inserted, updated, deleted), with how many updates stayed
 *   on their page with no new entry in any index (HOT) and how many indexes every other write adds
 *   an entry to: what a row written again costs.
 */
async function tableCounters(db: BenchDatabase, top = { scans: 8, writes: 12 }): Promise<{ scans: TableScans[]; writes: TableWrites[] }> {
  try {
    const { rows } = await db.pool.query<Record<'relname' | 'seq_scan' | 'seq_tup_read' | 'idx_scan' | 'n_live_tup' | 'n_tup_ins' | 'n_tup_upd' | 'n_tup_hot_upd' | 'n_tup_del' | 'indexes', string | null>>(
      `SELECT s.relname, s.seq_scan, s.seq_tup_read, s.idx_scan, s.n_live_tup, s.n_tup_ins, s.n_tup_upd, s.n_tup_hot_upd, s.n_tup_del,
              (SELECT count(*) FROM pg_index i WHERE i.indrelid = s.relid) AS indexes
         FROM pg_stat_user_tables s`,
    );
    const n = (v: string | null) => Number(v ?? 0);
    const scans = rows
      .filter((r) => n(r.seq_tup_read) > 0)
      .sort((a, b) => n(b.seq_tup_read) - n(a.seq_tup_read))
      .slice(0, top.scans)
      .map((r) => ({ table: r.relname!, seq_scans: n(r.seq_scan), rows_scanned: n(r.seq_tup_read), index_scans: n(r.idx_scan), live_rows: n(r.n_live_tup) }));
    const written = (r: (typeof rows)[number]) => n(r.n_tup_ins) + n(r.n_tup_upd) + n(r.n_tup_del);
    const writes = rows
      .filter((r) => written(r) > 0)
      .sort((a, b) => written(b) - written(a))
      .slice(0, top.writes)
      .map((r) => ({ table: r.relname!, inserts: n(r.n_tup_ins), updates: n(r.n_tup_upd), hot_updates: n(r.n_tup_hot_upd), deletes: n(r.n_tup_del), indexes: n(r.indexes) }));
    return { scans, writes };
  } catch {
    return { scans: [], writes: [] };
  }
}

/** With BENCH_PG_STATS=1: the statements the clients sent (top-level), most called first: where the round trips go. */
async function topLevelByCalls(db: BenchDatabase, top = 25): Promise<{ calls: number; query: string }[]> {
  try {
    const { rows } = await db.pool.query<{ query: string; calls: string }>(
      `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 300) AS query, calls FROM pg_stat_statements
        WHERE toplevel AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        ORDER BY calls DESC LIMIT $1`,
      [top],
    );
    return rows.map((r) => ({ calls: Number(r.calls), query: r.query }));
  } catch {
    return [];
  }
}
