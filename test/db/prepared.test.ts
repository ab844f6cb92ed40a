// Statements prepared once per connection (src/db/prepared.ts): a hot statement is parsed once on a
// connection and executed by name after that, where it was parsed and planned on every call; another
// text never takes its name (a read model's next generation names other tables).
import { describe, expect, it } from 'vitest';
import { prepared } from '../../src/db/prepared.ts';
import { keysById } from '../../src/personal-data/keys.ts';
import { migratedStoreForSuite } from '../support/event-store.ts';

const db = migratedStoreForSuite(2);

describe('a prepared statement', () => {
  it('is named after its text: the same text the same name, another text another', () => {
    const a = prepared('SELECT id FROM contacts_g1 WHERE id = ANY($1::text[])', [['x']]);
    expect(prepared('SELECT id FROM contacts_g1 WHERE id = ANY($1::text[])', [['y']]).name).toBe(a.name);
    expect(prepared('SELECT id FROM contacts_g2 WHERE id = ANY($1::text[])', [['x']]).name).not.toBe(a.name);
    expect(a).toMatchObject({ text: 'SELECT id FROM contacts_g1 WHERE id = ANY($1::text[])', values: [['x']] });
  });

  it('is parsed once on a connection and executed by name on every later call (a data key look-up)', async () => {
    const client = await db.pool.connect();
    try {
      for (let i = 0; i < 3; i++) expect((await keysById(client, [`dk_missing_${i}`])).get(`dk_missing_${i}`)).toBeNull();
      const { rows } = await client.query<{ name: string; runs: number }>(
        `SELECT name, (generic_plans + custom_plans)::int AS runs FROM pg_prepared_statements WHERE statement LIKE '%FROM data_keys WHERE id = ANY%'`,
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]!.name).toMatch(/^engage_/);
      expect(rows[0]!.runs).toBe(3);
    } finally {
      client.release();
    }
  });
});
