// The credentials table (migration 20): password and API key hashes, kept out of the immutable event
// log (issue 8, finding 7) so they can be replaced or destroyed. Owns that table.
//
// Crash safety without a shared transaction (the event store append is its own statement): the
// handler writes the credential row first, keyed by the new user or key id, and appends the event
// after. A crash in between leaves a row no event refers to: harmless, because authentication needs
// both — the read model row the event produced (users / api_keys) and the credential row, joined by
// id. The reverse order could leave a user or key in the log with no way ever to authenticate.
import type pg from 'pg';

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

const CREDENTIAL_FIELDS = new Set(['password_hash', 'key_hash']);

/** Event data as shown to people (`engage streams show`): hashes of old events read `[redacted]`. */
export function redactCredentials(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactCredentials);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, CREDENTIAL_FIELDS.has(k) ? '[redacted]' : redactCredentials(v)]));
}
