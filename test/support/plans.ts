// Judging a statement's form rather than the planner's choice of the day: what it reads when the
// planner may neither scan a table nor probe it row by row from a join (README "The write path": a
// batch reads only the rows it names). Left free, Postgres 18 and Debian's Postgres 15 choose
// differently at a test's sizes; with these two off, a statement that gives its keys as an index
// condition reads about the rows it names, and one that only joins them reads a whole table or index.
import type pg from 'pg';

/** Runs `work` in a transaction without sequential scans or nested loops, rolled back after. */
export async function withoutScansOrProbes<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL enable_seqscan = off');
    await client.query('SET LOCAL enable_nestloop = off');
    return await work(client);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}
