// Schema migrations of engage's own (non-projection) tables. Run on every start; idempotent,
// serialised across processes by an advisory lock.
import type pg from 'pg';
import { APPEND_FUNCTION, DROP_NOTIFY_TRIGGER, EVENTSTORE_SCHEMA } from '../eventstore/postgres.ts';

interface Migration {
  id: number;
  name: string;
  sql: string;
}

const MIGRATIONS: Migration[] = [
  { id: 1, name: 'event store', sql: EVENTSTORE_SCHEMA },
  {
    id: 2,
    name: 'projection checkpoints',
    sql: `
      CREATE TABLE IF NOT EXISTS projection_state (
        name text NOT NULL,
        generation int NOT NULL,
        active boolean NOT NULL DEFAULT false,
        version int NOT NULL,
        commit_pos xid8 NOT NULL DEFAULT '0',
        prepare_pos bigint NOT NULL DEFAULT 0,
        status text NOT NULL DEFAULT 'running',
        error text,
        error_position text,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (name, generation)
      );`,
  },
  {
    id: 3,
    name: 'idempotency keys and unique claims',
    sql: `
      CREATE TABLE IF NOT EXISTS idempotency_keys (
        account_id text NOT NULL,
        key text NOT NULL,
        method text NOT NULL,
        path text NOT NULL,
        body_hash text NOT NULL,
        status_code int,
        response jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, key)
      );
      CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys (created_at);
      CREATE TABLE IF NOT EXISTS unique_claims (
        account_id text NOT NULL,
        kind text NOT NULL,
        value text NOT NULL,
        owner_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, kind, value)
      );`,
  },
  {
    id: 4,
    name: 'service secrets',
    sql: `CREATE TABLE IF NOT EXISTS service_secrets (name text PRIMARY KEY, value text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());`,
  },
  {
    id: 5,
    name: 'webhook delivery attempts',
    sql: `
      CREATE TABLE IF NOT EXISTS webhook_attempts (
        delivery_id text NOT NULL,
        attempt int NOT NULL,
        at timestamptz NOT NULL,
        status_code int,
        latency_ms int,
        error text,
        PRIMARY KEY (delivery_id, attempt)
      );`,
  },
  { id: 6, name: 'event store: notify after commit, not in the append transaction', sql: DROP_NOTIFY_TRIGGER },
  { id: 7, name: 'idempotent responses as JSON text', sql: `ALTER TABLE idempotency_keys ALTER COLUMN response TYPE text USING response::text;` },
  { id: 8, name: 'event store: appends lock every stream before writing, idempotent by event id', sql: APPEND_FUNCTION },
  {
    id: 9,
    name: 'projection generations record their own tables and the event that failed',
    sql: `ALTER TABLE projection_state ADD COLUMN IF NOT EXISTS tables text[];
          ALTER TABLE projection_state ADD COLUMN IF NOT EXISTS error_event text;`,
  },
  { id: 10, name: 'event store: appends write in one statement after the locks when every stream fits', sql: APPEND_FUNCTION },
  { id: 11, name: 'event store: locks only for any/stream_exists, conditional writes for exact revisions and new streams', sql: APPEND_FUNCTION },
  { id: 12, name: 'event store: a stream that moves between judging and writing fails the append, to be judged again', sql: APPEND_FUNCTION },
  {
    // issue 8, finding 7: password and key hashes leave the events for a table of their own (owned by
    // src/credentials.ts). Hashes already in the auth read model (the newest: a password may have been
    // rehashed there) and in the Postgres event log are copied over; the old events stay immutable.
    id: 20,
    name: 'credentials: password and key hashes kept out of events',
    sql: `
      CREATE TABLE IF NOT EXISTS credentials (
        kind text NOT NULL CHECK (kind IN ('password', 'api_key')),
        id text NOT NULL,
        account_id text NOT NULL,
        hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (kind, id)
      );
      CREATE UNIQUE INDEX IF NOT EXISTS credentials_api_key_hash ON credentials (hash) WHERE kind = 'api_key';
      DO $$ BEGIN
        IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'users' AND column_name = 'password_hash') THEN
          EXECUTE 'INSERT INTO credentials (kind, id, account_id, hash, created_at) SELECT ''password'', id, account_id, password_hash, created_at FROM users ON CONFLICT DO NOTHING';
        END IF;
        IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'api_keys' AND column_name = 'key_hash') THEN
          EXECUTE 'INSERT INTO credentials (kind, id, account_id, hash, created_at) SELECT ''api_key'', id, account_id, key_hash, created_at FROM api_keys ON CONFLICT DO NOTHING';
        END IF;
      END $$;
      INSERT INTO credentials (kind, id, account_id, hash, created_at)
        SELECT 'password', data->>'user_id', data->>'account_id', data->>'password_hash', created_at FROM es_events
         WHERE type = 'UserAdded' AND stream_id LIKE 'account-%' AND data ? 'password_hash'
        ON CONFLICT DO NOTHING;
      INSERT INTO credentials (kind, id, account_id, hash, created_at)
        SELECT 'api_key', data->>'key_id', data->>'account_id', data->>'key_hash', created_at FROM es_events
         WHERE type = 'ApiKeyIssued' AND stream_id LIKE 'account-%' AND data ? 'key_hash'
        ON CONFLICT DO NOTHING;`,
  },
  {
    // issue 8, finding 2: a stored response belongs to the credential that made the request and is
    // kept sealed. Responses stored before were neither (some held a new key or signing secret in
    // clear): they are dropped, so a retry of such a request within its 24 h runs again.
    id: 21,
    name: 'idempotency records scoped to their credential, responses sealed',
    sql: `
      DELETE FROM idempotency_keys;
      ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS credential text NOT NULL DEFAULT '';
      ALTER TABLE idempotency_keys DROP CONSTRAINT IF EXISTS idempotency_keys_pkey;
      ALTER TABLE idempotency_keys ADD PRIMARY KEY (account_id, credential, key);`,
  },
];

export function registerMigration(m: Migration): void {
  if (MIGRATIONS.some((x) => x.id === m.id)) return;
  MIGRATIONS.push(m);
  MIGRATIONS.sort((a, b) => a.id - b.id);
}

export async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(724311)');
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (id int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ id: number }>('SELECT id FROM schema_migrations');
    const done = new Set(rows.map((r) => r.id));
    for (const m of MIGRATIONS) {
      if (done.has(m.id)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
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
