// The window of the log a replay covers: `from` and `until` as the caller gives them — a log position
// (`<commit>/<prepare>`, as the API and CLI print them) or an RFC 3339 time — resolved to positions
// at the request, `until` defaulting to (and never beyond) the readable head, so the job is finite.
// A time means the first event written at or after it (`from`) or the last one written at or before
// it (`until`); events are written in log order to within the overlap of concurrent transactions.
import { invalidField } from '../errors.ts';
import { comparePositions, type EventStore, parsePosition, type Position, positionToString, type RecordedEvent, START } from '../eventstore/port.ts';
import { timestampProblem } from '../timestamps.ts';

export interface ReplayRange {
  /** first position replayed, inclusive */
  from: Position;
  /** last position replayed, inclusive */
  until: Position;
}

const POSITION = /^\d+\/\d+$/;
/** the largest prepare part a Postgres position can have (bigint): (c − 1, MAX) sorts just before every event of transaction c */
const MAX_PREPARE = 9223372036854775807n;
const SCAN_BATCH = 1000;

type Bound = { position: Position } | { at: Date };

function parseBound(field: 'from' | 'until', value: string): Bound {
  const v = value.trim();
  if (POSITION.test(v)) {
    const position = parsePosition(v);
    if (position.commit > MAX_PREPARE || position.prepare > MAX_PREPARE) throw invalidField(field, 'is not a position of this log');
    return { position };
  }
  const problem = timestampProblem(v);
  if (problem) throw invalidField(field, `must be a log position (<commit>/<prepare>, e.g. 1234/5678) or an RFC 3339 time: ${problem}`);
  return { at: new Date(v) };
}

/** Resolves the caller's bounds against the log as it is now (400 naming the field for a bad or empty window). */
export async function resolveReplayRange(store: EventStore, input: { from: string; until?: string | null }): Promise<ReplayRange> {
  const fromBound = parseBound('from', input.from);
  const untilBound = input.until == null ? undefined : parseBound('until', input.until);
  const head = await store.headPosition();
  if (comparePositions(head, START) === 0) throw invalidField('from', 'the log is empty: there is nothing to replay');

  let from: Position;
  if ('position' in fromBound) from = fromBound.position;
  else {
    const found = await firstWritten(store, head, fromBound.at, 'at-or-after');
    if (!found.event) throw invalidField('from', 'no event was written at or after this time');
    from = found.event.position;
  }

  let until = head;
  if (untilBound && 'position' in untilBound) {
    if (comparePositions(untilBound.position, head) < 0) until = untilBound.position;
  } else if (untilBound) {
    const found = await firstWritten(store, head, untilBound.at, 'after');
    if (found.event && !found.before) throw invalidField('until', 'no event was written at or before this time');
    if (found.event) until = found.before!.position;
  }
  if (comparePositions(from, until) > 0) throw invalidField('from', `is after until (${positionToString(until)}): the window holds no event`);
  return { from, until };
}

/**
 * The first event written at or after (or strictly after) `at`, with the event just before it in
 * the log when the search saw it. On Postgres, where a position's commit part is the transaction id,
 * a binary search over transaction ids narrows it down to one transaction's events; other stores are
 * scanned from the start.
 */
async function firstWritten(store: EventStore, head: Position, at: Date, which: 'at-or-after' | 'after'): Promise<{ event?: RecordedEvent; before?: RecordedEvent }> {
  const wanted = (e: RecordedEvent) => (which === 'after' ? e.createdAt.getTime() > at.getTime() : e.createdAt.getTime() >= at.getTime());
  if (store.kind !== 'postgres') return scanFor(store, START, wanted);
  const firstOf = async (commit: bigint) => (await store.readAll({ after: { commit: commit - 1n, prepare: MAX_PREPARE }, maxCount: 1, keepSealed: true }))[0];
  const first = (await store.readAll({ maxCount: 1, keepSealed: true }))[0];
  if (!first) return {};
  if (wanted(first)) return { event: first };
  // invariant: the first event of transaction `lo` (or of the next one that wrote) is not wanted
  let lo = first.position.commit;
  let hi = head.commit;
  while (hi - lo > 1n) {
    const mid = lo + (hi - lo) / 2n;
    const e = await firstOf(mid);
    if (!e || wanted(e)) hi = mid;
    else lo = e.position.commit > mid ? e.position.commit : mid;
  }
  return scanFor(store, { commit: lo - 1n, prepare: MAX_PREPARE }, wanted);
}

/** Reads forwards from `after` to the first wanted event, remembering the one before it. */
async function scanFor(store: EventStore, after: Position, wanted: (e: RecordedEvent) => boolean): Promise<{ event?: RecordedEvent; before?: RecordedEvent }> {
  let before: RecordedEvent | undefined;
  for (;;) {
    const batch = await store.readAll({ after, maxCount: SCAN_BATCH, keepSealed: true });
    for (const e of batch) {
      if (wanted(e)) return { event: e, before };
      before = e;
    }
    if (batch.length < SCAN_BATCH) return { before };
    after = batch[batch.length - 1]!.position;
  }
}

/**
 * Where a scan that must take in `from` itself starts (readAll reads strictly after a position): just
 * before it on Postgres, whose positions are (transaction id, global position) with a unique second
 * part; from the start elsewhere (the scan skips what lies before `from`).
 */
export function scanStart(kind: EventStore['kind'], from: Position): Position {
  if (kind === 'postgres' && from.prepare > 0n) return { commit: from.commit, prepare: from.prepare - 1n };
  return START;
}
