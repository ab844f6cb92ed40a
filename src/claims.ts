// Uniqueness across aggregates (a contact's email within an account, a user's email globally).
// A claim row names its owner; a claim whose owner no longer holds the value (crash between claim
// and append, or a later change) is stale and may be taken over after checking the owner's stream.
import type pg from 'pg';
import type { Migration } from './db/migrations.ts';

export type OwnerStillHolds = (ownerId: string) => Promise<boolean>;

/** Claims `value` for `ownerId`. Returns the id of the live owner that holds it instead, or null on success. */
export async function claim(
  pool: pg.Pool,
  scope: { accountId: string; kind: string },
  value: string,
  ownerId: string,
  ownerStillHolds: OwnerStillHolds,
): Promise<string | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const { rows } = await pool.query<{ owner_id: string }>(
      `INSERT INTO unique_claims (account_id, kind, value, owner_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id, kind, value) DO UPDATE SET owner_id = unique_claims.owner_id
       RETURNING owner_id`,
      [scope.accountId, scope.kind, value, ownerId],
    );
    const owner = rows[0].owner_id;
    if (owner === ownerId) return null;
    if (await ownerStillHolds(owner)) return owner;
    // stale: take it over only if nobody else did meanwhile
    const taken = await pool.query(
      `UPDATE unique_claims SET owner_id = $5, created_at = now() WHERE account_id = $1 AND kind = $2 AND value = $3 AND owner_id = $4`,
      [scope.accountId, scope.kind, value, owner, ownerId],
    );
    if (taken.rowCount === 1) return null;
  }
  return 'unknown';
}

/** True when `ownerId` took its claim on `value` within the last `maxAgeMs`: a write still in flight. */
export async function claimIsFresh(pool: pg.Pool, scope: { accountId: string; kind: string }, value: string, ownerId: string, maxAgeMs: number): Promise<boolean> {
  const { rows } = await pool.query<{ fresh: boolean }>(
    `SELECT created_at > now() - make_interval(secs => $5) AS fresh FROM unique_claims
      WHERE account_id = $1 AND kind = $2 AND value = $3 AND owner_id = $4`,
    [scope.accountId, scope.kind, value, ownerId, maxAgeMs / 1000],
  );
  return rows[0]?.fresh === true;
}

/** Releases every claim an owner holds in an account (an erased contact's email and phone). */
export async function releaseAllOf(pool: pg.Pool, accountId: string, ownerId: string): Promise<void> {
  await pool.query('DELETE FROM unique_claims WHERE account_id = $1 AND owner_id = $2', [accountId, ownerId]);
}

/** Releases a claim, only if `ownerId` still holds it. */
export async function release(pool: pg.Pool, scope: { accountId: string; kind: string }, value: string, ownerId: string): Promise<void> {
  await pool.query(`DELETE FROM unique_claims WHERE account_id = $1 AND kind = $2 AND value = $3 AND owner_id = $4`, [
    scope.accountId, scope.kind, value, ownerId,
  ]);
}

/** The unique_claims table (src/schema.ts runs them). */
export const UNIQUE_CLAIMS_MIGRATIONS: Migration[] = [
  {
    // first made by migration 3 together with idempotency_keys; a database where 3 ran has it already
    id: 22,
    name: 'unique claims',
    sql: `
      CREATE TABLE IF NOT EXISTS unique_claims (
        account_id text NOT NULL,
        kind text NOT NULL,
        value text NOT NULL,
        owner_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, kind, value)
      );`,
  },
];
