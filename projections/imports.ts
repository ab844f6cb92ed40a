// Read model of contacts imports: one row per import with its status, live counts, how its columns
// were mapped and its first 1,000 row errors; the typed queries the API and the import worker read.
// Rebuildable on its own from the import streams (it holds no personal data: row errors name a row
// and a column, never a value).
import { IMPORT_EVENT_TYPES, type ImportColumn, type ImportEvent, type ImportRowError, type ImportStatus } from '../commands/import.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { type Db, Filters, type IdRange, findInAccount, listById } from './queries.ts';

/** A row of the imports read model as node-postgres returns it. */
export interface ImportRow {
  id: string;
  account_id: string;
  list_id: string | null;
  status: ImportStatus;
  file_name: string | null;
  rows_total: number;
  rows_through: number;
  rows_imported: number;
  rows_updated: number;
  rows_failed: number;
  bytes: string;
  columns: ImportColumn[];
  errors: ImportRowError[];
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

export const importsProjection: Projection = {
  name: 'imports',
  version: 1,
  tables: ['imports'],
  types: IMPORT_EVENT_TYPES,
  schema: (t) => `
    CREATE TABLE ${t('imports')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      list_id text,
      status text NOT NULL,
      file_name text,
      rows_total int NOT NULL,
      rows_through int NOT NULL DEFAULT 0,
      rows_imported int NOT NULL DEFAULT 0,
      rows_updated int NOT NULL DEFAULT 0,
      rows_failed int NOT NULL DEFAULT 0,
      bytes bigint NOT NULL,
      columns jsonb NOT NULL,
      errors jsonb NOT NULL DEFAULT '[]',
      failure_reason text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      completed_at timestamptz
    );
    CREATE INDEX ${t('imports')}_account ON ${t('imports')} (account_id, id DESC);
    CREATE INDEX ${t('imports')}_running ON ${t('imports')} (account_id, id) WHERE status IN ('queued', 'processing');`,
  async apply(tx, events, t) {
    const imports = t('imports');
    for (const recorded of events) {
      const e = recorded as unknown as ImportEvent;
      switch (e.type) {
        case 'ImportAccepted': {
          const d = e.data;
          await tx.query(
            `INSERT INTO ${imports} (id, account_id, list_id, status, file_name, rows_total, bytes, columns, created_at, updated_at)
             VALUES ($1, $2, $3, 'queued', $4, $5, $6, $7, $8, $8) ON CONFLICT (id) DO NOTHING`,
            [d.id, d.account_id, d.list_id, d.file_name, d.rows_total, d.bytes, JSON.stringify(d.columns), d.created_at],
          );
          break;
        }
        case 'ImportBatchApplied': {
          const d = e.data;
          await tx.query(
            `UPDATE ${imports} SET status = 'processing', rows_through = $2, rows_imported = rows_imported + $3, rows_updated = rows_updated + $4,
               rows_failed = rows_failed + $5, errors = errors || $6::jsonb, updated_at = $7
             WHERE id = $1`,
            [d.id, d.rows_through, d.imported, d.updated, d.failed, JSON.stringify(d.errors), d.at],
          );
          break;
        }
        case 'ImportCompleted':
          await tx.query(`UPDATE ${imports} SET status = 'completed', updated_at = $2, completed_at = $2 WHERE id = $1`, [e.data.id, e.data.at]);
          break;
        case 'ImportFailed':
          await tx.query(`UPDATE ${imports} SET status = 'failed', failure_reason = $2, updated_at = $3, completed_at = $3 WHERE id = $1`, [e.data.id, e.data.reason, e.data.at]);
          break;
      }
    }
  },
};

export const findImport = (db: Db, accountId: string, id: string) => findInAccount<ImportRow>(db, 'imports', accountId, id);

/** The account's imports, newest first, within `range`. */
export const listImports = (db: Db, accountId: string, range: IdRange) => listById<ImportRow>(db, 'imports', new Filters(accountId), range);

/** The oldest unfinished import of each account (imports run one at a time per account, in order). */
export async function nextImportPerAccount(db: Db, limit: number): Promise<Pick<ImportRow, 'id' | 'account_id'>[]> {
  const { rows } = await db.query<Pick<ImportRow, 'id' | 'account_id'>>(
    `SELECT DISTINCT ON (account_id) id, account_id FROM imports WHERE status IN ('queued', 'processing') ORDER BY account_id, id LIMIT $1`,
    [limit],
  );
  return rows;
}

/** Of these import ids, the ones the read model shows ended (completed or failed). */
export async function endedImports(db: Db, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM imports WHERE id = ANY($1::text[]) AND status IN ('completed', 'failed')`, [ids]);
  return rows.map((r) => r.id);
}

/** Of these import ids, the ones the read model knows (accepted). */
export async function knownImports(db: Db, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM imports WHERE id = ANY($1::text[])`, [ids]);
  return rows.map((r) => r.id);
}
