// Parked events: an event a read model cannot apply, after its retries, is recorded here (with its
// read model, generation, account and error) and the read model goes on past it (README "Operations").
import type pg from 'pg';
import { isConnectionError, isTransientError } from '../db/errors.ts';
import type { EventStore, RecordedEvent } from '../eventstore/port.ts';
import { storableText } from '../storable-text.ts';
import { type Projection, tableNamer } from './projection.ts';
import { DURABLE_COMMIT, beginBatch } from './state.ts';

type Queryable = Pick<pg.PoolClient, 'query'>;

export interface ParkedEvent {
  name: string;
  generation: number;
  /** the event's position in the log (<commit>/<prepare>) */
  position: string;
  event_id: string;
  type: string;
  stream_id: string;
  revision: string;
  account_id: string | null;
  error: string;
  /** how often applying it failed (the runner's retries, then each retry-parked) */
  attempts: number;
  parked_at: string;
}

/**
 * Whether an error is the event's own (it would fail the same way however often it is retried): a
 * data exception (22…), an integrity violation (23…), a value past a limit (54…, e.g. too large for an
 * index), or the read model's own thrown error. Lost races, timeouts and lost connections are not;
 * nor are other server errors (a missing table: the code is wrong for every event, not this one).
 */
export function isEventError(err: unknown): boolean {
  if (isTransientError(err) || isConnectionError(err)) return false;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return /^(22|23|54)/.test(code);
  return true;
}

export const errorText = (err: unknown): string => storableText(err instanceof Error ? err.message : String(err)).slice(0, 2000);

/** The account an event belongs to, as far as the event says (metadata, else its data). */
function accountOf(e: RecordedEvent): string | null {
  const id = e.metadata?.accountId ?? (e.data as { account_id?: unknown } | null)?.account_id;
  return typeof id === 'string' ? storableText(id).slice(0, 200) : null;
}

/** Records a parked event inside the batch's transaction (the checkpoint moves past it in the same commit). */
export async function parkEvent(tx: Queryable, name: string, generation: number, e: RecordedEvent, error: string, attempts: number): Promise<void> {
  await tx.query(
    `INSERT INTO parked_events (name, generation, commit_pos, prepare_pos, event_id, type, stream_id, revision, account_id, error, attempts)
     VALUES ($1, $2, $3::text::xid8, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (name, generation, event_id) DO UPDATE SET error = EXCLUDED.error, attempts = parked_events.attempts + EXCLUDED.attempts, parked_at = now()`,
    [name, generation, e.position.commit.toString(), e.position.prepare.toString(), e.id, e.type, e.streamId, e.revision.toString(), accountOf(e), error, attempts],
  );
}

const PARKED_COLUMNS = `name, generation, commit_pos::text || '/' || prepare_pos AS position, event_id::text, type, stream_id, revision::text,
  account_id, error, attempts, to_char(parked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS parked_at`;

/** Parked events, oldest first per generation: of one read model (and one event) or of all. */
export async function listParked(db: Queryable, name?: string, eventId?: string): Promise<ParkedEvent[]> {
  const { rows } = await db.query<ParkedEvent>(
    `SELECT ${PARKED_COLUMNS} FROM parked_events
     WHERE ($1::text IS NULL OR name = $1) AND ($2::uuid IS NULL OR event_id = $2)
     ORDER BY name, generation, commit_pos, prepare_pos`,
    [name ?? null, eventId ?? null],
  );
  return rows;
}

/** How many events each generation has parked ("name:generation" → count). */
export async function parkedCounts(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ name: string; generation: number; n: number }>(
    'SELECT name, generation, count(*)::int AS n FROM parked_events GROUP BY name, generation',
  );
  return new Map(rows.map((r) => [`${r.name}:${r.generation}`, r.n]));
}

/** Forgets parked events of a read model (all, or one): they stay in the log, never applied. Returns how many. */
export async function dropParked(db: Queryable, name: string, eventId?: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM parked_events WHERE name = $1 AND ($2::uuid IS NULL OR event_id = $2)', [name, eventId ?? null]);
  return rowCount ?? 0;
}

/**
 * Applies a read model's parked events again (all, or one), each in a transaction of its own under
 * its generation's lock (no batch of the runner in between), removing it from the table in the same
 * commit. Only generations built by this code's version; one that fails again stays parked with
 * its new error. An event applied now comes after the later events the read model has applied.
 */
export async function retryParked(
  pool: pg.Pool,
  store: EventStore,
  p: Projection,
  eventId?: string,
): Promise<{ applied: ParkedEvent[]; failed: ParkedEvent[] }> {
  const applied: ParkedEvent[] = [];
  const failed: ParkedEvent[] = [];
  for (const parked of await listParked(pool, p.name, eventId)) {
    const [commit, prepare] = parked.position.split('/').map(BigInt);
    const [event] = await store.readAll({ after: { commit, prepare: prepare - 1n }, maxCount: 1, types: [parked.type], keepSealed: p.personalData !== undefined });
    if (!event || event.id !== parked.event_id) {
      failed.push({ ...parked, error: `event ${parked.event_id} is not readable at ${parked.position}` });
      continue;
    }
    const client = await pool.connect();
    try {
      // durable: the operator is told it was applied
      const state = await beginBatch(client, p.name, parked.generation, DURABLE_COMMIT);
      const still = await client.query('SELECT 1 FROM parked_events WHERE name = $1 AND generation = $2 AND event_id = $3 FOR UPDATE', [
        p.name,
        parked.generation,
        parked.event_id,
      ]);
      if (!state || state.version !== p.version || still.rowCount === 0) {
        // another version's generation (its own code retries it), or retried or dropped meanwhile
        await client.query('ROLLBACK');
        if (state && state.version !== p.version && still.rowCount) failed.push({ ...parked, error: `generation ${parked.generation} is version ${state.version}, this code is ${p.version}` });
        continue;
      }
      try {
        await p.apply(client, [event], tableNamer(parked.generation));
      } catch (err) {
        await client.query('ROLLBACK TO SAVEPOINT apply');
        if (!isEventError(err)) throw err;
        const error = errorText(err);
        await client.query('UPDATE parked_events SET error = $4, attempts = attempts + 1 WHERE name = $1 AND generation = $2 AND event_id = $3', [
          p.name,
          parked.generation,
          parked.event_id,
          error,
        ]);
        await client.query('COMMIT');
        failed.push({ ...parked, error, attempts: parked.attempts + 1 });
        continue;
      }
      await client.query('DELETE FROM parked_events WHERE name = $1 AND generation = $2 AND event_id = $3', [p.name, parked.generation, parked.event_id]);
      await client.query('COMMIT');
      applied.push(parked);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
  return { applied, failed };
}
