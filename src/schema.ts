// Every table and function engage keeps besides the read models, by owner: each module that owns
// one exports its migrations, listed here in one place and run on every start (src/db/migrations.ts).
import type pg from 'pg';
import { CONTACT_LOOKUP_MIGRATIONS } from '../projections/contacts.ts';
import { MESSAGE_LOOKUP_MIGRATIONS } from '../projections/messages.ts';
import { SUPPRESSION_LOOKUP_MIGRATIONS } from '../projections/suppressions.ts';
import { WEBHOOK_ATTEMPTS_MIGRATIONS } from '../projections/webhook-outbox.ts';
import { UNIQUE_CLAIMS_MIGRATIONS } from './claims.ts';
import { CREDENTIALS_MIGRATIONS } from './credentials.ts';
import { type Migration, runMigrations } from './db/migrations.ts';
import { EVENTSTORE_MIGRATIONS } from './eventstore/postgres.ts';
import { STREAM_SNAPSHOT_MIGRATIONS } from './eventstore/snapshots.ts';
import { STORED_EVENT_BATCHES_MIGRATIONS } from './events/stored-batches.ts';
import { IDEMPOTENCY_MIGRATIONS } from './idempotency.ts';
import { IMPORT_UPLOADS_MIGRATIONS } from './imports/uploads.ts';
import { BULK_INTAKE_MIGRATIONS } from './messages/bulk-intakes-table.ts';
import { POLICY_LOOKUP_MIGRATIONS } from './messages/policy.ts';
import { ERASURES_MIGRATIONS } from './personal-data/erasures-table.ts';
import { DATA_KEYS_MIGRATIONS } from './personal-data/keys.ts';
import { READ_MODEL_STATE_MIGRATIONS } from './read-models/state.ts';
import { SERVICE_SECRETS_MIGRATIONS } from './service-secrets.ts';

export const SCHEMA: readonly Migration[] = [
  ...EVENTSTORE_MIGRATIONS,
  ...READ_MODEL_STATE_MIGRATIONS,
  ...IDEMPOTENCY_MIGRATIONS,
  ...UNIQUE_CLAIMS_MIGRATIONS,
  ...STORED_EVENT_BATCHES_MIGRATIONS,
  ...SERVICE_SECRETS_MIGRATIONS,
  ...CREDENTIALS_MIGRATIONS,
  ...WEBHOOK_ATTEMPTS_MIGRATIONS,
  ...DATA_KEYS_MIGRATIONS,
  ...ERASURES_MIGRATIONS,
  ...IMPORT_UPLOADS_MIGRATIONS,
  ...CONTACT_LOOKUP_MIGRATIONS,
  ...MESSAGE_LOOKUP_MIGRATIONS,
  ...SUPPRESSION_LOOKUP_MIGRATIONS,
  ...BULK_INTAKE_MIGRATIONS,
  ...POLICY_LOOKUP_MIGRATIONS,
  ...STREAM_SNAPSHOT_MIGRATIONS,
];

/** Brings a database's own tables up to date (idempotent; safe from many processes at once). */
export async function migrate(pool: pg.Pool): Promise<void> {
  await runMigrations(pool, SCHEMA);
}
