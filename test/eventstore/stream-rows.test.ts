// A stream's row in es_streams holds its revision, rewritten by every append to it (a message's
// stream: four times). The table leaves room in each page so that rewrite stays on its page with no
// new entry in the primary key (a HOT update; README "The write path").
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migratedStoreForSuite } from '../support/event-store.ts';

const db = migratedStoreForSuite(4);

describe('es_streams storage', () => {
  it("an append's rewrite of a freshly made stream row stays on its page", async () => {
    const prefix = `rows${randomUUID().slice(0, 8)}-`;
    const streams = Array.from({ length: 400 }, (_, i) => `${prefix}${i}`);
    await db.store.appendMany(streams.map((s) => ({ streamId: s, events: [{ type: 'Made', data: {} }], expected: 'no_stream' as const })));
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      // what es_write does to a stream it appends to
      const updated = await client.query(`UPDATE es_streams SET revision = revision + 1 WHERE stream_id = ANY($1::text[])`, [streams]);
      expect(updated.rowCount).toBe(400);
      const { rows } = await client.query<{ hot: string }>(`SELECT pg_stat_get_xact_tuples_hot_updated('es_streams'::regclass)::text AS hot`);
      expect(Number(rows[0].hot)).toBeGreaterThanOrEqual(360);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
