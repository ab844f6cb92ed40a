// Waiting: one abortable sleep and one doubling backoff, for every retry loop in engage (the event
// store's append retries, the read-model runner, the workers, the embedded Postgres start-up).
import { setTimeout as delay } from 'node:timers/promises';

/** Waits `ms`, or less once `signal` aborts; never rejects on abort: a stopping loop must not wait out a backoff. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch (err) {
    if (!signal?.aborted) throw err;
  }
}

/** The wait after the `failures`-th failure in a row: `firstMs`, doubling each time, at most `maxMs`. */
export function doublingDelay(failures: number, firstMs: number, maxMs: number): number {
  return Math.min(firstMs * 2 ** Math.max(0, failures - 1), maxMs);
}
