// The log tail: one reader of the global log for every read model of a runner. It reads the newest
// events (of the types any of them handles) and keeps a window of them in memory, sealed and frozen;
// a read model at or past the start of that window takes its events from it, with no query of its
// own. Before, each of the ~20 read models ran its own head query and read on every wake-up: 40-odd
// queries per append, most of them finding nothing.
//
// What the window holds is contiguous: every event of the wanted types in (from, head], read in
// log order by the same readable-only rule as every reader (port.ts readAll), so an event that
// commits out of order is never skipped. A read model behind the window's start reads the log
// itself, as before, until it has caught up.
//
// The window is bounded by bytes as well as by count (an event may carry a 2,000,000-character html
// body), and it reads ahead only as far as its slowest running consumer lets it: it never lets go of
// an event a consumer in the window has yet to read, so one that lags but moves keeps taking its
// events from memory, and the others wait for it. A consumer that has not moved for `stallMs` while
// it had events to read (stuck, or slower than that on one batch) stops counting: the window moves
// on without it and it reads the log itself, so it holds neither the others nor memory. README "The
// event log and the read models".
import type { Logger } from 'pino';
import { isConnectionError } from '../db/errors.ts';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '../eventstore/port.ts';
import { Wakeup } from '../eventstore/wakeup.ts';

export interface LogTailOptions {
  /** the most events kept */
  capacity?: number;
  /** the most bytes kept (each event's size as read: its strings' lengths and a little per value); an event larger than this is never held */
  maxBytes?: number;
  /** events per read, at most */
  readBatch?: number;
  /** the longest wait between reads: a wake-up is only a hint */
  pollMs?: number;
  /** a consumer that has not moved for this long while behind the head no longer holds the window */
  stallMs?: number;
  /** where each running consumer (a live read model of this code) has read to: they pace the reader, and what all have read is let go */
  consumers?: () => ReadonlyMap<string, Position>;
}

/** What a read model at `after` finds in the window. */
export interface TailTake {
  /** its events after `after`, in log order, at most the number asked for */
  events: RecordedEvent[];
  /** with fewer events than asked for: it has seen the log up to here (the window's head) */
  seenTo: Position;
}

/** The window's size now and at its largest since start (for tests and diagnostics). */
export interface TailStats {
  events: number;
  bytes: number;
  peakEvents: number;
  peakBytes: number;
}

export const DEFAULT_TAIL_CAPACITY = 2_000;
export const DEFAULT_TAIL_MAX_BYTES = 32 * 1024 * 1024;
export const DEFAULT_TAIL_STALL_MS = 2_000;

/** The first read's guess of an event's size, until the log has shown some: a read of the first 64 events at most fills the budget. */
const FIRST_READS = 64;

type ReadOutcome = 'more' | 'idle' | 'paced';

export class LogTail {
  /** readers' wake-up: the window has taken in new events */
  readonly advanced = new Wakeup();
  /** the reader's wake-up while paced: a consumer has moved */
  private readonly moved = new Wakeup();
  private window: RecordedEvent[] = [];
  /** each windowed event's size, and their sum */
  private sizes: number[] = [];
  private bytes = 0;
  private peakEvents = 0;
  private peakBytes = 0;
  /** the window holds every wanted event after `from` up to `head`; unset until the first read */
  private from?: Position;
  private head?: Position;
  /** the largest event of the last read: the next read asks for no more than fits the room left */
  private eventBytesGuess: number;
  /** per consumer: where it was last seen and since when it has been there with events to read */
  private readonly seen = new Map<string, { at: Position; since: number }>();
  private readonly types: string[];
  private readonly capacity: number;
  private readonly maxBytes: number;
  private readonly readBatch: number;
  private readonly pollMs: number;
  private readonly stallMs: number;
  private readonly consumers: () => ReadonlyMap<string, Position>;
  private stopped = false;
  private done?: Promise<void>;

  constructor(
    private readonly store: Pick<EventStore, 'readAll' | 'headPosition' | 'wakeup'>,
    types: Iterable<string>,
    private readonly log: Logger,
    options: LogTailOptions = {},
  ) {
    this.types = [...new Set(types)];
    this.capacity = options.capacity ?? DEFAULT_TAIL_CAPACITY;
    this.maxBytes = options.maxBytes ?? DEFAULT_TAIL_MAX_BYTES;
    this.readBatch = Math.min(options.readBatch ?? 1_000, this.capacity);
    this.pollMs = options.pollMs ?? 1_000;
    this.stallMs = options.stallMs ?? DEFAULT_TAIL_STALL_MS;
    this.consumers = options.consumers ?? (() => new Map());
    this.eventBytesGuess = Math.ceil(this.maxBytes / FIRST_READS);
  }

  start(): void {
    this.done ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.store.wakeup.wake();
    this.moved.wake();
    await this.done;
    this.advanced.close();
  }

  stats(): TailStats {
    return { events: this.window.length, bytes: this.bytes, peakEvents: this.peakEvents, peakBytes: this.peakBytes };
  }

  /**
   * A consumer has moved (committed a batch, or seen the head): what every consumer has read is let
   * go at once, and a reader waiting for room reads on.
   */
  consumerMoved(): void {
    this.letGo(this.holders());
    this.moved.wake();
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

  /**
   * Where the consumers that hold the window are: those in it (at or after its start) that have not
   * stalled. A consumer at the head holds what comes next; one behind the window reads the log itself.
   */
  private holders(): Position[] {
    const { from, head } = this;
    if (!from || !head) return [];
    const now = Date.now();
    const consumers = this.consumers();
    const holding: Position[] = [];
    for (const name of this.seen.keys()) if (!consumers.has(name)) this.seen.delete(name);
    for (const [name, at] of consumers) {
      let seen = this.seen.get(name);
      // at the head it has nothing to read: the stall clock runs only while it has
      if (!seen || comparePositions(seen.at, at) !== 0 || comparePositions(at, head) >= 0) {
        seen = { at, since: now };
        this.seen.set(name, seen);
      }
      if (comparePositions(at, from) < 0) continue;
      if (now - seen.since >= this.stallMs) continue;
      holding.push(at);
    }
    return holding;
  }

  /** The time until the first holder stalls (the paced reader looks again then). */
  private untilStall(): number {
    const now = Date.now();
    let soonest = this.pollMs;
    for (const { since } of this.seen.values()) soonest = Math.min(soonest, Math.max(1, since + this.stallMs - now));
    return soonest;
  }

  /** Drops what every holder has read; with no holder, everything up to the head. */
  private letGo(holders: readonly Position[]): void {
    if (!this.head || this.window.length === 0) return;
    let slowest = this.head;
    for (const at of holders) if (comparePositions(at, slowest) < 0) slowest = at;
    this.dropFirst(this.firstAfter(slowest));
  }

  private dropFirst(count: number): void {
    if (count <= 0) return;
    this.from = this.window[count - 1]!.position;
    for (let i = 0; i < count; i++) this.bytes -= this.sizes[i]!;
    this.window = this.window.slice(count);
    this.sizes = this.sizes.slice(count);
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
      // taken before the read, so an append (or a consumer's move) that lands during it brings another read
      const ticket = wakeup.ticket();
      const movedTicket = this.moved.ticket();
      let outcome: ReadOutcome;
      try {
        outcome = await this.readOnce();
        if (failures > 0) this.log.info('log tail: database reachable again');
        failures = 0;
      } catch (err) {
        failures++;
        if (failures === 1) this.log[isConnectionError(err) ? 'warn' : 'error']({ err }, 'log tail: could not read the log; retrying');
        await wakeup.wait(wakeup.ticket(), Math.min(2_000, 100 * 2 ** Math.min(failures, 5)));
        continue;
      }
      if (outcome === 'paced') await this.moved.wait(movedTicket, this.untilStall());
      else if (outcome === 'idle') await wakeup.wait(ticket, this.pollMs);
    }
  }

  /** One read after the head, as far as the window has room for. */
  private async readOnce(): Promise<ReadOutcome> {
    if (!this.head) {
      // the window opens at the readable head: read models behind it catch up by reading the log
      const head = await this.store.headPosition();
      this.from = this.head = head;
      this.advanced.wake();
      return 'more';
    }
    let holders = this.holders();
    this.letGo(holders);
    let maxCount = this.readBatch;
    if (holders.length > 0) {
      const roomEvents = this.capacity - this.window.length;
      const roomBytes = this.maxBytes - this.bytes;
      // waits for a quarter of the window to be free, rather than reading an event or two at a time
      if (roomEvents < this.capacity / 4 || roomBytes < this.maxBytes / 4) return 'paced';
      maxCount = Math.min(maxCount, roomEvents, Math.max(1, Math.floor(roomBytes / this.eventBytesGuess)));
    } else {
      maxCount = Math.min(maxCount, Math.max(1, Math.floor(this.maxBytes / this.eventBytesGuess)));
    }
    // sealed: each reader opens what it needs (the runner does, for read models that want it open)
    const batch = await this.store.readAll({ after: this.head, maxCount, types: this.types, keepSealed: true });
    if (batch.length === 0) return 'idle';
    // the consumers moved during the read
    holders = this.holders();
    this.letGo(holders);
    let largest = 0;
    let taken = 0;
    for (const e of batch) {
      const size = freezeAndMeasure(e);
      largest = Math.max(largest, size);
      if (!this.makeRoom(size, holders.length > 0)) break;
      if (size > this.maxBytes) {
        // never held: the window starts again after it, and its readers read it from the log
        this.dropFirst(this.window.length);
        this.from = this.head = e.position;
      } else {
        this.window.push(e);
        this.sizes.push(size);
        this.bytes += size;
        this.head = e.position;
      }
      taken++;
    }
    this.eventBytesGuess = Math.max(1, largest);
    this.peakEvents = Math.max(this.peakEvents, this.window.length);
    this.peakBytes = Math.max(this.peakBytes, this.bytes);
    if (taken > 0) this.advanced.wake();
    // what did not fit is read again once there is room
    if (taken < batch.length) return 'paced';
    return batch.length >= maxCount ? 'more' : 'idle';
  }

  /**
   * Makes room for an event of `size`: lets the oldest go when nobody holds them; with holders, the
   * event waits (false). An event larger than the whole budget fits only an empty window (it is not
   * kept, see readOnce), so holders finish the window before it.
   */
  private makeRoom(size: number, held: boolean): boolean {
    const fits = () => this.window.length === 0 || (this.window.length < this.capacity && this.bytes + size <= this.maxBytes);
    if (fits()) return true;
    if (held) return false;
    if (size > this.maxBytes) {
      this.dropFirst(this.window.length);
      return true;
    }
    let drop = 0;
    let bytes = this.bytes;
    while (drop < this.window.length && (this.window.length - drop >= this.capacity || bytes + size > this.maxBytes)) bytes -= this.sizes[drop++]!;
    this.dropFirst(drop);
    return true;
  }
}

/**
 * Every read model sees the same event objects: frozen, so an apply that changed one in place would
 * throw instead of changing what the others read. The same walk measures the event: the length of
 * its strings (its JSON text as it came from Postgres, roughly) and a little for every other value.
 */
function freezeAndMeasure(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return 8;
  let size = 16;
  // walked in place, not through Object.entries (an array of pairs per object, for every event of
  // every batch); an array's keys count as their digits, as the entries' keys did
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) size += digitsOf(i) + freezeAndMeasure(value[i]);
  else for (const key in value) size += key.length + freezeAndMeasure((value as Record<string, unknown>)[key]);
  Object.freeze(value);
  return size;
}

const digitsOf = (i: number) => (i < 10 ? 1 : i < 100 ? 2 : String(i).length);
