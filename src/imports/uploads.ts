// The import_uploads table: an accepted CSV file, stored as it came in ~1 MiB chunks while the upload
// streams in, so that an import accepted (202) survives a crash and resumes from the stored bytes.
// The chunks hold personal data in clear: they are deleted as soon as their import ends, and the
// import worker sweeps away the chunks of uploads that never became an import (a 4xx, a client that
// went away, a crash mid-upload) and of imports whose end was not followed by the delete.
import type pg from 'pg';
import type { Migration } from '../db/migrations.ts';

/** How long the chunks of an upload that no import names may stay (an upload in progress is younger). */
const ORPHAN_AFTER = '1 hour';

type Queryable = Pick<pg.Pool, 'query'>;

export async function writeChunk(db: Queryable, upload: { importId: string; accountId: string }, seq: number, chunk: Buffer): Promise<void> {
  await db.query('INSERT INTO import_uploads (import_id, seq, account_id, chunk) VALUES ($1, $2, $3, $4)', [upload.importId, seq, upload.accountId, chunk]);
}

/** The stored file, chunk by chunk in order (one chunk in memory at a time); ends at the first missing chunk. */
export async function* readChunks(db: Queryable, importId: string): AsyncGenerator<Buffer> {
  for (let seq = 0; ; seq++) {
    const { rows } = await db.query<{ chunk: Buffer }>('SELECT chunk FROM import_uploads WHERE import_id = $1 AND seq = $2', [importId, seq]);
    if (rows.length === 0) return;
    yield rows[0].chunk;
  }
}

export async function deleteUpload(db: Queryable, importId: string): Promise<void> {
  await db.query('DELETE FROM import_uploads WHERE import_id = $1', [importId]);
}

/**
 * Deletes the chunks no import needs: those of imports that ended (`ended` says which of the given
 * ids have), and those of uploads older than an hour that never became an import (`known` says which
 * ids are imports). Returns how many uploads it deleted.
 */
export async function sweepUploads(
  db: Queryable,
  imports: { ended(ids: string[]): Promise<string[]>; known(ids: string[]): Promise<string[]> },
): Promise<number> {
  const { rows } = await db.query<{ import_id: string; old: boolean }>(
    `SELECT import_id, min(created_at) < now() - interval '${ORPHAN_AFTER}' AS old FROM import_uploads GROUP BY import_id`,
  );
  if (rows.length === 0) return 0;
  const ids = rows.map((r) => r.import_id);
  const ended = new Set(await imports.ended(ids));
  const known = new Set(await imports.known(ids));
  const gone = rows.filter((r) => ended.has(r.import_id) || (r.old && !known.has(r.import_id))).map((r) => r.import_id);
  if (gone.length) await db.query('DELETE FROM import_uploads WHERE import_id = ANY($1::text[])', [gone]);
  return gone.length;
}

/** The import_uploads table (src/schema.ts runs them). */
export const IMPORT_UPLOADS_MIGRATIONS: Migration[] = [
  {
    id: 34,
    name: 'import uploads: CSV files accepted for import, in chunks, until their import ends',
    sql: `
      CREATE TABLE IF NOT EXISTS import_uploads (
        import_id text NOT NULL,
        seq int NOT NULL,
        account_id text NOT NULL,
        chunk bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (import_id, seq)
      );
      -- CSV is read once or twice and deleted: compressing it would only cost CPU on the way in
      ALTER TABLE import_uploads ALTER COLUMN chunk SET STORAGE EXTERNAL;`,
  },
];

/** How many chunks of an upload are stored, their bytes, and whether they run 0 … n-1 without a gap. */
export async function uploadSize(db: Queryable, importId: string): Promise<{ chunks: number; bytes: number; contiguous: boolean }> {
  const { rows } = await db.query<{ n: number; bytes: string | null; last: number | null }>(
    'SELECT count(*)::int AS n, sum(octet_length(chunk))::bigint AS bytes, max(seq) AS last FROM import_uploads WHERE import_id = $1',
    [importId],
  );
  const r = rows[0];
  return { chunks: r.n, bytes: Number(r.bytes ?? 0), contiguous: r.n === 0 || r.last === r.n - 1 };
}
