// Uniqueness across aggregates (a contact's email within an account, a user's email globally).
// A claim row names its owner; a claim whose owner no longer holds the value (crash between claim
// and append, or a later change) is stale and may be taken over after checking the owner's stream.
import type pg from 'pg';
import { isRetryableConflict } from './db/errors.ts';
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

/** One value to claim for an owner, in a batch (claimMany). */
export interface ClaimRequest {
  kind: string;
  value: string;
  ownerId: string;
}

/**
 * Claims many values of one account at once, with the semantics of `claim` for each: a value free or
 * already the owner's is taken; one held by another owner is taken over only when `ownerStillHolds`
 * says that owner no longer holds it (checked per conflict, which is rare). Returns the claims taken
 * by this call (give them back with releaseMany if the write they guard fails; claims the owner held
 * already are not among them) and, for each value refused, its holder (or 'unknown' after repeated
 * races). A value may appear once per kind.
 */
export async function claimMany(
  pool: pg.Pool,
  accountId: string,
  requests: readonly ClaimRequest[],
  ownerStillHolds: (ownerId: string, request: ClaimRequest) => Promise<boolean>,
): Promise<{ taken: ClaimRequest[]; refused: Map<ClaimRequest, string> }> {
  const taken: ClaimRequest[] = [];
  const refused = new Map<ClaimRequest, string>();
  // one order for every batch: two batches claiming overlapping values lock them in the same order
  let pending = [...requests].sort((a, b) => (a.kind === b.kind ? (a.value < b.value ? -1 : a.value > b.value ? 1 : 0) : a.kind < b.kind ? -1 : 1));
  for (let attempt = 0; attempt < 3 && pending.length > 0; attempt++) {
    const { rows: inserted } = await pool.query<{ kind: string; value: string }>(
      `INSERT INTO unique_claims (account_id, kind, value, owner_id)
       SELECT $1, k, v, o FROM unnest($2::text[], $3::text[], $4::text[]) AS u(k, v, o)
       ON CONFLICT (account_id, kind, value) DO NOTHING RETURNING kind, value`,
      [accountId, pending.map((r) => r.kind), pending.map((r) => r.value), pending.map((r) => r.ownerId)],
    );
    const key = (kind: string, value: string) => `${kind}\u0000${value}`;
    const insertedKeys = new Set(inserted.map((r) => key(r.kind, r.value)));
    const rest = pending.filter((r) => {
      if (!insertedKeys.has(key(r.kind, r.value))) return true;
      taken.push(r);
      return false;
    });
    pending = [];
    if (rest.length === 0) break;
    const { rows: held } = await pool.query<{ kind: string; value: string; owner_id: string }>(
      `SELECT c.kind, c.value, c.owner_id FROM unique_claims c JOIN unnest($2::text[], $3::text[]) AS u(k, v) ON c.kind = u.k AND c.value = u.v
       WHERE c.account_id = $1`,
      [accountId, rest.map((r) => r.kind), rest.map((r) => r.value)],
    );
    const holders = new Map(held.map((h) => [key(h.kind, h.value), h.owner_id]));
    for (const r of rest) {
      const owner = holders.get(key(r.kind, r.value));
      // released meanwhile: try again
      if (owner === undefined) pending.push(r);
      else if (owner === r.ownerId) continue;
      else if (await ownerStillHolds(owner, r)) refused.set(r, owner);
      else {
        const over = await pool.query(
          `UPDATE unique_claims SET owner_id = $5, created_at = now() WHERE account_id = $1 AND kind = $2 AND value = $3 AND owner_id = $4`,
          [accountId, r.kind, r.value, owner, r.ownerId],
        );
        if (over.rowCount === 1) taken.push(r);
        else pending.push(r);
      }
    }
  }
  for (const r of pending) refused.set(r, 'unknown');
  return { taken, refused };
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

/** Who holds a claim, and for how long (by the database's clock). */
export interface ClaimHolder {
  owner: string;
  ageMs: number;
}

const HOLDER_COLUMNS = `value, owner_id, (extract(epoch FROM now() - created_at) * 1000)::float8 AS age_ms`;
type HolderRow = { value: string; owner_id: string; age_ms: number };

type Scope = { accountId: string; kind: string };

/** Values in one order for every batch statement, so two batches that share values lock them alike and never deadlock. */
const sortedUnique = <T extends { value: string }>(items: readonly T[]) => [...new Map(items.map((i) => [i.value, i])).values()].sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));

async function retryingDeadlocks<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (!isRetryableConflict(err) || attempt >= 3) throw err;
    }
  }
}

/** Who holds each of these values now (a value nobody holds is absent from the map). */
export async function holdersOf(pool: pg.Pool, scope: Scope, values: readonly string[]): Promise<Map<string, ClaimHolder>> {
  const held = new Map<string, ClaimHolder>();
  if (values.length === 0) return held;
  const { rows } = await pool.query<HolderRow>(`SELECT ${HOLDER_COLUMNS} FROM unique_claims WHERE account_id = $1 AND kind = $2 AND value = ANY($3::text[])`, [
    scope.accountId, scope.kind, [...new Set(values)],
  ]);
  for (const r of rows) held.set(r.value, { owner: r.owner_id, ageMs: r.age_ms });
  return held;
}

/**
 * Claims many values at once, each for its own owner, in one statement (a value given twice is
 * claimed once, for its first owner). Returns who holds each value afterwards: the owner asked for
 * where the claim was taken, the earlier holder where it was not (stale or not: the caller judges).
 */
export async function claimOrHolders(pool: pg.Pool, scope: Scope, claims: readonly { value: string; owner: string }[]): Promise<Map<string, ClaimHolder>> {
  const held = new Map<string, ClaimHolder>();
  const wanted = sortedUnique([...claims].reverse());
  if (wanted.length === 0) return held;
  const { rows } = await retryingDeadlocks(() =>
    pool.query<HolderRow>(
      `INSERT INTO unique_claims (account_id, kind, value, owner_id)
       SELECT $1, $2, w.value, w.owner FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS w(value, owner, n) ORDER BY w.n
       ON CONFLICT (account_id, kind, value) DO UPDATE SET owner_id = unique_claims.owner_id
       RETURNING ${HOLDER_COLUMNS}`,
      [scope.accountId, scope.kind, wanted.map((c) => c.value), wanted.map((c) => c.owner)],
    ),
  );
  for (const r of rows) held.set(r.value, { owner: r.owner_id, ageMs: r.age_ms });
  return held;
}

/** Hands claims over (each only if `from` still holds it, and as if taken now); returns the values handed over. */
export async function transferMany(pool: pg.Pool, scope: Scope, moves: readonly { value: string; from: string; to: string }[]): Promise<Set<string>> {
  const wanted = sortedUnique(moves);
  if (wanted.length === 0) return new Set();
  const { rows } = await retryingDeadlocks(() =>
    pool.query<{ value: string }>(
      `UPDATE unique_claims c SET owner_id = w.to_owner, created_at = now()
       FROM unnest($3::text[], $4::text[], $5::text[]) AS w(value, from_owner, to_owner)
       WHERE c.account_id = $1 AND c.kind = $2 AND c.value = w.value AND c.owner_id = w.from_owner
       RETURNING c.value`,
      [scope.accountId, scope.kind, wanted.map((m) => m.value), wanted.map((m) => m.from), wanted.map((m) => m.to)],
    ),
  );
  return new Set(rows.map((r) => r.value));
}

/** Releases many claims (of any kinds), each only if its owner still holds it: a batch gives back what it took. */
export async function releaseMany(pool: pg.Pool, accountId: string, claims: readonly ClaimRequest[]): Promise<void> {
  // one order for every batch, as when claiming: two batches never wait on each other's rows in turn
  const wanted = [...new Map(claims.map((c) => [`${c.kind}\u0000${c.value}`, c])).values()].sort((x, y) =>
    x.kind === y.kind ? (x.value < y.value ? -1 : x.value > y.value ? 1 : 0) : x.kind < y.kind ? -1 : 1,
  );
  if (wanted.length === 0) return;
  await retryingDeadlocks(() =>
    pool.query(
      `DELETE FROM unique_claims c USING unnest($2::text[], $3::text[], $4::text[]) AS u(k, v, o)
       WHERE c.account_id = $1 AND c.kind = u.k AND c.value = u.v AND c.owner_id = u.o`,
      [accountId, wanted.map((r) => r.kind), wanted.map((r) => r.value), wanted.map((r) => r.ownerId)],
    ),
  );
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
