// EventStoreDB / KurrentDB adapter of the event store port (selected by EVENTSTORE_URL=esdb://…).
//
// Positions are ESDB's own {commit, prepare} pair; `$all` is ordered by it, so catch-up readers
// checkpoint the position of the last event they handled exactly as on Postgres. System events
// (types starting with '$': stats, metadata, links, epochs) are never returned. Our EventMetadata
// is stored as the event's JSON metadata, with `schemaVersion` like the Postgres adapter.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ANY,
  BACKWARDS,
  END,
  ErrorType,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START as ESDB_START,
  STREAM_EXISTS,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type AppendResult as EsdbAppendResult,
  type Filter,
  type JSONType,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
  START,
  WrongExpectedVersionError,
  comparePositions,
  currentSchemaVersion,
  upcast,
} from './port.ts';
import { Wakeup } from './wakeup.ts';

/** ESDB reports "no position" (e.g. stream reads on servers before 22.6) as the largest uint64. */
const NO_POSITION = 0xffff_ffff_ffff_ffffn;
const READ_PAGE_MIN = 64;
const READ_PAGE_MAX = 4096;
const BACKOFF_MIN_MS = 100;
const BACKOFF_MAX_MS = 5_000;
const PING_TIMEOUT_MS = 3_000;

type EsdbRecord = NonNullable<ResolvedEvent['event']> | NonNullable<AllStreamResolvedEvent['event']>;

function isSystemType(type: string): boolean {
  return type.startsWith('$');
}

function errorType(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null ? (err as { type?: string }).type : undefined;
}

function isStreamNotFound(err: unknown): boolean {
  return errorType(err) === ErrorType.STREAM_NOT_FOUND;
}

function validPosition(p: { commit: bigint; prepare: bigint } | undefined): Position | undefined {
  if (!p || p.commit === NO_POSITION || p.prepare === NO_POSITION || p.commit < 0n || p.prepare < 0n) return undefined;
  return { commit: p.commit, prepare: p.prepare };
}

function positionOf(record: EsdbRecord, commitPosition?: bigint): Position | undefined {
  const p = validPosition(record.position);
  if (p) return p;
  if (commitPosition !== undefined && commitPosition !== NO_POSITION) return { commit: commitPosition, prepare: commitPosition };
  return undefined;
}

function metadataOf(record: EsdbRecord): EventMetadata {
  const m = record.metadata as unknown;
  if (m && typeof m === 'object' && !Array.isArray(m) && !(m instanceof Uint8Array)) return m as EventMetadata;
  return {};
}

function toRecorded(record: EsdbRecord, position: Position): RecordedEvent {
  const metadata = metadataOf(record);
  return {
    id: record.id,
    streamId: record.streamId,
    revision: record.revision,
    position,
    type: record.type,
    data: upcast(record.type, record.data, metadata),
    metadata,
    createdAt: record.created,
  };
}

function toEventData(e: NewEvent) {
  const metadata: EventMetadata = { schemaVersion: currentSchemaVersion(e.type), ...(e.metadata ?? {}) };
  return jsonEvent({
    id: e.id ?? randomUUID(),
    type: e.type,
    data: (e.data ?? {}) as JSONType,
    metadata: metadata as Record<string, unknown>,
  });
}

function toEsdbExpected(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'any') return ANY;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return expected;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function backoffMs(attempt: number): number {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(attempt, 16));
  return base / 2 + Math.random() * (base / 2);
}

/** Sleeps, returning early (without throwing) when the signal aborts. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    /* aborted */
  }
}

export class EsdbEventStore implements EventStore {
  readonly kind = 'esdb' as const;
  readonly wakeup = new Wakeup();
  private readonly client: EventStoreDBClient;
  /** aborted by close(): stops every subscription loop and the wake-up watcher */
  private readonly closing = new AbortController();
  private readonly subscriptions = new Set<{ stop(): Promise<void> }>();
  private watching = false;

  constructor(url: string) {
    this.client = EventStoreDBClient.connectionString(url);
  }

  async append(streamId: string, events: readonly NewEvent[], expected: ExpectedRevision = 'any'): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const data = events.map(toEventData);
    let result: EsdbAppendResult;
    try {
      result = await this.client.appendToStream(streamId, data, { expectedRevision: toEsdbExpected(expected) });
    } catch (err) {
      if (errorType(err) === ErrorType.WRONG_EXPECTED_VERSION) {
        const actual = (err as { actualVersion?: bigint | 'no_stream' }).actualVersion;
        throw new WrongExpectedVersionError(streamId, expected, actual);
      }
      throw err;
    }
    this.wakeup.wake();
    const position = await this.appendedPosition(streamId, result, data[data.length - 1].id, events.length);
    return { nextExpectedRevision: result.nextExpectedRevision, position };
  }

  /**
   * The position of the last appended event. A single-event append's response position is that
   * event's position; for a multi-event append the response is not documented to point at the last
   * event, so read that event back (by its revision) and take its own position when the server
   * reports one (22.6+), falling back to the response.
   */
  private async appendedPosition(streamId: string, result: EsdbAppendResult, lastId: string, count: number): Promise<Position> {
    const fromServer = validPosition(result.position);
    if (count === 1 && fromServer) return fromServer;
    try {
      const [last] = await this.readStream(streamId, { fromRevision: result.nextExpectedRevision, maxCount: 1 });
      if (last && last.id === lastId && comparePositions(last.position, START) > 0) return last.position;
    } catch {
      /* fall back to the response */
    }
    return fromServer ?? START;
  }

  /**
   * EventStoreDB has no multi-stream transaction: the streams are appended one after another, each
   * checked on its own expected revision. This is NOT atomic across streams here — a conflict on a
   * later stream leaves the earlier streams' events written (and throws). Callers that need
   * all-or-nothing across streams must not rely on it with this adapter.
   */
  async appendMany(
    batch: readonly { streamId: string; events: readonly NewEvent[]; expected?: ExpectedRevision }[],
  ): Promise<AppendResult[]> {
    const seen = new Set<string>();
    for (const b of batch) {
      if (seen.has(b.streamId)) throw new Error(`appendMany: stream ${b.streamId} appears twice`);
      seen.add(b.streamId);
      if (b.events.length === 0) throw new Error('append needs at least one event');
    }
    const results: AppendResult[] = [];
    for (const b of batch) results.push(await this.append(b.streamId, b.events, b.expected));
    return results;
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    if (options.maxCount !== undefined && options.maxCount <= 0) return [];
    const backwards = options.direction === 'backwards';
    const out: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(streamId, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision: options.fromRevision ?? (backwards ? END : ESDB_START),
        maxCount: options.maxCount ?? Number.MAX_SAFE_INTEGER,
      });
      for await (const resolved of read) {
        const e = resolved.event;
        if (!e) continue;
        out.push(toRecorded(e, positionOf(e, resolved.commitPosition) ?? START));
      }
    } catch (err) {
      if (isStreamNotFound(err)) return [];
      throw err;
    }
    return out;
  }

  /**
   * Scans `$all` forwards strictly after `after`, page by page, handing each non-system event to
   * `visit` until it returns false or the log ends. Pages are re-anchored on the last raw record
   * seen (system events included); whether ESDB treats a start position as inclusive or not, the
   * position comparison drops anything at or before the cursor.
   */
  private async scanForward(after: Position | undefined, want: number, visit: (e: RecordedEvent) => boolean): Promise<void> {
    let cursor = after && comparePositions(after, START) > 0 ? after : undefined;
    const pageSize = Math.min(READ_PAGE_MAX, Math.max(READ_PAGE_MIN, want));
    for (;;) {
      const read = this.client.readAll({ fromPosition: cursor ?? ESDB_START, direction: FORWARDS, maxCount: pageSize });
      let raw = 0;
      let last: Position | undefined;
      let done = false;
      for await (const resolved of read) {
        raw++;
        const e = resolved.event;
        if (!e) continue;
        const pos = positionOf(e, resolved.commitPosition);
        if (!pos || (cursor && comparePositions(pos, cursor) <= 0)) continue;
        last = pos;
        if (isSystemType(e.type)) continue;
        if (!visit(toRecorded(e, pos))) {
          done = true;
          break;
        }
      }
      if (done) {
        await read.cancel().catch(() => undefined);
        return;
      }
      if (raw < pageSize || !last) return;
      cursor = last;
    }
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? 1000;
    if (maxCount <= 0 || options.types?.length === 0) return [];
    const types = options.types ? new Set(options.types) : undefined;
    const out: RecordedEvent[] = [];
    await this.scanForward(options.after, maxCount, (e) => {
      if (types && !types.has(e.type)) return true;
      out.push(e);
      return out.length < maxCount;
    });
    return out;
  }

  async countAfter(after: Position, types: readonly string[] | undefined, cap: number): Promise<number> {
    if (cap <= 0 || types?.length === 0) return 0;
    const wanted = types ? new Set(types) : undefined;
    let n = 0;
    await this.scanForward(after, cap, (e) => {
      if (wanted && !wanted.has(e.type)) return true;
      n++;
      return n < cap;
    });
    return n;
  }

  /** Reads `$all` backwards from the end until the first non-system event (or raw record when `anyRecord`). */
  private async lastPosition(anyRecord: boolean): Promise<Position> {
    const pageSize = anyRecord ? 1 : READ_PAGE_MIN;
    let cursor: Position | undefined;
    for (;;) {
      const read = this.client.readAll({ fromPosition: cursor ?? END, direction: BACKWARDS, maxCount: pageSize });
      let raw = 0;
      let last: Position | undefined;
      let found: Position | undefined;
      for await (const resolved of read) {
        raw++;
        const e = resolved.event;
        if (!e) continue;
        const pos = positionOf(e, resolved.commitPosition);
        if (!pos || (cursor && comparePositions(pos, cursor) >= 0)) continue;
        last = pos;
        if (anyRecord || !isSystemType(e.type)) {
          found = pos;
          break;
        }
      }
      if (found) {
        await read.cancel().catch(() => undefined);
        return found;
      }
      if (raw < pageSize || !last) return START;
      cursor = last;
    }
  }

  headPosition(): Promise<Position> {
    return this.lastPosition(false);
  }

  /**
   * Catch-up subscription over `$all`: history first, then live. Consumed with `for await` (never an
   * async 'data' handler, which would run events concurrently and out of order). A dropped
   * subscription does not resubscribe itself in this client: we resubscribe from the last delivered
   * position with jittered exponential backoff. Live events wake this store's pollers.
   */
  subscribeToAll(options: SubscribeOptions = {}): Subscription {
    const stopper = new AbortController();
    const closing = this.closing.signal;
    const types = options.types ? new Set(options.types) : undefined;
    const filter: Filter =
      options.types && options.types.length > 0
        ? eventTypeFilter({ regex: `^(?:${options.types.map(escapeRegex).join('|')})$` })
        : excludeSystemEvents();
    let current: AllStreamSubscription | undefined;
    const stopped = () => stopper.signal.aborted || closing.aborted;
    const self = this;

    const handle = {
      async stop() {
        stopper.abort();
        const sub = current;
        if (sub) await sub.unsubscribe().catch(() => undefined);
        self.subscriptions.delete(handle);
      },
    };
    this.subscriptions.add(handle);

    async function* iterate(): AsyncGenerator<RecordedEvent> {
      let position: Position | undefined = options.after && comparePositions(options.after, START) > 0 ? options.after : undefined;
      let attempt = 0;
      try {
        while (!stopped()) {
          let sub: AllStreamSubscription | undefined;
          try {
            // anything past the log's current end is live: wake pollers for it
            const liveAfter = await self.lastPosition(true);
            if (stopped()) return;
            let caughtUp = false;
            sub = self.client.subscribeToAll({ fromPosition: (position ?? ESDB_START) as ReadPosition, filter });
            current = sub;
            // errors reach the for-await below; this keeps a late one (after it ended) from crashing the process
            sub.on('error', () => undefined);
            sub.on('caughtUp', () => {
              caughtUp = true;
            });
            for await (const resolved of sub as AsyncIterable<AllStreamResolvedEvent>) {
              if (stopped()) return;
              attempt = 0;
              const e = resolved.event;
              if (!e) continue;
              const pos = positionOf(e, resolved.commitPosition);
              if (!pos || (position && comparePositions(pos, position) <= 0)) continue;
              position = pos;
              if (isSystemType(e.type) || (types && !types.has(e.type))) continue;
              if (caughtUp || comparePositions(pos, liveAfter) > 0) self.wakeup.wake();
              yield toRecorded(e, pos);
            }
          } catch {
            /* dropped (server restart, network, too slow): resubscribe below */
          } finally {
            if (sub) await sub.unsubscribe().catch(() => undefined);
            if (current === sub) current = undefined;
          }
          if (stopped()) return;
          await pause(backoffMs(attempt++), AbortSignal.any([stopper.signal, closing]));
        }
      } finally {
        self.subscriptions.delete(handle);
      }
    }

    const it = iterate();
    return { [Symbol.asyncIterator]: () => it, stop: handle.stop };
  }

  /**
   * Starts a background watcher (idempotent) that wakes this store's pollers whenever any
   * non-system event is appended — by this process or another — and after every (re)connect,
   * since notifications may have been missed while disconnected. A hint only: pollers still re-poll.
   */
  listen(): Promise<void> {
    if (!this.watching && !this.closing.signal.aborted) {
      this.watching = true;
      void this.watch();
    }
    return Promise.resolve();
  }

  private async watch(): Promise<void> {
    const closing = this.closing.signal;
    let attempt = 0;
    while (!closing.aborted) {
      const sub = this.client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
      const handle = { stop: () => sub.unsubscribe().catch(() => undefined) };
      this.subscriptions.add(handle);
      sub.on('error', () => undefined);
      sub.once('confirmation', () => {
        attempt = 0;
        this.wakeup.wake();
      });
      try {
        for await (const _ of sub as AsyncIterable<AllStreamResolvedEvent>) {
          if (closing.aborted) break;
          this.wakeup.wake();
        }
      } catch {
        /* dropped: resubscribe below */
      } finally {
        this.subscriptions.delete(handle);
        await sub.unsubscribe().catch(() => undefined);
      }
      if (closing.aborted) return;
      await pause(backoffMs(attempt++), closing);
    }
  }

  async ping(): Promise<boolean> {
    const read = this.client.readStream('engage-ping', { maxCount: 1 });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
      timer.unref?.();
    });
    const attempt = (async () => {
      try {
        for await (const _ of read) {
          /* the ping stream normally does not exist */
        }
        return true;
      } catch (err) {
        return isStreamNotFound(err);
      }
    })();
    try {
      return await Promise.race([attempt, timeout]);
    } finally {
      clearTimeout(timer);
      await read.cancel().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.closing.abort();
    this.wakeup.close();
    await Promise.allSettled([...this.subscriptions].map((s) => s.stop()));
    await this.client.dispose();
  }
}
