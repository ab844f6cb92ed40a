// Every table engage keeps besides the read models, by owner: each module that owns a table exports
// its migrations, listed here in one place and run on every start (src/db/migrations.ts).
import type pg from 'pg';
import { UNIQUE_CLAIMS_MIGRATIONS } from './claims.ts';
import { CREDENTIALS_MIGRATIONS } from './credentials.ts';
import { type Migration, runMigrations } from './db/migrations.ts';
import { EVENTSTORE_MIGRATIONS } from './eventstore/postgres.ts';
import { IDEMPOTENCY_MIGRATIONS } from './idempotency.ts';
import { READ_MODEL_STATE_MIGRATIONS } from './read-models/state.ts';
import { SERVICE_SECRETS_MIGRATIONS } from './service-secrets.ts';

/** webhook_attempts: moves to its owner module in src/webhooks next. */
const WEBHOOK_ATTEMPTS_MIGRATIONS: Migration[] = [
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
];

export const SCHEMA: readonly Migration[] = [
  ...EVENTSTORE_MIGRATIONS,
  ...READ_MODEL_STATE_MIGRATIONS,
  ...IDEMPOTENCY_MIGRATIONS,
  ...UNIQUE_CLAIMS_MIGRATIONS,
  ...SERVICE_SECRETS_MIGRATIONS,
  ...CREDENTIALS_MIGRATIONS,
  ...WEBHOOK_ATTEMPTS_MIGRATIONS,
];

/** Brings a database's own tables up to date (idempotent; safe from many processes at once). */
export async function migrate(pool: pg.Pool): Promise<void> {
  await runMigrations(pool, SCHEMA);
}
