// Driving the rate limiter from tests: bursts of concurrent requests, started where a limiter window
// cannot cut them in two, so exact-count assertions hold however slowly the machine runs.
import { sleep } from './waits.ts';

/**
 * The limiter is a sliding-window counter over fixed windows; a burst that straddles a window
 * boundary is estimated a little lower than its true count. Start bursts well inside a window so
 * the exact-count assertions hold (this waits; it asserts nothing about time).
 */
export async function awayFromWindowEdge(windowMs: number, marginMs: number): Promise<void> {
  const into = Date.now() % windowMs;
  if (into > windowMs - marginMs) await sleep(windowMs - into + 250);
}

/**
 * Runs `fn` (which makes requests and returns what they answered) until one run starts and ends in
 * the same limiter window, with a fresh subject per run, so the exact-count assertions made on its
 * result afterwards hold however slowly the machine runs.
 */
export async function inOneWindow<T>(windowMs: number, fn: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    await awayFromWindowEdge(windowMs, Math.min(20_000, windowMs / 3));
    const before = Math.floor(Date.now() / windowMs);
    const result = await fn();
    if (Math.floor(Date.now() / windowMs) === before || i >= attempts) return result;
  }
}

/** Fires `n` requests, `batch` at a time concurrently, and returns every response in order. */
export async function burst<R>(n: number, batch: number, one: (i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < n; i += batch) {
    const size = Math.min(batch, n - i);
    out.push(...(await Promise.all(Array.from({ length: size }, (_, j) => one(i + j)))));
  }
  return out;
}
