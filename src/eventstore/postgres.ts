// Postgres adapter of the event store port. Appends are one statement (stream row
// check-and-bump + event insert); catch-up reads never pass a transaction that may
// still commit, by reading only below the snapshot's xmin in (txid, position) order.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import pgListen, { type Subscriber } from 'pg-listen';
import {
  type AppendResult,
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
  currentSchemaVersion,
  upcast,
} from './port.ts';
import { Wakeup } from './wakeup.ts';

export const EVENT_CHANNEL = 'engage_events';

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

const EVENT_COLUMNS = `global_position::text AS gp, transaction_id::text AS txid, stream_id, stream_revision::text AS rev,
  event_id, type, data, metadata, created_at`;

interface EventRow {
  gp: string;
  txid: string;
  stream_id: string;
  rev: string;
  event_id: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  created_at: Date;
}

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

/** The stream step of an append, by expectation: returns the stream's revision after the bump. */
function streamStep(expected: ExpectedRevision): string {
  if (expected === 'no_stream') {
    return `INSERT INTO es_streams (stream_id, revision) VALUES ($1, $2::bigint - 1) ON CONFLICT DO NOTHING RETURNING revision`;
  }
  if (expected === 'any') {
    return `INSERT INTO es_streams (stream_id, revision) VALUES ($1, $2::bigint - 1)
            ON CONFLICT (stream_id) DO UPDATE SET revision = es_streams.revision + $2::bigint RETURNING revision`;
  }
  if (expected === 'stream_exists') {
    return `UPDATE es_streams SET revision = revision + $2::bigint WHERE stream_id = $1 RETURNING revision`;
  }
  return `UPDATE es_streams SET revision = revision + $2::bigint WHERE stream_id = $1 AND revision = $4::bigint RETURNING revision`;
}

function appendSql(expected: ExpectedRevision): string {
  return `WITH s AS (${streamStep(expected)})
    INSERT INTO es_events (stream_id, stream_revision, event_id, type, data, metadata)
    SELECT $1, s.revision - $2::bigint + u.ord, (u.e->>'i')::uuid, u.e->>'t', u.e->'d', u.e->'m'
    FROM s, jsonb_array_elements($3::jsonb) WITH ORDINALITY AS u(e, ord)
    RETURNING global_position::text AS gp, transaction_id::text AS txid, stream_revision::text AS rev`;
}

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505';
}

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  readonly wakeup = new Wakeup();
  private listener?: Subscriber;
  private listening?: Promise<void>;
  private notifyPending = false;
  private notifying?: Promise<void>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly connectionString?: string,
    private readonly connectionConfig?: pg.ClientConfig,
  ) {}

  static async migrate(client: pg.Pool | pg.PoolClient): Promise<void> {
    await client.query(EVENTSTORE_SCHEMA);
  }

  async append(streamId: string, events: readonly NewEvent[], expected: ExpectedRevision = 'any'): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const params: unknown[] = [streamId, events.length, JSON.stringify(events.map(encodeEvent))];
    if (typeof expected === 'bigint') params.push(expected.toString());
    let rows: { gp: string; txid: string; rev: string }[];
    try {
      ({ rows } = await this.pool.query(appendSql(expected), params));
    } catch (err) {
      // a unique violation is a lost race, never something to swallow: report it as a conflict
      if (isUniqueViolation(err)) throw new WrongExpectedVersionError(streamId, expected, await this.currentRevision(streamId));
      throw err;
    }
    if (rows.length === 0) throw new WrongExpectedVersionError(streamId, expected, await this.currentRevision(streamId));
    this.wakeup.wake();
    this.announce();
    return lastOf(rows);
  }

  async appendMany(
    request: readonly { streamId: string; events: readonly NewEvent[]; expected?: ExpectedRevision }[],
  ): Promise<AppendResult[]> {
    if (request.length === 0) return [];
    if (request.length === 1) return [await this.append(request[0].streamId, request[0].events, request[0].expected)];
    // lock stream rows in one global order (by id), so overlapping batches cannot deadlock
    const batch = [...request].sort((a, b) => (a.streamId < b.streamId ? -1 : a.streamId > b.streamId ? 1 : 0));
    const seen = new Set<string>();
    for (const b of batch) {
      if (seen.has(b.streamId)) throw new Error(`appendMany: stream ${b.streamId} appears twice`);
      seen.add(b.streamId);
      if (b.events.length === 0) throw new Error('append needs at least one event');
    }
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // 1. bump every stream, grouped by kind of expectation: one statement per kind
      const newRevision = new Map<string, bigint>();
      const groups = new Map<string, typeof batch[number][]>();
      for (const b of batch) {
        const kind = typeof (b.expected ?? 'any') === 'bigint' ? 'exact' : (b.expected as string) ?? 'any';
        const g = groups.get(kind) ?? [];
        g.push(b);
        groups.set(kind, g);
      }
      for (const [kind, items] of groups) {
        const sids = items.map((b) => b.streamId);
        const counts = items.map((b) => b.events.length);
        const exp = items.map((b) => (typeof b.expected === 'bigint' ? b.expected.toString() : '0'));
        let sql: string;
        if (kind === 'no_stream') {
          sql = `INSERT INTO es_streams (stream_id, revision) SELECT s, n - 1 FROM unnest($1::text[], $2::bigint[]) AS u(s, n)
                 ON CONFLICT DO NOTHING RETURNING stream_id, revision::text`;
        } else if (kind === 'any') {
          sql = `INSERT INTO es_streams (stream_id, revision) SELECT s, n - 1 FROM unnest($1::text[], $2::bigint[]) AS u(s, n)
                 ON CONFLICT (stream_id) DO UPDATE SET revision = es_streams.revision + excluded.revision + 1
                 RETURNING stream_id, revision::text`;
        } else if (kind === 'stream_exists') {
          sql = `UPDATE es_streams e SET revision = e.revision + u.n FROM unnest($1::text[], $2::bigint[]) AS u(s, n)
                 WHERE e.stream_id = u.s RETURNING e.stream_id, e.revision::text`;
        } else {
          sql = `UPDATE es_streams e SET revision = e.revision + u.n FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS u(s, n, x)
                 WHERE e.stream_id = u.s AND e.revision = u.x RETURNING e.stream_id, e.revision::text`;
        }
        const params: unknown[] = [sids, counts];
        if (kind === 'exact') params.push(exp);
        const { rows } = await client.query(sql, params);
        for (const r of rows) newRevision.set(r.stream_id, BigInt(r.revision));
        if (rows.length !== items.length) {
          const failed = items.find((b) => !newRevision.has(b.streamId))!;
          await client.query('ROLLBACK');
          throw new WrongExpectedVersionError(failed.streamId, failed.expected ?? 'any', await this.currentRevision(failed.streamId));
        }
      }
      // 2. insert every event in one statement, the rows as one JSON document: node-postgres escapes
      // every element of a jsonb[] parameter into an array literal, which costs far more than the insert
      const rowsIn: { s: string; r: string; i: string; t: string; d: unknown; m: unknown }[] = [];
      for (const b of batch) {
        const last = newRevision.get(b.streamId)!;
        const first = last - BigInt(b.events.length) + 1n;
        b.events.forEach((e, i) => {
          rowsIn.push({ s: b.streamId, r: (first + BigInt(i)).toString(), ...encodeEvent(e) });
        });
      }
      const { rows } = await client.query(
        `INSERT INTO es_events (stream_id, stream_revision, event_id, type, data, metadata)
         SELECT s, r, i, t, d, m FROM jsonb_to_recordset($1::jsonb) AS u(s text, r bigint, i uuid, t text, d jsonb, m jsonb)
         RETURNING stream_id, global_position::text AS gp, transaction_id::text AS txid, stream_revision::text AS rev`,
        [JSON.stringify(rowsIn)],
      );
      await client.query('COMMIT');
      this.wakeup.wake();
      this.announce();
      const lastByStream = new Map<string, { gp: string; txid: string; rev: string }>();
      for (const r of rows) {
        const prev = lastByStream.get(r.stream_id);
        if (!prev || BigInt(r.rev) > BigInt(prev.rev)) lastByStream.set(r.stream_id, r);
      }
      return request.map((b) => lastOf([lastByStream.get(b.streamId)!]));
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (isUniqueViolation(err)) throw new WrongExpectedVersionError('(batch)', 'any');
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * Tells other processes (as a hint) that events were committed: one NOTIFY outside any write
   * transaction, so it flushes no WAL and holds the notify lock only for an instant. Appends that
   * commit while one is in flight share the next, so a burst costs two statements, not one each.
   */
  private announce(): void {
    this.notifyPending = true;
    if (this.notifying) return;
    this.notifying = (async () => {
      while (this.notifyPending) {
        this.notifyPending = false;
        await this.pool.query(`SELECT pg_notify('${EVENT_CHANNEL}', '')`).catch(() => undefined);
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
    const params: unknown[] = [streamId];
    let where = 'stream_id = $1';
    if (options.fromRevision !== undefined) {
      params.push(options.fromRevision.toString());
      where += backwards ? ` AND stream_revision <= $2` : ` AND stream_revision >= $2`;
    }
    let limit = '';
    if (options.maxCount !== undefined) {
      params.push(options.maxCount);
      limit = ` LIMIT $${params.length}`;
    }
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM es_events WHERE ${where} ORDER BY stream_revision ${backwards ? 'DESC' : 'ASC'}${limit}`,
      params,
    );
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? START;
    const params: unknown[] = [after.commit.toString(), after.prepare.toString(), options.maxCount ?? 1000];
    let typeFilter = '';
    if (options.types) {
      params.push(options.types);
      typeFilter = ` AND type = ANY($4::text[])`;
    }
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM es_events
       WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
         AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())${typeFilter}
       ORDER BY transaction_id, global_position LIMIT $3`,
      params,
    );
    return rows.map(toRecorded);
  }

  async countAfter(after: Position, types: readonly string[] | undefined, cap: number): Promise<number> {
    const params: unknown[] = [after.commit.toString(), after.prepare.toString(), cap];
    if (types) params.push(types);
    const { rows } = await this.pool.query(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM es_events
         WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
           AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())${types ? ' AND type = ANY($4::text[])' : ''}
         LIMIT $3) t`,
      params,
    );
    return rows[0].n;
  }

  async headPosition(): Promise<Position> {
    const { rows } = await this.pool.query(
      `SELECT transaction_id::text AS txid, global_position::text AS gp FROM es_events
       WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
    );
    return rows.length ? { commit: BigInt(rows[0].txid), prepare: BigInt(rows[0].gp) } : START;
  }

  /** Starts listening for append notifications from other processes (idempotent). */
  listen(): Promise<void> {
    if (!this.listening) {
      const cfg = this.connectionString ? { connectionString: this.connectionString } : this.connectionConfig ?? {};
      // pg-listen is CommonJS with `exports.default`: under ESM its function is one level down
      type CreateSubscriber = (cfg: pg.ClientConfig, opts?: { retryLimit?: number; retryInterval?: number }) => Subscriber;
      const mod = pgListen as unknown as CreateSubscriber & { default?: CreateSubscriber };
      const createSubscriber = mod.default ?? mod;
      const listener = createSubscriber(cfg, { retryLimit: Infinity, retryInterval: 500 });
      this.listener = listener;
      listener.notifications.on(EVENT_CHANNEL, () => this.wakeup.wake());
      // on reconnect, wake readers: they may have missed notifications while disconnected
      listener.events.on('connected', () => this.wakeup.wake());
      listener.events.on('error', () => undefined);
      this.listening = listener.connect().then(() => listener.listenTo(EVENT_CHANNEL)).then(() => undefined);
    }
    return this.listening!;
  }

  subscribeToAll(options: SubscribeOptions = {}): Subscription {
    void this.listen().catch(() => undefined);
    return pollingSubscription(this, this.wakeup, options);
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
    await this.notifying;
    this.wakeup.close();
    if (this.listener) await this.listener.close().catch(() => undefined);
  }
}

function lastOf(rows: { gp: string; txid: string; rev: string }[]): AppendResult {
  let last = rows[0];
  for (const r of rows) if (BigInt(r.rev) > BigInt(last.rev)) last = r;
  return { nextExpectedRevision: BigInt(last.rev), position: { commit: BigInt(last.txid), prepare: BigInt(last.gp) } };
}

/** A catch-up subscription built on readAll: reads history in batches, then waits for wake-ups (or 1 s) and re-polls. */
export function pollingSubscription(store: Pick<EventStore, 'readAll'>, wakeup: Wakeup, options: SubscribeOptions): Subscription {
  let stopped = false;
  let position = options.after ?? START;
  const batchSize = options.batchSize ?? 1000;
  async function* iterate(): AsyncGenerator<RecordedEvent> {
    while (!stopped && !wakeup.isClosed) {
      const ticket = wakeup.ticket();
      const batch = await store.readAll({ after: position, maxCount: batchSize, types: options.types });
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
