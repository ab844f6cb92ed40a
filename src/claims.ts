// Uniqueness across aggregates (a contact's email within an account, a user's email globally).
// A claim row names its owner; a claim whose owner no longer holds the value (crash between claim
// and append, or a later change) is stale and may be taken over after checking the owner's stream.
// A row holds the keyed hash of its value, never the value (README "Personal data and erasure"): a
// claim left behind keeps no address in clear. Callers give and get back clear values.
// Rows are found by `key`, a 16-byte digest of account, kind and hashed value (claimKey; README "The
// write path"): every statement names its claims by their keys.
import { createHmac, createSecretKey, hash } from 'node:crypto';
import type pg from 'pg';
import { retryingConflicts } from './db/errors.ts';
import { GroupCommit, perPool } from './db/group-commit.ts';
import type { Migration } from './db/migrations.ts';
import { serviceSecret, storedSecret } from './service-secrets.ts';
import { prepared } from './db/prepared.ts';

type Queryable = Pick<pg.Pool, 'query'>;

const CLAIM_HASH_SECRET = 'claim_hash';

/** HMAC-SHA256 under the secret (its UTF-8 bytes as a key object made once, not encoded again for every value of a batch). */
const hashUnder = (secret: string) => {
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  return (value: string) => createHmac('sha256', key).update(value, 'utf8').digest('base64url');
};

/**
 * What a claim row holds for a value: HMAC-SHA256 under a service secret of its own, of the value
 * exactly as the caller gives it (callers normalise: a claim compares values as given). The secret
 * is read once per pool.
 */
export async function claimHasher(pool: Queryable): Promise<(value: string) => string> {
  return hashUnder(await storedSecret(pool, CLAIM_HASH_SECRET));
}

/**
 * A claim row's key: the first 16 bytes of SHA-256 over its account, kind and hashed value, separated
 * by U+001F (which none of them holds), as a uuid. Postgres's unique_claim_key computes the same
 * (migration 59 keys the rows written before it with it; test/db/claims-plans.test.ts holds them equal).
 */
export const claimKey = (accountId: string, kind: string, hashed: string): string =>
  // the one-shot digest: a Hash object per claim cost twice as much (an import makes two claims a row)
  hash('sha256', `${accountId}\u001f${kind}\u001f${hashed}`, 'hex').slice(0, 32);

/** Keys in the primary key's order (uuids compare as their bytes, so as these hex digits). */
const byKey = <T extends { key: string }>(items: T[]): T[] => items.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

/** Each distinct value's hash, and the value back from its hash (rows answer with hashes). */
async function hashing(pool: Queryable, values: Iterable<string>): Promise<{ hashOf: (value: string) => string; valueOf: Map<string, string> }> {
  const hash = await claimHasher(pool);
  const hashes = new Map<string, string>();
  const valueOf = new Map<string, string>();
  for (const v of values) {
    if (hashes.has(v)) continue;
    const h = hash(v);
    hashes.set(v, h);
    valueOf.set(h, v);
  }
  return { hashOf: (v) => hashes.get(v) ?? hash(v), valueOf };
}

export type OwnerStillHolds = (ownerId: string) => Promise<boolean>;

/** A single claim's row, as the first attempt of `claim` writes it (with the others made meanwhile). */
interface ClaimRow {
  key: string;
  accountId: string;
  kind: string;
  /** the value's hash */
  value: string;
  ownerId: string;
}

const sameClaim = (a: ClaimRow, b: ClaimRow) => a.key === b.key;

/**
 * Group commit of single claims (README "The write path"): the first attempt of the claims made
 * while one batch is being written goes in the next, one statement for all (rows locked in one
 * order, so two batches cannot deadlock), each answered with its value's owner. One value appears
 * once per batch: two claims of it go one after the other. Per pool.
 */
const claimBatch = perPool(
  (pool: Queryable) =>
    new GroupCommit<ClaimRow, string>(
      async (rows) => {
        const { rows: owners } = await retryingConflicts(() =>
          pool.query<{ account_id: string; kind: string; value: string; owner_id: string }>(
            prepared(
              `INSERT INTO unique_claims (key, account_id, kind, value, owner_id)
               SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[]) AS u(key, a, k, v, o) ORDER BY key
               ON CONFLICT (key) DO UPDATE SET owner_id = unique_claims.owner_id
               RETURNING account_id, kind, value, owner_id`,
              [rows.map((r) => r.key), rows.map((r) => r.accountId), rows.map((r) => r.kind), rows.map((r) => r.value), rows.map((r) => r.ownerId)],
            ),
          ),
        );
        const key = (accountId: string, kind: string, value: string) => `${accountId}\u0000${kind}\u0000${value}`;
        const byClaim = new Map(owners.map((o) => [key(o.account_id, o.kind, o.value), o.owner_id]));
        return rows.map((r) => byClaim.get(key(r.accountId, r.kind, r.value))!);
      },
      { maxBatch: 256, joins: (row, batch) => !batch.some((b) => sameClaim(b, row)) },
    ),
);

/** Claims `value` for `ownerId`. Returns the id of the live owner that holds it instead, or null on success. */
export async function claim(
  pool: pg.Pool,
  scope: { accountId: string; kind: string },
  value: string,
  ownerId: string,
  ownerStillHolds: OwnerStillHolds,
): Promise<string | null> {
  const hashed = (await claimHasher(pool))(value);
  const key = claimKey(scope.accountId, scope.kind, hashed);
  for (let attempt = 0; attempt < 3; attempt++) {
    const owner = await claimBatch(pool).add({ key, accountId: scope.accountId, kind: scope.kind, value: hashed, ownerId });
    if (owner === ownerId) return null;
    if (await ownerStillHolds(owner)) return owner;
    // stale: take it over only if nobody else did meanwhile
    const taken = await pool.query(TAKE_OVER, [key, owner, ownerId]);
    if (taken.rowCount === 1) return null;
  }
  return 'unknown';
}

/** A stale claim taken over, only if nobody else did meanwhile: $1 its key, $2 its stale owner, $3 the new owner. */
const TAKE_OVER = `UPDATE unique_claims SET owner_id = $3, created_at = now() WHERE key = $1 AND owner_id = $2`;

/**
 * The statements that read or change a batch's claims by their keys (exported for the plan test).
 * Each names its keys twice: joined to the batch's rows, and as `= ANY(...)`, a condition of the
 * primary key's index. Joined only, a batch of a thousand was planned as a hash join over a scan of
 * every claim, so its cost grew with the table. The keys come in their order (byKey): the rows are
 * locked in it whichever way the join is planned.
 */
export const CLAIM_BATCH_STATEMENTS = {
  /** $1 keys, $2 their owners now, $3 their new owners */
  transfer: `UPDATE unique_claims c SET owner_id = w.to_owner, created_at = now()
     FROM unnest($1::uuid[], $2::text[], $3::text[]) AS w(key, from_owner, to_owner)
     WHERE c.key = ANY($1::uuid[]) AND c.key = w.key AND c.owner_id = w.from_owner
     RETURNING c.value`,
  /** $1 keys, $2 their owners */
  release: `DELETE FROM unique_claims c USING unnest($1::uuid[], $2::text[]) AS w(key, owner_id)
     WHERE c.key = ANY($1::uuid[]) AND c.key = w.key AND c.owner_id = w.owner_id`,
  /** $1 keys */
  holders: `SELECT c.kind, c.value, c.owner_id FROM unique_claims c WHERE c.key = ANY($1::uuid[])`,
};

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
  const { hashOf } = await hashing(pool, requests.map((r) => r.value));
  const keyOf = new Map(requests.map((r) => [r, claimKey(accountId, r.kind, hashOf(r.value))]));
  let pending = [...requests];
  // rows answer with hashes: a request is known by its kind and its value's hash
  const ref = (kind: string, hash: string) => `${kind}\u0000${hash}`;
  for (let attempt = 0; attempt < 3 && pending.length > 0; attempt++) {
    const { rows: inserted } = await pool.query<{ kind: string; value: string }>(
      prepared(
        `INSERT INTO unique_claims (key, account_id, kind, value, owner_id)
         SELECT u.key, $1, k, v, o FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) AS u(key, k, v, o) ORDER BY u.key
         ON CONFLICT (key) DO NOTHING RETURNING kind, value`,
        [accountId, pending.map((r) => keyOf.get(r)), pending.map((r) => r.kind), pending.map((r) => hashOf(r.value)), pending.map((r) => r.ownerId)],
      ),
    );
    const insertedRefs = new Set(inserted.map((r) => ref(r.kind, r.value)));
    const rest = pending.filter((r) => {
      if (!insertedRefs.has(ref(r.kind, hashOf(r.value)))) return true;
      taken.push(r);
      return false;
    });
    pending = [];
    if (rest.length === 0) break;
    const { rows: held } = await pool.query<{ kind: string; value: string; owner_id: string }>(CLAIM_BATCH_STATEMENTS.holders, [rest.map((r) => keyOf.get(r))]);
    const holders = new Map(held.map((h) => [ref(h.kind, h.value), h.owner_id]));
    for (const r of rest) {
      const owner = holders.get(ref(r.kind, hashOf(r.value)));
      // released meanwhile: try again
      if (owner === undefined) pending.push(r);
      else if (owner === r.ownerId) continue;
      else if (await ownerStillHolds(owner, r)) refused.set(r, owner);
      else {
        const over = await pool.query(TAKE_OVER, [keyOf.get(r), owner, r.ownerId]);
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
    `SELECT created_at > now() - make_interval(secs => $3) AS fresh FROM unique_claims WHERE key = $1 AND owner_id = $2`,
    [claimKey(scope.accountId, scope.kind, (await claimHasher(pool))(value)), ownerId, maxAgeMs / 1000],
  );
  return rows[0]?.fresh === true;
}

/**
 * Releases every claim an owner holds in an account: a pass over all of the claims (no index leads
 * from an owner to its claims), for an erasure carried out again after its contact's values became
 * unreadable (src/personal-data/erasure.ts).
 */
export async function releaseAllOf(pool: pg.Pool, accountId: string, ownerId: string): Promise<void> {
  await pool.query('DELETE FROM unique_claims WHERE account_id = $1 AND owner_id = $2', [accountId, ownerId]);
}

/** Releases a claim, only if `ownerId` still holds it. */
export async function release(pool: pg.Pool, scope: { accountId: string; kind: string }, value: string, ownerId: string): Promise<void> {
  await pool.query(`DELETE FROM unique_claims WHERE key = $1 AND owner_id = $2`, [claimKey(scope.accountId, scope.kind, (await claimHasher(pool))(value)), ownerId]);
}

/** Who holds a claim, and for how long (by the database's clock). */
export interface ClaimHolder {
  owner: string;
  ageMs: number;
}

const HOLDER_COLUMNS = `value, owner_id, (extract(epoch FROM now() - created_at) * 1000)::float8 AS age_ms`;
type HolderRow = { value: string; owner_id: string; age_ms: number };

type Scope = { accountId: string; kind: string };

/**
 * Each value of one kind once (its last item), with its hash and key, in the keys' order: every
 * statement of a batch locks its rows in that order, so two batches that share values never deadlock.
 */
const keyedOnce = <T extends { value: string }>(scope: Scope, items: readonly T[], hashOf: (value: string) => string) =>
  byKey([...new Map(items.map((i) => [i.value, i])).values()].map((item) => {
    const hashed = hashOf(item.value);
    return { item, hashed, key: claimKey(scope.accountId, scope.kind, hashed) };
  }));

/** Who holds each of these values now (a value nobody holds is absent from the map). */
export async function holdersOf(pool: pg.Pool, scope: Scope, values: readonly string[]): Promise<Map<string, ClaimHolder>> {
  const held = new Map<string, ClaimHolder>();
  if (values.length === 0) return held;
  const { valueOf } = await hashing(pool, values);
  await readHolders(pool, [...valueOf.keys()].map((hashed) => claimKey(scope.accountId, scope.kind, hashed)), valueOf, held);
  return held;
}

/** Adds to `held` the holder of each claim of `keys` that somebody holds (its value from its hash by `valueOf`). */
async function readHolders(pool: Queryable, keys: readonly string[], valueOf: ReadonlyMap<string, string>, held: Map<string, ClaimHolder>): Promise<void> {
  const { rows } = await pool.query<HolderRow>(`SELECT ${HOLDER_COLUMNS} FROM unique_claims WHERE key = ANY($1::uuid[])`, [keys]);
  for (const r of rows) held.set(valueOf.get(r.value)!, { owner: r.owner_id, ageMs: r.age_ms });
}

/**
 * Claims each value nobody holds for its owner (a value given twice: for its first owner) in one
 * statement, and reads who holds the others in a second, made only when some are held. Returns the
 * holder of every value that is held now (the owner asked for, where this call took it; a value it
 * took reads as taken just now) and the values this call took. Unlike claimOrHolders, a value held
 * already is only read, not written: a batch that mostly meets values held (a file imported again)
 * rewrites no claim row. README "Contacts import".
 */
export async function claimFree(
  pool: pg.Pool,
  scope: Scope,
  claims: readonly { value: string; owner: string }[],
): Promise<{ holders: Map<string, ClaimHolder>; taken: Set<string> }> {
  const holders = new Map<string, ClaimHolder>();
  const taken = new Set<string>();
  if (claims.length === 0) return { holders, taken };
  const { hashOf, valueOf } = await hashing(pool, claims.map((c) => c.value));
  const wanted = keyedOnce(scope, [...claims].reverse(), hashOf);
  const { rows } = await retryingConflicts(() =>
    pool.query<{ value: string }>(
      prepared(
        `INSERT INTO unique_claims (key, account_id, kind, value, owner_id)
         SELECT w.key, $1, $2, w.value, w.owner FROM unnest($3::uuid[], $4::text[], $5::text[]) AS w(key, value, owner) ORDER BY w.key
         ON CONFLICT (key) DO NOTHING
         RETURNING value`,
        [scope.accountId, scope.kind, wanted.map((c) => c.key), wanted.map((c) => c.hashed), wanted.map((c) => c.item.owner)],
      ),
    ),
  );
  const ownerOf = new Map(wanted.map((c) => [c.item.value, c.item.owner]));
  for (const r of rows) {
    const value = valueOf.get(r.value)!;
    taken.add(value);
    holders.set(value, { owner: ownerOf.get(value)!, ageMs: 0 });
  }
  const rest = wanted.filter((c) => !taken.has(c.item.value));
  if (rest.length > 0) await readHolders(pool, rest.map((c) => c.key), valueOf, holders);
  return { holders, taken };
}

/**
 * Claims many values at once, each for its own owner, in one statement (a value given twice is
 * claimed once, for its first owner). Returns who holds each value afterwards: the owner asked for
 * where the claim was taken, the earlier holder where it was not (stale or not: the caller judges).
 */
export async function claimOrHolders(pool: pg.Pool, scope: Scope, claims: readonly { value: string; owner: string }[]): Promise<Map<string, ClaimHolder>> {
  const held = new Map<string, ClaimHolder>();
  if (claims.length === 0) return held;
  const { hashOf, valueOf } = await hashing(pool, claims.map((c) => c.value));
  const wanted = keyedOnce(scope, [...claims].reverse(), hashOf);
  const { rows } = await retryingConflicts(() =>
    pool.query<HolderRow>(
      prepared(
        `INSERT INTO unique_claims (key, account_id, kind, value, owner_id)
         SELECT w.key, $1, $2, w.value, w.owner FROM unnest($3::uuid[], $4::text[], $5::text[]) AS w(key, value, owner) ORDER BY w.key
         ON CONFLICT (key) DO UPDATE SET owner_id = unique_claims.owner_id
         RETURNING ${HOLDER_COLUMNS}`,
        [scope.accountId, scope.kind, wanted.map((c) => c.key), wanted.map((c) => c.hashed), wanted.map((c) => c.item.owner)],
      ),
    ),
  );
  for (const r of rows) held.set(valueOf.get(r.value)!, { owner: r.owner_id, ageMs: r.age_ms });
  return held;
}

/** Hands claims over (each only if `from` still holds it, and as if taken now); returns the values handed over. */
export async function transferMany(pool: pg.Pool, scope: Scope, moves: readonly { value: string; from: string; to: string }[]): Promise<Set<string>> {
  if (moves.length === 0) return new Set();
  const { hashOf, valueOf } = await hashing(pool, moves.map((m) => m.value));
  const wanted = keyedOnce(scope, moves, hashOf);
  const { rows } = await retryingConflicts(() =>
    pool.query<{ value: string }>(CLAIM_BATCH_STATEMENTS.transfer, [wanted.map((m) => m.key), wanted.map((m) => m.item.from), wanted.map((m) => m.item.to)]),
  );
  return new Set(rows.map((r) => valueOf.get(r.value)!));
}

/** Releases many claims (of any kinds), each only if its owner still holds it: a batch gives back what it took. */
export async function releaseMany(pool: pg.Pool, accountId: string, claims: readonly ClaimRequest[]): Promise<void> {
  if (claims.length === 0) return;
  const { hashOf } = await hashing(pool, claims.map((r) => r.value));
  // each claim once, in the keys' order (as keyedOnce, over several kinds)
  const wanted = byKey([...new Map(claims.map((c) => [`${c.kind}\u0000${c.value}`, c])).values()].map((c) => ({ c, key: claimKey(accountId, c.kind, hashOf(c.value)) })));
  await retryingConflicts(() => pool.query(CLAIM_BATCH_STATEMENTS.release, [wanted.map((w) => w.key), wanted.map((w) => w.c.ownerId)]));
}

/**
 * Claims keyed by a digest (claimKey). The primary key was (account_id, kind, value): about 90 bytes
 * an entry, written at random places. The value stays in its row (the rows answer with it).
 * unique_claim_key computes claimKey in SQL: it keys the rows written before, and stays for a row
 * written by hand (an operator's, a test's).
 */
const CLAIM_KEY_MIGRATION = `
  CREATE OR REPLACE FUNCTION unique_claim_key(account_id text, kind text, value text) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT encode(substring(sha256(convert_to(account_id || chr(31) || kind || chr(31) || value, 'UTF8')) FROM 1 FOR 16), 'hex')::uuid $$;
  ALTER TABLE unique_claims ADD COLUMN key uuid;
  UPDATE unique_claims SET key = unique_claim_key(account_id, kind, value);
  ALTER TABLE unique_claims ALTER COLUMN key SET NOT NULL, DROP CONSTRAINT unique_claims_pkey, ADD CONSTRAINT unique_claims_pkey PRIMARY KEY (key);`;

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
  {
    id: 52,
    name: 'unique claims hold keyed hashes',
    // no claim is written while the rows are converted: every row is converted, once
    sql: `LOCK TABLE unique_claims IN SHARE ROW EXCLUSIVE MODE;`,
    run: hashClearClaims,
  },
  {
    id: 59,
    name: 'unique claims keyed by a digest',
    sql: CLAIM_KEY_MIGRATION,
  },
];

/** Replaces each value a database written before claims were hashed holds in clear by its hash (once: migration 52). */
async function hashClearClaims(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM unique_claims) AS any');
  if (!rows[0].any) return;
  // read as stored, not remembered for the connection: this transaction may yet roll back
  const hash = hashUnder(await serviceSecret(client, CLAIM_HASH_SECRET));
  // a cursor sees the rows as they were when it was opened, not the ones converted since
  await client.query('DECLARE clear_claims NO SCROLL CURSOR FOR SELECT account_id, kind, value FROM unique_claims');
  for (;;) {
    const { rows: batch } = await client.query<{ account_id: string; kind: string; value: string }>('FETCH 5000 FROM clear_claims');
    if (batch.length === 0) break;
    await client.query(
      `UPDATE unique_claims c SET value = u.hashed FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(account_id, kind, value, hashed)
        WHERE c.account_id = u.account_id AND c.kind = u.kind AND c.value = u.value`,
      [batch.map((r) => r.account_id), batch.map((r) => r.kind), batch.map((r) => r.value), batch.map((r) => hash(r.value))],
    );
  }
  await client.query('CLOSE clear_claims');
}
