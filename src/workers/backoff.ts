// How the workers live through a database outage (Postgres restarting, a network cut): a failed
// round is logged — a lost database as one warning per outage, not one per round — the loop
// backs off (250 ms doubling to 2 s, so it is back within ~2 s of the database) and says when it
// has recovered. Work whose outcome is already decided (a provider call made, a webhook answered)
// is recorded with `whileUnavailable`, which retries through the outage instead of dropping it.
import type { Logger } from 'pino';
import { isConnectionError } from '../db/errors.ts';

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 2_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function backoffDelay(failures: number): number {
  return Math.min(FIRST_DELAY_MS * 2 ** Math.max(0, failures - 1), MAX_DELAY_MS);
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

  /** After a failed round: logs it and waits before the next one. */
  async failed(err: unknown, stopped: () => boolean = () => false): Promise<void> {
    this.failures++;
    if (isConnectionError(err)) {
      if (this.unavailableSince === undefined) {
        this.unavailableSince = Date.now();
        this.log.warn({ worker: this.worker, err: describe(err) }, `${this.worker}: database unavailable; retrying until it is back`);
      }
    } else {
      this.log.error({ err, worker: this.worker }, `${this.worker} round failed; retrying`);
    }
    const until = Date.now() + backoffDelay(this.failures);
    // a stop request ends the wait early
    while (Date.now() < until && !stopped()) await sleep(Math.min(50, until - Date.now()));
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

/**
 * Runs `fn`, retrying it with backoff while the database is unreachable, until `deadline` (ms since
 * the epoch) would pass or `stopped` says so; other errors, and a connection error past the
 * deadline, are thrown.
 */
export async function whileUnavailable<T>(fn: () => Promise<T>, deadline: number, stopped: () => boolean = () => false): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const delay = backoffDelay(attempt);
      if (!isConnectionError(err) || Date.now() + delay >= deadline || stopped()) throw err;
      await sleep(delay);
    }
  }
}

/** A connection error in one short line: no stack for the expected. */
export function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return [e.code, e.message].filter(Boolean).join(' ');
}
