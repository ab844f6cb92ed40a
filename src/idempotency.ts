// The idempotency_keys table: one record per (account, credential, Idempotency-Key), claimed before a
// request runs and holding its response, sealed (src/seal.ts), once it has one. Records expire after
// 24 h; a claim left without a response by a process that died mid-request frees itself after 2 min.
import type pg from 'pg';
import type { Migration } from './db/migrations.ts';
import { seal, unseal } from './seal.ts';

const TTL = '24 hours';
const PENDING_TIMEOUT = '2 minutes';

export interface IdempotencyClaim {
  accountId: string;
  /** who made the request: `key:<key id>` or `user:<user id>` */
  credential: string;
  key: string;
}

export interface IdempotencyRecord {
  bodyHash: string;
  /** null while the first request is still running */
  statusCode: number | null;
  /** the first response as JSON text, unsealed */
  response: string | null;
}

const RECORD = 'account_id = $1 AND credential = $2 AND key = $3';
const recordOf = (c: IdempotencyClaim) => [c.accountId, c.credential, c.key];

/** Claims the key for a request (true), or finds the record already there (false). */
export async function claimIdempotencyKey(pool: pg.Pool, claim: IdempotencyClaim, request: { method: string; path: string; bodyHash: string }): Promise<boolean> {
  // expired keys, and claims left pending by a process that died mid-request, are free again
  await pool.query(
    `DELETE FROM idempotency_keys WHERE ${RECORD}
       AND (created_at < now() - interval '${TTL}' OR (status_code IS NULL AND created_at < now() - interval '${PENDING_TIMEOUT}'))`,
    recordOf(claim),
  );
  const inserted = await pool.query(
    `INSERT INTO idempotency_keys (account_id, credential, key, method, path, body_hash) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
    [...recordOf(claim), request.method, request.path, request.bodyHash],
  );
  return inserted.rowCount === 1;
}

/** The record a claim found in place, or undefined if it expired meanwhile. */
export async function findIdempotencyRecord(pool: pg.Pool, claim: IdempotencyClaim): Promise<IdempotencyRecord | undefined> {
  const { rows } = await pool.query<{ body_hash: string; status_code: number | null; response: string | null }>(
    `SELECT body_hash, status_code, response FROM idempotency_keys WHERE ${RECORD}`,
    recordOf(claim),
  );
  const row = rows[0];
  if (!row) return undefined;
  return { bodyHash: row.body_hash, statusCode: row.status_code, response: row.response === null ? null : await unseal(pool, row.response) };
}

/** Keeps the response of a claimed request, sealed. */
export async function saveIdempotentResponse(pool: pg.Pool, claim: IdempotencyClaim, statusCode: number, responseText: string): Promise<void> {
  await pool.query(`UPDATE idempotency_keys SET status_code = $4, response = $5 WHERE ${RECORD}`, [...recordOf(claim), statusCode, await seal(pool, responseText)]);
}

/** Frees a claim, so a retry with the same key runs again. */
export async function freeIdempotencyKey(pool: pg.Pool, claim: IdempotencyClaim): Promise<void> {
  await pool.query(`DELETE FROM idempotency_keys WHERE ${RECORD}`, recordOf(claim));
}

/** The idempotency_keys table (src/schema.ts runs them). */
export const IDEMPOTENCY_MIGRATIONS: Migration[] = [
  {
    id: 3,
    name: 'idempotency keys',
    sql: `
      CREATE TABLE IF NOT EXISTS idempotency_keys (
        account_id text NOT NULL,
        key text NOT NULL,
        method text NOT NULL,
        path text NOT NULL,
        body_hash text NOT NULL,
        status_code int,
        response jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, key)
      );
      CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys (created_at);`,
  },
  { id: 7, name: 'idempotent responses as JSON text', sql: `ALTER TABLE idempotency_keys ALTER COLUMN response TYPE text USING response::text;` },
  {
    // issue 8, finding 2: a stored response belongs to the credential that made the request and is
    // kept sealed. Responses stored before were neither (some held a new key or signing secret in
    // clear): they are dropped, so a retry of such a request within its 24 h runs again.
    id: 21,
    name: 'idempotency records scoped to their credential, responses sealed',
    sql: `
      DELETE FROM idempotency_keys;
      ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS credential text NOT NULL DEFAULT '';
      ALTER TABLE idempotency_keys DROP CONSTRAINT IF EXISTS idempotency_keys_pkey;
      ALTER TABLE idempotency_keys ADD PRIMARY KEY (account_id, credential, key);`,
  },
];
