// The data_keys table: one AES-256 key per data subject (a contact, or a recipient address that
// belongs to no contact), the key personal data in events is encrypted under. Keys never enter an
// event; events carry the key's id. Erasing a subject destroys its key (the row stays, key NULL, as
// the record of the erasure), after which everything encrypted under it reads as erased.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Migration } from '../db/migrations.ts';
import { newId } from '../ids.ts';

/** The subject of a contact's own data. */
export const contactSubject = (contactId: string) => `contact:${contactId}`;
/** The subject of an address: its keyed hash (src/personal-data/address-hash.ts), never the address. */
export const addressSubject = (addressHash: string) => `address:${addressHash}`;

export interface DataKey {
  id: string;
  subject: string;
  key: Buffer;
}

type Queryable = Pick<pg.Pool, 'query'>;

/**
 * The live key of each subject of one account, made where a subject has none (a subject whose key
 * was erased gets a new one: data written from now on is new data). One round trip for any number.
 */
export async function keysForSubjects(db: Queryable, accountId: string, subjects: readonly string[]): Promise<Map<string, DataKey>> {
  const wanted = [...new Set(subjects)];
  const found = new Map<string, DataKey>();
  if (wanted.length === 0) return found;
  for (let attempt = 0; attempt < 3 && found.size < wanted.length; attempt++) {
    const missing = wanted.filter((s) => !found.has(s));
    const ids = missing.map(() => newId('dataKey'));
    const keys = missing.map(() => randomBytes(32));
    // insert what is missing, then read every live key: a concurrent maker's key wins the unique index
    const { rows } = await db.query<{ id: string; subject: string; key: Buffer }>(
      `WITH wanted AS (SELECT * FROM unnest($2::text[], $3::text[], $4::bytea[]) AS w(subject, id, key)),
            made AS (
              INSERT INTO data_keys (id, account_id, subject, key)
              SELECT id, $1, subject, key FROM wanted
              ON CONFLICT (account_id, subject) WHERE key IS NOT NULL DO NOTHING
              RETURNING id, subject, key)
       SELECT id, subject, key FROM made
       UNION ALL
       SELECT id, subject, key FROM data_keys WHERE account_id = $1 AND subject = ANY($2::text[]) AND key IS NOT NULL`,
      [accountId, missing, ids, keys],
    );
    for (const r of rows) found.set(r.subject, { id: r.id, subject: r.subject, key: r.key });
  }
  const lost = wanted.find((s) => !found.has(s));
  if (lost) throw new Error(`no data key could be made for ${lost}`);
  return found;
}

/** Keys by id, as they are now: a Buffer, or null when erased (or unknown). */
export async function keysById(db: Queryable, ids: readonly string[]): Promise<Map<string, Buffer | null>> {
  const result = new Map<string, Buffer | null>();
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return result;
  const { rows } = await db.query<{ id: string; key: Buffer | null }>('SELECT id, key FROM data_keys WHERE id = ANY($1::text[])', [wanted]);
  for (const id of wanted) result.set(id, null);
  for (const r of rows) result.set(r.id, r.key);
  return result;
}

/** Destroys every key of these subjects in one account; returns the ids of the keys destroyed now. */
export async function eraseKeys(db: Queryable, accountId: string, subjects: readonly string[], erasureId: string): Promise<string[]> {
  if (subjects.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    `UPDATE data_keys SET key = NULL, erased_at = now(), erasure_id = $3
      WHERE account_id = $1 AND subject = ANY($2::text[]) AND key IS NOT NULL
      RETURNING id`,
    [accountId, [...new Set(subjects)], erasureId],
  );
  return rows.map((r) => r.id);
}

/** Every key of these subjects ever made, erased or not (an erasure names them all in its event). */
export async function keyIdsOfSubjects(db: Queryable, accountId: string, subjects: readonly string[]): Promise<string[]> {
  if (subjects.length === 0) return [];
  const { rows } = await db.query<{ id: string }>('SELECT id FROM data_keys WHERE account_id = $1 AND subject = ANY($2::text[]) ORDER BY id', [accountId, [...new Set(subjects)]]);
  return rows.map((r) => r.id);
}

/** The data_keys table (src/schema.ts runs them). */
export const DATA_KEYS_MIGRATIONS: Migration[] = [
  {
    id: 23,
    name: 'data keys: per-subject keys for personal data in events (crypto-shredding)',
    sql: `
      CREATE TABLE IF NOT EXISTS data_keys (
        id text PRIMARY KEY,
        account_id text NOT NULL,
        subject text NOT NULL,
        key bytea,
        created_at timestamptz NOT NULL DEFAULT now(),
        erased_at timestamptz,
        erasure_id text,
        CHECK ((key IS NULL) = (erased_at IS NOT NULL))
      );
      CREATE UNIQUE INDEX IF NOT EXISTS data_keys_live ON data_keys (account_id, subject) WHERE key IS NOT NULL;
      CREATE INDEX IF NOT EXISTS data_keys_subject ON data_keys (account_id, subject);`,
  },
];
