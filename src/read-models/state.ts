// projection_state: one row per generation of each read model — the code version that builds it, its
// tables, its checkpoint and its health — and the locks that keep runners, rebuilds and swaps apart.
import type pg from 'pg';
import { type Position, type RecordedEvent, comparePositions } from '../eventstore/port.ts';
import type { Migration } from '../db/migrations.ts';
import type { Projection } from './projection.ts';

export interface StateRow {
  name: string;
  generation: number;
  active: boolean;
  version: number;
  commit: string;
  prepare: string;
  status: string;
  error: string | null;
  error_position: string | null;
  error_event: string | null;
  /** the base names of the tables this generation created (null for rows older than the column) */
  tables: string[] | null;
  /** when the row last changed (as text, exact): tells a checkpoint moved back to a position it held before from one that never moved */
  updated_at: string;
  /** the mark of the upgrade DDL this generation's tables are at (generations.ts), null before any */
  upgraded: string | null;
}

export const STATE_COLUMNS = `name, generation, active, version, commit_pos::text AS commit, prepare_pos::text AS prepare, status, error,
  error_position, error_event, tables, updated_at::text AS updated_at, upgraded`;

/** First argument of a generation's lock (pg_advisory_xact_lock(namespace, hashtext(name:generation))). */
export const GENERATION_LOCK_NAMESPACE = 0x70720001;

type Queryable = Pick<pg.PoolClient, 'query'>;

export function rowPosition(r: Pick<StateRow, 'commit' | 'prepare'>): Position {
  return { commit: BigInt(r.commit), prepare: BigInt(r.prepare) };
}

/**
 * Whether a batch read from `from` may still be applied: the generation's row is there, still at that
 * checkpoint, not failed, and of this code's version (else another process moved it meanwhile).
 */
export function stillAt(row: StateRow | undefined, from: Position, version: number): row is StateRow {
  return row !== undefined && comparePositions(rowPosition(row), from) === 0 && row.status !== 'failed' && row.version === version;
}

export async function readState(db: Queryable, name: string): Promise<StateRow[]> {
  const { rows } = await db.query<StateRow>(`SELECT ${STATE_COLUMNS} FROM projection_state WHERE name = $1 ORDER BY generation`, [name]);
  return rows;
}

/** Serialises changes to a projection's set of generations (create, rebuild, swap), across processes. */
export async function lockProjection(client: Queryable, name: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`projection:${name}`]);
}

/**
 * Locks generations for the rest of the transaction, in ascending order. A batch holds its
 * generation's lock while it applies; a swap or rebuild takes every generation's lock to wait for
 * such batches. Advisory locks take no transaction id, so a transaction that only holds them does
 * not hold catch-up readers back.
 */
export async function lockGenerations(client: Queryable, name: string, generations: readonly number[]): Promise<void> {
  for (const g of [...new Set(generations)].sort((a, b) => a - b)) {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [GENERATION_LOCK_NAMESPACE, `${name}:${g}`]);
  }
}

/** The commit mode of a transaction that waits for its flush (the server's default). */
export const DURABLE_COMMIT = '';
const ASYNC_COMMIT = 'SET LOCAL synchronous_commit = off;';

/**
 * How a read model's batch commits (the statements that open its transaction). A read model is the
 * log folded, and its rows and checkpoint commit together, so a batch need not wait for its WAL to
 * reach the disk: a crash that loses the last batches (those of the WAL writer's last fraction of a
 * second) loses their checkpoint with them, and the runner applies them again from the log, which
 * every append flushes. Any flushed commit after one also flushes it (the WAL is one sequence): a
 * claim appended on what a read model showed makes what it saw durable. A batch waits for the flush
 * where a read model has effects beyond its tables (rebuildable false: the webhook outbox, whose rows
 * are delivered) or the batch holds an event of its `flushOn` (an erasure) (README "The write path").
 */
export function batchCommitMode(...batches: { projection: Pick<Projection, 'rebuildable' | 'flushOn'>; events: readonly Pick<RecordedEvent, 'type'>[] }[]): string {
  const flushed = batches.some(({ projection: p, events }) => {
    const flushOn = p.flushOn;
    return p.rebuildable === false || (flushOn !== undefined && events.some((e) => flushOn.includes(e.type)));
  });
  return flushed ? DURABLE_COMMIT : ASYNC_COMMIT;
}

/**
 * A batch of at most this many events is small: a caught-up read model's, a write or two.
 * Its transaction runs the statements it sends by name on generic plans (batchPlanMode). Up to 128
 * (every batch the group holds), `events-ingest` lost about a tenth: a batch of a hundred events is
 * better served by plans made for its arrays, and its planning is a small part of its run.
 */
export const SMALL_BATCH_EVENTS = 32;
const GENERIC_PLANS = 'SET LOCAL plan_cache_mode = force_generic_plan;';

/**
 * How a batch's transaction plans its statements (the statement that says so, or none). A statement
 * sent by name (src/db/prepared.ts) is planned once per connection where Postgres takes a plan made
 * without the values; left to choose, it keeps planning a batch look-up (`id = ANY($1)`) for each
 * call's values, because for one or two ids such a plan looks cheaper, and for a small batch that
 * planning costs more than the run (README "The write path"). A large batch (a catch-up, a rebuild, a
 * bulk) keeps plans made for its values: its arrays' sizes decide between probing and hashing.
 */
export function batchPlanMode(...batches: { events: readonly unknown[] }[]): string {
  return batches.every((b) => b.events.length <= SMALL_BATCH_EVENTS) ? GENERIC_PLANS : '';
}

/**
 * Opens a batch's transaction in one round trip: BEGIN, its commit mode (batchCommitMode, or
 * DURABLE_COMMIT) and plan mode (batchPlanMode) in `modes`, the generation's lock, its state row (to
 * check that nobody moved it meanwhile) and a savepoint before the apply. Literals, not parameters:
 * a multi-statement query takes none (the name is the projection's own, escaped all the same).
 */
export async function beginBatch(client: pg.PoolClient, name: string, generation: number, modes: string): Promise<StateRow | undefined> {
  const results = (await client.query(
    `BEGIN;
     ${modes}
     SELECT pg_advisory_xact_lock(${GENERATION_LOCK_NAMESPACE}, hashtext(${client.escapeLiteral(`${name}:${generation}`)}));
     SELECT ${STATE_COLUMNS} FROM projection_state WHERE name = ${client.escapeLiteral(name)} AND generation = ${Number(generation)};
     SAVEPOINT apply`,
  )) as unknown as pg.QueryResult<StateRow>[];
  // the state row's result: the last but one (BEGIN, the modes when set, the lock, the row, the savepoint)
  return results[results.length - 2].rows[0];
}

/**
 * The channel a runner announces its read models' new checkpoints on, for processes that serve
 * reads without running the projections (their read-your-writes waits): payload "name commit prepare".
 */
export const CHECKPOINT_CHANNEL = 'engage_checkpoints';

export function checkpointPayload(name: string, at: Position): string {
  return `${name} ${at.commit} ${at.prepare}`;
}

/** The read model and checkpoint a CHECKPOINT_CHANNEL payload names (undefined for one it cannot read). */
export function parseCheckpointPayload(payload: string): { name: string; at: Position } | undefined {
  const m = /^(\S+) (\d+) (\d+)$/.exec(payload);
  return m ? { name: m[1], at: { commit: BigInt(m[2]), prepare: BigInt(m[3]) } } : undefined;
}

/**
 * Moves a generation's checkpoint to `to` and commits the batch, in one round trip; with `announce`,
 * the new checkpoint is then NOTIFYed on CHECKPOINT_CHANNEL (in a transaction of its own, after the
 * commit: a NOTIFY inside it would hold the notify queue's lock across the commit).
 */
export async function commitBatch(client: pg.PoolClient, name: string, generation: number, to: Position, announce = false): Promise<void> {
  await client.query(
    `UPDATE projection_state SET commit_pos = '${to.commit}'::xid8, prepare_pos = ${to.prepare}, updated_at = now()
      WHERE name = ${client.escapeLiteral(name)} AND generation = ${Number(generation)};
     COMMIT${announce ? `;
     SELECT pg_notify('${CHECKPOINT_CHANNEL}', ${client.escapeLiteral(checkpointPayload(name, to))})` : ''}`,
  );
}

/** The projection_state table (src/schema.ts runs them). */
export const READ_MODEL_STATE_MIGRATIONS: Migration[] = [
  {
    id: 2,
    name: 'projection checkpoints',
    sql: `
      CREATE TABLE IF NOT EXISTS projection_state (
        name text NOT NULL,
        generation int NOT NULL,
        active boolean NOT NULL DEFAULT false,
        version int NOT NULL,
        commit_pos xid8 NOT NULL DEFAULT '0',
        prepare_pos bigint NOT NULL DEFAULT 0,
        status text NOT NULL DEFAULT 'running',
        error text,
        error_position text,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (name, generation)
      );`,
  },
  {
    id: 9,
    name: 'projection generations record their own tables and the event that failed',
    sql: `ALTER TABLE projection_state ADD COLUMN IF NOT EXISTS tables text[];
          ALTER TABLE projection_state ADD COLUMN IF NOT EXISTS error_event text;`,
  },
  {
    id: 40,
    name: 'events a read model could not apply are parked (parked.ts)',
    sql: `
      CREATE TABLE IF NOT EXISTS parked_events (
        name text NOT NULL,
        generation int NOT NULL,
        commit_pos xid8 NOT NULL,
        prepare_pos bigint NOT NULL,
        event_id uuid NOT NULL,
        type text NOT NULL,
        stream_id text NOT NULL,
        revision bigint NOT NULL,
        account_id text,
        error text NOT NULL,
        attempts int NOT NULL,
        parked_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (name, generation, event_id)
      );`,
  },
  {
    id: 57,
    name: 'a generation records the upgrade its tables are at (generations.ts): a start that finds it up to date alters nothing',
    sql: `ALTER TABLE projection_state ADD COLUMN IF NOT EXISTS upgraded text;`,
  },
];
