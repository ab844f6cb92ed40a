// Postgres adapter of the event store port. Appends are one statement (stream row
// check-and-bump + event insert), or for a batch of new streams one COPY of each table in one
// transaction (copyNewStreams); catch-up reads never pass a transaction that may
// still commit, by reading only below the snapshot's xmin in (txid, position) order.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Logger } from 'pino';
import {
  type AppendResult,
  type CountOptions,
  type CountRequest,
  comparePositions,
  type OpenTransaction,
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
  positionToString,
  parsePosition,
  currentSchemaVersion,
  upcast,
} from './port.ts';
import { isConnectionError, isRetryableConflict } from '../db/errors.ts';
import { withTransaction } from '../db/pool.ts';
import { GroupCommit } from '../db/group-commit.ts';
import { NotificationListener } from '../db/notifications.ts';
import { sleep } from '../sleep.ts';
import { Wakeup } from './wakeup.ts';
import type { Migration } from '../db/migrations.ts';
import { type ArchivedPartition, ARCHIVE_COLUMNS, ARCHIVE_TYPE_COUNTS, archivedLag, archivedPartitions, type ArchiveLine, lineIsAfter, linesOf } from './archive.ts';
import { ArchiveStorage } from './archive-storage.ts';
import { DEFAULT_PARTITION_EVENTS, ensurePartitions, isMissingPartition, LOG_PARTITION_MIGRATIONS, partitionTheLog, POSITION_SEQUENCE } from './partitions.ts';

export const EVENT_CHANNEL = 'engage_events';
/**
 * Payloads on EVENT_CHANNEL besides an append's hint (the appending store's token): a listening
 * store says `hello:<token>` whenever its listener (re)connects, every other listening store answers
 * `here:<token>`, and a store that stops listening says `bye:<token>`. So each knows whether any other
 * process listens, and sends no hints while none does (README "The write path").
 */
const HELLO = 'hello:';
const HERE = 'here:';
const BYE = 'bye:';

// No NOTIFY inside an append transaction: a notifying commit holds a cluster-wide lock through its
// WAL flush, so every append would commit one at a time. The adapter notifies after commit instead.
export const DROP_NOTIFY_TRIGGER = `
DROP TRIGGER IF EXISTS es_events_notify ON es_events;
DROP FUNCTION IF EXISTS es_notify_append();
`;

export const EVENTSTORE_SCHEMA = `
CREATE TABLE IF NOT EXISTS es_streams (
  stream_id text PRIMARY KEY,
  revision bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS es_events (
  global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  stream_id text NOT NULL,
  stream_revision bigint NOT NULL,
  event_id uuid NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT es_events_stream_revision UNIQUE (stream_id, stream_revision)
);
CREATE INDEX IF NOT EXISTS es_events_commit_order ON es_events (transaction_id, global_position);
${DROP_NOTIFY_TRIGGER}`;

/** First argument of every stream lock (pg_advisory_xact_lock(namespace, hashtext(stream_id))). */
export const STREAM_LOCK_NAMESPACE = 0x65730001;

/** The SQLSTATE es_read_all raises when events after the position lie in the archive (the reader reads it). */
export const ARCHIVED = 'ES410';

/** The SQLSTATE es_write raises when a stream moved between judging and writing (the append is then judged again). */
export const STREAM_MOVED = 'ES409';

/**
 * The append, for one stream or many, as one function call: one round trip, one short transaction.
 *
 * Per-stream order in the global log must equal revision order, and the log is ordered by
 * transaction id, which a transaction gets at its first write. So a transaction must never write a
 * stream after another one that got its id later wrote it and committed:
 * - 'any' and 'stream_exists' accept whatever the stream holds, so their streams are locked first
 *   (advisory locks, one global order, taken before anything is written: no transaction id yet, and
 *   appenders cannot deadlock each other). Whoever wrote such a stream before us committed before we
 *   got its lock, and got its own id while holding it.
 * - An exact revision or 'no_stream' is a condition on the stream, checked again as the stream row is
 *   written (a conditional update, a conflict-free insert): if anyone wrote the stream in the
 *   meantime, our write fails and nothing is written, so no lock is needed. Bulk accepts (thousands
 *   of new streams) take no locks at all.
 *
 * Each stream is judged: it fits its expectation (written), or it already holds these very events
 * (same ids) at the place they were meant for — a retry after a lost acknowledgement; nothing is
 * written and the first append's positions are returned, as EventStoreDB does — or it conflicts: then
 * nothing of the batch is written and the conflicting streams come back with their revision. For
 * 'any' and 'stream_exists', "the place" is where the first event's id sits in the stream; ids are
 * looked for only when asked (`l`: the caller chose the ids, or this is a retry).
 *
 * Both functions run with JIT off, whatever the server's setting (Debian's and the official image's
 * Postgres have jit=on): their statements take milliseconds, and compiling the judging one cost
 * seconds on every call that reached it (README "The event log and the read models").
 *
 * req: [{s: stream id, k: no_stream|any|stream_exists|exact, r?: expected revision, l: look for ids,
 *        e: [{i: id, t: type, d: data, m: metadata}]}]
 */
/**
 * The streams of a request as rows c(ord, item, s, kind, expected, look, evs, n, cur, fits): each
 * stream's current revision and whether it fits its expectation (es_write and es_append judge alike).
 */
const REQUEST_STREAMS = `r AS (
    SELECT t.ord, t.x AS item, t.x->>'s' AS s, t.x->>'k' AS kind, (t.x->>'r')::bigint AS expected,
           coalesce((t.x->>'l')::boolean, false) AS look, t.x->'e' AS evs, jsonb_array_length(t.x->'e')::bigint AS n
    FROM jsonb_array_elements(req) WITH ORDINALITY AS t(x, ord)
  ), rc AS MATERIALIZED (
    -- a correlated look-up per stream (an index probe): a join here may be planned as a scan of every stream.
    -- Materialized: inlined, every use of cur below would be a look-up (a subplan) of its own
    SELECT r.*, (SELECT st.revision FROM es_streams st WHERE st.stream_id = r.s) AS cur FROM r
  ), c AS (
    SELECT rc.*,
           CASE rc.kind WHEN 'no_stream' THEN rc.cur IS NULL
                        WHEN 'stream_exists' THEN rc.cur IS NOT NULL
                        WHEN 'exact' THEN rc.cur IS NOT NULL AND rc.cur = rc.expected
                        ELSE true END AS fits
    FROM rc
  )`;

export const APPEND_FUNCTION = `
-- Writes every stream of req if each fits its expectation and none asks to look for ids; else
-- writes nothing and returns no row. A stream that moved since it was read fails the whole call
-- with ${STREAM_MOVED} (or a unique violation): nothing is written.
-- Its one statement is planned once per session (a generic plan): its shape does not depend on the
-- request, and planned per call (a custom plan) it cost about as much as it took to run.
CREATE OR REPLACE FUNCTION es_write(req jsonb)
RETURNS TABLE (o_stream text, o_outcome text, o_revision bigint, o_txid text, o_gp bigint)
LANGUAGE plpgsql SET jit = off SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  RETURN QUERY
  WITH ${REQUEST_STREAMS}, go AS (
    SELECT bool_and(c.fits AND NOT c.look) AS all_fit, count(*) AS streams, array_agg(c.s) FILTER (WHERE c.cur IS NOT NULL) AS existing FROM c
  ), ins AS (
    INSERT INTO es_events (stream_id, stream_revision, event_id, type, data, metadata)
    SELECT c.s, coalesce(c.cur, -1) + j.o, (j.ev->>'i')::uuid, j.ev->>'t', j.ev->'d', j.ev->'m'
    FROM c CROSS JOIN go CROSS JOIN LATERAL jsonb_array_elements(c.evs) WITH ORDINALITY AS j(ev, o)
    WHERE go.all_fit
    ORDER BY c.ord, j.o
    RETURNING es_events.stream_id, es_events.stream_revision, es_events.global_position
  ), moved AS (
    -- only where the row still holds the revision we read (= ANY keeps this an index look-up). go's
    -- values as scalar subqueries, not a join: joined, every row of the hash carried the array of all
    -- the request's existing streams, and an append to 800 streams spilled 25 MB to temporary files.
    -- (Joined to the inserted rows to keep each stream's last position as well, a dispatcher's round
    -- of 500 streams took 156 ms of Postgres instead of a few: the last position is not kept.)
    UPDATE es_streams e SET revision = c.cur + c.n
    FROM c
    WHERE (SELECT go.all_fit FROM go) AND e.stream_id = ANY((SELECT go.existing FROM go)::text[]) AND e.stream_id = c.s AND e.revision = c.cur
    RETURNING e.stream_id
  ), created AS (
    -- a new stream's row keeps its first event's position: a read of the stream starts there and
    -- skips the partitions before it (readStream)
    INSERT INTO es_streams (stream_id, revision, first_position)
    SELECT c.s, c.n - 1, f.first
      FROM c JOIN (SELECT ins.stream_id, min(ins.global_position) AS first FROM ins GROUP BY ins.stream_id) f ON f.stream_id = c.s, go
     WHERE go.all_fit AND c.cur IS NULL
    ON CONFLICT (stream_id) DO NOTHING
    RETURNING stream_id
  )
  SELECT ins.stream_id, 'written'::text, max(ins.stream_revision), pg_current_xact_id()::text, max(ins.global_position)
    FROM ins GROUP BY ins.stream_id
  HAVING es_stream_moved_unless((SELECT count(*) FROM moved) + (SELECT count(*) FROM created) = (SELECT go.streams FROM go));
END
$fn$;

CREATE OR REPLACE FUNCTION es_stream_moved_unless(ok boolean) RETURNS boolean LANGUAGE plpgsql AS $fn$
BEGIN
  IF NOT ok THEN
    RAISE EXCEPTION 'a stream moved while it was being appended to' USING ERRCODE = '${STREAM_MOVED}';
  END IF;
  RETURN true;
END
$fn$;

CREATE OR REPLACE FUNCTION es_append(req jsonb)
RETURNS TABLE (o_stream text, o_outcome text, o_revision bigint, o_txid text, o_gp bigint)
LANGUAGE plpgsql SET jit = off AS $fn$
DECLARE
  v_streams text[];
  v_state text[];
  v_current bigint[];
  v_place bigint[];
  v_counts bigint[];
  v_writes jsonb;
BEGIN
  -- one statement, evaluated in key order as the sorted rows reach the aggregate
  PERFORM count(pg_advisory_xact_lock(${STREAM_LOCK_NAMESPACE}, q.k))
    FROM (SELECT DISTINCT hashtext(x->>'s') AS k FROM jsonb_array_elements(req) AS x
          WHERE x->>'k' IN ('any', 'stream_exists') ORDER BY 1) AS q;

  -- the common case: every stream fits and nobody asked to look for ids
  RETURN QUERY SELECT * FROM es_write(req);
  IF FOUND THEN
    RETURN;
  END IF;

  -- judge each stream, looking for the ids where asked or where the expectation failed
  WITH ${REQUEST_STREAMS}, p AS MATERIALIZED (
    SELECT c.*,
           CASE WHEN c.cur IS NULL OR (c.fits AND NOT c.look) THEN NULL
                WHEN c.kind = 'exact' THEN c.expected + 1
                WHEN c.kind = 'no_stream' THEN 0
                ELSE (SELECT e.stream_revision FROM es_events e WHERE e.stream_id = c.s AND e.event_id = (c.evs->0->>'i')::uuid) END AS place
    FROM c
  ), judged AS MATERIALIZED (
    -- a duplicate when no event of the request is missing from its place (NOT EXISTS is planned to stop
    -- at the first one: a count of every match was estimated at 100 look-ups per stream)
    SELECT p.*, CASE
             WHEN p.place IS NOT NULL AND p.place >= 0 AND p.place + p.n - 1 <= p.cur
                  AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(p.evs) WITH ORDINALITY AS j(ev, o)
                       WHERE (SELECT e.event_id FROM es_events e WHERE e.stream_id = p.s AND e.stream_revision = p.place + j.o - 1) IS DISTINCT FROM (j.ev->>'i')::uuid)
               THEN 'duplicate'
             WHEN p.fits THEN 'write'
             ELSE 'conflict' END AS state
    FROM p
  )
  SELECT array_agg(s ORDER BY ord), array_agg(state ORDER BY ord), array_agg(cur ORDER BY ord), array_agg(place ORDER BY ord), array_agg(n ORDER BY ord),
         jsonb_agg(item - 'l' ORDER BY ord) FILTER (WHERE state = 'write')
    INTO v_streams, v_state, v_current, v_place, v_counts, v_writes
  FROM judged;

  IF 'conflict' = ANY(v_state) THEN
    RETURN QUERY SELECT u.s, 'conflict'::text, u.cur, NULL::text, NULL::bigint
      FROM unnest(v_streams, v_state, v_current) AS u(s, st, cur) WHERE u.st = 'conflict';
    RETURN;
  END IF;

  IF v_writes IS NOT NULL THEN
    RETURN QUERY SELECT * FROM es_write(v_writes);
    -- it writes nothing when a stream no longer fits: one moved since it was judged just now
    PERFORM es_stream_moved_unless(FOUND);
  END IF;
  RETURN QUERY
  SELECT u.s, 'duplicate'::text, e.stream_revision, e.transaction_id::text, e.global_position
    FROM unnest(v_streams, v_state, v_place, v_counts) AS u(s, st, place, n)
    CROSS JOIN LATERAL (SELECT * FROM es_events x WHERE x.stream_id = u.s AND x.stream_revision = u.place + u.n - 1 LIMIT 1) AS e
    WHERE u.st = 'duplicate';
END
$fn$;
`;

/**
 * The read of the global log after a position (readAll: every read model's catch-up and the log
 * tail's read on every wake), as a function whose statements are planned once per session. Sent as a
 * named statement it was still planned on every call: the plan cache kept choosing a custom plan (a
 * range it cannot size without the position), and its planning cost six times its run. The generic
 * plan walks es_events_commit_order from the position, in log order, as the custom one does. JIT off,
 * as for the append (README "The event log and the read models").
 */
export const READ_FUNCTION = `
CREATE OR REPLACE FUNCTION es_read_all(after_commit xid8, after_prepare bigint, n int, wanted text[])
RETURNS SETOF es_events
LANGUAGE plpgsql STABLE SET jit = off SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  -- events after the position were archived out of the table: the reader reads the archive (archive.ts)
  IF EXISTS (SELECT 1 FROM es_partitions p WHERE p.archived_at IS NOT NULL
              AND (split_part(p.last_event, '/', 1)::xid8, split_part(p.last_event, '/', 2)::bigint) > (after_commit, after_prepare)) THEN
    RAISE EXCEPTION 'events after this position are archived' USING ERRCODE = '${ARCHIVED}';
  END IF;
  IF wanted IS NULL THEN
    RETURN QUERY SELECT * FROM es_events
      WHERE (transaction_id, global_position) > (after_commit, after_prepare)
        AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY transaction_id, global_position LIMIT n;
  ELSE
    RETURN QUERY SELECT * FROM es_events
      WHERE (transaction_id, global_position) > (after_commit, after_prepare)
        AND transaction_id < pg_snapshot_xmin(pg_current_snapshot()) AND type = ANY(wanted)
      ORDER BY transaction_id, global_position LIMIT n;
  END IF;
END
$fn$;
`;

/**
 * A stream's read (README "The log at scale"). A stream nobody wrote has no row: its read (every
 * command that makes a stream reads it first) answers empty without touching the log. A forward
 * read walks the live partitions in log order from the one of the stream's first position (its
 * row keeps it: every new stream's, es_write's and COPY's; a stream made before the log kept it
 * starts at the first partition) and stops once it holds what was asked for: the stream's row
 * knows its last revision, and a stream's revisions follow its positions. So a message's read
 * touches its own partition's index, not every partition's after it, and keeping the last position
 * costs the append nothing. Each partition's statement is pruned to that partition as it runs. A
 * backwards read does not know where the stream ends: it reads every partition from the first
 * position on. A function, planned once per session, with bitmap scans off: planned generically,
 * the position's bound looked selective, and the read combined the stream's index with a range of
 * the position's over most of a partition.
 */
export const STREAM_READ_FUNCTION = `
CREATE OR REPLACE FUNCTION es_read_stream(sid text, from_revision bigint, backwards boolean, n int)
RETURNS SETOF es_events
LANGUAGE plpgsql STABLE SET jit = off SET enable_bitmapscan = off SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
  first_at bigint;
  last_revision bigint;
  lo bigint;
  wanted bigint;
  got bigint := 0;
  k bigint;
  part record;
BEGIN
  SELECT s.first_position, s.revision INTO first_at, last_revision FROM es_streams s WHERE s.stream_id = sid;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  lo := coalesce(first_at, 0);
  IF backwards THEN
    RETURN QUERY SELECT * FROM es_events
      WHERE stream_id = sid AND stream_revision <= coalesce(from_revision, 9223372036854775807) AND global_position >= lo
      ORDER BY stream_revision DESC LIMIT n;
    GET DIAGNOSTICS got = ROW_COUNT;
  ELSE
    wanted := least(coalesce(n, 9223372036854775807), last_revision - coalesce(from_revision, 0) + 1);
    IF wanted <= 0 THEN
      RETURN;
    END IF;
    FOR part IN SELECT p.from_position, p.to_position FROM es_partitions p
                 WHERE p.archived_at IS NULL AND p.to_position > lo ORDER BY p.from_position LOOP
      RETURN QUERY SELECT * FROM es_events
        WHERE stream_id = sid AND stream_revision >= coalesce(from_revision, 0)
          AND global_position >= greatest(lo, part.from_position) AND global_position < part.to_position
        ORDER BY stream_revision LIMIT wanted - got;
      GET DIAGNOSTICS k = ROW_COUNT;
      got := got + k;
      EXIT WHEN got >= wanted;
    END LOOP;
  END IF;
  -- nothing in the table of a stream that has events, begun before an archived partition's end (or
  -- where it began is not known): they may lie in the archive, the reader reads it (archive.ts)
  IF got = 0 AND EXISTS (SELECT 1 FROM es_partitions p WHERE p.archived_at IS NOT NULL AND (first_at IS NULL OR first_at < p.to_position)) THEN
    RAISE EXCEPTION 'events of this stream are archived' USING ERRCODE = '${ARCHIVED}';
  END IF;
END
$fn$;
`;

/**
 * What a transaction that copied new streams (copyNewStreams) wrote: each stream's last revision and
 * position, as es_write answers. A function, so that its statement is planned once per session and
 * runs with JIT off, as the append's do.
 */
export const COPIED_FUNCTION = `
CREATE OR REPLACE FUNCTION es_copied()
RETURNS TABLE (o_stream text, o_outcome text, o_revision bigint, o_txid text, o_gp bigint)
LANGUAGE plpgsql STABLE SET jit = off SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  RETURN QUERY SELECT e.stream_id, 'written'::text, max(e.stream_revision), pg_current_xact_id()::text, max(e.global_position)
    FROM es_events e WHERE e.transaction_id = pg_current_xact_id() GROUP BY e.stream_id;
END
$fn$;
`;

const EVENT_COLUMNS = `global_position::text AS gp, transaction_id::text AS txid, stream_id, stream_revision::text AS rev,
  event_id, type, data, metadata, created_at`;

/** A row of the log as read (an archive's line, archive.ts, with its time as a Date). */
type EventRow = Omit<ArchiveLine, 'created_at'> & { created_at: Date };

/** An archived event (archive.ts) as the log's row gives it. */
function fromArchive(line: ArchiveLine): RecordedEvent {
  return toRecorded({ ...line, created_at: new Date(line.created_at) });
}

/** The archive's events after `after`, in log order, file after file. */
async function* archiveLinesAfter(storage: ArchiveStorage, parts: readonly ArchivedPartition[], after: Position): AsyncGenerator<ArchiveLine> {
  for (const p of parts) {
    if (comparePositions(parsePosition(p.last!), after) <= 0) continue;
    for await (const line of linesOf(storage, p.file)) if (lineIsAfter(line, after)) yield line;
  }
}

/** The most archive reads kept open between batches. */
const ARCHIVE_CURSORS = 16;

function toRecorded(row: EventRow): RecordedEvent {
  const metadata = row.metadata ?? {};
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: BigInt(row.rev),
    position: { commit: BigInt(row.txid), prepare: BigInt(row.gp) },
    type: row.type,
    data: upcast(row.type, row.data, metadata),
    metadata,
    createdAt: row.created_at,
  };
}

/**
 * One event as a JSON object, for statements that take all their rows as a single JSON parameter:
 * node-postgres escapes every element of a jsonb[] parameter into an array literal, which costs far
 * more than the insert itself.
 */
function encodeEvent(e: NewEvent) {
  return {
    i: e.id ?? randomUUID(),
    t: e.type,
    d: e.data ?? {},
    m: { schemaVersion: currentSchemaVersion(e.type), ...(e.metadata ?? {}) },
  };
}

/** One stream's part of an es_append request. */
interface AppendRequest {
  streamId: string;
  events: readonly NewEvent[];
  expected?: ExpectedRevision;
}

/** One stream's part of an es_append request, as sent (see APPEND_FUNCTION). */
interface AppendItem {
  s: string;
  k: string;
  r?: string;
  l: boolean;
  e: ReturnType<typeof encodeEvent>[];
}

/** A caller's append waiting to go to Postgres with others (PostgresEventStore.grouped). */
interface QueuedAppend {
  request: readonly AppendRequest[];
  items: AppendItem[];
  events: number;
}

/** What a caller of a batch gets: its results, or its own error. */
type AppendOutcome = { results: AppendResult[] } | { error: unknown };

/**
 * A single write's append (one stream, at most this many events) goes to Postgres with the others made
 * meanwhile; one of many streams (a bulk's chunk, a dispatcher's round, a batch of reports) or more
 * events is a batch already, and goes on its own at once, beside the others, as it always did.
 */
const GROUPED_MAX_EVENTS = 16;
/** the most events one batch of single appends carries */
const GROUPED_BATCH_EVENTS = 256;
/**
 * A batch with at least this many events to new streams is written by COPY (copiable,
 * copyNewStreams): below it the one statement of es_write costs less than COPY's round trips.
 */
export const COPY_MIN_EVENTS = 256;

interface AppendRow {
  o_stream: string;
  o_outcome: 'written' | 'duplicate' | 'conflict';
  o_revision: string | null;
  o_txid: string | null;
  o_gp: string | null;
}

/** countsAfter reads at most this many events in its one read (a few MiB of positions and types). */
const COUNT_SCAN_MAX = 100_000;
const RETRY_ATTEMPTS = 6;
const RETRY_BASE_MS = 50;

/** The stream named by a unique violation's detail: `Key (stream_id, stream_revision)=(<id>, 3) already exists.` */
function streamOfUniqueViolation(err: unknown): string | undefined {
  const detail = (err as { detail?: string }).detail ?? '';
  const m = /^Key \(stream_id(?:, stream_revision)?\)=\((.*?)(?:, -?\d+)?\) already exists/.exec(detail);
  return m?.[1];
}

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505';
}

/** The one-statement append of a request (APPEND_FUNCTION), named: prepared once per connection. */
function esWrite(json: string): pg.QueryConfig {
  return { name: 'es_write', text: 'SELECT * FROM es_write($1::jsonb)', values: [json] };
}

/**
 * Whether a batch is written by COPY (copyNewStreams): at least COPY_MIN_EVENTS events to new
 * streams, any other stream at an exact revision (those of 'any' and 'stream_exists' are locked
 * before anything is written, in es_append), and no ids to look for (a retry is judged by es_append).
 */
function copiable(items: readonly AppendItem[]): boolean {
  let fresh = 0;
  for (const i of items) {
    if (i.l || (i.k !== 'no_stream' && i.k !== 'exact')) return false;
    if (i.k === 'no_stream') fresh += i.e.length;
  }
  return fresh >= COPY_MIN_EVENTS;
}

/** A field in COPY's text format: its backslashes, tabs and line ends escaped. */
function copyField(value: string): string {
  return /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')) : value;
}

/** COPY's text rows, each item's (its fields per row), a few hundred rows a chunk. */
function* copyRows<T>(items: readonly T[], rowsOf: (item: T) => string[][]): Generator<string> {
  let chunk = '';
  let rows = 0;
  for (const item of items) {
    for (const row of rowsOf(item)) {
      chunk += row.map(copyField).join('\t') + '\n';
      if (++rows % 256 === 0) {
        yield chunk;
        chunk = '';
      }
    }
  }
  if (chunk) yield chunk;
}

function expectationKind(expected: ExpectedRevision): string {
  return typeof expected === 'bigint' ? 'exact' : expected;
}

/** A stream's row, as a read of its archived events needs it: its first event's position (undefined: made before the log kept it) and its last revision. */
interface StreamStart {
  first: bigint | undefined;
  revision: bigint;
}

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  readonly atomicAppendMany = true;
  readonly wakeup = new Wakeup();
  /** the payload of this store's append notifications (announce), which its own listener ignores */
  private readonly notifyToken = randomUUID();
  private listener?: NotificationListener;
  /** whether this store's listener is connected: it hears the other stores' hellos and hints */
  private hearing = false;
  /** the tokens of the other stores that listen (said hello or here, not yet bye) */
  private readonly peers = new Set<string>();
  private notifyPending = false;
  private notifying?: Promise<void>;

  private readonly log?: Logger;
  private closed = false;
  /**
   * Group commit of single writes' appends (README "The write path"): those that arrive while one
   * batch is being written go together in the next (writeBatch). Two callers of one stream never
   * share a batch: the later one waits for the next.
   */
  private readonly grouped = new GroupCommit<QueuedAppend, AppendOutcome>((batch) => this.writeBatch(batch), {
    joins: (q, batch) => batch.reduce((n, b) => n + b.events, q.events) <= GROUPED_BATCH_EVENTS && !batch.some((b) => b.items[0].s === q.items[0].s),
  });

  /** positions per partition of the log, for the partitions this store makes (README "The log at scale") */
  private readonly partitionEvents: number;
  /** where archived partitions' files are read from (README "Archiving old partitions") */
  private readonly archive: ArchiveStorage;
  /** closed with the store only when the store made it (one given is its maker's to close) */
  private readonly ownsArchive: boolean;
  /** an append past this position makes the next partition (ensurePartitions) */
  private partitionsDueAt = 0n;
  private ensuring?: Promise<void>;

  /**
   * @param pool appends and reads
   * @param connectionString the listener's own connection (LISTEN needs a session of its own)
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly connectionString?: string,
    options: { log?: Logger; partitionEvents?: number; archive?: ArchiveStorage } = {},
  ) {
    this.log = options.log;
    this.archive = options.archive ?? new ArchiveStorage();
    this.ownsArchive = options.archive === undefined;
    this.partitionEvents = options.partitionEvents ?? DEFAULT_PARTITION_EVENTS;
  }

  /**
   * Makes the log's next partitions where fewer than a partition's positions lie free (once at a time
   * in this process), or fewer than `ahead`: an append that finds no partition for its positions makes
   * room for them (they may be more than a partition's) and goes again.
   */
  ensurePartitions(ahead?: number): Promise<void> {
    const making = (room: number) =>
      ensurePartitions(this.pool, this.partitionEvents, room).then((upto) => {
        this.partitionsDueAt = upto - BigInt(this.partitionEvents);
      });
    if (ahead !== undefined) return making(ahead);
    this.ensuring ??= making(this.partitionEvents).finally(() => {
      this.ensuring = undefined;
    });
    return this.ensuring;
  }

  async append(streamId: string, events: readonly NewEvent[], expected: ExpectedRevision = 'any'): Promise<AppendResult> {
    return (await this.appendMany([{ streamId, events, expected }]))[0];
  }

  /**
   * Appends to one or many streams atomically (all or nothing): a single write's (one stream, up to
   * GROUPED_MAX_EVENTS events) together with the others made meanwhile (`grouped`), any other on its
   * own at once (`write`).
   */
  async appendMany(request: readonly AppendRequest[]): Promise<AppendResult[]> {
    if (request.length === 0) return [];
    const seen = new Set<string>();
    for (const b of request) {
      if (seen.has(b.streamId)) throw new Error(`appendMany: stream ${b.streamId} appears twice`);
      seen.add(b.streamId);
      if (b.events.length === 0) throw new Error('append needs at least one event');
    }
    // ids are fixed before the first attempt, so every retry sends the very same events
    const items: AppendItem[] = request.map((b) => {
      const expected = b.expected ?? 'any';
      return {
        s: b.streamId,
        k: expectationKind(expected),
        ...(typeof expected === 'bigint' ? { r: expected.toString() } : {}),
        // ids are looked for where a fitting expectation cannot tell a retry from a new write: an
        // exact revision or no_stream fails on a stream our lost attempt already wrote, and a stream
        // that fails its expectation is always looked at (es_append)
        l: (expected === 'any' || expected === 'stream_exists') && b.events.some((e) => e.id !== undefined),
        e: b.events.map(encodeEvent),
      };
    });
    const events = request.reduce((n, b) => n + b.events.length, 0);
    if (request.length > 1 || events > GROUPED_MAX_EVENTS) return this.answer(request, await this.write(items));
    const outcome = await this.grouped.add({ request, items, events });
    if ('error' in outcome) throw outcome.error;
    return outcome.results;
  }

  /**
   * A batch of single writes' appends (see `grouped`), written in one statement and one commit. Each caller is
   * judged on its own: a batch with a conflicting stream writes nothing, its callers get their
   * conflict and the others are written again without them; a batch that fails as a whole (a stream
   * that kept moving, a lost connection) is written again caller by caller, each with its own retries.
   */
  private async writeBatch(batch: readonly QueuedAppend[]): Promise<AppendOutcome[]> {
    const answered = (q: QueuedAppend, rows: () => Promise<AppendRow[]> | AppendRow[]): Promise<AppendOutcome> =>
      (async () => ({ results: this.answer(q.request, await rows()) }))().catch((error: unknown) => ({ error }));
    const alone = (q: QueuedAppend) => answered(q, () => this.write(q.items));
    if (batch.length === 1) return [await alone(batch[0])];
    let rows: AppendRow[];
    try {
      rows = await this.write(batch.flatMap((q) => q.items));
    } catch {
      return Promise.all(batch.map(alone));
    }
    const conflicts = new Set(rows.filter((r) => r.o_outcome === 'conflict').map((r) => r.o_stream));
    return Promise.all(
      batch.map((q) => {
        // nothing of a batch with a conflict was written: the others go again without the conflicting callers
        if (conflicts.size > 0 && !q.items.some((i) => conflicts.has(i.s))) return alone(q);
        const own = new Set(q.items.map((i) => i.s));
        return answered(q, () => rows.filter((r) => own.has(r.o_stream)));
      }),
    );
  }

  /**
   * Appends to one or many streams atomically (all or nothing) in one statement (see
   * APPEND_FUNCTION), and answers the rows es_append gives: written, duplicate or (nothing written)
   * conflict. Deadlocks and serialization failures are retried; so is a connection lost mid-append,
   * whose outcome is unknown: the retry finds the events already there (by id) when the first
   * attempt committed, and writes nothing twice.
   */
  private async write(items: AppendItem[]): Promise<AppendRow[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        // mostly new streams, none to look for and none to lock: copied (see copyNewStreams)
        if (copiable(items)) {
          const rows = await this.copyNewStreams(items);
          if (rows) return rows;
        }
        const json = JSON.stringify(items);
        // no stream to lock and no ids to look for: try the write alone (one statement); it writes
        // nothing unless every stream fits, and es_append then judges (a conflict, say)
        if (!items.some((i) => i.l || i.k === 'any' || i.k === 'stream_exists')) {
          const { rows } = await this.pool.query<AppendRow>(esWrite(json));
          if (rows.length > 0) return rows;
        }
        return (await this.pool.query<AppendRow>({ name: 'es_append', text: 'SELECT * FROM es_append($1::jsonb)', values: [json] })).rows;
      } catch (err) {
        // a position beyond the last partition: it is made, and the append goes again (nothing was written)
        if (isMissingPartition(err) && attempt < RETRY_ATTEMPTS) {
          // (the failed attempt used up its positions too)
          await this.ensurePartitions(this.partitionEvents + 2 * items.reduce((n, i) => n + i.e.length, 0));
          continue;
        }
        const raced = isUniqueViolation(err) || (err as { code?: string }).code === STREAM_MOVED;
        const unknownOutcome = isConnectionError(err);
        if (raced && attempt >= RETRY_ATTEMPTS) {
          // a stream kept moving under us (or a row that bypassed es_append is in the way): a conflict on it
          const streamId = streamOfUniqueViolation(err) ?? items.find((i) => i.k === 'exact' || i.k === 'no_stream')?.s ?? items[0].s;
          const item = items.find((i) => i.s === streamId);
          const expected: ExpectedRevision = item === undefined ? 'any' : item.k === 'exact' ? BigInt(item.r!) : (item.k as ExpectedRevision);
          throw new WrongExpectedVersionError(streamId, expected, await this.currentRevision(streamId).catch(() => undefined));
        }
        if (!raced && ((!unknownOutcome && !isRetryableConflict(err)) || attempt >= RETRY_ATTEMPTS)) throw err;
        // judged again, ids looked for: a stream that moved is then a clean conflict (or our own write)
        if (raced || unknownOutcome) for (const item of items) item.l = true;
        if (!raced) await sleep(RETRY_BASE_MS * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
      }
    }
  }

  /**
   * Writes a batch of new streams with COPY, in one transaction (README "The write path"): the
   * batch's other streams first, each at its exact revision (es_write: a campaign's progress beside
   * its messages), then the new streams' rows with their first positions, then their events at
   * those positions (taken from the log's sequence first, in one statement). For thousands of events
   * COPY costs Postgres about two thirds of es_write, which takes the whole batch as one JSON
   * document, parses it and takes each event apart again. A new stream that already exists fails
   * the stream rows' COPY with a unique violation (after waiting for a transaction that is creating
   * it), and nothing is written; an exact revision that no longer fits writes nothing and answers undefined,
   * for es_append to judge. The transaction's id comes with its first write, as an append's does;
   * the log's order holds as it does for es_write: a new stream has no writer before it, and an
   * exact revision is checked as its row is written.
   */
  private copyNewStreams(items: readonly AppendItem[]): Promise<AppendRow[] | undefined> {
    const fresh = items.filter((i) => i.k === 'no_stream');
    const rest = items.filter((i) => i.k !== 'no_stream');
    return withTransaction(this.pool, async (client) => {
      // es_write writes nothing unless every stream fits: then there is nothing to commit but an empty transaction
      if (rest.length > 0 && (await client.query<AppendRow>(esWrite(JSON.stringify(rest)))).rows.length === 0) return undefined;
      // the events' positions, in order: each new stream's row keeps its first (a stream's read starts there)
      const { rows } = await client.query<{ p: string[] }>({
        name: 'es_positions',
        text: `SELECT array_agg(nextval('${POSITION_SEQUENCE}')::text) AS p FROM generate_series(1, $1::int)`,
        values: [fresh.reduce((n, i) => n + i.e.length, 0)],
      });
      const positions = rows[0].p;
      const streamRows: string[][] = [];
      for (let k = 0, at = 0; k < fresh.length; at += fresh[k].e.length, k++) streamRows.push([fresh[k].s, String(fresh[k].e.length - 1), positions[at]]);
      await pipeline(Readable.from(copyRows(streamRows, (r) => [r])), client.query(copyFrom('COPY es_streams (stream_id, revision, first_position) FROM STDIN')));
      let next = 0;
      await pipeline(
        Readable.from(copyRows(fresh, (i) => i.e.map((e, o) => [positions[next++], i.s, String(o), e.i, e.t, JSON.stringify(e.d), JSON.stringify(e.m)]))),
        client.query(copyFrom('COPY es_events (global_position, stream_id, stream_revision, event_id, type, data, metadata) FROM STDIN')),
      );
      // every stream this transaction wrote, es_write's too
      return (await client.query<AppendRow>({ name: 'es_copied', text: 'SELECT * FROM es_copied()' })).rows;
    });
  }

  /** A caller's answer from the rows of its streams: its positions, or its first conflict. */
  private answer(request: readonly AppendRequest[], rows: readonly AppendRow[]): AppendResult[] {
    const conflict = rows.find((r) => r.o_outcome === 'conflict');
    if (conflict) {
      const item = request.find((b) => b.streamId === conflict.o_stream)!;
      throw new WrongExpectedVersionError(conflict.o_stream, item.expected ?? 'any', conflict.o_revision === null ? 'no_stream' : BigInt(conflict.o_revision));
    }
    if (rows.some((r) => r.o_outcome === 'written')) {
      this.wakeup.wake();
      if (this.othersMayListen()) this.announce();
      // the next partition is made ahead of need, beside the appends
      if (rows.some((r) => r.o_gp !== null && BigInt(r.o_gp) >= this.partitionsDueAt)) {
        void this.ensurePartitions().catch((err: Error) => this.log?.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'the next partition of the log was not made; the next append tries again'));
      }
    }
    const byStream = new Map(rows.map((r) => [r.o_stream, r]));
    const missing = request.find((b) => !byStream.has(b.streamId));
    if (missing) throw new Error(`es_append answered nothing for stream ${missing.streamId}`);
    return request.map((b) => {
      const r = byStream.get(b.streamId)!;
      return { nextExpectedRevision: BigInt(r.o_revision!), position: { commit: BigInt(r.o_txid!), prepare: BigInt(r.o_gp!) } };
    });
  }

  /**
   * Whether another process may listen: a store that does not hear (it does not listen, or its
   * listener is away) cannot know, so it tells.
   */
  private othersMayListen(): boolean {
    return !this.hearing || this.peers.size > 0;
  }

  /** How many other processes' stores this one knows to be listening (README "The write path"). */
  listeningPeers(): number {
    return this.peers.size;
  }

  /**
   * Tells other processes (as a hint) that events were committed, where one may listen
   * (othersMayListen): one NOTIFY outside any write transaction, so it flushes no WAL and holds the
   * notify lock only for an instant. Appends that commit while one is in flight share the next, so
   * a burst costs two statements, not one each.
   * Its payload is this store's token: its own listener, which hears it too, wakes nobody for it
   * (this process's readers were woken when the append returned; each wake is a read of the log).
   */
  private announce(): void {
    this.notifyPending = true;
    if (this.notifying) return;
    this.notifying = (async () => {
      while (this.notifyPending) {
        this.notifyPending = false;
        await this.pool.query(`SELECT pg_notify('${EVENT_CHANNEL}', $1)`, [this.notifyToken]).catch(() => undefined);
      }
      // cleared in the same turn as the last check, so no announce() can slip between the two
      this.notifying = undefined;
    })();
  }

  private async currentRevision(streamId: string): Promise<bigint | 'no_stream'> {
    const { rows } = await this.pool.query('SELECT revision::text FROM es_streams WHERE stream_id = $1', [streamId]);
    return rows.length ? BigInt(rows[0].revision) : 'no_stream';
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    let rows: EventRow[];
    try {
      // named, and a function planned once per session (STREAM_READ_FUNCTION): every command reads its stream
      ({ rows } = await this.pool.query<EventRow>({
        name: 'es_read_stream',
        text: `SELECT ${EVENT_COLUMNS} FROM es_read_stream($1, $2::bigint, $3, $4::int)`,
        values: [streamId, options.fromRevision?.toString() ?? null, backwards, options.maxCount ?? null],
      }));
    } catch (err) {
      // the table holds none of what was asked for, the archive may
      if ((err as { code?: string }).code !== ARCHIVED) throw err;
      const start = await this.archivedStart(streamId);
      return start ? this.readStreamWithArchive(streamId, [], options, start) : [];
    }
    const events = rows.map(toRecorded);
    // the table holds all that was asked for where it starts where the read starts (or, backwards, ends
    // at revision 0 or has all it was asked for); else earlier events may lie in the archive. An empty
    // read is whole: the function said so where the archive may hold the stream.
    const complete =
      events.length === 0 ||
      (backwards ? events.length === options.maxCount || events.at(-1)!.revision === 0n : events[0].revision === (options.fromRevision ?? 0n));
    if (complete) return events;
    const start = await this.archivedStart(streamId);
    return start ? this.readStreamWithArchive(streamId, events, options, start) : events;
  }

  /**
   * Where a stream starts, if some of its events may lie in the archive (a read that the table does
   * not answer whole then looks there): a stream that has events, where a partition was archived,
   * whose first event came before the archive's end (or is not known: streams made before the log
   * kept it). Its row's first position and last revision, for the read of its archived part.
   */
  private async archivedStart(streamId: string): Promise<StreamStart | undefined> {
    const { rows } = await this.pool.query<{ first: string | null; revision: string }>({
      name: 'es_stream_archived_start',
      text: `SELECT s.first_position::text AS first, s.revision::text AS revision
               FROM es_streams s, (SELECT max(to_position) AS upto FROM es_partitions WHERE archived_at IS NOT NULL) a
              WHERE s.stream_id = $1 AND a.upto IS NOT NULL AND coalesce(s.first_position < a.upto, true)`,
      values: [streamId],
    });
    return rows.length ? { first: rows[0].first === null ? undefined : BigInt(rows[0].first), revision: BigInt(rows[0].revision) } : undefined;
  }

  /**
   * A stream's read with its archived events: its files read from the one its first event lies in
   * (its row keeps the position; a stream made before the log kept it reads from the first file),
   * until every revision before the table's first is found. Slower than the table, but complete.
   */
  private async readStreamWithArchive(streamId: string, live: RecordedEvent[], options: ReadStreamOptions, { first, revision }: StreamStart): Promise<RecordedEvent[]> {
    // the whole stream as the table holds it (the read above may hold only a window of it)
    const rest = (await this.pool.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM es_events WHERE stream_id = $1 ORDER BY stream_revision`, [streamId])).rows.map(toRecorded);
    // the archive holds the revisions below the table's first (all of them when the table holds none)
    const wanted = rest.length > 0 ? Number(rest[0].revision) : Number(revision) + 1;
    const archived: RecordedEvent[] = [];
    for (const p of await archivedPartitions(this.pool)) {
      if (archived.length >= wanted) break;
      if (first !== undefined && BigInt(p.to_position) <= first) continue;
      for await (const line of linesOf(this.archive, p.file)) if (line.stream_id === streamId) archived.push(fromArchive(line));
    }
    if (archived.length === 0) return live;
    const byRevision = new Map<bigint, RecordedEvent>();
    for (const e of archived) byRevision.set(e.revision, e);
    for (const e of [...live, ...rest]) byRevision.set(e.revision, e);
    let all = [...byRevision.values()].sort((a, b) => (a.revision < b.revision ? -1 : a.revision > b.revision ? 1 : 0));
    if (options.direction === 'backwards') {
      all.reverse();
      if (options.fromRevision !== undefined) all = all.filter((e) => e.revision <= options.fromRevision!);
    } else if (options.fromRevision !== undefined) all = all.filter((e) => e.revision >= options.fromRevision!);
    return options.maxCount === undefined ? all : all.slice(0, options.maxCount);
  }

  async readFirstEvents(streamIds: readonly string[]): Promise<Map<string, RecordedEvent>> {
    const { rows } = await this.pool.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM es_events WHERE stream_id = ANY($1) AND stream_revision = 0`, [[...streamIds]]);
    return new Map(rows.map((r) => [r.stream_id, toRecorded(r)]));
  }

  /** Nothing is sealed here (PersonalDataStore seals above this store). */
  async open(events: RecordedEvent[]): Promise<RecordedEvent[]> {
    return events;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? START;
    try {
      // named, and a function planned once per session (READ_FUNCTION): every read model reads on every wake
      const { rows } = await this.pool.query<EventRow>({
        name: 'es_read_all',
        text: `SELECT ${EVENT_COLUMNS} FROM es_read_all($1::text::xid8, $2::bigint, $3::int, $4::text[])`,
        values: [after.commit.toString(), after.prepare.toString(), options.maxCount ?? 1000, options.types ?? null],
      });
      return rows.map(toRecorded);
    } catch (err) {
      if ((err as { code?: string }).code !== ARCHIVED) throw err;
      return this.readAllFromArchive(after, options.maxCount ?? 1000, options.types);
    }
  }

  /**
   * readAll from a position inside the archive: its files from there, then the table after the
   * archive's end. A reader going on from where its last read ended (a catch-up, a rebuild) goes on
   * in the same open file (`archiveCursors`), so the files are read once, not once per batch.
   */
  private async readAllFromArchive(after: Position, maxCount: number, types: readonly string[] | undefined): Promise<RecordedEvent[]> {
    const parts = (await archivedPartitions(this.pool)).filter((p) => p.last !== null);
    const wanted = types ? new Set(types) : undefined;
    const key = (p: Position) => `${p.commit}/${p.prepare}/${types?.join(',') ?? ''}`;
    const out: RecordedEvent[] = [];
    let cursor = this.archiveCursors.get(key(after));
    this.archiveCursors.delete(key(after));
    if (!cursor) cursor = { lines: archiveLinesAfter(this.archive, parts, after) };
    for (;;) {
      const next = await cursor.lines.next();
      if (next.done) break;
      if (wanted && !wanted.has(next.value.type)) continue;
      out.push(fromArchive(next.value));
      if (out.length >= maxCount) {
        this.keepCursor(key(out[out.length - 1].position), cursor);
        return out;
      }
    }
    const end = parsePosition(parts[parts.length - 1].last!);
    const from = out.length > 0 || comparePositions(after, end) < 0 ? end : after;
    return out.concat(await this.readAll({ after: from, maxCount: maxCount - out.length, types }));
  }

  /** Open archive reads, by the position their last batch ended at (a few: one per reader catching up). */
  private readonly archiveCursors = new Map<string, { lines: AsyncGenerator<ArchiveLine> }>();

  private keepCursor(at: string, cursor: { lines: AsyncGenerator<ArchiveLine> }): void {
    this.archiveCursors.set(at, cursor);
    for (const [k, c] of this.archiveCursors) {
      if (this.archiveCursors.size <= ARCHIVE_CURSORS) break;
      this.archiveCursors.delete(k);
      void c.lines.return(undefined);
    }
  }

  /** The events after a position, of the types where given, up to `cap`: in the table, and in the archive as its partitions count them (archivedLag). */
  async countAfter(after: Position, types: readonly string[] | undefined, cap: number, options: CountOptions = {}): Promise<number> {
    const [inTable, archived] = await Promise.all([this.countTableAfter(after, types, cap, options), archivedPartitions(this.pool)]);
    return Math.min(cap, inTable + archivedLag(archived, after, types));
  }

  private async countTableAfter(after: Position, types: readonly string[] | undefined, cap: number, options: CountOptions): Promise<number> {
    const params: unknown[] = [after.commit.toString(), after.prepare.toString(), cap];
    if (types) params.push(types);
    const readable = options.includeHeldBack ? '' : ' AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())';
    const { rows } = await this.pool.query(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM es_events
         WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)${readable}${types ? ' AND type = ANY($4::text[])' : ''}
         LIMIT $3) t`,
      params,
    );
    return rows[0].n;
  }

  /**
   * countAfter for every reader from one read of the log: the events after the furthest-behind
   * reader (at most COUNT_SCAN_MAX of them, their position and type) are read once and each reader
   * counts its types after its own position among them, where one count per reader read every event
   * again for each (GET /health counts every read model's lag). When that read stopped at its limit
   * before the log's end, a reader that found fewer than `cap` may have more beyond it: those are
   * counted on their own.
   */
  async countsAfter(readers: readonly CountRequest[], cap: number, options: CountOptions = {}): Promise<number[]> {
    if (readers.length === 0) return [];
    const from = readers.map((r) => r.after).reduce((a, b) => (comparePositions(b, a) < 0 ? b : a));
    const limit = Math.min(cap, COUNT_SCAN_MAX);
    const readable = options.includeHeldBack ? '' : ' AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())';
    const { rows } = await this.pool.query<{ n: number; scanned: number }>(
      `WITH r AS MATERIALIZED (
         SELECT x.i, x.c::xid8 AS c, x.p, x.types IS NULL AS every_type, ARRAY(SELECT jsonb_array_elements_text(x.types)) AS types
           FROM jsonb_to_recordset($1::jsonb) AS x(i int, c text, p bigint, types jsonb)),
       e AS MATERIALIZED (
         SELECT transaction_id, global_position, type FROM es_events
          WHERE (transaction_id, global_position) > ($2::text::xid8, $3::bigint)${readable}
          ORDER BY transaction_id, global_position LIMIT $4),
       -- each reader's types as rows, joined to the events on the type, once for all readers: one probe
       -- of a small hash per event, where an ANY over each reader's types for every event cost readers ×
       -- events × types (materialized: inlined, the join was run again for each reader)
       rt AS (SELECT r.i, r.c, r.p, t.type FROM r CROSS JOIN LATERAL unnest(r.types) AS t(type) WHERE NOT r.every_type),
       typed AS MATERIALIZED (
         SELECT rt.i, count(*)::int AS n FROM rt JOIN e ON e.type = rt.type AND (e.transaction_id, e.global_position) > (rt.c, rt.p)
          GROUP BY rt.i)
       SELECT CASE WHEN r.every_type THEN (SELECT count(*) FROM e WHERE (e.transaction_id, e.global_position) > (r.c, r.p))::int
                   ELSE coalesce((SELECT typed.n FROM typed WHERE typed.i = r.i), 0) END AS n,
              (SELECT count(*) FROM e)::int AS scanned
         FROM r ORDER BY r.i`,
      [
        JSON.stringify(readers.map((r, i) => ({ i, c: r.after.commit.toString(), p: r.after.prepare.toString(), types: r.types ?? null }))),
        from.commit.toString(),
        from.prepare.toString(),
        limit,
      ],
    );
    const complete = rows.length > 0 && rows[0].scanned < limit;
    const archived = await archivedPartitions(this.pool);
    return Promise.all(
      rows.map(async (row, i) => {
        const inTable = complete || row.n >= cap ? row.n : await this.countTableAfter(readers[i].after, readers[i].types, cap, options);
        return Math.min(cap, inTable + archivedLag(archived, readers[i].after, readers[i].types));
      }),
    );
  }

  /**
   * The transaction with the cluster's oldest running transaction id: readers read below it. Sessions of
   * other roles show their pid and database, but their age and application only to a role with
   * pg_read_all_stats; a prepared transaction shows its gid instead of a session.
   */
  async oldestOpenTransaction(): Promise<OpenTransaction | undefined> {
    const { rows } = await this.pool.query<OpenTransaction & { age_ms: string | null }>(
      `SELECT a.pid, (extract(epoch FROM clock_timestamp() - a.xact_start) * 1000)::bigint::text AS age_ms,
              a.application_name AS application, a.datname AS database, a.state, a.backend_xid::text AS xid, NULL AS prepared_gid,
              age(a.backend_xid) AS xid_age
         FROM pg_stat_activity a
        WHERE a.backend_xid IS NOT NULL AND a.pid <> pg_backend_pid()
       UNION ALL
       SELECT NULL, (extract(epoch FROM clock_timestamp() - p.prepared) * 1000)::bigint::text, NULL, p.database, 'prepared', p.transaction::text, p.gid, age(p.transaction)
         FROM pg_prepared_xacts p
       ORDER BY xid_age DESC
       LIMIT 1`,
    );
    if (!rows.length) return undefined;
    const r = rows[0];
    return {
      pid: r.pid,
      age_ms: r.age_ms === null ? null : Number(r.age_ms),
      application: r.application || null,
      database: r.database,
      state: r.state,
      xid: r.xid,
      ...(r.prepared_gid ? { prepared_gid: r.prepared_gid } : {}),
    };
  }

  async headPosition(options: CountOptions = {}): Promise<Position> {
    // an open transaction anywhere in the cluster (another database's too) holds the readable head back
    const { rows } = await this.pool.query({
      name: options.includeHeldBack ? 'es_head_committed' : 'es_head',
      text: `SELECT transaction_id::text AS txid, global_position::text AS gp FROM es_events
       ${options.includeHeldBack ? '' : 'WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())'}
       ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
    });
    if (rows.length) return { commit: BigInt(rows[0].txid), prepare: BigInt(rows[0].gp) };
    // none in the table: every event so far may have been archived (README "Archiving old partitions")
    const archived = await this.pool.query<{ last: string }>(
      `SELECT last_event AS last FROM es_partitions WHERE archived_at IS NOT NULL AND last_event IS NOT NULL ORDER BY es_partitions.from_position DESC LIMIT 1`,
    );
    return archived.rows.length ? parsePosition(archived.rows[0].last) : START;
  }

  /**
   * Starts listening for append notifications from other processes (idempotent); resolves once the
   * first attempt to connect has ended either way. The listener reconnects for as long as the process
   * lives (a hint lost meanwhile only costs latency: readers poll at least once a second), and wakes
   * every reader after each reconnect, since notifications may have been missed while it was away.
   */
  listen(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const notified = (payload: string) => {
      if (this.presence(payload)) return;
      if (payload !== this.notifyToken) this.wakeup.wake();
    };
    const connected = () => {
      this.hearing = true;
      this.wakeup.wake();
      // (sent on the listener's session, after its LISTEN: the answers are heard)
      void this.listener?.notify(EVENT_CHANNEL, HELLO + this.notifyToken);
    };
    const lost = () => {
      this.hearing = false;
    };
    this.listener ??= new NotificationListener(this.connectionString, { [EVENT_CHANNEL]: notified }, connected, 'event notifications', this.log, lost);
    return this.listener.start();
  }

  /** A listening store's hello, here or bye (true), or else an append's hint (false). */
  private presence(payload: string): boolean {
    const kind = payload.startsWith(HELLO) ? HELLO : payload.startsWith(HERE) ? HERE : payload.startsWith(BYE) ? BYE : undefined;
    if (!kind) return false;
    const token = payload.slice(kind.length);
    if (token === this.notifyToken) return true;
    if (kind === BYE) {
      this.peers.delete(token);
      return true;
    }
    this.peers.add(token);
    if (kind === HELLO) void this.listener?.notify(EVENT_CHANNEL, HERE + this.notifyToken);
    return true;
  }

  subscribeToAll(options: SubscribeOptions = {}): Subscription {
    void this.listen().catch(() => undefined);
    return pollingSubscription(this, this.wakeup, options, this.log);
  }

  async ping(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1 FROM es_streams LIMIT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.notifying;
    this.wakeup.close();
    // the others stop telling this process (best effort: of a process that dies they never hear, and
    // go on telling it, which costs what every hint cost before)
    if (this.hearing) await this.listener?.notify(EVENT_CHANNEL, BYE + this.notifyToken);
    await this.listener?.close();
    for (const c of this.archiveCursors.values()) await c.lines.return(undefined).catch(() => undefined);
    this.archiveCursors.clear();
    if (this.ownsArchive) this.archive.close();
  }
}


/**
 * A catch-up subscription built on readAll: reads history in batches, then waits for wake-ups (or
 * 1 s) and re-polls. A failed read (connection lost, Postgres restarting) is logged and retried with
 * backoff from the last delivered position, so the consumer sees neither a gap, a repeat nor an end.
 */
export function pollingSubscription(
  store: Pick<EventStore, 'readAll'>,
  wakeup: Wakeup,
  options: SubscribeOptions,
  log?: Logger,
): Subscription {
  let stopped = false;
  let position = options.after ?? START;
  const batchSize = options.batchSize ?? 1000;
  async function* iterate(): AsyncGenerator<RecordedEvent> {
    let failures = 0;
    while (!stopped && !wakeup.isClosed) {
      const ticket = wakeup.ticket();
      let batch: RecordedEvent[];
      try {
        batch = await store.readAll({ after: position, maxCount: batchSize, types: options.types });
      } catch (err) {
        failures++;
        const delay = Math.min(5_000, 100 * 2 ** Math.min(failures - 1, 6));
        if (failures === 1 || failures % 10 === 0) {
          log?.warn({ err: (err as Error).message, position: positionToString(position), failures, retryInMs: delay }, 'catch-up subscription: read failed; resuming from its position');
        }
        await wakeup.wait(wakeup.ticket(), delay);
        continue;
      }
      if (failures > 0) log?.info({ position: positionToString(position), failures }, 'catch-up subscription: reading again');
      failures = 0;
      for (const e of batch) {
        if (stopped) return;
        position = e.position;
        yield e;
      }
      if (batch.length < batchSize) await wakeup.wait(ticket, 1000);
    }
  }
  const it = iterate();
  return {
    [Symbol.asyncIterator]: () => it,
    async stop() {
      stopped = true;
      wakeup.wake();
    },
  };
}

/**
 * Every append to an existing stream rewrites its es_streams row (the revision). Half of each page is
 * left free, so that rewrite stays on the row's page: a HOT update, with no new entry in the primary
 * key's index. Created in bulk, the rows packed their pages full, and nearly every update moved the
 * row and indexed it again (README "The write path").
 */
export const STREAM_ROWS_FILLFACTOR = `ALTER TABLE es_streams SET (fillfactor = 50);`;

/** The Postgres event store's tables and append function (src/schema.ts runs them). */
export const EVENTSTORE_MIGRATIONS: Migration[] = [
  { id: 1, name: 'event store', sql: EVENTSTORE_SCHEMA },
  { id: 6, name: 'event store: notify after commit, not in the append transaction', sql: DROP_NOTIFY_TRIGGER },
  { id: 8, name: 'event store: appends lock every stream before writing, idempotent by event id', sql: APPEND_FUNCTION },
  { id: 10, name: 'event store: appends write in one statement after the locks when every stream fits', sql: APPEND_FUNCTION },
  { id: 11, name: 'event store: locks only for any/stream_exists, conditional writes for exact revisions and new streams', sql: APPEND_FUNCTION },
  { id: 12, name: 'event store: a stream that moves between judging and writing fails the append, to be judged again', sql: APPEND_FUNCTION },
  // (added after 72, numbered to run before the appends of the migrations' tests, whose append function names it)
  { id: 13, name: "event store: a stream's row may keep its first event's position", sql: 'ALTER TABLE es_streams ADD COLUMN IF NOT EXISTS first_position bigint;' },
  { id: 46, name: 'event store: appends run with JIT off, and look up each stream once', sql: APPEND_FUNCTION },
  { id: 53, name: 'event store: an append to existing streams hashes no copy of their list per row', sql: APPEND_FUNCTION },
  { id: 54, name: 'event store: es_write plans its statement once per session', sql: APPEND_FUNCTION },
  { id: 55, name: 'event store: the read after a position plans its statement once per session', sql: READ_FUNCTION },
  { id: 58, name: 'event store: stream rows leave room on their pages to be updated in place', sql: STREAM_ROWS_FILLFACTOR },
  { id: 61, name: 'event store: a transaction that copied new streams reads back what it wrote', sql: COPIED_FUNCTION },
  ...LOG_PARTITION_MIGRATIONS,
  { id: 71, name: 'event store: the log partitioned by position, the table it was its first partition', sql: 'SELECT 1', run: (client) => partitionTheLog(client, READ_FUNCTION) },
  { id: 72, name: 'event store: partitions archived to files; the read after a position inside the archive says so', sql: `${ARCHIVE_COLUMNS}\n${READ_FUNCTION}` },
  {
    id: 73,
    name: "event store: a new stream's row keeps its first position, where a read of it starts",
    sql: APPEND_FUNCTION,
  },
  { id: 74, name: "event store: a stream's read is a function planned once per session, from the stream's first position", sql: STREAM_READ_FUNCTION },
  { id: 75, name: "event store: a stream's read looks its stream's row up once, the append keeps only its first position", sql: `${APPEND_FUNCTION}\n${STREAM_READ_FUNCTION}` },
  { id: 76, name: "event store: a stream's read that finds none of its events in the table says where they may be archived", sql: STREAM_READ_FUNCTION },
  { id: 77, name: "event store: a stream's read walks the partitions from its first event's and stops at its last revision; a stream without a row reads nothing", sql: STREAM_READ_FUNCTION },
  { id: 78, name: 'event store: archived partitions keep their events counted by type (a lag through the archive is counted)', sql: ARCHIVE_TYPE_COUNTS },
];
