// The log tail: one reader of the global log for every read model of a runner. It reads the newest
// events (of the types any of them handles) once per wake-up and keeps the last few thousand in
// memory, sealed; a read model at or past the start of that window takes its events from it, with
// no query of its own. Before, each of the ~20 read models ran its own head query and read on every
// wake-up: 40-odd queries per append, most of them finding nothing.
//
// What the window holds is contiguous: every event of the wanted types in (from, head], read in
// log order by the same readable-only rule as every reader (port.ts readAll), so an event that
// commits out of order is never skipped. A read model behind the window's start reads the log
// itself, as before, until it has caught up.
import type { Logger } from 'pino';
import { isConnectionError } from '../db/errors.ts';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '../eventstore/port.ts';
import { Wakeup } from '../eventstore/wakeup.ts';

export interface LogTailOptions {
  /** the most events kept; the oldest go first (a read model still behind them reads the log itself) */
  capacity?: number;
  /** events per read */
  readBatch?: number;
  /** the longest wait between reads: a wake-up is only a hint */
  pollMs?: number;
  /** how far every reader of the window has read: what lies before it is let go (memory) */
  consumedTo?: () => Position | undefined;
}

/** What a read model at `after` finds in the window. */
export interface TailTake {
  /** its events after `after`, in log order, at most the number asked for */
  events: RecordedEvent[];
  /** with fewer events than asked for: it has seen the log up to here (the window's head) */
  seenTo: Position;
}

export class LogTail {
  /** readers' wake-up: the window has taken in new events */
  readonly advanced = new Wakeup();
  private window: RecordedEvent[] = [];
  /** the window holds every wanted event after `from` up to `head`; unset until the first read */
  private from?: Position;
  private head?: Position;
  private readonly types: string[];
  private readonly capacity: number;
  private readonly readBatch: number;
  private readonly pollMs: number;
  private readonly consumedTo: () => Position | undefined;
  private stopped = false;
  private done?: Promise<void>;

  constructor(
    private readonly store: Pick<EventStore, 'readAll' | 'headPosition' | 'wakeup'>,
    types: Iterable<string>,
    private readonly log: Logger,
    options: LogTailOptions = {},
  ) {
    this.types = [...new Set(types)];
    this.capacity = options.capacity ?? 2_000;
    this.readBatch = Math.min(options.readBatch ?? 1_000, this.capacity);
    this.pollMs = options.pollMs ?? 1_000;
    this.consumedTo = options.consumedTo ?? (() => undefined);
  }

  start(): void {
    this.done ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.store.wakeup.wake();
    await this.done;
    this.advanced.close();
  }

  /**
   * The events of `types` after `after`, at most `max`; undefined when the window does not hold
   * what follows `after` (it starts later, or has not read that far yet): the reader reads the log itself.
   */
  take(after: Position, types: ReadonlySet<string>, max: number): TailTake | undefined {
    const { from, head } = this;
    if (!from || !head || comparePositions(after, from) < 0 || comparePositions(after, head) > 0) return undefined;
    const events: RecordedEvent[] = [];
    for (let i = this.firstAfter(after); i < this.window.length; i++) {
      const e = this.window[i]!;
      if (!types.has(e.type)) continue;
      events.push(e);
      if (events.length >= max) return { events, seenTo: e.position };
    }
    return { events, seenTo: head };
  }

  /** Drops what every reader has read, and beyond that the oldest events over the capacity. */
  private letGo(): void {
    const consumed = this.consumedTo();
    let drop = consumed && this.head && comparePositions(consumed, this.head) <= 0 ? this.firstAfter(consumed) : 0;
    drop = Math.max(drop, this.window.length - this.capacity);
    if (drop <= 0) return;
    this.from = this.window[drop - 1]!.position;
    this.window = this.window.slice(drop);
  }

  /** Index of the first event of the window after `after` (positions ascend: a binary search). */
  private firstAfter(after: Position): number {
    let lo = 0;
    let hi = this.window.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (comparePositions(this.window[mid]!.position, after) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private async run(): Promise<void> {
    const { wakeup } = this.store;
    let failures = 0;
    while (!this.stopped) {
      // taken before the read, so an append that lands during it brings another read
      const ticket = wakeup.ticket();
      let full = false;
      try {
        full = await this.readOnce();
        if (failures > 0) this.log.info('log tail: database reachable again');
        failures = 0;
      } catch (err) {
        failures++;
        if (failures === 1) this.log[isConnectionError(err) ? 'warn' : 'error']({ err }, 'log tail: could not read the log; retrying');
        await wakeup.wait(wakeup.ticket(), Math.min(2_000, 100 * 2 ** Math.min(failures, 5)));
        continue;
      }
      if (!full) await wakeup.wait(ticket, this.pollMs);
    }
  }

  /** One read after the head; returns whether it came back full (more may follow at once). */
  private async readOnce(): Promise<boolean> {
    if (!this.head) {
      // the window opens at the readable head: read models behind it catch up by reading the log
      const head = await this.store.headPosition();
      this.from = this.head = head;
      this.advanced.wake();
      return true;
    }
    this.letGo();
    // sealed: each reader opens what it needs (the runner does, for read models that want it open)
    const batch = await this.store.readAll({ after: this.head, maxCount: this.readBatch, types: this.types, keepSealed: true });
    if (batch.length === 0) return false;
    for (const e of batch) this.window.push(deepFreeze(e));
    this.head = batch[batch.length - 1]!.position;
    this.letGo();
    this.advanced.wake();
    return batch.length >= this.readBatch;
  }
}

/**
 * Every read model sees the same event objects: frozen, so an apply that changed one in place would
 * throw instead of changing what the others read.
 */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}
