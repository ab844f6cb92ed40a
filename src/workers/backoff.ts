// How the workers live through a database outage (Postgres restarting, a network cut): a failed
// round is logged — a lost database as one warning per outage, not one per round — the loop
// backs off (250 ms doubling to 2 s, so it is back within ~2 s of the database) and says when it
// has recovered. Work whose outcome is already decided (a provider call made, a webhook answered)
// is recorded with `whileUnavailable`, which retries through the outage instead of dropping it.
import type { Logger } from 'pino';
import { isConnectionError } from '../db/errors.ts';
import { doublingDelay, sleep } from '../sleep.ts';

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 2_000;

/** The loops' backoff: 250 ms doubling to 2 s. */
export function backoffDelay(failures: number): number {
  return doublingDelay(failures, FIRST_DELAY_MS, MAX_DELAY_MS);
}

/** The failure state of one worker loop. */
export class LoopBackoff {
  private failures = 0;
  private unavailableSince?: number;

  constructor(
    private readonly log: Logger,
    /** the loop's name in log lines, e.g. "scheduler" */
    private readonly worker: string,
  ) {}

  /** After a failed round: logs it and waits before the next one (less, if `signal` aborts). */
  async failed(err: unknown, signal?: AbortSignal): Promise<void> {
    this.failures++;
    if (isConnectionError(err)) {
      if (this.unavailableSince === undefined) {
        this.unavailableSince = Date.now();
        this.log.warn({ worker: this.worker, err: describe(err) }, `${this.worker}: database unavailable; retrying until it is back`);
      }
    } else {
      this.log.error({ err, worker: this.worker }, `${this.worker} round failed; retrying`);
    }
    await sleep(backoffDelay(this.failures), signal);
  }

  /** After a round that worked: ends the backoff (and says so after an outage). */
  succeeded(): void {
    if (this.unavailableSince !== undefined) {
      this.log.info({ worker: this.worker, unavailableMs: Date.now() - this.unavailableSince }, `${this.worker}: database reachable again; resumed`);
    }
    this.failures = 0;
    this.unavailableSince = undefined;
  }
}

export interface RetryOptions {
  /** no retry would start at or after this time (ms since the epoch, by `now`) */
  until: number;
  /** a stop request: no further retry once it aborts */
  signal?: AbortSignal;
  /** which errors are worth another try; by default only a lost database */
  retryOn?: (err: unknown) => boolean;
  now?: () => number;
  onRetry?: (err: unknown, attempt: number) => void;
}

/** Runs `fn`, retrying it with the loops' backoff while `retryOn` says so and time is left; else throws its error. */
export async function retryWithBackoff<T>(fn: () => Promise<T>, options: RetryOptions): Promise<T> {
  const { until, signal, retryOn = isConnectionError, now = Date.now, onRetry } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const wait = backoffDelay(attempt);
      if (!retryOn(err) || now() + wait >= until || signal?.aborted) throw err;
      onRetry?.(err, attempt);
      await sleep(wait, signal);
    }
  }
}

/**
 * Runs `fn`, retrying it with backoff while the database is unreachable, until `deadline` (ms since
 * the epoch) would pass or `signal` aborts; other errors, and a connection error past the
 * deadline, are thrown.
 */
export function whileUnavailable<T>(fn: () => Promise<T>, deadline: number, signal?: AbortSignal): Promise<T> {
  return retryWithBackoff(fn, { until: deadline, signal });
}

/** A connection error in one short line: no stack for the expected. */
export function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return [e.code, e.message].filter(Boolean).join(' ');
}
