// The one poll/wake loop of the workers: run a round; when it found nothing to do, wait for a wake
// (a read model advancing, new work handed over, a finished job) or at most `idleMs`; back off on
// failure (one warning per database outage); stop promptly.
import type { Logger } from 'pino';
import { comparePositions, type Position } from '../eventstore/port.ts';
import { Wakeup } from '../eventstore/wakeup.ts';
import type { ProjectionRunner } from '../read-models/runner.ts';
import { LoopBackoff } from './backoff.ts';

export interface WorkerLoopOptions {
  /** the worker's name in log lines, e.g. "scheduler" */
  name: string;
  /** the longest wait between rounds: a wake-up is a hint that may never come */
  idleMs: number;
  /** the read model whose advance may bring work: the loop runs a round as soon as it has */
  wakeOnAdvanceOf?: string;
  /**
   * the runner's signal (a read model's apply raises it once its batch has committed: see Applied in
   * src/read-models/projection.ts) that brings work: the loop runs a round as soon as it is raised
   */
  wakeOnSignal?: string;
}

/** A worker that runs rounds in this loop: it says what one round does, the loop does the rest. */
export abstract class WorkerLoop {
  private readonly wakeup = new Wakeup();
  private readonly stopping = new AbortController();
  private done?: Promise<void>;

  constructor(
    private readonly host: { log: Logger; runner: ProjectionRunner },
    private readonly options: WorkerLoopOptions,
  ) {}

  /** One round of work; returns how much it did (0: nothing to do, so wait before the next). */
  protected abstract round(): Promise<number>;

  /** Aborts once stop() is called: long waits inside a round (retries, backoffs) end early on it. */
  protected get signal(): AbortSignal {
    return this.stopping.signal;
  }

  protected get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  start(): void {
    const { runner } = this.host;
    const { wakeOnAdvanceOf: projection, wakeOnSignal: signal } = this.options;
    const onAdvance = (name: string) => {
      if (name === projection) this.wakeup.wake();
    };
    const onSignal = (raised: string) => {
      if (raised === signal) this.wakeup.wake();
    };
    if (projection) runner.on('advanced', onAdvance);
    if (signal) runner.on('signal', onSignal);
    this.done = this.run().finally(() => {
      runner.off('advanced', onAdvance);
      runner.off('signal', onSignal);
    });
  }

  /** Runs the next round now (or right after the current one). */
  wake(): void {
    this.wakeup.wake();
  }

  /** Ends the loop: a wait or backoff in progress ends at once; resolves when the current round has. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.wakeup.close();
    await this.done;
  }

  private async run(): Promise<void> {
    const backoff = new LoopBackoff(this.host.log, this.options.name);
    while (!this.stopped) {
      // taken before the round, so a wake that lands during it is not lost
      const ticket = this.wakeup.ticket();
      let worked: number;
      try {
        worked = await this.round();
        backoff.succeeded();
      } catch (err) {
        await backoff.failed(err, this.signal);
        continue;
      }
      if (worked === 0) await this.wakeup.wait(ticket, this.options.idleMs);
    }
  }
}

/**
 * The newest position a worker has written. A round that reads a read model its own appends
 * change waits until that model has passed it first; else it reads its last round's rows at stale
 * revisions and re-decides every one.
 */
export class OwnWrites {
  private newest?: Position;

  note(results: readonly { position?: Position }[]): void {
    for (const r of results) {
      if (r.position && (!this.newest || comparePositions(r.position, this.newest) > 0)) this.newest = r.position;
    }
  }

  /** Waits (at most 5 s, then reads anyway) until `projection` shows everything noted so far. */
  async visibleIn(runner: ProjectionRunner, projection: string): Promise<void> {
    if (this.newest) await runner.waitFor([projection], this.newest, 5000);
  }
}

/** Waits until the runner next advances `projection`, `timeoutMs` at the most; at once if `signal` aborts. */
export async function nextAdvance(runner: ProjectionRunner, projection: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  const wakeup = new Wakeup();
  const onAdvance = (name: string) => {
    if (name === projection) wakeup.wake();
  };
  const onAbort = () => wakeup.wake();
  runner.on('advanced', onAdvance);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await wakeup.wait(wakeup.ticket(), timeoutMs);
  } finally {
    runner.off('advanced', onAdvance);
    signal.removeEventListener('abort', onAbort);
  }
}
