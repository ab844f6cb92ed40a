// Snapshots of long-lived streams' decided state (README "Snapshots of long streams"): a decider
// with a snapshot codec folds from the last snapshot plus the events after it, not from the first
// event. Two places keep them:
// - in this process, the state each such stream was last decided at, encoded (a fresh state is
//   decoded for each command, so no two folds ever share one: the list decider adds in place), held
//   while the events they stand for stay under a cap;
// - in `stream_snapshots`, every `every` events, for another process or after a restart.
// Both are a cache, never the truth: the events after a snapshot are always read, and the event at
// the snapshot's revision too, whose position must be the one the snapshot was taken at (a log
// restored or replaced beside it makes the snapshot a stranger, and the stream is folded whole).
// Only deciders whose events carry no personal data take a codec (src/personal-data/rules.ts): a
// snapshot is never sealed, so a stream that turns out to hold such an event is never snapshotted.
import type { Logger } from 'pino';
import type pg from 'pg';
import { type Decider, type SnapshotCodec, type StoredEventLike } from '../decider.ts';
import type { Migration } from '../db/migrations.ts';
import { PERSONAL_DATA_RULES } from '../personal-data/rules.ts';
import { type EventStore, type Position, positionToString, type RecordedEvent } from './port.ts';

/** A state as a command decides on it: the fold, and the revision it stands at (none: the stream is empty). */
export interface StreamState<State> {
  state: State;
  revision: bigint | 'no_stream';
  /** position of the event at `revision` */
  position?: Position;
}

interface Held {
  kind: string;
  version: number;
  revision: bigint;
  position: string;
  encoded: unknown;
  /** the revision of the newest stored snapshot this process knows of (-1: none) */
  stored: bigint;
}

/** The events a process may hold decided states for (their revisions summed): a list of 100,000 members is 100,000. */
export const HELD_EVENTS_CAP = 500_000;


export class StreamSnapshots {
  private readonly held = new Map<string, Held>();
  private heldEvents = 0;
  private readonly writing = new Set<Promise<void>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly log: Logger,
    private readonly cap = HELD_EVENTS_CAP,
  ) {}

  /** The freshest snapshot of the stream known here or stored, of this codec; undefined: none. */
  async latest(streamId: string, codec: SnapshotCodec<unknown>): Promise<Held | undefined> {
    const mine = this.held.get(streamId);
    if (mine && mine.kind === codec.kind && mine.version === codec.version) {
      // most recently used goes last
      this.held.delete(streamId);
      this.held.set(streamId, mine);
      return mine;
    }
    const { rows } = await this.pool.query<{ revision: string; position: string; state: unknown }>({
      name: 'stream_snapshot_read',
      text: 'SELECT revision, position, state FROM stream_snapshots WHERE stream_id = $1 AND kind = $2 AND version = $3',
      values: [streamId, codec.kind, codec.version],
    });
    if (!rows[0]) return undefined;
    const revision = BigInt(rows[0].revision);
    return { kind: codec.kind, version: codec.version, revision, position: rows[0].position, encoded: rows[0].state, stored: revision };
  }

  /** Keeps the stream's state at `revision` here, and stores it once `every` events have passed since the last stored one. */
  remember<State>(streamId: string, codec: SnapshotCodec<State>, at: StreamState<State>, storedBefore: bigint): void {
    if (at.revision === 'no_stream' || !at.position) return;
    const entry: Held = {
      kind: codec.kind,
      version: codec.version,
      revision: at.revision,
      position: positionToString(at.position),
      encoded: codec.encode(at.state),
      stored: storedBefore,
    };
    if (at.revision - storedBefore >= BigInt(codec.every)) {
      entry.stored = at.revision;
      this.store(streamId, entry);
    }
    this.hold(streamId, entry);
  }

  /** Forgets what this process holds (a test starting over; the stored snapshots stay). */
  forget(): void {
    this.held.clear();
    this.heldEvents = 0;
  }

  /** Waits for the snapshots being stored. */
  async flush(): Promise<void> {
    await Promise.all([...this.writing]);
  }

  private hold(streamId: string, entry: Held): void {
    const weight = (e: Held) => Number(e.revision) + 1;
    const before = this.held.get(streamId);
    if (before) {
      this.heldEvents -= weight(before);
      this.held.delete(streamId);
    }
    if (weight(entry) > this.cap) return;
    this.held.set(streamId, entry);
    this.heldEvents += weight(entry);
    for (const [id, e] of this.held) {
      if (this.heldEvents <= this.cap) break;
      this.held.delete(id);
      this.heldEvents -= weight(e);
    }
  }

  private store(streamId: string, entry: Held): void {
    // a newer snapshot (another process's) is never replaced by an older one; one of another
    // codec version is replaced by this one
    const write = this.pool
      .query(
        `INSERT INTO stream_snapshots (stream_id, kind, version, revision, position, state, taken_at)
         VALUES ($1, $2, $3, $4, $5, $6, now())
         ON CONFLICT (stream_id) DO UPDATE SET kind = EXCLUDED.kind, version = EXCLUDED.version, revision = EXCLUDED.revision,
           position = EXCLUDED.position, state = EXCLUDED.state, taken_at = EXCLUDED.taken_at
         WHERE stream_snapshots.revision < EXCLUDED.revision OR stream_snapshots.version <> EXCLUDED.version OR stream_snapshots.kind <> EXCLUDED.kind`,
        [streamId, entry.kind, entry.version, entry.revision.toString(), entry.position, JSON.stringify(entry.encoded)],
      )
      .then(
        () => undefined,
        // a snapshot is a cache: one not stored is taken again `every` events later
        (err: Error) => this.log.warn({ err: { message: err.message }, streamId }, 'stream snapshot not stored'),
      )
      .finally(() => this.writing.delete(write));
    this.writing.add(write);
  }
}

const attached = new WeakMap<EventStore, StreamSnapshots>();

/** Makes `snapshots` the ones commands on `store` fold from (src/context.ts). */
export function attachSnapshots(store: EventStore, snapshots: StreamSnapshots): void {
  attached.set(store, snapshots);
}

export function snapshotsOf(store: EventStore): StreamSnapshots | undefined {
  return attached.get(store);
}

const asEvent = <E extends StoredEventLike>(r: RecordedEvent) => ({ type: r.type, data: r.data }) as E;

function foldRecorded<S, E extends StoredEventLike>(decider: Pick<Decider<unknown, S, E>, 'evolve'>, from: S, recorded: readonly RecordedEvent[]): S {
  let state = from;
  for (const r of recorded) state = decider.evolve(state, asEvent<E>(r));
  return state;
}

/** What a stream's state was read from, for `rememberState`. */
export interface LoadedState<State> extends StreamState<State> {
  /** the newest stored snapshot's revision (-1n: none) */
  stored: bigint;
  /** false when the stream holds personal data (never snapshotted) */
  snapshottable: boolean;
}

/**
 * The stream's state as `decider` folds it: from its snapshot and the events after it where the
 * decider has a codec and a snapshot fits, from its first event otherwise.
 */
export async function readState<S, E extends StoredEventLike>(store: EventStore, decider: Pick<Decider<any, S, E>, 'initialState' | 'evolve' | 'snapshot'>, streamId: string): Promise<LoadedState<S>> {
  const codec = decider.snapshot;
  const snapshots = codec ? snapshotsOf(store) : undefined;
  if (codec && snapshots) {
    const snap = await snapshots.latest(streamId, codec as SnapshotCodec<unknown>);
    if (snap) {
      const tail = await store.readStream(streamId, { fromRevision: snap.revision });
      // the event the snapshot was taken at must be the one still there
      if (tail[0] && tail[0].revision === snap.revision && positionToString(tail[0].position) === snap.position && !holdsPersonalData(tail)) {
        const last = tail[tail.length - 1];
        const state = foldRecorded(decider, codec.decode(snap.encoded) as S, tail.slice(1));
        return { state, revision: last.revision, position: last.position, stored: snap.stored, snapshottable: true };
      }
    }
  }
  const recorded = await store.readStream(streamId);
  const last = recorded[recorded.length - 1];
  return {
    state: foldRecorded(decider, decider.initialState, recorded),
    revision: last ? last.revision : 'no_stream',
    position: last?.position,
    stored: -1n,
    snapshottable: codec !== undefined && !holdsPersonalData(recorded),
  };
}

/**
 * Keeps the state a command left its stream at, for the next command (and stores it now and then);
 * `appended`: the events the command appended (one with personal data makes the stream unsnapshottable).
 */
export function rememberState<S>(
  store: EventStore,
  decider: Pick<Decider<any, S, any>, 'snapshot'>,
  streamId: string,
  loaded: LoadedState<S>,
  after: StreamState<S>,
  appended: readonly StoredEventLike[] = [],
): void {
  const codec = decider.snapshot;
  const snapshots = codec ? snapshotsOf(store) : undefined;
  if (!codec || !snapshots || !loaded.snapshottable || holdsPersonalData(appended)) return;
  snapshots.remember(streamId, codec, after, loaded.stored);
}

function holdsPersonalData(recorded: readonly StoredEventLike[]): boolean {
  return recorded.some((r) => PERSONAL_DATA_RULES[r.type] !== undefined);
}

/** The snapshots table (src/schema.ts runs it). A cache: emptying it costs only a longer fold. */
export const STREAM_SNAPSHOT_MIGRATIONS: Migration[] = [
  {
    id: 68,
    name: 'snapshots of long streams: a decider folds from the last one (snapshots.ts)',
    sql: `
      CREATE TABLE IF NOT EXISTS stream_snapshots (
        stream_id text PRIMARY KEY,
        kind text NOT NULL,
        version int NOT NULL,
        revision bigint NOT NULL,
        position text NOT NULL,
        state jsonb NOT NULL,
        taken_at timestamptz NOT NULL
      );`,
  },
];

/** The stream's state for a read (no command): folded as a command folds it, and kept for the next. */
export async function currentState<S, E extends StoredEventLike>(store: EventStore, decider: Pick<Decider<any, S, E>, 'initialState' | 'evolve' | 'snapshot'>, streamId: string): Promise<StreamState<S>> {
  const loaded = await readState(store, decider, streamId);
  rememberState(store, decider, streamId, loaded, loaded);
  return loaded;
}
