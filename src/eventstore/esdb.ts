// EventStoreDB / KurrentDB adapter of the event store port (selected by EVENTSTORE_URL=esdb://…),
// through @eventstore/db-client 6.x.
//
// Minimum server: EventStoreDB 22.6. Every RecordedEvent carries its real $all position, and the
// read-your-writes wait of the projection runner compares the position an append reports with the
// positions projections have reached. $all reads carry positions on every version, but stream reads
// only from 22.6 on (server PR EventStore#3459; the client's CHANGELOG: "when connected to a server
// that supports it (>22.6), events read from a stream will include their commit and prepare
// position"), and a multi-event append's position is learnt by reading its last event back from the
// stream. Positions are never invented: where the server reports none, the adapter throws an
// EsdbPositionError naming the version instead of making one up (a {commit, commit} guess or START
// would let a read-your-writes wait pass at once). Events written in explicit (TCP-era)
// transactions carry no position on stream reads even on 22.6+; engage never writes those.
// caughtUp / fellBehind subscription messages come from 23.10+ servers (client 6.1); on older
// servers they are simply never emitted and only serve as wake-up hints here anyway.
//
// Positions are ESDB's own {commit, prepare} pair; `$all` is ordered by it, so catch-up readers
// checkpoint the position of the last event they handled exactly as on Postgres. System events
// (types starting with '$': stats, metadata, links, epochs) are never returned. Our EventMetadata
// is stored as the event's JSON metadata, with `schemaVersion` like the Postgres adapter.
//
// Do not put `throwOnAppendFailure=false` in EVENTSTORE_URL: conflicts are still reported (as
// WrongExpectedVersionError), but without the stream's actual revision.
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
  type ResolvedEvent,
} from '@eventstore/db-client';
import pino, { type Logger } from 'pino';
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
  positionToString,
  upcast,
} from './port.ts';
import { Wakeup } from './wakeup.ts';

/** The oldest server whose stream reads carry $all positions. */
export const MIN_SERVER_VERSION = '22.6';
/** ESDB reports "no position" as the largest uint64 (stream reads on servers before 22.6). */
const NO_POSITION = 0xffff_ffff_ffff_ffffn;
const READ_PAGE_MIN = 64;
const READ_PAGE_MAX = 4096;
const BACKOFF_MIN_MS = 100;
const BACKOFF_MAX_MS = 5_000;
const PING_TIMEOUT_MS = 3_000;
/** Attempts at reading an appended event back for its position (a follower may lag a moment). */
const READ_BACK_ATTEMPTS = 4;
/**
 * Server-side filters send a checkpoint every `checkpointInterval` × the server's search window
 * (32 records by default) records they considered, matching or not — so about every 1,000 here.
 */
const CHECKPOINT_INTERVAL = 32;
/** Consecutive failed (re)subscriptions after which each further drop is logged as an error. */
const ESCALATE_AFTER = 10;

type EsdbRecord = NonNullable<ResolvedEvent['event']> | NonNullable<AllStreamResolvedEvent['event']>;

/** The server reported no usable $all position where engage needs one: the server is too old. */
export class EsdbPositionError extends Error {
  constructor(what: string) {
    super(
      `EventStoreDB reported no $all position for ${what}; engage needs EventStoreDB ${MIN_SERVER_VERSION} or later ` +
        '(stream reads carry positions from 22.6 on) and will not guess one',
    );
    this.name = 'EsdbPositionError';
  }
}

function isSystemType(type: string): boolean {
  return type.startsWith('$');
}

function errorType(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null ? (err as { type?: string }).type : undefined;
}

function isStreamNotFound(err: unknown): boolean {
  return errorType(err) === ErrorType.STREAM_NOT_FOUND;
}

/** Client error types that no retry can cure. */
const PERMANENT_TYPES: ReadonlySet<string> = new Set([
  ErrorType.ACCESS_DENIED, // also what the client makes of gRPC UNAUTHENTICATED
  ErrorType.INVALID_ARGUMENT,
  ErrorType.UNSUPPORTED,
  ErrorType.USER_NOT_FOUND,
]);

/**
 * gRPC status codes the client passes through untyped (as UnknownError with `code`) that no retry
 * can cure: INVALID_ARGUMENT (3, e.g. a bad filter or an invalid start position), PERMISSION_DENIED
 * (7), UNIMPLEMENTED (12, the server lacks the call), UNAUTHENTICATED (16).
 */
const PERMANENT_GRPC_CODES: ReadonlySet<number> = new Set([3, 7, 12, 16]);

/**
 * Whether an error from the server or the client is permanent (resubscribing cannot help: access
 * denied, not authenticated, an invalid argument, an unsupported call, a server too old for
 * positions) rather than transient (unavailable, deadline exceeded, cancelled by a shutting-down
 * node, not leader, discovery failed, unknown…).
 */
export function isPermanentError(err: unknown): boolean {
  if (err instanceof EsdbPositionError) return true;
  const type = errorType(err);
  if (type !== undefined && PERMANENT_TYPES.has(type)) return true;
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'number' && PERMANENT_GRPC_CODES.has(code);
}

/**
 * A position the server really reported, or undefined: absent, "no position" (uint64 max), negative,
 * or 0/0 (an unset field — the log's first record is the epoch, never an event of ours).
 */
function validPosition(p: { commit: bigint; prepare: bigint } | undefined): Position | undefined {
  if (!p || p.commit === NO_POSITION || p.prepare === NO_POSITION || p.commit < 0n || p.prepare < 0n) return undefined;
  if (p.commit === 0n && p.prepare === 0n) return undefined;
  return { commit: p.commit, prepare: p.prepare };
}

/** The record's own $all position; throws rather than guess one. */
function requirePosition(record: EsdbRecord, where: string): Position {
  const p = validPosition(record.position);
  if (!p) throw new EsdbPositionError(`event ${record.id} (${record.streamId}@${record.revision}) read from ${where}`);
  return p;
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
  return s.replace(/[.*+?^${}()|[\]\\#]/g, '\\$&');
}

/** The server-side filter of a subscription: exact event types, or every non-system event. */
function subscriptionFilter(types: readonly string[] | undefined, checkpointReached: Filter['checkpointReached']): Filter {
  const common = { checkpointInterval: CHECKPOINT_INTERVAL, ...(checkpointReached ? { checkpointReached } : {}) };
  return types && types.length > 0
    ? eventTypeFilter({ regex: `^(?:${types.map(escapeRegex).join('|')})$`, ...common })
    : excludeSystemEvents(common);
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

/**
 * The next item of a subscription, or `done` as soon as the signal aborts: a cancelled gRPC call
 * does not reliably end the client's stream, and stop() must not wait for the next event.
 */
function nextOrAbort<T>(it: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T>> {
  const done: IteratorResult<T> = { done: true, value: undefined };
  if (signal.aborted) return Promise.resolve(done);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(done);
    signal.addEventListener('abort', onAbort, { once: true });
    it.next().then(
      (r) => {
        signal.removeEventListener('abort', onAbort);
        resolve(r);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

export interface EsdbEventStoreOptions {
  /** where subscription drops and failures are logged (one line per drop) */
  log?: Logger;
  /** a ready client instead of one made from the URL (tests) */
  client?: EventStoreDBClient;
}

export class EsdbEventStore implements EventStore {
  readonly kind = 'esdb' as const;
  /** EventStoreDB has no multi-stream transaction: see appendMany. */
  readonly atomicAppendMany = false;
  readonly wakeup = new Wakeup();
  private readonly client: EventStoreDBClient;
  private readonly log: Logger;
  /** aborted by close(): stops every subscription loop and the wake-up watcher */
  private readonly closing = new AbortController();
  private readonly subscriptions = new Set<{ stop(): Promise<void> }>();
  private watching = false;

  constructor(url: string, options: EsdbEventStoreOptions = {}) {
    this.client = options.client ?? EventStoreDBClient.connectionString(url);
    this.log = options.log ?? pino({ name: 'engage-esdb' });
  }

  /**
   * Appends atomically to one stream at the expected revision. Re-appending events whose ids already
   * follow an exact expected revision (or 'no_stream') is an idempotent success that writes nothing
   * and reports the original events' revision (EventStoreDB's documented idempotence; guaranteed for
   * every expectation but 'any', where the server checks a cache of recent event ids — best effort,
   * but certain for a retry right after a lost acknowledgement).
   */
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
    // only with throwOnAppendFailure=false in the connection string (whose batch path misreports
    // the actual revision, so none is given)
    if (result.success === false) throw new WrongExpectedVersionError(streamId, expected);
    this.wakeup.wake();
    const position = await this.appendedPosition(streamId, result, data[data.length - 1].id, events.length);
    return { nextExpectedRevision: result.nextExpectedRevision, position };
  }

  /**
   * The $all position of the last appended event, never a guess. A single-event append's response
   * position is that event's own. A multi-event append's response is not documented to point at its
   * last event, and an idempotent (already written) append's response carries no position at all:
   * then the last event is read back by its revision — checked by id — and its own position taken
   * (stream reads carry positions on 22.6+). The events are written either way; when no position can
   * be learnt this throws, saying so, rather than report START (which a read-your-writes wait would
   * take as reached at once).
   */
  private async appendedPosition(streamId: string, result: EsdbAppendResult, lastId: string, count: number): Promise<Position> {
    const fromServer = validPosition(result.position);
    if (count === 1 && fromServer) return fromServer;
    const revision = result.nextExpectedRevision;
    let problem: unknown;
    for (let attempt = 0; attempt < READ_BACK_ATTEMPTS; attempt++) {
      if (attempt > 0) await sleep(backoffMs(attempt - 1));
      try {
        const [last] = await this.readStream(streamId, { fromRevision: revision, maxCount: 1 });
        if (last && last.id.toLowerCase() === lastId.toLowerCase()) return last.position;
        problem = new Error(`revision ${revision} of ${streamId} holds ${last ? `event ${last.id}` : 'nothing yet'}, not the appended ${lastId}`);
      } catch (err) {
        if (isPermanentError(err)) throw err;
        problem = err;
      }
    }
    const why = problem instanceof Error ? problem.message : String(problem);
    throw new Error(
      `appended to ${streamId} (now at revision ${revision}; the events are written) but could not learn the $all position of its last event: ${why}`,
      { cause: problem },
    );
  }

  /**
   * NOT atomic across streams (`atomicAppendMany` is false): EventStoreDB has no multi-stream
   * transaction (KurrentDB 25.1's multi-stream append is not in client 6.x). The streams are appended
   * one after another in batch order, each atomically and checked on its own expected revision. A
   * failure (a conflict, a lost connection) is thrown as it comes: the streams before it stay
   * written, the rest are not tried. The event ids are whatever the caller gave (or new ones), so a
   * caller that fixed them can re-send the batch: streams already written answer idempotently.
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
        out.push(toRecorded(e, requirePosition(e, `stream ${streamId}`)));
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
   * seen (system events included); a read's start position is inclusive, so the position comparison
   * drops anything at or before the cursor.
   *
   * Type filters run here, client-side: client 6.x's readAll has no `filter` option (it always sends
   * NoFilter; only subscribeToAll takes one), so readAll/countAfter read every record after `after`.
   * The projection runner keeps those scans short by skipping its checkpoint to the head on an empty
   * read.
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
        const pos = requirePosition(e, '$all');
        if (cursor && comparePositions(pos, cursor) <= 0) continue;
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

  /** Nothing is sealed here (PersonalDataStore seals above this store). */
  async open(events: RecordedEvent[]): Promise<RecordedEvent[]> {
    return events;
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
        const pos = requirePosition(e, '$all');
        if (cursor && comparePositions(pos, cursor) >= 0) continue;
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
    // EventStoreDB holds nothing back: its head is the newest committed event
    return this.lastPosition(false);
  }

  /**
   * Catch-up subscription over `$all`: history first, then live. Consumed with `for await` (never an
   * async 'data' handler, which would run events concurrently and out of order).
   *
   * Filtering is server-side (`eventTypeFilter` on the exact types, else `excludeSystemEvents`); the
   * exact check is repeated here as a backstop. A filtered subscription may see no matching event for
   * millions of records, so the server's checkpoints (the filter's `checkpointReached`) move the
   * subscription's internal resume position too — that is where a resubscription starts. They are
   * not exposed through the port (its Subscription yields events only): a consumer that persists
   * positions still stores event positions, and merely re-scans non-matching records after a restart.
   * The client awaits `checkpointReached` inside its stream transform, before events received ahead
   * of the checkpoint have been read from its buffer; so a checkpoint takes effect only once those
   * buffered events (counted by `readableLength` when it arrives) have been handed out — never may a
   * resubscription start past an event not yet delivered. A checkpoint is safe to resume after: the
   * server sends only events after the last event or checkpoint it sent, and a subscription's start
   * position is exclusive.
   *
   * A dropped subscription does not resubscribe itself in this client: on a transient error
   * (unavailable, deadline, a node shutting down, not leader…) or when the server ends it, we log one
   * warning per drop (an error after ESCALATE_AFTER drops in a row) and resubscribe from the resume
   * position with jittered exponential backoff. A permanent error (access denied, not authenticated,
   * invalid argument, unsupported, a server too old for positions) is logged as an error and thrown
   * to the consumer's `for await` instead of being retried forever. Errors thrown while handling an
   * event (an upcaster) also reach the consumer as they are.
   *
   * Live events wake this store's pollers: past the log's end when (re)subscribing, or once the
   * server said caughtUp (23.10+) — and no longer after it said fellBehind.
   */
  subscribeToAll(options: SubscribeOptions = {}): Subscription {
    const stopper = new AbortController();
    const signal = AbortSignal.any([stopper.signal, this.closing.signal]);
    const types = options.types ? new Set(options.types) : undefined;
    const log = this.log;
    let current: AllStreamSubscription | undefined;
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
      const start = options.after && comparePositions(options.after, START) > 0 ? options.after : undefined;
      /** where a resubscription starts (exclusive): the last event handed out or a later checkpoint */
      let resume: Position | undefined = start;
      /** the last event handed out (or the start): anything at or before it is not delivered again */
      let delivered: Position | undefined = start;
      const advance = (p: Position) => {
        if (!resume || comparePositions(p, resume) > 0) resume = p;
      };
      let failures = 0;
      try {
        while (!signal.aborted) {
          let sub: AllStreamSubscription | undefined;
          /** why this attempt ended: an error, or undefined when the server ended the subscription */
          let dropped: unknown;
          try {
            let liveAfter: Position;
            // checkpoints not yet in effect: `remaining` events received before each are still buffered
            const pending: { position: Position; remaining: number }[] = [];
            let caughtUp = false;
            try {
              // anything past the log's current end is live: wake pollers for it
              liveAfter = await self.lastPosition(true);
              if (signal.aborted) return;
              sub = self.client.subscribeToAll({
                fromPosition: resume ?? ESDB_START,
                filter: subscriptionFilter(options.types, (subscription, position) => {
                  const p = validPosition(position);
                  if (!p) return;
                  const remaining = subscription.readableLength;
                  if (remaining === 0 && pending.length === 0) advance(p);
                  else pending.push({ position: p, remaining });
                }),
              });
            } catch (err) {
              dropped = err;
              throw err;
            }
            current = sub;
            if (signal.aborted) return; // stop() ran before `current` was set
            // errors reach nextOrAbort below; this keeps a late one (after it ended) from crashing the process
            sub.on('error', () => undefined);
            sub.on('confirmation', () => {
              failures = 0;
            });
            sub.on('caughtUp', () => {
              caughtUp = true;
            });
            sub.on('fellBehind', () => {
              caughtUp = false;
            });
            const it = sub[Symbol.asyncIterator]();
            for (;;) {
              let next: IteratorResult<AllStreamResolvedEvent>;
              try {
                next = await nextOrAbort(it, signal);
              } catch (err) {
                dropped = err;
                break;
              }
              if (signal.aborted) return;
              if (next.done) break;
              failures = 0;
              for (const c of pending) c.remaining--;
              let out: RecordedEvent | undefined;
              const e = next.value.event;
              if (e) {
                const pos = requirePosition(e, 'the $all subscription');
                if (!delivered || comparePositions(pos, delivered) > 0) {
                  delivered = pos;
                  advance(pos);
                  if (!isSystemType(e.type) && (!types || types.has(e.type))) {
                    out = toRecorded(e, pos);
                    if (caughtUp || comparePositions(pos, liveAfter) > 0) self.wakeup.wake();
                  }
                }
              }
              while (pending.length > 0 && pending[0].remaining <= 0) advance(pending.shift()!.position);
              if (out) {
                yield out;
                if (signal.aborted) return;
              }
            }
          } catch (err) {
            // thrown while subscribing: classified below like a drop; anything else (handling an
            // event) goes to the consumer as it is
            if (dropped !== err) throw err;
          } finally {
            if (sub) {
              await sub.unsubscribe().catch(() => undefined);
              sub.destroy();
            }
            if (current === sub) current = undefined;
          }
          if (signal.aborted) return;
          const at = positionToString(resume ?? START);
          if (dropped !== undefined && isPermanentError(dropped)) {
            log.error({ err: dropped, position: at }, 'esdb $all subscription failed with a permanent error; not resubscribing');
            throw dropped;
          }
          failures++;
          const delay = backoffMs(failures - 1);
          const fields = { err: dropped, position: at, failures, retryInMs: Math.round(delay) };
          const message =
            dropped === undefined
              ? 'esdb $all subscription ended by the server; resubscribing from its position'
              : 'esdb $all subscription dropped; resubscribing from its position';
          if (failures >= ESCALATE_AFTER) log.error(fields, message);
          else log.warn(fields, message);
          await pause(delay, signal);
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
   * Drops are logged and resubscribed like subscribeToAll's; on a permanent error the watcher logs
   * an error and stops (pollers fall back to their timers).
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
    let failures = 0;
    while (!closing.aborted) {
      let dropped: unknown;
      let sub: AllStreamSubscription | undefined;
      try {
        sub = this.client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
      } catch (err) {
        dropped = err;
      }
      if (sub) {
        const live = sub;
        const handle = { stop: () => live.unsubscribe().catch(() => undefined) };
        this.subscriptions.add(handle);
        live.on('error', () => undefined);
        live.once('confirmation', () => {
          failures = 0;
          this.wakeup.wake();
        });
        const it = live[Symbol.asyncIterator]();
        try {
          for (;;) {
            const next = await nextOrAbort(it, closing);
            if (next.done || closing.aborted) break;
            failures = 0;
            this.wakeup.wake();
          }
        } catch (err) {
          dropped = err;
        } finally {
          this.subscriptions.delete(handle);
          await live.unsubscribe().catch(() => undefined);
          live.destroy();
        }
      }
      if (closing.aborted) return;
      if (dropped !== undefined && isPermanentError(dropped)) {
        this.log.error({ err: dropped }, 'esdb wake-up watcher failed with a permanent error; pollers fall back to their timers');
        this.watching = false;
        return;
      }
      failures++;
      const delay = backoffMs(failures - 1);
      const fields = { err: dropped, failures, retryInMs: Math.round(delay) };
      if (failures >= ESCALATE_AFTER) this.log.error(fields, 'esdb wake-up watcher dropped; resubscribing');
      else this.log.warn(fields, 'esdb wake-up watcher dropped; resubscribing');
      await pause(delay, closing);
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
