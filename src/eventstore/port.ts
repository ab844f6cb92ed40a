// The event store port: the only way the rest of engage reads or writes events.
// Positions are two-part like EventStoreDB's {commit, prepare}; both parts are
// carried as bigint in memory and as decimal strings on the wire.
import type { Wakeup } from './wakeup.ts';

export interface Position {
  commit: bigint;
  prepare: bigint;
}

export const START: Position = { commit: 0n, prepare: 0n };

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function positionToString(p: Position): string {
  return `${p.commit}/${p.prepare}`;
}

export function parsePosition(s: string): Position {
  const m = /^(\d+)\/(\d+)$/.exec(s.trim());
  if (!m) throw new Error(`not a position: ${s} (expected <commit>/<prepare>)`);
  return { commit: BigInt(m[1]), prepare: BigInt(m[2]) };
}

export interface EventMetadata {
  accountId?: string;
  actor?: string;
  requestId?: string;
  correlationId?: string;
  causationId?: string;
  /** schema version of the event type's data, for upcasting */
  schemaVersion?: number;
  [key: string]: unknown;
}

/** An event as a decider emits it. */
export interface NewEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
  metadata?: EventMetadata;
  /** optional caller-chosen id (uuid); generated when absent */
  id?: string;
}

/** An event as it was stored. */
export interface RecordedEvent<T extends string = string, D = any> {
  id: string;
  streamId: string;
  revision: bigint;
  position: Position;
  type: T;
  data: D;
  metadata: EventMetadata;
  createdAt: Date;
}

export type ExpectedRevision = 'no_stream' | 'any' | 'stream_exists' | bigint;

export interface AppendResult {
  /** revision of the last appended event */
  nextExpectedRevision: bigint;
  /** position of the last appended event */
  position: Position;
}

export class WrongExpectedVersionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual?: bigint | 'no_stream',
  ) {
    super(`wrong expected version on ${streamId}: expected ${String(expected)}, actual ${String(actual ?? 'unknown')}`);
    this.name = 'WrongExpectedVersionError';
  }
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  /** first revision to read (inclusive); defaults to the start or end by direction */
  fromRevision?: bigint;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** exclusive: events strictly after this position */
  after?: Position;
  maxCount?: number;
  /** only these event types (the position still only reflects returned events) */
  types?: readonly string[];
  /**
   * The store that seals personal data (src/personal-data/store.ts) leaves it sealed, for a reader
   * that never looks at it: no key is read and nothing decrypted. Other stores ignore it.
   */
  keepSealed?: boolean;
}

export interface CountOptions {
  includeHeldBack?: boolean;
}

/** One reader's countAfter: its position and the types it reads (undefined: every type). */
export interface CountRequest {
  after: Position;
  types: readonly string[] | undefined;
}

/** A transaction that holds catch-up readers back (what an operator needs to find and end it). */
export interface OpenTransaction {
  pid: number | null;
  /** how long it has been open, when the service's role may see it */
  age_ms: number | null;
  application: string | null;
  database: string | null;
  state: string | null;
  xid: string;
  /** a prepared (two-phase) transaction: end it with ROLLBACK PREPARED / COMMIT PREPARED */
  prepared_gid?: string;
}

export interface Subscription extends AsyncIterable<RecordedEvent> {
  stop(): Promise<void>;
}

export interface SubscribeOptions {
  /** exclusive start: deliver events after this position */
  after?: Position;
  types?: readonly string[];
  batchSize?: number;
}

export interface EventStore {
  readonly kind: 'postgres' | 'esdb';
  /** fires (as a hint) whenever new events may be readable; pollers re-read on it */
  readonly wakeup: Wakeup;
  /** Appends events to one stream atomically, checking the expected revision. */
  append(streamId: string, events: readonly NewEvent[], expected?: ExpectedRevision): Promise<AppendResult>;
  /**
   * Whether `appendMany` is all-or-nothing across streams: true for postgres (one transaction),
   * false for esdb (EventStoreDB has no multi-stream transaction; see `appendMany`).
   */
  readonly atomicAppendMany: boolean;
  /**
   * Appends to many streams in as few round trips as the adapter can; results come back in batch
   * order. Each stream is checked on its own expected revision, and each stream's events are written
   * atomically and in order, exactly as by `append`. Across streams the guarantee depends on
   * `atomicAppendMany`:
   * - true (postgres): the batch is one transaction: all of it is written or none. (After a lost
   *   connection the outcome is unknown; the adapter settles it by retrying with the same ids.)
   * - false (esdb): the streams are appended one after another in batch order. On an error (a
   *   WrongExpectedVersionError names the stream that conflicted; or a lost connection…) the
   *   streams before the failing one may have been written, the failing one and those after it not;
   *   nothing is rolled back. The $all order of a successful batch follows batch order.
   * Re-appending events whose ids already sit in the stream at the place the expectation names is an
   * idempotent success that writes nothing and returns the original revision and position (as
   * EventStoreDB does natively for exact expectations). So a caller that must be correct on both
   * kinds fixes the event ids before the first call and, after a failure, re-sends the very same
   * events with the same expectations (the batch, or stream by stream): streams already written
   * answer with their original result, the others are written now or conflict on their own — a
   * conflict then means another writer, to be re-decided on the stream's real state.
   * Throws, writing nothing, when a stream appears twice or has no events; an empty batch returns [].
   */
  appendMany(batch: readonly { streamId: string; events: readonly NewEvent[]; expected?: ExpectedRevision }[]): Promise<AppendResult[]>;
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Each of these streams' first event, in one read (a store that can; a stream with none is absent). */
  readFirstEvents?(streamIds: readonly string[]): Promise<Map<string, RecordedEvent>>;
  /** Reads the global log in commit order, strictly after `after`. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Events read with `keepSealed`, as a read without it would have returned them (a store that seals nothing: as they are). */
  open(events: RecordedEvent[]): Promise<RecordedEvent[]>;
  /** Catch-up subscription over the global log: history first, then live, resuming after a stored position. */
  subscribeToAll(options?: SubscribeOptions): Subscription;
  /**
   * How many events of these types lie after `after` (counting stops at `cap`): readable ones only,
   * or with `includeHeldBack` also those committed but held back from readers by an older open
   * transaction (the true lag of a reader at `after`).
   */
  countAfter(after: Position, types: readonly string[] | undefined, cap: number, options?: CountOptions): Promise<number>;
  /**
   * countAfter for several readers at once, in their order: what each would answer (a store that
   * can count them in one read of the log; without it, countAfter once per reader).
   */
  countsAfter?(readers: readonly CountRequest[], cap: number, options?: CountOptions): Promise<number[]>;
  /**
   * Postgres only: the oldest open transaction on the cluster that holds a transaction id. Catch-up
   * readers see nothing that committed after it started until it ends, in any database of the cluster.
   */
  oldestOpenTransaction?(): Promise<OpenTransaction | undefined>;
  /**
   * Position of the newest readable event (START when empty); with `includeHeldBack`, of the newest
   * committed one, held back from readers or not: what a wait for "everything written so far" needs.
   */
  headPosition(options?: CountOptions): Promise<Position>;
  /** Cheap liveness check for /health. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Upcasters turn stored older versions of an event's data into the current shape. */
export type Upcaster = (data: any, fromVersion: number) => any;
const upcasters = new Map<string, { version: number; upcast: Upcaster }>();

export function registerUpcaster(type: string, currentVersion: number, upcast: Upcaster): void {
  upcasters.set(type, { version: currentVersion, upcast });
}

export function upcast(type: string, data: any, metadata: EventMetadata): any {
  const u = upcasters.get(type);
  if (!u) return data;
  const from = typeof metadata.schemaVersion === 'number' ? metadata.schemaVersion : 1;
  return from < u.version ? u.upcast(data, from) : data;
}

export function currentSchemaVersion(type: string): number {
  return upcasters.get(type)?.version ?? 1;
}
