// Where CPU went during a measured phase: a process's CPU seconds (Linux /proc), the embedded
// cluster's backends, and the scenario database's own counters (rows read, commits).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { EMBEDDED_DATA_DIR } from './db.ts';

const TICKS = 100; // USER_HZ on Linux

function statOf(pid: number): { ppid: number; cpu: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(') ') + 2).split(' ');
    return { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / TICKS };
  } catch {
    return undefined;
  }
}

/** CPU seconds used so far by one process. */
export function processCpu(pid: number | undefined): number | undefined {
  return pid ? statOf(pid)?.cpu : undefined;
}

/**
 * CPU seconds used so far by a process and every live descendant (the children of `engage serve
 * --processes N`); a descendant that exited meanwhile is not counted.
 */
export function processTreeCpu(pid: number | undefined): number | undefined {
  const root = pid ? statOf(pid) : undefined;
  if (!pid || !root) return undefined;
  const cpu = new Map<number, number>();
  const kids = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const p = Number(name);
    const s = Number.isInteger(p) ? statOf(p) : undefined;
    if (!s) continue;
    cpu.set(p, s.cpu);
    kids.set(s.ppid, [...(kids.get(s.ppid) ?? []), p]);
  }
  let total = root.cpu;
  const queue = [...(kids.get(pid) ?? [])];
  while (queue.length) {
    const p = queue.pop()!;
    total += cpu.get(p) ?? 0;
    queue.push(...(kids.get(p) ?? []));
  }
  return total;
}

/** CPU seconds so far of each process of the embedded cluster (postmaster and backends); undefined when not running. */
export function embeddedPostgresCpu(): Map<number, number> | undefined {
  let postmaster: number;
  try {
    postmaster = Number(readFileSync(path.join(EMBEDDED_DATA_DIR, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
  const out = new Map<number, number>();
  const main = statOf(postmaster);
  if (!main) return undefined;
  out.set(postmaster, main.cpu);
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const s = statOf(pid);
    if (s && s.ppid === postmaster) out.set(pid, s.cpu);
  }
  return out;
}

/** CPU seconds the cluster used between two snapshots (backends that exited meanwhile are missed). */
export function clusterCpuDelta(before: Map<number, number> | undefined, after: Map<number, number> | undefined): number | undefined {
  if (!before || !after) return undefined;
  let total = 0;
  for (const [pid, cpu] of after) total += Math.max(0, cpu - (before.get(pid) ?? 0));
  return total;
}

export interface DbCounters {
  commits: number;
  tup_returned: number;
  tup_fetched: number;
  tup_inserted: number;
  blks_hit: number;
}

export async function dbCounters(pool: pg.Pool): Promise<DbCounters> {
  // the statistics snapshot is cached per transaction: clear it so every call sees fresh numbers
  await pool.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await pool.query(
    `SELECT xact_commit::float8 AS commits, tup_returned::float8, tup_fetched::float8, tup_inserted::float8, blks_hit::float8
     FROM pg_stat_database WHERE datname = current_database()`,
  );
  return rows[0];
}

export function counterDelta(a: DbCounters, b: DbCounters, per: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of Object.keys(a) as (keyof DbCounters)[]) out[`${k}_per_request`] = Math.round(((b[k] - a[k]) / per) * 10) / 10;
  return out;
}
