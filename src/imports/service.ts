// Accepting a contacts import: the file is stored as it streams in (src/imports/upload.ts), its
// header mapped (src/imports/columns.ts), and ImportAccepted appended; from then on the import
// worker (src/workers/imports.ts) owns it. An import as the API shows it, from the read model or,
// while that is behind, from the import's stream.
import { z } from 'zod';
import { type ImportColumn, type ImportRowError, type ImportState, importDecider, importStream } from '../../commands/import.ts';
import { accountSettings } from '../../projections/auth.ts';
import type { ImportRow } from '../../projections/imports.ts';
import { loadDefinitions } from '../contacts/service.ts';
import { CountrySchema } from '../contacts/validation.ts';
import type { Engage } from '../context.ts';
import { handleCommand } from '../command-handler.ts';
import { validationError } from '../errors.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { newId } from '../ids.ts';
import { planColumns } from './columns.ts';
import { splitTags } from './rows.ts';
import { MAX_IMPORT_COLUMNS, type StoredUpload, storeUpload } from './upload.ts';
import { deleteUpload } from './uploads.ts';

/** The options of an import, as query parameters (text/csv body) or multipart fields. */
export const ImportOptionsShape = {
  /** JSON object: CSV header → `email` | … | `custom_fields.<key>` | `ignore` */
  mapping: z
    .string()
    .max(100_000)
    .transform((text, ctx) => {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object of CSV header → field' });
        return z.NEVER;
      }
      const parsed = z.record(z.string().min(1).max(500), z.string()).safeParse(value);
      if (!parsed.success || Array.isArray(value)) {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object of CSV header → field (a string each)' });
        return z.NEVER;
      }
      return parsed.data;
    })
    .optional(),
  /** the country of phone numbers written without a + (ISO 3166-1 alpha-2); else the account's */
  default_country: CountrySchema.optional(),
  /** comma-separated tags added to every imported contact */
  tags: z
    .string()
    .max(10_000)
    .transform((text, ctx) => {
      const tags = [...new Set(splitTags(text))];
      if (tags.some((t) => t.length > 100) || tags.length > 100) {
        ctx.addIssue({ code: 'custom', message: 'at most 100 tags, of at most 100 characters each' });
        return z.NEVER;
      }
      return tags;
    })
    .optional(),
};

export const ImportOptions = z.strictObject(ImportOptionsShape);
export type ImportOptions = z.infer<typeof ImportOptions>;

/** An import as the API shows it. */
export interface ImportView {
  id: string;
  status: ImportState['status'];
  list_id: string | null;
  file_name: string | null;
  rows_total: number;
  rows_imported: number;
  rows_updated: number;
  rows_failed: number;
  columns: ImportColumn[];
  errors: ImportRowError[];
  failure_reason: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

/** The longest header name a view shows; past it, cut with an ellipsis. */
const MAX_SHOWN_HEADER = 1024;
const shownHeader = (h: string) => (h.length > MAX_SHOWN_HEADER ? `${h.slice(0, MAX_SHOWN_HEADER - 1)}…` : h);

export function importOut(r: ImportRow): ImportView {
  return {
    id: r.id,
    status: r.status,
    list_id: r.list_id,
    file_name: r.file_name,
    rows_total: r.rows_total,
    rows_imported: r.rows_imported,
    rows_updated: r.rows_updated,
    rows_failed: r.rows_failed,
    // (jsonb keeps keys in its own order: put them back in the documented one; an import accepted
    // before the header limits is shown within them, so no listing carries an unbounded header)
    columns: r.columns.slice(0, MAX_IMPORT_COLUMNS).map((c) => ({ header: shownHeader(c.header), field: c.field })),
    errors: r.errors.map((e) => ({ row: e.row, column: e.column, message: e.message })),
    failure_reason: r.failure_reason,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
    completed_at: r.completed_at?.toISOString() ?? null,
  };
}

/** The view of a just-accepted import from its stream's state (when the read model is late). */
export function acceptedView(s: ImportState): ImportView {
  const d = s.accepted!;
  return {
    id: d.id,
    status: 'queued',
    list_id: d.list_id,
    file_name: d.file_name,
    rows_total: d.rows_total,
    rows_imported: 0,
    rows_updated: 0,
    rows_failed: 0,
    columns: d.columns,
    errors: [],
    failure_reason: null,
    created_at: d.created_at,
    updated_at: d.created_at,
    completed_at: null,
  };
}

/** Stores the one file of an upload: its bytes, and the name the client gave it. */
export type StoreFile = (file: AsyncIterable<Buffer | string>, fileName: string | null) => Promise<void>;

/**
 * Accepts an import. `receive` reads the request: it hands the file to the `store` it is given (once)
 * and returns the options; the file is stored as it streams. Once the header is mapped and
 * ImportAccepted appended, the import is durable and the worker will run it. On any failure the
 * stored chunks are deleted and nothing is accepted.
 */
export async function acceptImport(
  engage: Engage,
  accountId: string,
  listId: string | null,
  receive: (store: StoreFile) => Promise<ImportOptions>,
  metadata: EventMetadata,
): Promise<{ id: string; state: ImportState; position?: Position }> {
  const id = newId('import');
  let stored: StoredUpload | undefined;
  let fileName: string | null = null;
  try {
    const options = await receive(async (file, name) => {
      if (stored) throw validationError('only one file may be sent', [{ path: 'file', message: 'only one file may be sent' }]);
      fileName = name?.slice(0, 255) || null;
      stored = await storeUpload(engage.pool, { importId: id, accountId }, file);
    });
    if (!stored) throw validationError('no file: send it as the multipart field "file", or as a text/csv body', [{ path: 'file', message: 'required' }]);
    const upload: StoredUpload = stored;
    const definitions = await loadDefinitions(engage, accountId);
    const columns = planColumns(upload.header, definitions, options.mapping ?? null);
    // decided now and kept in ImportAccepted: a later change of the account's setting does not
    // change an import already accepted, and a resumed one reads its rows as the first run did
    const defaultCountry = options.default_country ?? (await accountSettings(engage.pool, accountId)).default_country;
    const result = await handleCommand(
      engage.store,
      importDecider,
      importStream(id),
      {
        type: 'AcceptImport',
        data: {
          account_id: accountId, id, list_id: listId, file_name: fileName, rows_total: upload.rowsTotal, bytes: upload.bytes, mapping: options.mapping ?? null,
          default_country: defaultCountry, tags: options.tags ?? [], columns, delimiter: upload.delimiter,
        },
        now: engage.clock.now(),
      },
      metadata,
    );
    return { id, state: result.state, position: result.position };
  } catch (err) {
    await deleteUpload(engage.pool, id).catch((e: unknown) => engage.log.warn({ err: e, importId: id }, 'could not delete a refused upload; the import worker sweeps it later'));
    throw err;
  }
}
