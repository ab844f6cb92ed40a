// One run of an import: from where its stream says it got to (rows_through) to its end. The stored
// file is read back chunk by chunk through the same CSV parser as at upload; rows already applied
// are skipped; the rest go in batches (src/imports/batch.ts), the next batch read and checked while
// the one before is being written. A run that stops (shutdown) or dies (crash) is resumed by a later
// run exactly where the last applied batch ended: a batch is written whole or not at all.
import { currentState } from '../eventstore/snapshots.ts';
import { pipeline, Readable } from 'node:stream';
import { type ImportEvent, type ImportState, importDecider, importStream } from '../../commands/import.ts';
import { type ListEvent, type ListState, listDecider, listStream } from '../../commands/list.ts';
import { loadDefinitions } from '../contacts/service.ts';
import type { Engage } from '../context.ts';
import { type Decider, fold, type StoredEventLike } from '../decider.ts';
import { type EventMetadata, WrongExpectedVersionError } from '../eventstore/port.ts';
import { doublingDelay, sleep } from '../sleep.ts';
import { type AppliedBatch, type Batch, type BatchRow, BatchRetry, type Folded, ImportMoved, type ImportRun, ListGone, SeenValues, applyBatch } from './batch.ts';
import { targetsOf } from './columns.ts';
import { csvParser } from './upload.ts';
import { isBlank, readRow, type RowReader } from './rows.ts';
import { deleteUpload, readChunks, uploadSize } from './uploads.ts';

/**
 * Rows read per CPU work task: ~15 ms of phone parsing and checking each, so a batch's slices spread
 * over the threads and none comes near the task time limit.
 */
const READ_SLICE = 500;

/** A data record of the file waiting to be read: its row number (header = 1) and its cells. */
interface RecordAt {
  row: number;
  record: string[];
}

/**
 * The batch's records read as rows (readRow: the values, or the row's problems), on the CPU work
 * threads (README "Contacts import"): the per-row cost of an import (phone numbers above all) is then
 * off the event loop, and a batch is read while the one before it is being written. A slice the
 * threads cannot take (the service stopping, a full queue, a thread lost or past its time limit) is
 * read here instead: the same function, the same rows.
 */
async function readRows(engage: Engage, records: readonly RecordAt[], reader: RowReader): Promise<BatchRow[]> {
  const here = (slice: readonly RecordAt[]) => slice.map((r) => readRow(r.record, reader));
  const slices: RecordAt[][] = [];
  for (let i = 0; i < records.length; i += READ_SLICE) slices.push(records.slice(i, i + READ_SLICE));
  const read = await Promise.all(
    slices.map((slice) =>
      slice.length < 50 ? here(slice) : engage.cpu.run('importRows', { records: slice.map((r) => r.record), reader }, { priority: 'background' }).catch(() => here(slice)),
    ),
  );
  const rows: BatchRow[] = [];
  slices.forEach((slice, s) => slice.forEach((r, i) => rows.push({ row: r.row, read: read[s][i] })));
  return rows;
}

/** How long a batch that keeps meeting conflicting writes is retried before the run gives up (for now). */
const RETRY_FOR_MS = 120_000;

export type RunOutcome = 'completed' | 'failed' | 'stopped' | 'moved' | 'missing';

export interface RunOptions {
  /** data rows per batch */
  batchRows: number;
  /** aborts between batches (the batch being written is finished first) */
  signal: AbortSignal;
}

async function folded<S, E extends StoredEventLike>(engage: Engage, streamId: string, decider: Pick<Decider<unknown, S, E>, 'initialState' | 'evolve'>): Promise<Folded<S> & { metadata?: EventMetadata }> {
  const recorded = await engage.store.readStream(streamId);
  const state = fold(decider, recorded.map((r) => ({ type: r.type, data: r.data }) as never));
  return { state, revision: recorded.length ? recorded[recorded.length - 1].revision : 'no_stream', metadata: recorded[0]?.metadata };
}

/** The list's state brought up to date from the revision the run knows (a list of a million members is not read again). */
async function catchUpList(engage: Engage, listId: string, list: Folded<ListState>): Promise<Folded<ListState>> {
  if (list.revision === 'no_stream') return currentState(engage.store, listDecider, listStream(listId));
  const newer = await engage.store.readStream(listStream(listId), { fromRevision: list.revision + 1n });
  if (newer.length === 0) return list;
  const state = newer.reduce((s, r) => listDecider.evolve(s, { type: r.type, data: r.data } as ListEvent), list.state);
  return { state, revision: newer[newer.length - 1].revision };
}

/** How long the end of an import waits for the read models to show what it wrote (bounded: it ends regardless). */
const VISIBLE_WAIT_MS = 30_000;
/** The read models an import's batches write into: contacts, and list memberships. */
const IMPORT_READ_MODELS = ['contacts', 'lists'];

/**
 * Appends the import's end (completed or failed) at the revision the run knows, and deletes its file.
 * It first waits (bounded) until the contacts and lists read models show every batch, so that an
 * import reported completed has its contacts in GET /v1/contacts: the imports read model is
 * another projection, and would otherwise tell of the end before the contacts can be read.
 */
async function end(engage: Engage, run: Pick<ImportRun, 'import' | 'metadata' | 'accepted'>, how: { reason?: string }): Promise<RunOutcome> {
  const accountId = run.accepted.account_id;
  try {
    await engage.runner.waitFor(IMPORT_READ_MODELS, await engage.store.headPosition({ includeHeldBack: true }), VISIBLE_WAIT_MS);
  } catch (err) {
    engage.log.warn({ err, importId: run.accepted.id }, 'waiting for the read models before ending an import failed; ending it anyway');
  }
  const now = engage.clock.now();
  const events: ImportEvent[] = importDecider.decide(how.reason === undefined ? { type: 'CompleteImport', accountId, now } : { type: 'FailImport', accountId, reason: how.reason, now }, run.import.state);
  if (events.length) {
    try {
      await engage.store.append(importStream(run.accepted.id), events.map((e) => ({ ...e, metadata: run.metadata })), run.import.revision);
    } catch (err) {
      if (err instanceof WrongExpectedVersionError) return 'moved';
      throw err;
    }
  }
  await deleteUpload(engage.pool, run.accepted.id);
  return how.reason === undefined ? 'completed' : 'failed';
}

/** Runs import `importId` from where it got to until it ends, or until `options.signal` aborts. */
export async function runImport(engage: Engage, importId: string, options: RunOptions): Promise<RunOutcome> {
  const loaded = await folded<ImportState, ImportEvent>(engage, importStream(importId), importDecider);
  const accepted = loaded.state.accepted;
  if (!accepted) return 'missing';
  const first = loaded.metadata ?? {};
  // every event of the import is the uploader's doing, caused by the import
  const metadata: EventMetadata = {
    accountId: accepted.account_id,
    actor: first.actor ?? 'import',
    requestId: first.requestId,
    correlationId: first.correlationId ?? importId,
    causationId: importId,
  };
  const base = { engage, accepted, metadata, import: { state: loaded.state, revision: loaded.revision } };
  if (loaded.state.status === 'completed' || loaded.state.status === 'failed') {
    await deleteUpload(engage.pool, importId);
    return loaded.state.status;
  }
  const size = await uploadSize(engage.pool, importId);
  if (size.bytes !== accepted.bytes || !size.contiguous) return end(engage, base, { reason: 'the stored file is incomplete' });

  const definitions = await loadDefinitions(engage, accepted.account_id);
  const columnOf = new Map<string, string>();
  for (const c of accepted.columns) if (!columnOf.has(c.field)) columnOf.set(c.field, c.header);
  const run: ImportRun = { ...base, definitions, columnOf, externalIds: new SeenValues() };
  if (accepted.list_id) {
    run.list = await currentState(engage.store, listDecider, listStream(accepted.list_id));
    if (run.list.state.status !== 'active' || run.list.state.accountId !== accepted.account_id) return end(engage, run, { reason: 'the list was deleted' });
  }
  const reader: RowReader = {
    headers: accepted.columns.map((c) => c.header),
    targets: targetsOf(accepted.columns),
    definitions: new Map(definitions.map((d) => [d.key, d])),
    defaultCountry: accepted.default_country,
    tags: accepted.tags,
  };

  const apply = async (batch: Batch): Promise<AppliedBatch> => {
    const giveUpAt = Date.now() + RETRY_FOR_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        return await applyBatch(run, batch);
      } catch (err) {
        if (!(err instanceof BatchRetry) || Date.now() > giveUpAt || options.signal.aborted) throw err;
        engage.log.debug({ importId, attempt, reason: err.message }, 'import batch meets other writes; trying it again');
        await sleep(doublingDelay(attempt, 100, 2000), options.signal);
        if (run.list) run.list = await catchUpList(engage, accepted.list_id!, run.list);
      }
    }
  };
  // the batch being written while the next one is parsed and read
  let writing: Promise<AppliedBatch> | undefined;
  let submittedThrough = run.import.state.rowsThrough;
  const submit = async (pending: { rowsThrough: number; records: RecordAt[] }) => {
    submittedThrough = pending.rowsThrough;
    // read on the threads while the batch before is written; at most these two batches are held
    const reading = readRows(engage, pending.records, reader);
    reading.catch(() => undefined);
    if (writing) await writing;
    const batch: Batch = { rowsThrough: pending.rowsThrough, rows: await reading };
    writing = apply(batch);
    writing.catch(() => undefined);
  };

  let bytes = 0;
  async function* chunks() {
    for await (const chunk of readChunks(engage.pool, importId)) {
      bytes += chunk.length;
      yield chunk;
    }
  }
  const parser = csvParser(accepted.delimiter);
  pipeline(Readable.from(chunks()), parser, () => undefined);
  const done = run.import.state.rowsThrough;
  let batch: { rowsThrough: number; records: RecordAt[] } = { rowsThrough: done, records: [] };
  let index = -1;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      index++;
      // the header (index 0), then the rows a batch already applied
      if (index <= done) continue;
      batch.rowsThrough = index;
      if (!isBlank(record)) batch.records.push({ row: index + 1, record });
      if (batch.records.length >= options.batchRows) {
        await submit(batch);
        batch = { rowsThrough: index, records: [] };
        if (options.signal.aborted) break;
      }
    }
    if (!options.signal.aborted && batch.rowsThrough > submittedThrough) await submit(batch);
    if (writing) await writing;
  } catch (err) {
    if (writing) await writing.catch(() => undefined);
    if (err instanceof ImportMoved) return 'moved';
    if (err instanceof ListGone) return end(engage, run, { reason: err.message });
    if ((err as { code?: string }).code?.startsWith('CSV_')) return end(engage, run, { reason: `the stored file is unreadable: ${(err as Error).message}` });
    throw err;
  } finally {
    parser.destroy();
  }
  if (options.signal.aborted) return 'stopped';
  if (bytes !== accepted.bytes) return end(engage, run, { reason: 'the stored file is incomplete' });
  return end(engage, run, {});
}
