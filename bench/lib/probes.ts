// Probes sampled while a scenario runs: a read model's lag (age of its oldest unapplied event, by the
// database clock), GET /health, and transactions of other databases that hold back the snapshot
// xmin every catch-up reader of the cluster waits for.
import type { BenchDatabase } from './db.ts';
import { now, percentile, sleep } from './stats.ts';

/** Age of the oldest event of a projection's types it has not yet applied (0 when caught up), in ms, by the database clock. */
const LAG_SQL = `
  SELECT coalesce((
    SELECT extract(epoch FROM clock_timestamp() - e.created_at) * 1000 FROM es_events e
    WHERE (e.transaction_id, e.global_position) > (s.commit_pos, s.prepare_pos) AND e.type = ANY($1::text[])
    ORDER BY e.transaction_id, e.global_position LIMIT 1), 0)::float8 AS lag_ms
  FROM projection_state s WHERE s.name = $2 AND s.active`;

/** The age of the oldest transaction holding an xid in another database of the cluster (it holds back our snapshots' xmin). */
const FOREIGN_XACT_SQL = `SELECT (extract(epoch FROM max(clock_timestamp() - xact_start)) * 1000)::float8 AS ms FROM pg_stat_activity
  WHERE backend_xid IS NOT NULL AND datname IS DISTINCT FROM current_database()`;

/** Samples a read model's lag (SQL, every `everyMs`) and, given the server's URL, GET /health (every 5 s) until stop(). */
export function lagProbe(db: BenchDatabase, projection: string, types: readonly string[], url?: string, everyMs = 250) {
  const lags: { t: number; lag_ms: number }[] = [];
  const health: { t: number; lag_events: number | null; ms: number }[] = [];
  // transactions in other databases of the cluster hold back every catch-up reader's snapshot xmin here too
  let foreignXactMaxMs = 0;
  const t0 = now();
  let stopped = false;
  const sql = (async () => {
    while (!stopped) {
      const t = now();
      try {
        const { rows } = await db.pool.query<{ lag_ms: number }>(LAG_SQL, [types, projection]);
        if (rows[0]) lags.push({ t: Math.round(t - t0), lag_ms: Math.round(rows[0].lag_ms) });
        const { rows: foreign } = await db.pool.query<{ ms: number | null }>(FOREIGN_XACT_SQL);
        foreignXactMaxMs = Math.max(foreignXactMaxMs, Math.round(foreign[0]?.ms ?? 0));
      } catch {
        /* a probe failure is not the server's */
      }
      await sleep(Math.max(0, everyMs - (now() - t)));
    }
  })();
  const http = (async () => {
    while (!stopped && url) {
      const t = now();
      try {
        const res = await fetch(`${url}/health`);
        const body = (await res.json()) as { projections?: { name: string; lag: number }[] };
        health.push({ t: Math.round(t - t0), lag_events: body.projections?.find((p) => p.name === projection)?.lag ?? null, ms: Math.round(now() - t) });
      } catch {
        /* idem */
      }
      for (let w = 0; w < 50 && !stopped; w++) await sleep(100);
    }
  })();
  return {
    /** every lag sample so far: ms since the probe started, and the lag in ms */
    samples: () => lags.map((l) => [l.t, l.lag_ms] as const),
    async stop() {
      stopped = true;
      await Promise.all([sql, http]);
      const values = lags.map((l) => l.lag_ms);
      const sorted = [...values].sort((a, b) => a - b);
      const healthLags = health.map((h) => h.lag_events ?? 0);
      return {
        samples: lags.length,
        lag_ms: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.length ? sorted[sorted.length - 1] : NaN, mean: Math.round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)) },
        series_ms: lags.filter((_, i) => i % 4 === 0).map((l) => [l.t, l.lag_ms]),
        oldest_transaction_of_other_databases_ms: foreignXactMaxMs,
        health: { samples: health.length, max_lag_events: Math.max(0, ...healthLags), max_response_ms: Math.max(0, ...health.map((h) => h.ms)), series: health },
      };
    },
  };
}
