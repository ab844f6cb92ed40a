// The schema migration runner: each module that owns tables of its own (not projection tables,
// which the read-model runner creates per generation) exports its migrations, and src/schema.ts
// lists them all. Run on every start; idempotent, serialised across processes by an advisory lock.
import type pg from 'pg';

export interface Migration {
  /** unique across all owners: the order migrations run in */
  id: number;
  name: string;
  sql: string;
  /** a step in code after `sql`, in the same transaction (a change SQL alone cannot make, e.g. one needing a service secret) */
  run?: (client: pg.PoolClient) => Promise<void>;
}

export async function runMigrations(pool: pg.Pool, migrations: readonly Migration[]): Promise<void> {
  const ordered = [...migrations].sort((a, b) => a.id - b.id);
  const clash = ordered.find((m, i) => i > 0 && ordered[i - 1].id === m.id);
  if (clash) throw new Error(`two migrations share id ${clash.id}`);
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(724311)');
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (id int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ id: number }>('SELECT id FROM schema_migrations');
    const done = new Set(rows.map((r) => r.id));
    for (const m of ordered) {
      if (done.has(m.id)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await m.run?.(client);
        await client.query('INSERT INTO schema_migrations (id, name) VALUES ($1, $2)', [m.id, m.name]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(724311)').catch(() => undefined);
    client.release();
  }
}
