// The data_keys table: one AES-256 key per data subject (a contact, or a recipient address), the key
// personal data in events is sealed under. Keys never enter an event; events carry the key's id.
// A subject has one row, ever: erasing it destroys the key (key NULL, the row stays as the record),
// after which everything sealed under it reads as erased — and so does anything written for it
// later, which is sealed under no key at all: an erased person stays erased.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { GroupCommit, perPool } from '../db/group-commit.ts';
import type { Migration } from '../db/migrations.ts';
import { newId } from '../ids.ts';
import { prepared } from '../db/prepared.ts';

/** The subject of a contact's own data. */
export const contactSubject = (contactId: string) => `contact:${contactId}`;
/** The subject of a signup form's submission (README "Signup forms"): sealed under its own key until it becomes a contact. */
export const submissionSubject = (submissionId: string) => `submission:${submissionId}`;
/** The subject of an address: its keyed hash (src/personal-data/address-hash.ts), never the address. */
export const addressSubject = (addressHash: string) => `address:${addressHash}`;

export interface DataKey {
  id: string;
  subject: string;
  /** null: the subject was erased */
  key: Buffer | null;
}

type Queryable = Pick<pg.Pool, 'query'>;

/** AES-256 */
const KEY_BYTES = 32;
/** up to this many subjects, keysForSubjects reads and makes in one statement */
const READ_OR_MAKE_AT_ONCE = 16;

/**
 * Subjects and key ids travel as one text parameter `$n`, joined by newlines and split in the
 * statement: node-postgres escapes every element of an array parameter, which for a bulk's 10,000
 * subjects cost more on the event loop than the statement. (Contact ids and address hashes hold no
 * newline; a list that did would go as an array.)
 */
function textList(n: number, values: readonly string[]): { sql: string; param: string | readonly string[] } {
  if (values.some((v) => v.includes('\n'))) return { sql: `$${n}::text[]`, param: values };
  return { sql: `string_to_array($${n}::text, E'\\n')`, param: values.join('\n') };
}

/**
 * The key of each subject of one account, made where a subject has none yet (its key is null when
 * the subject was erased). One round trip for any number of subjects.
 */
export async function keysForSubjects(db: Queryable, accountId: string, subjects: readonly string[]): Promise<Map<string, DataKey>> {
  const wanted = [...new Set(subjects)];
  const found = new Map<string, DataKey>();
  if (wanted.length === 0) return found;
  const take = (rows: { id: string; subject: string; key: Buffer | null }[]) => {
    for (const r of rows) found.set(r.subject, { id: r.id, subject: r.subject, key: r.key });
  };
  // the account's keys of the subjects in `list` (its SQL, parameter $2 of either statement)
  const keysOf = (list: string) => `SELECT id, subject, key FROM data_keys WHERE account_id = $1 AND subject = ANY(${list})`;
  const readKeys = async (of: string[]) => {
    const subjectList = textList(2, of);
    take((await db.query(prepared(keysOf(subjectList.sql), [accountId, subjectList.param]))).rows);
  };
  // the keys travel as one binary parameter, KEY_BYTES each (an array of bytea would be sent as
  // text, every key hex-escaped), and are cut apart in the statement
  const make = async (missing: string[]) => {
    const subjectList = textList(2, missing);
    const idList = textList(3, missing.map(() => newId('dataKey')));
    const insert = `INSERT INTO data_keys (id, account_id, subject, key)
       SELECT w.id, $1, w.subject, substring($4::bytea FROM ((w.n - 1) * ${KEY_BYTES} + 1)::int FOR ${KEY_BYTES})
       FROM unnest(${subjectList.sql}, ${idList.sql}) WITH ORDINALITY AS w(subject, id, n)
       ON CONFLICT (account_id, subject) DO NOTHING
       RETURNING id, subject, key`;
    take((await db.query(prepared(insert, [accountId, subjectList.param, idList.param, randomBytes(KEY_BYTES * missing.length)]))).rows);
  };
  if (wanted.length <= READ_OR_MAKE_AT_ONCE) {
    // a few subjects (a single write): read and make in one round trip, where two cost a single
    // write a round trip more; through a function whose statement is planned once per session
    // (READ_OR_MAKE_FUNCTION), which planned on every call cost most of what it took to run
    const { rows } = await db.query(
      prepared('SELECT o_id AS id, o_subject AS subject, o_key AS key FROM data_keys_read_or_make($1, $2::text[], $3::text[], $4::bytea)', [
        accountId, wanted, wanted.map(() => newId('dataKey')), randomBytes(KEY_BYTES * wanted.length),
      ]),
    );
    take(rows);
  } else {
    // most subjects have their key already (a contact's next event, a recipient written to before):
    // read, and make only the missing ones (no key or id made for the others)
    await readKeys(wanted);
  }
  // the rest are made; a concurrent maker's row wins the unique index, and one this statement's
  // snapshot cannot see yet is read again by the next
  for (let attempt = 0; attempt < 3 && found.size < wanted.length; attempt++) {
    await make(wanted.filter((s) => !found.has(s)));
    const raced = wanted.filter((s) => !found.has(s));
    if (raced.length) await readKeys(raced);
  }
  const lost = wanted.find((s) => !found.has(s));
  if (lost) throw new Error(`no data key could be made for ${lost}`);
  return found;
}

/** A few subjects' keys wanted by one write (keysForFewSubjects). */
interface KeyWant {
  accountId: string;
  subjects: readonly string[];
}

/**
 * Group commit of single writes' keys (README "The write path"): the keys of writes that want at most
 * READ_OR_MAKE_AT_ONCE subjects, made while one batch is being read and made, go in the next, one
 * statement for all of one account's (up to READ_OR_MAKE_AT_ONCE subjects in all). Per pool.
 */
const keyBatch = perPool(
  (db: Queryable) =>
    new GroupCommit<KeyWant, Map<string, DataKey>>(
      async (wants) => {
        const all = await keysForSubjects(db, wants[0].accountId, wants.flatMap((w) => w.subjects));
        return wants.map((w) => new Map(w.subjects.map((s) => [s, all.get(s)!])));
      },
      {
        joins: (want, batch) =>
          want.accountId === batch[0].accountId && new Set([...batch.flatMap((b) => b.subjects), ...want.subjects]).size <= READ_OR_MAKE_AT_ONCE,
      },
    ),
);

/** keysForSubjects for a write's few subjects, together with the other writes' made meanwhile; more go alone. */
export function keysForFewSubjects(db: Queryable, accountId: string, subjects: readonly string[]): Promise<Map<string, DataKey>> {
  if (new Set(subjects).size > READ_OR_MAKE_AT_ONCE) return keysForSubjects(db, accountId, subjects);
  return keyBatch(db).add({ accountId, subjects });
}

/** Keys by id, as they are now: a Buffer, or null when erased (or unknown). */
export async function keysById(db: Queryable, ids: readonly string[]): Promise<Map<string, Buffer | null>> {
  const result = new Map<string, Buffer | null>();
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return result;
  const idList = textList(1, wanted);
  const { rows } = await db.query<{ id: string; key: Buffer | null }>(prepared(`SELECT id, key FROM data_keys WHERE id = ANY(${idList.sql})`, [idList.param]));
  for (const id of wanted) result.set(id, null);
  for (const r of rows) result.set(r.id, r.key);
  return result;
}

/**
 * Erases these subjects of one account: destroys their keys, and marks subjects that have none yet,
 * so nothing written for them later is readable either. Idempotent; returns the ids of all their
 * keys (what the erasure's event names, for the read models to blank).
 */
export async function eraseKeys(db: Queryable, accountId: string, subjects: readonly string[], erasureId: string): Promise<string[]> {
  const wanted = [...new Set(subjects)];
  if (wanted.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO data_keys (id, account_id, subject, key, erased_at, erasure_id)
     SELECT id, $1, subject, NULL, now(), $3 FROM unnest($2::text[], $4::text[]) AS w(subject, id)
     ON CONFLICT (account_id, subject) DO UPDATE SET key = NULL, erased_at = coalesce(data_keys.erased_at, now()), erasure_id = coalesce(data_keys.erasure_id, $3)
     RETURNING id`,
    [accountId, wanted, erasureId, wanted.map(() => newId('dataKey'))],
  );
  return rows.map((r) => r.id).sort();
}

/**
 * A few subjects' keys of one account, read and made in one statement: the keys there are, and new
 * ones (`ids`, and `keys` KEY_BYTES each, cut apart here) for the subjects that have none. A concurrent
 * maker's row wins the unique index (that subject is left out: the caller reads it again). Its one
 * statement is planned once per session (a generic plan: it reads by the (account, subject) index
 * whatever the values); sent as a prepared statement it was planned on every call, for about as long
 * as it ran. JIT off, as for the event store's functions (README "The event log and the read models").
 */
const READ_OR_MAKE_FUNCTION = `
CREATE OR REPLACE FUNCTION data_keys_read_or_make(p_account text, p_subjects text[], p_ids text[], p_keys bytea)
RETURNS TABLE (o_id text, o_subject text, o_key bytea)
LANGUAGE plpgsql SET jit = off SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  RETURN QUERY
  WITH existing AS (
    SELECT k.id, k.subject, k.key FROM data_keys k WHERE k.account_id = p_account AND k.subject = ANY(p_subjects)
  ), made AS (
    INSERT INTO data_keys (id, account_id, subject, key)
    SELECT w.id, p_account, w.subject, substring(p_keys FROM ((w.n - 1) * ${KEY_BYTES} + 1)::int FOR ${KEY_BYTES})
    FROM unnest(p_subjects, p_ids) WITH ORDINALITY AS w(subject, id, n)
    WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE e.subject = w.subject)
    ON CONFLICT (account_id, subject) DO NOTHING
    RETURNING data_keys.id, data_keys.subject, data_keys.key
  )
  SELECT * FROM existing UNION ALL SELECT * FROM made;
END
$fn$;`;

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
      CREATE UNIQUE INDEX IF NOT EXISTS data_keys_subject ON data_keys (account_id, subject);`,
  },
  { id: 60, name: 'data keys: a few subjects read and made by a function planned once per session', sql: READ_OR_MAKE_FUNCTION },
];
