// Driving the rate limiter from tests: bursts of concurrent requests, a clock the test moves by hand
// (the limiter reads the service's clock: "60 s later" without waiting a minute), and bursts split
// across the turn of a wall-clock minute for processes whose clock a test cannot move.
import type { Clock } from '../../src/clock.ts';
import { sleep } from './waits.ts';

/**
 * Runs `fn` (which makes requests and returns what they answered) until one run takes less than the
 * window, with a fresh subject per run: a request made more than a window before the last one has
 * left the window, so exact-count assertions on a slower run would not hold.
 */
export async function inOneWindow<T>(windowMs: number, fn: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    const started = Date.now();
    const result = await fn();
    if (Date.now() - started < windowMs || i >= attempts) return result;
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

/** A clock that stands still at whatever instant the test sets (it only ever moves forward, as a service's clock does). */
export class ManualClock implements Clock {
  constructor(private ms: number) {}
  now(): Date {
    return new Date(this.ms);
  }
  set(ms: number): void {
    if (ms < this.ms) throw new Error(`ManualClock: ${new Date(ms).toISOString()} is before ${new Date(this.ms).toISOString()}`);
    this.ms = ms;
  }
  advance(ms: number): void {
    this.set(this.ms + ms);
  }
}

/**
 * Runs `first` a few seconds before a wall-clock minute turns and `second` once it has turned: a
 * burst split across the edge of the fixed one-minute windows a window-counting limiter keeps,
 * where such a limiter lets more than its limit through. Waits for that instant (up to a minute);
 * it asserts nothing about time.
 */
export async function acrossTheTurnOfAMinute<A, B>(first: () => Promise<A>, second: () => Promise<B>, leadMs = 5_000): Promise<[A, B]> {
  const into = Date.now() % 60_000;
  if (into < 60_000 - leadMs) await sleep(60_000 - leadMs - into);
  const minute = Math.floor(Date.now() / 60_000);
  const a = await first();
  const left = (minute + 1) * 60_000 - Date.now();
  if (left > 0) await sleep(left + 100);
  return [a, await second()];
}
