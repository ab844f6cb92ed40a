// The log's archive (README "The log at scale"): closed partitions of es_events written to
// gzip'd JSON lines files in a directory or an S3-compatible bucket (archive-storage.ts), one per
// partition, in log order, with a manifest
// (`manifest.json`: each file's range, count and SHA-256), then detached and dropped. Reading from
// a position inside the archive (a rebuild, a replay, a stream's early events) reads the files:
// slower, but complete. The events are written as the log holds them: personal data stays sealed,
// so destroying a subject's key erases it in the archive as everywhere else.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip, createGzip, type Gunzip } from 'node:zlib';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { withTransaction } from '../db/pool.ts';
import type { ArchivePlace, ArchiveStorage } from './archive-storage.ts';
import { comparePositions, parsePosition, type Position } from './port.ts';

/** The manifest's format name: a reader of another refuses it. */
export const ARCHIVE_FORMAT = 'engage-log-archive/1';

/** One archived partition, as es_partitions and the manifest keep it. */
export interface ArchivedPartition {
  name: string;
  /** the file's location: an absolute path, or s3://bucket/key */
  file: string;
  from_position: string;
  to_position: string;
  events: number;
  /** the first and last event in log order (transaction, position), as "commit/prepare" */
  first: string | null;
  last: string | null;
  /** its events of each type (partitions archived before they were counted: null) */
  types: Record<string, number> | null;
  sha256: string;
  bytes: number;
  archived_at: string;
}

/** An event as a line of an archive file: the log's row, every number as text. */
export interface ArchiveLine {
  gp: string;
  txid: string;
  stream_id: string;
  rev: string;
  event_id: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  created_at: string;
}

export const lineIsAfter = (line: Pick<ArchiveLine, 'txid' | 'gp'>, after: Position) => comparePositions({ commit: BigInt(line.txid), prepare: BigInt(line.gp) }, after) > 0;

/** Every archived partition, in log order (by the position, not by its text: the column's name is the output's too). */
export async function archivedPartitions(db: Pick<pg.Pool, 'query'>): Promise<ArchivedPartition[]> {
  const { rows } = await db.query<ArchivedPartition & { archived_at: Date; events: string; bytes: string }>(
    `SELECT name, archive_file AS file, from_position::text, to_position::text, events, first_event AS first, last_event AS last, type_counts AS types, sha256, bytes, archived_at
       FROM es_partitions p WHERE archived_at IS NOT NULL ORDER BY p.from_position`,
  );
  return rows.map((r) => ({ ...r, events: Number(r.events), bytes: Number(r.bytes), archived_at: r.archived_at.toISOString() }));
}

/**
 * Text lines of a byte stream: decoded as UTF-8 across chunks (a character may be split between
 * two), each chunk's whole lines passed on as one array, and a last line without its newline at
 * the end. The archive's writer reads COPY's output with it, its readers the files' text.
 */
function lineSplitter(): Transform {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _enc, done) {
      const parts = (pending + decoder.write(chunk)).split('\n');
      pending = parts.pop()!;
      done(null, parts.length > 0 ? parts : undefined);
    },
    flush(done) {
      const rest = pending + decoder.end();
      done(null, rest ? [rest] : undefined);
    },
  });
}

/**
 * The text lines of a file's gzip'd bytes. An error of the bytes or of their decompression ends the
 * lines with it; the listeners stay for the pipe's whole life (a changed file can fail twice).
 */
function gunzippedLines(source: Readable): { gunzip: Gunzip; lines: Transform } {
  const gunzip = createGunzip();
  const lines = lineSplitter();
  source.on('error', (err) => lines.destroy(err));
  gunzip.on('error', (err) => lines.destroy(err));
  source.pipe(gunzip).pipe(lines);
  return { gunzip, lines };
}

/** A file's events from its text lines (an empty line is none). */
async function* eventsOf(lines: AsyncIterable<string[]>): AsyncGenerator<ArchiveLine> {
  for await (const batch of lines) for (const line of batch) if (line) yield JSON.parse(line) as ArchiveLine;
}

/**
 * The archive's lines of one file (by its location), in log order. A read left suspended (an open
 * cursor) holds its error, if any, until it is resumed; ended early (`return`), it closes the file.
 */
export async function* linesOf(storage: ArchiveStorage, location: string): AsyncGenerator<ArchiveLine> {
  const source = await storage.open(location);
  const { gunzip, lines } = gunzippedLines(source);
  try {
    yield* eventsOf(lines);
  } finally {
    source.destroy();
    gunzip.destroy();
    lines.destroy();
  }
}

export interface ArchiveOptions {
  /** archive partitions whose every position is below this one, or whose every event was appended before this time */
  before: bigint | Date;
  /** a directory, or s3://bucket/prefix */
  to: string;
  storage: ArchiveStorage;
  /** how long the detach waits for its lock before it gives up on this partition (ms) */
  lockTimeoutMs?: number;
}

export interface ArchiveOutcome {
  archived: ArchivedPartition[];
  /** the first partition not archived, and why */
  stoppedAt?: { name: string; reason: string };
}

/** COPY's text format escapes a backslash as two; a JSON document holds no other character COPY escapes. */
const unescapeCopy = (line: string) => line.replace(/\\\\/g, '\\');

/**
 * Archives the log's oldest partitions, one by one in log order, while each is closed: all its
 * positions given, older than `before`, every transaction that wrote it ended (readers read past it),
 * and none of the events after it earlier in log order. Each is written to its file (synced), then
 * detached and dropped in one short transaction with its row in es_partitions; the manifest is
 * written from es_partitions after each.
 */
export async function archiveLog(pool: pg.Pool, options: ArchiveOptions): Promise<ArchiveOutcome> {
  const place = options.storage.place(options.to);
  const archived: ArchivedPartition[] = [];
  const { rows: live } = await pool.query<{ name: string; f: string; t: string }>(
    `SELECT name, from_position::text AS f, to_position::text AS t FROM es_partitions WHERE archived_at IS NULL ORDER BY from_position`,
  );
  for (const p of live) {
    const why = await whyNotClosed(pool, p, options.before);
    if (why) return { archived, stoppedAt: { name: p.name, reason: why } };
    const written = await writePartition(pool, p.name, place);
    try {
      await withTransaction(pool, async (client) => {
        await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(options.lockTimeoutMs ?? 5_000))}`);
        await client.query(`ALTER TABLE es_events DETACH PARTITION ${p.name}`);
        await client.query(`DROP TABLE ${p.name}`);
        await client.query(
          `UPDATE es_partitions SET archived_at = now(), archive_file = $2, events = $3, first_event = $4, last_event = $5, sha256 = $6, bytes = $7, type_counts = $8 WHERE name = $1`,
          [p.name, written.file, written.events, written.first, written.last, written.sha256, written.bytes, JSON.stringify(written.types)],
        );
      });
    } catch (err) {
      // still in the table: the file is not the archive's
      await place.remove(fileName(written.file));
      throw err;
    }
    await writeManifest(pool, place);
    archived.push((await archivedPartitions(pool)).find((a) => a.name === p.name)!);
  }
  return { archived };
}

/** Undefined when the partition may be archived; else the reason it may not (yet). */
async function whyNotClosed(pool: pg.Pool, p: { name: string; f: string; t: string }, before: bigint | Date): Promise<string | undefined> {
  const { rows } = await pool.query<{ next: string; newest: Date | null; max_txid: string | null; xmin: string; after_min: string | null }>(
    `SELECT (SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM es_events_global_position)::text AS next,
            (SELECT max(created_at) FROM ${p.name}) AS newest,
            (SELECT max(transaction_id) FROM ${p.name})::text AS max_txid,
            pg_snapshot_xmin(pg_current_snapshot())::text AS xmin,
            (SELECT min(transaction_id) FROM es_events WHERE global_position >= $1::bigint)::text AS after_min`,
    [p.t],
  );
  const r = rows[0];
  if (BigInt(r.next) < BigInt(p.t)) return 'it is still being filled';
  if (typeof before === 'bigint' ? BigInt(p.t) > before + 1n : r.newest !== null && r.newest >= before) return 'it holds events at or after --before';
  if (r.max_txid !== null && BigInt(r.max_txid) >= BigInt(r.xmin)) return 'a transaction that wrote it may still be open';
  if (r.max_txid !== null && r.after_min !== null && BigInt(r.after_min) < BigInt(r.max_txid)) return 'later events come before its last in log order';
  return undefined;
}

/** A file's name in its place (the last part of its location). */
const fileName = (location: string) => path.posix.basename(location);

/** Writes a partition's events, in log order, to `<name>.jsonl.gz` of the place (whole or not at all). */
async function writePartition(pool: pg.Pool, name: string, place: ArchivePlace): Promise<Omit<ArchivedPartition, 'name' | 'from_position' | 'to_position' | 'archived_at'>> {
  const file = `${name}.jsonl.gz`;
  const hash = createHash('sha256');
  let bytes = 0;
  let events = 0;
  let first: string | null = null;
  let last: string | null = null;
  const types: Record<string, number> = {};
  const sink = await place.create(file);
  const client = await pool.connect();
  try {
    const copy = client.query(
      copyTo(`COPY (SELECT json_build_object('gp', global_position::text, 'txid', transaction_id::text, 'stream_id', stream_id, 'rev', stream_revision::text,
                  'event_id', event_id, 'type', type, 'data', data, 'metadata', metadata, 'created_at', created_at)
                FROM ${name} ORDER BY transaction_id, global_position) TO STDOUT`),
    );
    const lines = new Transform({
      writableObjectMode: true,
      transform(batch: string[], _enc, done) {
        let outText = '';
        for (const raw of batch) {
          const line = unescapeCopy(raw);
          const row = JSON.parse(line) as ArchiveLine;
          const at = `${row.txid}/${row.gp}`;
          first ??= at;
          last = at;
          events++;
          types[row.type] = (types[row.type] ?? 0) + 1;
          outText += line + '\n';
        }
        done(null, outText);
      },
    });
    const counted = new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    await pipeline(copy, lineSplitter(), lines, createGzip({ level: 6 }), counted, sink.stream);
    await sink.finish(bytes);
  } catch (err) {
    await sink.abort();
    throw err;
  } finally {
    client.release();
  }
  return { file: place.locationOf(file), events, first, last, types, sha256: hash.digest('hex'), bytes };
}

/** manifest.json of the place, from es_partitions: every partition archived there. */
async function writeManifest(pool: pg.Pool, place: ArchivePlace): Promise<void> {
  const partitions = (await archivedPartitions(pool))
    .filter((a) => place.locationOf(fileName(a.file)) === a.file)
    .map((a) => ({ ...a, file: fileName(a.file) }));
  const body = JSON.stringify({ format: ARCHIVE_FORMAT, written_at: new Date().toISOString(), partitions }, null, 2);
  await place.writeText('manifest.json', `${body}\n`);
}

export interface VerifiedFile {
  name: string;
  file: string;
  ok: boolean;
  problems: string[];
}

/** Checks every file of the manifest in `target` (a directory or s3://bucket/prefix): present, its SHA-256 and size, its events counted, in log order and inside its range. */
export async function verifyArchive(storage: ArchiveStorage, target: string): Promise<VerifiedFile[]> {
  const place = storage.place(target);
  const text = await place.readText('manifest.json');
  if (text === undefined) throw new Error(`${place.name} holds no manifest.json`);
  const manifest = JSON.parse(text) as { format: string; partitions: ArchivedPartition[] };
  if (manifest.format !== ARCHIVE_FORMAT) throw new Error(`${place.name}/manifest.json is not a log archive of format ${ARCHIVE_FORMAT}`);
  const results: VerifiedFile[] = [];
  for (const p of manifest.partitions) {
    const file = place.locationOf(p.file);
    const problems: string[] = [];
    const size = await place.size(p.file);
    if (size === undefined) {
      results.push({ name: p.name, file, ok: false, problems: ['the file is missing'] });
      continue;
    }
    if (size !== p.bytes) problems.push(`${size} bytes, the manifest says ${p.bytes}`);
    problems.push(...(await checkFile(storage, file, p)));
    results.push({ name: p.name, file, ok: problems.length === 0, problems });
  }
  return results;
}

const sameCounts = (a: Record<string, number>, b: Record<string, number>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, n]) => b[k] === n);

/**
 * What is wrong with one archived file against its manifest entry, read once: its bytes hashed as
 * they come from the storage (a bucket's file is downloaded once), its events parsed from the same
 * bytes, in log order and inside the partition's range. After 20 problems, or where the text stops
 * making sense, the rest is only hashed.
 */
async function checkFile(storage: ArchiveStorage, location: string, p: ArchivedPartition): Promise<string[]> {
  const source = await storage.open(location);
  const hash = createHash('sha256');
  const read = new Promise<void>((resolve, reject) => {
    source.on('data', (chunk: Buffer) => hash.update(chunk));
    source.once('end', resolve);
    source.once('error', reject);
  });
  read.catch(() => undefined); // awaited below, once the events have been read
  const { gunzip, lines } = gunzippedLines(source);
  const found: string[] = [];
  let events = 0;
  const types: Record<string, number> = {};
  let previous: Position | undefined;
  let unreadable: string | undefined;
  try {
    for await (const line of eventsOf(lines)) {
      events++;
      types[line.type] = (types[line.type] ?? 0) + 1;
      const at = { commit: BigInt(line.txid), prepare: BigInt(line.gp) };
      if (previous && comparePositions(at, previous) <= 0) found.push(`event ${line.gp} is out of log order`);
      if (BigInt(line.gp) < BigInt(p.from_position) || BigInt(line.gp) >= BigInt(p.to_position)) found.push(`event ${line.gp} lies outside the partition's range`);
      previous = at;
      if (found.length > 20) break;
    }
  } catch (err) {
    unreadable = (err as Error).message;
  }
  // the rest of the bytes, hashed without being read as events
  source.unpipe(gunzip);
  gunzip.destroy();
  source.resume();
  try {
    await read;
  } catch (err) {
    return [`unreadable: ${(err as Error).message}`];
  }
  const problems: string[] = [];
  if (hash.digest('hex') !== p.sha256) problems.push("its SHA-256 is not the manifest's");
  problems.push(...found);
  if (unreadable !== undefined) problems.push(`unreadable: ${unreadable}`);
  if (events !== p.events) problems.push(`${events} events, the manifest says ${p.events}`);
  else if (p.types && unreadable === undefined && found.length <= 20 && !sameCounts(types, p.types)) problems.push("its events' types are not counted as the manifest counts them");
  if (p.last && previous && comparePositions(previous, parsePosition(p.last)) !== 0) problems.push("its last event is not the manifest's");
  return problems;
}

/** The archive's columns of es_partitions (src/eventstore/postgres.ts lists them with the store's). */
export const ARCHIVE_COLUMNS = `
ALTER TABLE es_partitions
  ADD COLUMN IF NOT EXISTS archived_at timestamptz,
  ADD COLUMN IF NOT EXISTS archive_file text,
  ADD COLUMN IF NOT EXISTS events bigint,
  ADD COLUMN IF NOT EXISTS first_event text,
  ADD COLUMN IF NOT EXISTS last_event text,
  ADD COLUMN IF NOT EXISTS sha256 text,
  ADD COLUMN IF NOT EXISTS bytes bigint;`;

/** Each archived partition's events counted by type (a lag counted through the archive: archivedLag). */
export const ARCHIVE_TYPE_COUNTS = `ALTER TABLE es_partitions ADD COLUMN IF NOT EXISTS type_counts jsonb;`;

/**
 * The events of `types` (every type: undefined) after `after` that lie in the archive, counted from
 * each archived partition's counts: whole for the partitions after the one `after` falls in; of
 * that one, the share of its positions after `after` (its types' counts do not say where in it
 * they lie). A partition archived before its types were counted counts all its events.
 */
export function archivedLag(parts: readonly ArchivedPartition[], after: Position, types: readonly string[] | undefined): number {
  let n = 0;
  for (const p of parts) {
    if (p.events === 0 || p.last === null || comparePositions(parsePosition(p.last), after) <= 0) continue;
    const ofTypes = types && p.types ? types.reduce((sum, t) => sum + (p.types![t] ?? 0), 0) : p.events;
    const first = parsePosition(p.first!);
    if (comparePositions(first, after) > 0) n += ofTypes;
    else {
      const from = BigInt(p.from_position);
      const span = Number(BigInt(p.to_position) - from);
      n += Math.round((ofTypes * Math.max(0, Number(BigInt(p.to_position) - 1n - after.prepare))) / Math.max(1, span));
    }
  }
  return n;
}

