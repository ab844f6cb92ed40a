// The credentials table (migration 20): password and API key hashes, kept out of the immutable event
// log (issue 8, finding 7) so they can be replaced or destroyed. Owns that table.
//
// Crash safety without a shared transaction (the event store append is its own statement): the
// handler writes the credential row first, keyed by the new user or key id, and appends the event
// after. A crash in between leaves a row no event refers to: harmless, because authentication needs
// both — the read model row the event produced (users / api_keys) and the credential row, joined by
// id. The reverse order could leave a user or key in the log with no way ever to authenticate.
import type pg from 'pg';
import type { Migration } from './db/migrations.ts';

export type CredentialKind = 'password' | 'api_key';

type Queryable = Pick<pg.Pool, 'query'>;

export async function storeCredential(db: Queryable, kind: CredentialKind, id: string, accountId: string, hash: string): Promise<void> {
  await db.query('INSERT INTO credentials (kind, id, account_id, hash) VALUES ($1, $2, $3, $4)', [kind, id, accountId, hash]);
}

/**
 * Copies the hash of an event written before credentials left the log (it carries `password_hash`
 * or `key_hash`), e.g. by an older process during an upgrade. Never replaces a row that is there: it
 * may hold a newer hash (a password rehashed at login).
 */
export async function adoptLegacyCredential(db: Queryable, kind: CredentialKind, id: string, accountId: string, hash: string): Promise<void> {
  await db.query('INSERT INTO credentials (kind, id, account_id, hash) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [kind, id, accountId, hash]);
}

/** Replaces a credential's hash (a password rehashed at a higher cost), unless it changed meanwhile. */
export async function replaceCredentialHash(db: Queryable, kind: CredentialKind, id: string, oldHash: string, newHash: string): Promise<void> {
  await db.query('UPDATE credentials SET hash = $1, updated_at = now() WHERE kind = $2 AND id = $3 AND hash = $4', [newHash, kind, id, oldHash]);
}

const CREDENTIAL_FIELDS = new Set(['password_hash', 'key_hash']);

/** Event data as shown to people (`engage streams show`): hashes of old events read `[redacted]`. */
export function redactCredentials(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactCredentials);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, CREDENTIAL_FIELDS.has(k) ? '[redacted]' : redactCredentials(v)]));
}

/** The credentials table (src/schema.ts runs them). */
export const CREDENTIALS_MIGRATIONS: Migration[] = [
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
];
