// The erasures table: each erasure recorded (hashes and ids only) before any key is destroyed, so a
// request cut off half-way resumes with what it knew, and so that the list of erasures can be
// exported and applied again after a restore (README: Erasure). Kept apart from the erasure service,
// which appends commands, so the schema can list this table without importing the write side.
import type pg from 'pg';
import type { Migration } from '../db/migrations.ts';

type Queryable = Pick<pg.Pool, 'query'>;

/** One erasure as recorded (and exported): what was erased, never what it held. */
export interface ErasureRecord {
  erasure_id: string;
  account_id: string;
  kind: 'contact' | 'address';
  /** the contact erased (kind contact) */
  contact_id: string | null;
  address_hashes: string[];
  reason: string | null;
  erased_by: string;
  requested_at: Date;
  completed_at: Date | null;
}

/** The erasure recorded for a contact, if one was asked for (done, or cut off half-way). */
export async function contactErasure(db: Queryable, accountId: string, contactId: string): Promise<ErasureRecord | undefined> {
  const { rows } = await db.query<ErasureRecord>(
    `SELECT * FROM erasures WHERE account_id = $1 AND kind = 'contact' AND contact_id = $2 ORDER BY requested_at LIMIT 1`,
    [accountId, contactId],
  );
  return rows[0];
}

/** Records an erasure, or returns the one recorded under its id already. */
export async function recordErasure(db: Queryable, r: Omit<ErasureRecord, 'requested_at' | 'completed_at'>): Promise<ErasureRecord> {
  const { rows } = await db.query<ErasureRecord>(
    `INSERT INTO erasures (erasure_id, account_id, kind, contact_id, address_hashes, reason, erased_by) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (erasure_id) DO UPDATE SET erasure_id = excluded.erasure_id RETURNING *`,
    [r.erasure_id, r.account_id, r.kind, r.contact_id, r.address_hashes, r.reason, r.erased_by],
  );
  return rows[0];
}

/** Marks an erasure done (the first completion time stays). */
export async function markErasureCompleted(db: Queryable, erasureId: string): Promise<void> {
  await db.query('UPDATE erasures SET completed_at = coalesce(completed_at, now()) WHERE erasure_id = $1', [erasureId]);
}

/** Every erasure of the deployment, oldest first (what `engage erasures export` writes). */
export async function listErasures(db: Queryable): Promise<ErasureRecord[]> {
  const { rows } = await db.query<ErasureRecord>('SELECT * FROM erasures ORDER BY requested_at, erasure_id');
  return rows;
}

/** The erasures table (src/schema.ts runs them). */
export const ERASURES_MIGRATIONS: Migration[] = [
  {
    id: 24,
    name: 'erasures: each erasure recorded (ids and address hashes only), for resuming and for re-applying after a restore',
    sql: `
      CREATE TABLE IF NOT EXISTS erasures (
        erasure_id text PRIMARY KEY,
        account_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('contact', 'address')),
        contact_id text,
        address_hashes text[] NOT NULL,
        reason text,
        erased_by text NOT NULL,
        requested_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz
      );
      CREATE INDEX IF NOT EXISTS erasures_contact ON erasures (account_id, contact_id) WHERE kind = 'contact';`,
  },
];
