// Shared apply for "one row per aggregate" read models: load the rows a batch touches, fold the
// batch in memory, then write back with one upsert, one update and one delete, whatever the batch size.
import pg from 'pg';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import { prepared } from '../src/db/prepared.ts';
import { type Statement, writeTogether } from '../src/db/together.ts';

export type Row = Record<string, unknown> & { id: string };

/** timestamptz, timestamp and date */
const TIME_TYPES: ReadonlySet<number> = new Set([1184, 1114, 1082]);
/**
 * How applyDocuments reads rows: times as Postgres prints them. A row read here is folded and written
 * back, its times carried, never used as dates (its evolve sets new ones from events, as strings):
 * parsed into Date objects they cost the parse, the object and its printing back, on every row a
 * batch touches, and lost their microseconds.
 */
const TIMESTAMPS_AS_TEXT: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (TIME_TYPES.has(oid) ? (value: string) => value : pg.types.getTypeParser(oid, format))) as pg.CustomTypesConfig['getTypeParser'],
};

/** What a read model tells applyDocuments about its documents (see there). */
export interface DocumentOptions {
  /** the columns a row gets when an event makes it and no later event changes */
  fixed?: readonly string[];
  /** the caller's own writes for the batch (made once the batch is folded), sent in the same statement as the rows' */
  alsoWrite?: () => readonly (Statement | undefined)[];
  /** the events that make their document from their own data alone: evolve ignores the row it gets for them */
  makesAnew?: (e: RecordedEvent) => boolean;
}

/**
 * Applies a batch to a table of one row per document. `fixed` names the columns a row gets when an
 * event makes it and no later event changes (a message's recipient and content): rows already there
 * are read and written without them, so a status change neither reads a message's body nor writes
 * it back. `evolve` gets such a row without its fixed columns and must leave them out unless it makes
 * the row anew. `alsoWrite`: the caller's own writes for the batch (made once the batch is folded),
 * sent in the same statement as the rows'. A document whose first event in the batch `makesAnew` is
 * not read (a message's MessageAccepted, a contact's ContactCreated: a send's batch, a bulk's, an
 * import's read nothing). README "The write path".
 */
export async function applyDocuments(
  tx: pg.PoolClient,
  table: string,
  columns: readonly string[],
  events: RecordedEvent[],
  idOf: (e: RecordedEvent) => string,
  evolve: (row: Row | undefined, e: RecordedEvent) => Row | undefined,
  { fixed = [], alsoWrite, makesAnew }: DocumentOptions = {},
): Promise<void> {
  const fixedSet = new Set(fixed);
  // a row already there is read without its fixed columns, and written back without them
  const changing = fixedSet.size ? columns.filter((c) => !fixedSet.has(c)) : columns;
  // the documents to read: those whose first event in the batch does not make them anew
  const first = new Map<string, RecordedEvent>();
  for (const e of events) {
    const id = idOf(e);
    if (!first.has(id)) first.set(id, e);
  }
  const ids = makesAnew ? [...first].filter(([, e]) => !makesAnew(e)).map(([id]) => id) : [...first.keys()];
  const { rows } = ids.length
    ? await tx.query<Row>({ ...prepared(`SELECT ${changing.join(', ')} FROM ${table} WHERE id = ANY($1::text[])`, [ids]), types: TIMESTAMPS_AS_TEXT })
    : { rows: [] };
  const current = new Map<string, Row | undefined>(rows.map((r) => [r.id, r]));
  for (const e of events) {
    const id = idOf(e);
    current.set(id, evolve(current.get(id), e));
  }
  const whole: Row[] = [];
  const changes: Row[] = [];
  const deletes: string[] = [];
  for (const [id, row] of current) {
    if (!row) deletes.push(id);
    // a row read without its fixed columns that no event made anew: only what changes is written
    else if (fixedSet.size && !fixed.some((c) => Object.hasOwn(row, c))) changes.push(row);
    else whole.push(row);
  }
  const cols = columns.join(', ');
  const updates = columns.filter((c) => c !== 'id').map((c) => `${c} = excluded.${c}`).join(', ');
  const sets = changing.filter((c) => c !== 'id').map((c) => `${c} = v.${c}`).join(', ');
  // the rows' deletes, upserts and updates (each row is in one of them), and the caller's writes of
  // the same batch, in one statement
  await writeTogether(tx, [
    deletes.length ? { text: `DELETE FROM ${table} WHERE id = ANY($1::text[])`, values: [deletes] } : undefined,
    whole.length
      ? { text: `INSERT INTO ${table} (${cols}) SELECT ${cols} FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb) ON CONFLICT (id) DO UPDATE SET ${updates}`, values: [JSON.stringify(whole)] }
      : undefined,
    // the ids also as `= ANY`, the primary key's condition (README "The write path": a batch reads
    // only the rows it names)
    changes.length
      ? { text: `UPDATE ${table} t SET ${sets} FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb) v WHERE t.id = ANY($2::text[]) AND t.id = v.id`, values: [JSON.stringify(changes), changes.map((r) => r.id)] }
      : undefined,
    ...(alsoWrite?.() ?? []),
  ]);
}

/**
 * Applies a batch in log order when some events are not about one document (an erasure touches many
 * rows): runs of ordinary events go to `apply` together, each special event to `applySpecial` alone,
 * so a special event sees every event before it applied, and none after.
 */
export async function applyInOrder(
  events: RecordedEvent[],
  isSpecial: (e: RecordedEvent) => boolean,
  handlers: { apply(run: RecordedEvent[]): Promise<unknown>; applySpecial(e: RecordedEvent): Promise<unknown> },
): Promise<void> {
  let run: RecordedEvent[] = [];
  for (const e of events) {
    if (!isSpecial(e)) {
      run.push(e);
      continue;
    }
    if (run.length) await handlers.apply(run);
    run = [];
    await handlers.applySpecial(e);
  }
  if (run.length) await handlers.apply(run);
}
