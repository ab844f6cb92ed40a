// The batches of tracked events that were stored (README "The write path"): one row per request
// whose one appendMany of events went through. Every event-id claim that request still holds under
// its name (src/events/event-ids.ts) is thereby stored, without the claim being written again.
import type pg from 'pg';
import type { Migration } from '../db/migrations.ts';

/** The requests among these whose batch is stored. */
export async function storedBatches(pool: Pick<pg.Pool, 'query'>, accountId: string, requests: readonly string[]): Promise<Set<string>> {
  if (requests.length === 0) return new Set();
  const { rows } = await pool.query<{ token: string }>('SELECT token FROM stored_event_batches WHERE account_id = $1 AND token = ANY($2::text[])', [
    accountId, [...new Set(requests)],
  ]);
  return new Set(rows.map((r) => r.token));
}

/** The table (src/schema.ts runs it). */
export const STORED_EVENT_BATCHES_MIGRATIONS: Migration[] = [
  {
    id: 56,
    name: 'stored event batches: one row settles the event-id claims of a stored batch',
    sql: `
      CREATE TABLE IF NOT EXISTS stored_event_batches (
        account_id text NOT NULL,
        token text NOT NULL,
        stored_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, token)
      );`,
  },
];

/** Says that the request's batch is stored (once: a retry of the same statement changes nothing). */
export async function markStored(pool: Pick<pg.Pool, 'query'>, accountId: string, request: string): Promise<void> {
  await pool.query('INSERT INTO stored_event_batches (account_id, token) VALUES ($1, $2) ON CONFLICT DO NOTHING', [accountId, request]);
}
