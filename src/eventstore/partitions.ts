// The log's partitions (README "The log at scale"): es_events is partitioned by range of global
// position. The log as it was before (one table) becomes the first partition, attached as it is;
// each later partition holds LOG_PARTITION_EVENTS positions and is made and attached ahead of need,
// while appends go on: ATTACH PARTITION takes only a lock that appends do not wait for, and the
// partition is empty when it is attached.
//
// A stream's (stream, revision) pairs stay unique across partitions because es_streams is the one
// row every append to a stream must move (es_write: a conditional update or a new row); each
// partition keeps a unique index on them as well, as the single table did.
import type pg from 'pg';
import type { Migration } from '../db/migrations.ts';
import { withTransaction } from '../db/pool.ts';

/** Positions per partition unless configured (LOG_PARTITION_EVENTS). */
export const DEFAULT_PARTITION_EVENTS = 10_000_000;

/** First argument of the advisory lock that serialises partition changes across processes. */
const PARTITION_LOCK = [0x65730002, 1] as const;

/** The sequence that numbers the log once it is partitioned (an identity column cannot be on a partitioned table before Postgres 17). */
export const POSITION_SEQUENCE = 'es_events_global_position';

const PARTITIONS_TABLE = `
CREATE TABLE IF NOT EXISTS es_partitions (
  name text PRIMARY KEY,
  from_position bigint NOT NULL,
  to_position bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);`;

/**
 * Step one of moving a single-table log: a bound on its positions, NOT VALID (added at once, without
 * reading the table), that the first partition's range will be. An empty log's bound is 1 (its first
 * partition stays empty); a log with events gets room for DEFAULT_PARTITION_EVENTS more, written by
 * processes still running while the move goes on.
 */
const BOUND_FIRST_PARTITION = `
DO $$
DECLARE b bigint;
BEGIN
  IF (SELECT relkind FROM pg_class WHERE oid = 'es_events'::regclass) = 'r'
     AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'es_events_first_partition_bound') THEN
    SELECT CASE WHEN max(global_position) IS NULL THEN 1 ELSE max(global_position) + ${DEFAULT_PARTITION_EVENTS} + 1 END INTO b FROM es_events;
    EXECUTE format('ALTER TABLE es_events ADD CONSTRAINT es_events_first_partition_bound CHECK (global_position < %s) NOT VALID', b);
  END IF;
END $$;`;

/** Step two: the bound checked against every row, under a lock that appends do not wait for. */
const VALIDATE_FIRST_PARTITION = `
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'es_events_first_partition_bound' AND NOT convalidated) THEN
    ALTER TABLE es_events VALIDATE CONSTRAINT es_events_first_partition_bound;
  END IF;
END $$;`;

const EVENT_COLUMNS_DDL = `
  global_position bigint NOT NULL DEFAULT nextval('${POSITION_SEQUENCE}'),
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  stream_id text NOT NULL,
  stream_revision bigint NOT NULL,
  event_id uuid NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()`;

/**
 * Step three, the short lock: the table is renamed to be the first partition, its identity's
 * sequence carries on as the partitioned log's, and it is attached for the range its validated
 * bound proves (no row is read; its indexes become the partitioned ones'). Catalog changes only.
 */
export async function partitionTheLog(client: pg.PoolClient, readFunction: string): Promise<void> {
  const { rows } = await client.query<{ relkind: string }>(`SELECT relkind FROM pg_class WHERE oid = 'es_events'::regclass`);
  if (rows[0]?.relkind !== 'r') return;
  await client.query('LOCK TABLE es_events IN ACCESS EXCLUSIVE MODE');
  const bound = await client.query<{ b: string }>(
    `SELECT substring(pg_get_constraintdef(oid) FROM '< (\\d+)') AS b FROM pg_constraint WHERE conname = 'es_events_first_partition_bound'`,
  );
  const to = bound.rows[0]?.b;
  if (!to) throw new Error('es_events has no validated first partition bound (migration 69 did not run)');
  const identity = (await client.query<{ seq: string }>(`SELECT pg_get_serial_sequence('es_events', 'global_position') AS seq`)).rows[0].seq;
  const seq = await client.query<{ last: string; called: boolean; min: string | null }>(
    `SELECT last_value::text AS last, is_called AS called, (SELECT min(global_position)::text FROM es_events) AS min FROM ${identity}`,
  );
  await client.query(`
    ALTER TABLE es_events RENAME TO es_events_0;
    ALTER TABLE es_events_0 ALTER COLUMN global_position DROP IDENTITY;
    CREATE SEQUENCE ${POSITION_SEQUENCE} AS bigint;
    SELECT setval('${POSITION_SEQUENCE}', ${BigInt(seq.rows[0].last)}, ${seq.rows[0].called});
    CREATE TABLE es_events (${EVENT_COLUMNS_DDL}) PARTITION BY RANGE (global_position);
    ALTER SEQUENCE ${POSITION_SEQUENCE} OWNED BY es_events.global_position;
    ALTER TABLE es_events ADD CONSTRAINT es_events_position PRIMARY KEY (global_position);
    CREATE INDEX es_events_log_order ON es_events (transaction_id, global_position);
    ALTER TABLE es_events ATTACH PARTITION es_events_0 FOR VALUES FROM (MINVALUE) TO (${BigInt(to)});
    ALTER TABLE es_events_0 DROP CONSTRAINT es_events_first_partition_bound;
    INSERT INTO es_partitions (name, from_position, to_position) VALUES ('es_events_0', ${BigInt(seq.rows[0].min ?? '1')}, ${BigInt(to)});
    -- its rows were the table's type, which is now the first partition's
    DROP FUNCTION IF EXISTS es_read_all(xid8, bigint, int, text[]);
  `);
  await client.query(readFunction);
}

/** The partitions as they stand: name and range, in log order. */
export interface LogPartition {
  name: string;
  from: bigint;
  to: bigint;
}

export async function logPartitions(db: Pick<pg.Pool, 'query'>): Promise<LogPartition[]> {
  const { rows } = await db.query<{ name: string; f: string; t: string }>('SELECT name, from_position::text AS f, to_position::text AS t FROM es_partitions ORDER BY from_position');
  return rows.map((r) => ({ name: r.name, from: BigInt(r.f), to: BigInt(r.t) }));
}

/**
 * Makes and attaches partitions of `size` positions until at least `ahead` positions lie free beyond
 * the next one to be given (by default one partition ahead of the one being filled). Serialised
 * across processes; answers the position up to which partitions exist.
 */
export async function ensurePartitions(pool: pg.Pool, size: number, ahead = size): Promise<bigint> {
  return withTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [...PARTITION_LOCK]);
    const { rows } = await client.query<{ upto: string | null; next: string }>(
      `SELECT (SELECT max(to_position)::text FROM es_partitions) AS upto,
              (SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM ${POSITION_SEQUENCE})::text AS next`,
    );
    const next = BigInt(rows[0].next);
    let upto = BigInt(rows[0].upto ?? '1');
    while (upto < next + BigInt(ahead)) {
      const from = upto;
      const to = from + BigInt(size);
      const name = `es_events_${from}`;
      // made apart and attached: ATTACH takes a lock appends do not wait for (CREATE … PARTITION OF
      // would take one they do), and the bound below spares it a read of the (empty) table
      await client.query(`
        CREATE TABLE ${name} (LIKE es_events INCLUDING DEFAULTS);
        ALTER TABLE ${name} ADD CONSTRAINT ${name}_range CHECK (global_position >= ${from} AND global_position < ${to});
        CREATE UNIQUE INDEX ${name}_stream_revision ON ${name} (stream_id, stream_revision);
        ALTER TABLE es_events ATTACH PARTITION ${name} FOR VALUES FROM (${from}) TO (${to});
        ALTER TABLE ${name} DROP CONSTRAINT ${name}_range;
        INSERT INTO es_partitions (name, from_position, to_position) VALUES ('${name}', ${from}, ${to});
      `);
      upto = to;
    }
    return upto;
  });
}

/** An insert whose position no partition holds yet (check_violation on the partitioned log). */
export function isMissingPartition(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return e?.code === '23514' && /no partition of relation "es_events" found for row/.test(e.message ?? '');
}

/** Moving a single-table log into partitions; the last step is src/eventstore/postgres.ts's (it re-creates the read function). */
export const LOG_PARTITION_MIGRATIONS: Migration[] = [
  { id: 69, name: 'event store: the first partition of the log bounded (not yet checked)', sql: `${PARTITIONS_TABLE}\n${BOUND_FIRST_PARTITION}` },
  { id: 70, name: "event store: the first partition's bound checked against every event", sql: VALIDATE_FIRST_PARTITION },
];
