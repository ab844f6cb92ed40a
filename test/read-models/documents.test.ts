// applyDocuments (projections/document.ts) folds a batch over the rows it reads and writes them back:
// the columns no event of the batch changes must come back exactly as they were. Times are read as
// Postgres prints them, not as Date objects, which cost a parse and a print on every row and dropped
// the microseconds of a time written by SQL (now(), a migration's default).
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { applyDocuments } from '../../projections/document.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import { migratedStoreForSuite } from '../support/event-store.ts';

const db = migratedStoreForSuite(2);

beforeAll(async () => {
  await db.pool.query(`CREATE TABLE folded_documents (id text PRIMARY KEY, body text NOT NULL, n int NOT NULL, at timestamptz NOT NULL, local_at timestamp NOT NULL, day date NOT NULL)`);
  await db.pool.query(`INSERT INTO folded_documents VALUES
    ('doc_1', 'first', 0, '2026-03-01 10:20:30.123456+00', '2026-03-01 10:20:30.654321', '2026-03-01'),
    ('doc_2', 'second', 0, '2026-03-02 23:59:59.999999+00', '2026-03-02 00:00:00.000001', '2026-03-02')`);
});

const counted = (id: string) => ({ type: 'Counted', data: { id } }) as unknown as RecordedEvent;
const snapshot = async () =>
  (await db.pool.query(`SELECT id, body, n, at::text AS at, local_at::text AS local_at, day::text AS day FROM folded_documents ORDER BY id`)).rows;

describe('applyDocuments', () => {
  it('writes back the times no event changed exactly as they were, to the microsecond', async () => {
    const before = await snapshot();
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      for (const fixed of [[], ['body']]) {
        await applyDocuments(client, 'folded_documents', ['id', 'body', 'n', 'at', 'local_at', 'day'], [counted('doc_1'), counted('doc_2'), counted('doc_1')],
          (e) => (e.data as { id: string }).id, (row) => ({ ...row!, n: Number(row!.n) + 1 }), { fixed });
      }
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    // whole rows written back (no fixed column), then only the changing columns: the times kept both ways
    expect(await snapshot()).toEqual(before.map((r) => ({ ...r, n: r.id === 'doc_1' ? 4 : 2 })));
  });

  it('does not read the rows of documents the batch makes anew: only those whose first event in it changes a row', async () => {
    await db.pool.query(`INSERT INTO folded_documents VALUES ('doc_made', 'old', 5, now(), now(), current_date), ('doc_kept', 'kept', 5, now(), now(), current_date)`);
    const made = (id: string) => ({ type: 'Made', data: { id } }) as unknown as RecordedEvent;
    const client = await db.pool.connect();
    const spy = vi.spyOn(client, 'query');
    try {
      await client.query('BEGIN');
      await applyDocuments(client, 'folded_documents', ['id', 'body', 'n', 'at', 'local_at', 'day'], [made('doc_made'), counted('doc_made'), counted('doc_kept'), made('doc_new')],
        (e) => (e.data as { id: string }).id,
        (row, e) => (e.type === 'Made' ? { id: (e.data as { id: string }).id, body: 'made', n: 0, at: '2026-03-03 00:00:00+00', local_at: '2026-03-03 00:00:00', day: '2026-03-03' } : { ...row!, n: Number(row!.n) + 1 }),
        { makesAnew: (e) => e.type === 'Made' });
      await client.query('COMMIT');
      // the one read of rows named only the document whose first event changes its row
      const reads = spy.mock.calls.map(([q]) => q as unknown as { text?: string; values?: unknown[] }).filter((q) => q.text?.startsWith('SELECT'));
      expect(reads.map((q) => q.values)).toEqual([[['doc_kept']]]);
    } finally {
      spy.mockRestore();
      client.release();
    }
    const { rows } = await db.pool.query(`SELECT id, body, n FROM folded_documents WHERE id IN ('doc_made', 'doc_kept', 'doc_new') ORDER BY id`);
    expect(rows).toEqual([{ id: 'doc_kept', body: 'kept', n: 6 }, { id: 'doc_made', body: 'made', n: 1 }, { id: 'doc_new', body: 'made', n: 0 }]);
  });
});
