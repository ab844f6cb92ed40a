// The one way tests wait for something asynchronous: poll at a fixed interval, give up at a deadline.
// `eventually` fails with what it waited for; `until` hands back the last value for the caller's assertion.

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until `ok` holds or the deadline passes; says which. */
async function poll<T>(fn: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs: number, everyMs: number): Promise<{ value: T; done: boolean }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (ok(value)) return { value, done: true };
    if (Date.now() > deadline) return { value, done: false };
    await sleep(everyMs);
  }
}

/** Polls `probe` until it returns a value other than undefined; fails naming `what` after the deadline. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000, everyMs = 50): Promise<T> {
  const { value, done } = await poll(probe, (v) => v !== undefined, timeoutMs, everyMs);
  if (!done) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
  return value as T;
}

/**
 * Polls `fn` until `ok` holds or the time is up; returns the last value either way, so the
 * assertion that follows fails with what was actually seen (or passes where nothing must happen).
 */
export async function until<T>(fn: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000, everyMs = 50): Promise<T> {
  return (await poll(fn, ok, timeoutMs, everyMs)).value;
}
