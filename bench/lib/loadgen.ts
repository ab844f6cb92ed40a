// HTTP load generators. Open loop, for latency at a fixed rate: request i is due at start + i/rate
// and is sent then, whether or not earlier ones have returned; latency counts from the due time, so a
// stalled server is charged for the queue it causes (no coordinated omission). Closed loop, for
// throughput: a fixed number of clients, each sending again as soon as it is answered.
import { Pool } from 'undici';
import { type LatencySummary, now, sleep, summarise } from './stats.ts';

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  rate: number;
  duration_s: number;
  sent: number;
  /** requests fired including the warm-up (for per-request costs over the whole phase) */
  fired_with_warmup: number;
  ok: number;
  errors: number;
  /** status code (or error name) → count, for everything that was not the expected status */
  error_kinds: Record<string, number>;
  achieved_rate: number;
  latency_ms: LatencySummary;
  /** the generator's own lateness in sending (should stay ~0: if not, it was the bottleneck) */
  send_lag_ms: { p99: number; max: number };
  /** set when the backlog passed the cap and the rest of the requests were not sent (counted as errors) */
  overloaded?: { unsent: number; backlog_cap: number };
}

export async function openLoop(opts: {
  origin: string;
  rate: number;
  durationMs: number;
  warmupMs: number;
  connections?: number;
  expectStatus: number;
  request: (i: number) => RequestSpec;
  /** stop sending (and count the rest as errors) once this many requests are outstanding; default 5 s worth */
  maxBacklog?: number;
}): Promise<LoadResult> {
  const pool = new Pool(opts.origin, {
    connections: opts.connections ?? 256,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const warm = Math.round((opts.rate * opts.warmupMs) / 1000);
  const measured = Math.round((opts.rate * opts.durationMs) / 1000);
  const total = warm + measured;
  const interval = 1000 / opts.rate;
  const latencies: number[] = [];
  const lags: number[] = [];
  const errorKinds: Record<string, number> = {};
  let ok = 0;
  let errors = 0;
  const inflight = new Set<Promise<void>>();
  const start = now() + 20;
  let firstMeasured = 0;
  let lastDone = 0;

  const fire = (i: number, due: number) => {
    const counted = i >= warm;
    if (counted) lags.push(now() - due);
    const spec = opts.request(i);
    const p = pool
      .request({ method: spec.method, path: spec.path, headers: spec.headers, body: spec.body })
      .then(async (res) => {
        await res.body.text();
        const done = now();
        if (!counted) return;
        latencies.push(done - due);
        lastDone = Math.max(lastDone, done);
        if (res.statusCode === opts.expectStatus) ok++;
        else {
          errors++;
          errorKinds[String(res.statusCode)] = (errorKinds[String(res.statusCode)] ?? 0) + 1;
        }
      })
      .catch((err: Error) => {
        if (!counted) return;
        const done = now();
        latencies.push(done - due);
        lastDone = Math.max(lastDone, done);
        errors++;
        errorKinds[err.name] = (errorKinds[err.name] ?? 0) + 1;
      })
      .finally(() => inflight.delete(p));
    inflight.add(p);
  };

  // an overloaded server would otherwise keep the run going for minutes while its queue drains
  const maxBacklog = opts.maxBacklog ?? Math.max(100, opts.rate * 5);
  let unsent = 0;
  let fired = 0;
  for (let i = 0; i < total; ) {
    if (inflight.size >= maxBacklog) {
      unsent = total - Math.max(i, warm);
      errors += unsent;
      errorKinds['not sent: backlog cap'] = unsent;
      break;
    }
    const due = start + i * interval;
    const t = now();
    if (due > t) {
      await sleep(due - t);
      continue;
    }
    if (i === warm) firstMeasured = due;
    fire(i, due);
    fired++;
    i++;
  }
  await Promise.all([...inflight]);
  await pool.close();
  const lagSummary = summarise(lags);
  const span = (lastDone - firstMeasured) / 1000;
  return {
    rate: opts.rate,
    duration_s: opts.durationMs / 1000,
    sent: measured - unsent,
    fired_with_warmup: fired,
    ok,
    errors,
    error_kinds: errorKinds,
    achieved_rate: span > 0 ? Math.round((ok / span) * 10) / 10 : 0,
    latency_ms: summarise(latencies),
    send_lag_ms: { p99: lagSummary.p99, max: lagSummary.max },
    ...(unsent ? { overloaded: { unsent, backlog_cap: maxBacklog } } : {}),
  };
}

export interface ClosedLoopResult {
  connections: number;
  duration_s: number;
  /** requests that completed within the measured span (after the warm-up) */
  completed: number;
  ok: number;
  errors: number;
  /** status code (or error name) → count, for everything that was not the expected status */
  error_kinds: Record<string, number>;
  /** expected answers per second over the measured span */
  rate: number;
  latency_ms: LatencySummary;
}

/**
 * A closed-loop load for throughput: `connections` clients, each sending its next request as soon as
 * its last one is answered, for `warmupMs` (not measured) and then `durationMs`. Counted are the
 * requests that complete within the measured span; their latency is from send to answer (what one
 * client sees at that load; the queueing a fixed rate would add is what `openLoop` measures).
 */
export async function closedLoop(opts: {
  origin: string;
  connections: number;
  durationMs: number;
  warmupMs: number;
  expectStatus: number;
  request: (i: number) => RequestSpec;
}): Promise<ClosedLoopResult> {
  const pool = new Pool(opts.origin, {
    connections: opts.connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const measureFrom = now() + opts.warmupMs;
  const end = measureFrom + opts.durationMs;
  const latencies: number[] = [];
  const errorKinds: Record<string, number> = {};
  let ok = 0;
  let errors = 0;
  let next = 0;
  const client = async () => {
    while (now() < end) {
      const spec = opts.request(next++);
      const sent = now();
      let outcome: string;
      try {
        const res = await pool.request({ method: spec.method, path: spec.path, headers: spec.headers, body: spec.body });
        await res.body.text();
        outcome = res.statusCode === opts.expectStatus ? 'ok' : String(res.statusCode);
      } catch (err) {
        outcome = (err as Error).name;
      }
      const done = now();
      if (done < measureFrom || done > end) continue;
      latencies.push(done - sent);
      if (outcome === 'ok') ok++;
      else {
        errors++;
        errorKinds[outcome] = (errorKinds[outcome] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, client));
  await pool.close();
  return {
    connections: opts.connections,
    duration_s: opts.durationMs / 1000,
    completed: latencies.length,
    ok,
    errors,
    error_kinds: errorKinds,
    rate: Math.round((ok / (opts.durationMs / 1000)) * 10) / 10,
    latency_ms: summarise(latencies),
  };
}
