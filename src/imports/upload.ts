// Storing an uploaded CSV file as it streams in: never whole in memory. Each piece is checked as
// UTF-8, run through the CSV parser (csv-parse) to count the data rows and read the header, and
// written to import_uploads in ~1 MiB chunks. The limits are checked on the way: over 100 MiB is a
// 413 and over 1,000,000 data rows a 400, at once, before anything is imported; a header line over
// 64 KiB or of more than 500 columns is a 400 before anything is stored (the columns are kept with
// the import and shown by every listing of imports: README "Contacts import"). The delimiter
// (`,`, `;` or tab) is the one the header line uses most; a BOM is skipped; quoted fields may hold
// delimiters, doubled quotes and line breaks; records end in LF, CRLF or CR.
import { once } from 'node:events';
import { type Parser, parse } from 'csv-parse';
import type pg from 'pg';
import { AppError, validationError } from '../errors.ts';
import { isBlank } from './rows.ts';
import { writeChunk } from './uploads.ts';

export const MAX_IMPORT_BYTES = 100 * 1024 * 1024;
/** README "Contacts import": CSV import up to 1,000,000 rows per file */
export const MAX_IMPORT_ROWS = 1_000_000;
const CHUNK_BYTES = 1024 * 1024;
/** the longest header line (the first record, line breaks in quotes included) a file may have */
export const MAX_HEADER_BYTES = 64 * 1024;
/** the most columns a file may have */
export const MAX_IMPORT_COLUMNS = 500;
/** a record (one row) larger than this makes the file unreadable: a quote never closed, most likely */
const MAX_RECORD_BYTES = 1024 * 1024;
const DELIMITERS = [',', ';', '\t'] as const;

export interface StoredUpload {
  bytes: number;
  /** data rows: records after the header that are not blank */
  rowsTotal: number;
  header: string[];
  delimiter: string;
}

export const payloadTooLarge = () => new AppError(413, 'payload_too_large', `the file is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MiB, the limit for a CSV import`);
const fileProblem = (message: string) => validationError(`file: ${message}`, [{ path: 'file', message }]);

/**
 * The delimiter of a file from its first line (outside quotes): the one of `,`, `;` and tab it uses
 * most; `,` when it uses none (a file of one column).
 */
export function detectDelimiter(start: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const c of start) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && counts.has(c)) counts.set(c, counts.get(c)! + 1);
  }
  let best: string = ',';
  for (const d of DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
  return best;
}

/** The first line of `start` (up to a line break outside quotes), or undefined while it has none. */
function firstLine(start: string): string {
  let quoted = false;
  for (let i = 0; i < start.length; i++) {
    const c = start[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) return start.slice(0, i);
  }
  return start;
}

/** True when `start` holds a whole first line (a line break outside quotes). */
function hasFirstLine(start: string): boolean {
  return firstLine(start).length < start.length;
}

const headerTooLong = () => fileProblem(`has a header line longer than ${MAX_HEADER_BYTES / 1024} KiB, the limit for one import`);

/** The CSV parser every reading of an import's file uses (the upload and the worker read it alike). */
export function csvParser(delimiter: string): Parser {
  return parse({ bom: true, delimiter, relax_quotes: true, relax_column_count: true, skip_empty_lines: false, max_record_size: MAX_RECORD_BYTES });
}

/** A parser error as the 400 it is (its message names the line, never the content). */
export function unreadable(err: unknown): AppError {
  const message = err instanceof Error ? err.message : String(err);
  return fileProblem(`is not readable as CSV: ${message}`);
}

/**
 * Stores `source` as the file of import `upload.importId`, in chunks, and returns what the import
 * needs to know of it. Throws the 400 or 413 that ends the upload; chunks already written are then
 * the caller's to delete.
 */
export async function storeUpload(
  db: Pick<pg.Pool, 'query'>,
  upload: { importId: string; accountId: string },
  source: AsyncIterable<Buffer | string>,
  limits: { bytes: number; rows: number } = { bytes: MAX_IMPORT_BYTES, rows: MAX_IMPORT_ROWS },
): Promise<StoredUpload> {
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let bytes = 0;
  let seq = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let sniffed = '';
  let parser: Parser | undefined;
  let delimiter = ',';
  let header: string[] | undefined;
  let rowsTotal = 0;
  let failure: AppError | undefined;

  const start = (text: string) => {
    delimiter = detectDelimiter(text.replace(/^\ufeff/, ''));
    parser = csvParser(delimiter);
    parser.on('data', (record: string[]) => {
      if (!header) {
        header = record.map((h) => h.trim());
        if (header.length > MAX_IMPORT_COLUMNS) failure ??= fileProblem(`has more than ${MAX_IMPORT_COLUMNS} columns in its header row, the limit for one import`);
      } else if (!isBlank(record) && ++rowsTotal > limits.rows) {
        failure ??= fileProblem(`has more than ${limits.rows.toLocaleString('en-US')} data rows, the limit for one import`);
      }
    });
    parser.on('error', (err) => {
      failure ??= unreadable(err);
    });
  };
  const feed = async (buf: Buffer) => {
    // (once rejects on the parser's error, which its listener has kept as the failure)
    if (!parser!.write(buf)) await once(parser!, 'drain').catch(() => undefined);
  };
  // one chunk is written while the next is read and parsed
  let writing: Promise<void> | undefined;
  const flush = async () => {
    if (writing) await writing;
    if (pendingBytes === 0) return;
    writing = writeChunk(db, upload, seq++, pending.length === 1 ? pending[0] : Buffer.concat(pending));
    writing.catch(() => undefined);
    pending = [];
    pendingBytes = 0;
  };

  const pieces = source[Symbol.asyncIterator]();
  /** the next piece of the upload; a failure to read it is the upload's (cut short, malformed), never ours */
  const nextPiece = async () => {
    try {
      return await pieces.next();
    } catch (err) {
      throw uploadProblem(err);
    }
  };
  try {
    for (let next = await nextPiece(); !next.done; next = await nextPiece()) {
      const piece = next.value;
      const buf = typeof piece === 'string' ? Buffer.from(piece) : piece;
      bytes += buf.length;
      if (bytes > limits.bytes) throw payloadTooLarge();
      let text: string;
      try {
        text = utf8.decode(buf, { stream: true });
      } catch {
        throw fileProblem('is not UTF-8 text (save it as “CSV UTF-8”)');
      }
      pending.push(buf);
      pendingBytes += buf.length;
      if (!parser) {
        // the header line decides the delimiter: wait for it, within its limit
        sniffed += text;
        if (!hasFirstLine(sniffed)) {
          if (bytes > MAX_HEADER_BYTES) throw headerTooLong();
          continue;
        }
        if (Buffer.byteLength(firstLine(sniffed)) > MAX_HEADER_BYTES) throw headerTooLong();
        start(sniffed);
        await feed(Buffer.concat(pending));
      } else await feed(buf);
      if (failure) throw failure;
      if (pendingBytes >= CHUNK_BYTES) await flush();
    }
    try {
      utf8.decode();
    } catch {
      throw fileProblem('is not UTF-8 text (it ends inside a character)');
    }
    if (bytes === 0) throw fileProblem('is empty');
    if (!parser) {
      // a file of one line: the header alone
      if (Buffer.byteLength(firstLine(sniffed)) > MAX_HEADER_BYTES) throw headerTooLong();
      start(sniffed);
      await feed(Buffer.concat(pending));
    }
    const ended = once(parser!, 'end').catch(() => undefined);
    parser!.end();
    await ended;
    if (failure) throw failure;
    if (!header || isBlank(header)) throw fileProblem('has no header row (its first line must name the columns)');
    if (header.some((h) => h.includes('\u0000'))) throw fileProblem('has a NUL character in its header row');
    await flush();
    await writing;
    return { bytes, rowsTotal, header, delimiter };
  } catch (err) {
    parser?.destroy();
    // (the caller deletes what was written: let the last write land first)
    await writing?.catch(() => undefined);
    // (the source is left as it is: destroying a request's stream would destroy its socket, and the
    // 4xx with it; the route closes the connection after answering instead)
    throw err;
  }
}

/** What reading the upload itself failed on, as the 4xx it is. */
export function uploadProblem(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const { code, statusCode, message } = err as { code?: string; statusCode?: number; message?: string };
  if (statusCode === 413 || code === 'FST_REQ_FILE_TOO_LARGE') return payloadTooLarge();
  // a client that went away mid-upload: nobody to answer, but never a 500 in the logs
  if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || message === 'aborted') return fileProblem('the upload was cut short');
  return validationError(`the upload could not be read: ${message ?? String(err)}`, [{ path: '(body)', message: message ?? 'malformed' }]);
}
