// Shared apply for "one row per aggregate" read models: load the rows a batch touches, fold the
// batch in memory, then write back with one upsert and one delete, whatever the batch size.
import type pg from 'pg';
import type { RecordedEvent } from '../src/eventstore/port.ts';

export type Row = Record<string, unknown> & { id: string };

export async function applyDocuments(
  tx: pg.PoolClient,
  table: string,
  columns: readonly string[],
  events: RecordedEvent[],
  idOf: (e: RecordedEvent) => string,
  evolve: (row: Row | undefined, e: RecordedEvent) => Row | undefined,
): Promise<void> {
  const ids = [...new Set(events.map(idOf))];
  const { rows } = await tx.query<Row>(`SELECT ${columns.join(', ')} FROM ${table} WHERE id = ANY($1::text[])`, [ids]);
  const current = new Map<string, Row | undefined>(rows.map((r) => [r.id, r]));
  for (const e of events) {
    const id = idOf(e);
    current.set(id, evolve(current.get(id), e));
  }
  const upserts: Row[] = [];
  const deletes: string[] = [];
  for (const [id, row] of current) (row ? upserts.push(row) : deletes.push(id));
  if (deletes.length) await tx.query(`DELETE FROM ${table} WHERE id = ANY($1::text[])`, [deletes]);
  if (upserts.length) {
    const cols = columns.join(', ');
    const updates = columns.filter((c) => c !== 'id').map((c) => `${c} = excluded.${c}`).join(', ');
    await tx.query(
      `INSERT INTO ${table} (${cols}) SELECT ${cols} FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)
       ON CONFLICT (id) DO UPDATE SET ${updates}`,
      [JSON.stringify(upserts)],
    );
  }
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
