// Waiting: one abortable sleep and one doubling backoff, for every retry loop in engage (the event
// store's append retries, the read-model runner, the workers, the embedded Postgres start-up), a
// bounded poll for a concurrent write known to be in flight (tracked events, src/events/), and a
// bound on a wait for an answer that may never come (a provider call, a health check, a NOTIFY).
import { setTimeout as delay } from 'node:timers/promises';

/** Waits `ms`, or less once `signal` aborts; never rejects on abort: a stopping loop must not wait out a backoff. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch (err) {
    if (!signal?.aborted) throw err;
  }
}

/** `p`, or a rejection with `message` once `ms` have passed (`p` itself is not stopped: it settles unheard). */
export function within<T>(p: Promise<T>, ms: number, message = `no answer within ${ms} ms`): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** The wait after the `failures`-th failure in a row: `firstMs`, doubling each time, at most `maxMs`. */
export function doublingDelay(failures: number, firstMs: number, maxMs: number): number {
  return Math.min(firstMs * 2 ** Math.max(0, failures - 1), maxMs);
}

/**
 * Polls `probe` until it returns something other than undefined, pausing 10 ms, doubling, at most
 * 250 ms between tries; gives up (undefined) once `ms` have passed. For waiting out a concurrent
 * write that is known to be in flight, never for an event that can be awaited.
 */
export async function pollFor<T>(probe: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (let tries = 1; ; tries++) {
    const value = await probe();
    if (value !== undefined || Date.now() >= deadline) return value;
    await sleep(Math.min(doublingDelay(tries, 10, 250), Math.max(0, deadline - Date.now())));
  }
}
