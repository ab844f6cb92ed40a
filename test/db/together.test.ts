// Several writes as one statement (src/db/together.ts): a read model's batch writes its tables in one
// round trip. The parameters of each write are renumbered after the ones before it, and every write
// runs, whether or not anything refers to it.
import { describe, expect, it } from 'vitest';
import { together, writeTogether } from '../../src/db/together.ts';
import { migratedStoreForSuite } from '../support/event-store.ts';

const db = migratedStoreForSuite(2);

describe('writes together', () => {
  it('are one WITH statement, the last write its main statement, the parameters numbered after each other', () => {
    const one = together([
      { text: 'INSERT INTO a (x, y) VALUES ($1, $2)', values: [1, 2] },
      undefined,
      { text: 'UPDATE b SET x = $2 WHERE id = $1 AND $1 IS NOT NULL', values: ['b1', 3] },
      { text: 'DELETE FROM c WHERE id = ANY($1::text[])', values: [['c1']] },
    ]);
    expect(one).toEqual({
      text: 'WITH w0 AS (INSERT INTO a (x, y) VALUES ($1, $2)), w1 AS (UPDATE b SET x = $4 WHERE id = $3 AND $3 IS NOT NULL) DELETE FROM c WHERE id = ANY($5::text[])',
      values: [1, 2, 'b1', 3, ['c1']],
    });
  });

  it('are one write as it is, and nothing when there is none', () => {
    const single = { text: 'DELETE FROM c WHERE id = $1', values: ['x'] };
    expect(together([undefined, single])).toBe(single);
    expect(together([undefined, undefined])).toBeUndefined();
  });

  it('write nothing and count 0 when there is none', async () => {
    expect(await writeTogether(db.pool, [undefined])).toBe(0);
  });

  it('write every table in one statement (inserts, an upsert, an update, a delete), and count the rows of the last', async () => {
    await db.pool.query(`
      DROP TABLE IF EXISTS together_a, together_b;
      CREATE TABLE together_a (id text PRIMARY KEY, n int NOT NULL);
      CREATE TABLE together_b (id text NOT NULL, n int NOT NULL);
      INSERT INTO together_a VALUES ('kept', 1), ('changed', 1), ('gone', 1);`);
    const written = await writeTogether(db.pool, [
      { text: 'INSERT INTO together_a (id, n) SELECT * FROM unnest($1::text[], $2::int[]) ON CONFLICT (id) DO UPDATE SET n = excluded.n', values: [['new', 'kept'], [5, 7]] },
      { text: 'UPDATE together_a SET n = $2 WHERE id = $1', values: ['changed', 9] },
      { text: 'DELETE FROM together_a WHERE id = ANY($1::text[])', values: [['gone']] },
      { text: 'INSERT INTO together_b (id, n) SELECT $1, n FROM generate_series(1, $2::int) AS n', values: ['b', 2] },
    ]);
    expect(written).toBe(2);
    const a = await db.pool.query<{ id: string; n: number }>('SELECT id, n FROM together_a ORDER BY id');
    expect(a.rows).toEqual([
      { id: 'changed', n: 9 },
      { id: 'kept', n: 7 },
      { id: 'new', n: 5 },
    ]);
    expect((await db.pool.query('SELECT id, n FROM together_b ORDER BY n')).rows).toEqual([
      { id: 'b', n: 1 },
      { id: 'b', n: 2 },
    ]);
    await db.pool.query('DROP TABLE together_a, together_b');
  });
});
