// The Postgres connection pool, with session settings that keep the catch-up readers moving.
import pg from 'pg';

export function createPool(connectionString: string, max = 20): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    idleTimeoutMillis: 30_000,
    // an unreachable database must answer /health with 503 soon, not hang requests
    connectionTimeoutMillis: 5_000,
    // long transactions hold back every catch-up reader: never leave one idle. No JIT: engage's
    // statements are short, and compiling one (Postgres with jit=on) can cost more than it runs
    options: '-c idle_in_transaction_session_timeout=60000 -c statement_timeout=120000 -c jit=off',
  });
  // an idle client that errors (server restart) must not crash the process
  pool.on('error', () => undefined);
  // nor a checked-out one: the pool listens only while a client is idle, and a client whose
  // connection dies emits 'error' besides failing its query; without a listener that 'error' is an
  // uncaught exception. The query's own rejection still reaches the caller, and the pool drops the
  // broken client on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
