// Contacts imports (README "Contacts import"): POST /v1/contacts/import and POST /v1/lists/:id/import
// take a CSV file, as the multipart field `file` or as a text/csv body, streamed into storage and
// answered 202 once it is stored and accepted; GET /v1/contacts/imports(/:id) show their progress.
// The uploads live in a context of their own whose content-type parsers hand the body over unread.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { findImport, listImports } from '../../../projections/imports.ts';
import { findList } from '../../../projections/lists.ts';
import { runCommand } from '../../command-handler.ts';
import type { Engage } from '../../context.ts';
import { notFound, unsupportedMediaType, validationError } from '../../errors.ts';
import type { EventMetadata } from '../../eventstore/port.ts';
import type { ImportStatus } from '../../../commands/import.ts';
import { isId } from '../../ids.ts';
import { acceptImport, acceptedView, ImportOptions, ImportOptionsShape, importOut, type StoreFile } from '../../imports/service.ts';
import { MAX_IMPORT_BYTES, payloadTooLarge, uploadProblem } from '../../imports/upload.ts';
import { toIssues } from '../../validation.ts';
import type { AppDeps } from '../deps.ts';
import { findUnstorable, found, metadataOf, pageById, pageQuery } from '../common.ts';
import { DateTime, Page } from '../openapi.ts';
import { type AnyRoute, defineRoute, registerRoutes } from '../route.ts';

const IdParams = z.object({ id: z.string().max(64) });
/** text/csv: the options as query parameters, and the name to show for the file */
const UploadQuery = z.strictObject({ ...ImportOptionsShape, file_name: z.string().trim().min(1).max(255).optional() });
const ImportListQuery = z.strictObject({ ...pageQuery });

/** An import as every answer shows it (importOut, acceptedView). */
const ImportOut = z
  .object({
    id: z.string(),
    status: z.enum(['queued', 'processing', 'completed', 'failed'] satisfies ImportStatus[]),
    list_id: z.string().nullable().describe('the list every imported contact joins (POST /v1/lists/{id}/import)'),
    file_name: z.string().nullable(),
    rows_total: z.int().describe('data rows in the file'),
    rows_imported: z.int().describe('contacts created'),
    rows_updated: z.int().describe('existing contacts updated'),
    rows_failed: z.int(),
    columns: z.array(z.object({ header: z.string(), field: z.string().describe('a standard field, custom_fields.<key>, or ignore') })).describe('how each column of the header was mapped'),
    errors: z
      .array(z.object({ row: z.int().describe('as a spreadsheet numbers it: the header is row 1'), column: z.string().nullable().describe('the header of the column at fault; null: the row as a whole'), message: z.string() }))
      .describe('the first 1,000 rows refused'),
    failure_reason: z.string().nullable().describe('why a failed import stopped'),
    created_at: DateTime,
    updated_at: DateTime,
    completed_at: DateTime.nullable(),
  })
  .meta({ id: 'Import', description: 'A CSV import of contacts: its status, counts, column mapping and row errors' });

/** Media types a CSV file is sent as (browsers on Windows send .csv files as application/vnd.ms-excel). */
const CSV_TYPES = new Set(['text/csv', 'application/csv', 'text/plain', 'application/vnd.ms-excel', 'application/octet-stream']);
/** room for the multipart boundaries and the option fields around a file of the largest size */
const MULTIPART_OVERHEAD = 1024 * 1024;
const OPTION_FIELDS = new Set(Object.keys(ImportOptionsShape));

/** The read models the 202 waits for (a GET right after it shows the import). */
const IMPORTS = ['imports'];

function invalid(path: string, message: string) {
  return validationError(`${path}: ${message}`, [{ path, message }]);
}

/** One option field as its schema reads it (a 400 naming it when it does not). */
function option(name: string, value: string): unknown {
  const schema = ImportOptionsShape[name as keyof typeof ImportOptionsShape];
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = toIssues(r.error, name);
  throw validationError(issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues);
}

/** Reads a multipart upload: option fields (before or after the file) and the one file, which goes to `store` as it streams. */
async function receiveMultipart(req: FastifyRequest, store: StoreFile, query: Record<string, unknown>): Promise<ImportOptions> {
  const given: Record<string, unknown> = {};
  const parts = req.parts({ limits: { fileSize: MAX_IMPORT_BYTES + 1, files: 1, fields: 8, fieldSize: 200_000, parts: 9 } })[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Awaited<ReturnType<typeof parts.next>>['value']>;
    try {
      next = await parts.next();
    } catch (err) {
      throw uploadProblem(err);
    }
    if (next.done) break;
    const part = next.value;
    if (part.type === 'file') {
      if (part.fieldname !== 'file') throw invalid(part.fieldname, 'unknown field (the file goes in the field "file")');
      // (a name Postgres cannot store loses those characters: it is only shown back)
      await store(part.file, part.filename?.replace(/\u0000/g, '') || null);
    } else {
      const name = part.fieldname;
      if (!OPTION_FIELDS.has(name)) throw invalid(name, 'unknown field');
      if (name in given || query[name] !== undefined) throw invalid(name, 'given twice');
      const value = String(part.value);
      if (findUnstorable(value) !== undefined) throw invalid(name, 'must not contain NUL characters or unpaired UTF-16 surrogates');
      given[name] = option(name, value);
    }
  }
  return { ...query, ...given } as ImportOptions;
}

/** Everything an upload is refused for before its body is read: the list, the media type, the declared size. */
async function checkUpload(engage: Engage, req: FastifyRequest, accountId: string, listId: string | null): Promise<'multipart' | 'csv'> {
  if (listId !== null && (!isId('list', listId) || !(await findList(engage.pool, accountId, listId)))) throw notFound('list');
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const kind = type === 'multipart/form-data' ? 'multipart' : CSV_TYPES.has(type) ? 'csv' : undefined;
  if (!kind) {
    throw unsupportedMediaType(type, 'the CSV as multipart/form-data (field "file") or as text/csv', 'must be multipart/form-data or text/csv');
  }
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > MAX_IMPORT_BYTES + (kind === 'multipart' ? MULTIPART_OVERHEAD : 0)) throw payloadTooLarge();
  return kind;
}

async function upload(engage: Engage, req: FastifyRequest, reply: FastifyReply, accountId: string, listId: string | null, query: z.infer<typeof UploadQuery>, metadata: EventMetadata) {
  const { file_name: fileName, ...options } = query;
  try {
    const kind = await checkUpload(engage, req, accountId, listId);
    const accepted = await runCommand(engage, metadata, IMPORTS, (meta) =>
      acceptImport(
        engage,
        accountId,
        listId,
        async (store) => {
          if (kind === 'multipart') return receiveMultipart(req, store, options);
          // the body as the parser handed it over (the request itself when fastify had none to parse)
          await store((req.body as Readable | undefined) ?? req.raw, fileName ?? null);
          return options;
        },
        meta,
      ),
    );
    reply.code(202);
    const row = await findImport(engage.pool, accountId, accepted.id);
    return row ? importOut(row) : acceptedView(accepted.state);
  } catch (err) {
    // refused before the body was read to its end: close the connection after answering rather
    // than read the rest of what may be 100 MiB
    if (!req.raw.readableEnded) reply.header('connection', 'close');
    throw err;
  }
}

const UPLOAD_DOC = z.object({ mapping: z.string().optional(), default_country: z.string().optional(), tags: z.string().optional() });

function uploadRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/contacts/import',
      auth: 'key_or_login',
      operationId: 'importContacts',
      summary: 'Import contacts from a CSV file (multipart field "file", or a text/csv body with the options as query parameters); 202 once stored',
      tags: ['contacts'],
      query: UploadQuery,
      docBody: UPLOAD_DOC,
      streamsBody: true,
      responses: { 202: ImportOut.describe('the import, queued') },
      async handler({ query, auth, req, reply }) {
        return upload(engage, req, reply, auth.accountId, null, query, metadataOf(req));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/lists/:id/import',
      auth: 'key_or_login',
      operationId: 'importListContacts',
      summary: 'Import contacts from a CSV file into this list (every imported or updated contact becomes a member); 202 once stored',
      tags: ['lists'],
      params: IdParams,
      query: UploadQuery,
      docBody: UPLOAD_DOC,
      streamsBody: true,
      responses: { 202: ImportOut.describe('the import, queued') },
      async handler({ params, query, auth, req, reply }) {
        return upload(engage, req, reply, auth.accountId, params.id, query, metadataOf(req));
      },
    }),
  ];
}

/**
 * The upload routes in a context of their own: the multipart plugin, and every other body handed
 * to the handler unread (it checks the media type itself), so nothing buffers a file.
 */
export function importUploadRoutes(deps: AppDeps, registry: AnyRoute[]): FastifyPluginAsync {
  return async (child: FastifyInstance) => {
    child.removeAllContentTypeParsers();
    await child.register(multipart);
    child.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    registerRoutes(child, uploadRoutes(deps), registry);
  };
}

export function importRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/contacts/imports',
      auth: 'key_or_login',
      operationId: 'listImports',
      summary: "The account's contacts imports, newest first",
      tags: ['contacts'],
      query: ImportListQuery,
      responses: { 200: Page(ImportOut) },
      async handler({ query, auth }) {
        return pageById(query, (range) => listImports(engage.pool, auth.accountId, range), importOut);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/contacts/imports/:id',
      auth: 'key_or_login',
      operationId: 'getImport',
      summary: 'One import: status, live counts, how each column was mapped, and the first 1,000 row errors',
      tags: ['contacts'],
      params: IdParams,
      responses: { 200: ImportOut },
      async handler({ params, auth }) {
        return importOut(found(await findImport(engage.pool, auth.accountId, params.id), 'import'));
      },
    }),
  ];
}
