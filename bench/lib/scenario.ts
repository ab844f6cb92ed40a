// What a benchmark scenario is: a name and a run that returns figures.
import type { Cluster } from './db.ts';
import type { Figure } from './report.ts';

export interface BenchContext {
  cluster: Cluster;
  /** BENCH_SCALE: multiplies workload sizes and durations (1 = the sizes) */
  scale: number;
  /** extra facts to record in the result file (settings, caveats) */
  notes: string[];
}

export interface Scenario {
  name: string;
  description: string;
  run(ctx: BenchContext): Promise<Figure[]>;
}

export const scaled = (ctx: BenchContext, n: number, min: number) => Math.max(min, Math.round(n * ctx.scale));

/** How long an open-loop run lasts and how much of its start is warm-up (not measured): 20 s and 3 s at scale 1. */
export const openLoopTimes = (ctx: BenchContext) => ({ durationMs: scaled(ctx, 20_000, 3_000), warmupMs: scaled(ctx, 3_000, 1_000) });
