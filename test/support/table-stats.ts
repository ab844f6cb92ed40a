// What Postgres's statistics say of a table's writes: how the tests of rows rewritten in place (HOT
// updates, README "The write path") read them.
import type pg from 'pg';
import { eventually } from './waits.ts';

/**
 * The table's updates and how many of them stayed on their row's page (HOT), once at least
 * `updates` have reached the statistics (a session sends its counts when it ends; an idle one up to
 * 10 s later).
 */
export function updatesOf(db: Pick<pg.Pool, 'query'>, table: string, updates: number, timeoutMs = 15_000): Promise<{ updated: number; hot: number }> {
  return eventually(`${table}'s update counts`, async () => {
    const { rows } = await db.query<{ updated: number; hot: number }>(
      'SELECT n_tup_upd::int AS updated, n_tup_hot_upd::int AS hot FROM pg_stat_user_tables WHERE relname = $1',
      [table],
    );
    return rows[0] && rows[0].updated >= updates ? rows[0] : undefined;
  }, timeoutMs, 100);
}
