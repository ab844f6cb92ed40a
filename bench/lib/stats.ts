// Latency summaries (nearest-rank percentiles) and small timing helpers.
export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1];
}

export function summarise(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  const r = (v: number) => Math.round(v * 100) / 100;
  return {
    count: sorted.length,
    p50: r(percentile(sorted, 50)),
    p90: r(percentile(sorted, 90)),
    p99: r(percentile(sorted, 99)),
    max: r(sorted.length ? sorted[sorted.length - 1] : NaN),
    mean: r(sorted.length ? sum / sorted.length : NaN),
  };
}

export const now = () => performance.now();

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Runs `worker(i)` for i in [0, total) on `concurrency` loops; returns per-call latencies in ms. */
export async function runConcurrent(total: number, concurrency: number, worker: (i: number) => Promise<unknown>): Promise<number[]> {
  let next = 0;
  const latencies: number[] = new Array(total);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const t = now();
        await worker(i);
        latencies[i] = now() - t;
      }
    }),
  );
  return latencies;
}

export function progress(line: string): void {
  process.stderr.write(`  · ${line}\n`);
}
