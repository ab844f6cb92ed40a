// Read model for authentication: accounts (with their settings), dashboard users and API keys, and
// the typed queries that read them. No hashes: those live in the credentials table
// (src/credentials.ts); authentication joins the two by id.
import { type AccountEvent, type AccountSettings, DEFAULT_SETTINGS, type Role, type Scope, type TemplateVariables } from '../commands/account.ts';
import { ACCOUNT_EVENT_TYPES } from '../commands/account.ts';
import { adoptLegacyCredential } from '../src/credentials.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { type Db, findInAccount } from './queries.ts';

/** Rows of the auth read model as node-postgres returns them. */
export interface AccountRow {
  id: string;
  name: string;
  created_at: Date;
  webhook_secret_sealed: string | null;
  default_country: string | null;
  timezone: string | null;
  template_variables: TemplateVariables;
}

export interface UserRow {
  id: string;
  account_id: string;
  email: string;
  role: Role;
  created_at: Date;
}

export interface ApiKeyRow {
  id: string;
  account_id: string;
  prefix: string;
  name: string | null;
  scopes: Scope[] | null;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  replaces: string | null;
}

export const authProjection: Projection = {
  name: 'auth',
  // 2: password_hash and key_hash left users and api_keys (issue 8, finding 7)
  // 3: accounts.default_country and accounts.timezone (AccountSettingsChanged)
  // 4: accounts.template_variables (AccountSettingsChanged)
  version: 4,
  tables: ['accounts', 'users', 'api_keys'],
  types: [...ACCOUNT_EVENT_TYPES],
  schema: (t) => `
    CREATE TABLE ${t('accounts')} (
      id text PRIMARY KEY, name text NOT NULL, created_at timestamptz NOT NULL, webhook_secret_sealed text,
      default_country text, timezone text, template_variables text NOT NULL DEFAULT '${DEFAULT_SETTINGS.template_variables}'
    );
    CREATE TABLE ${t('users')} (
      id text PRIMARY KEY, account_id text NOT NULL, email text NOT NULL,
      role text NOT NULL, created_at timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX ${t('users')}_email ON ${t('users')} (email);
    CREATE TABLE ${t('api_keys')} (
      id text PRIMARY KEY, account_id text NOT NULL, prefix text NOT NULL, name text,
      scopes text[], created_at timestamptz NOT NULL, expires_at timestamptz, revoked_at timestamptz, replaces text
    );
    CREATE INDEX ${t('api_keys')}_account ON ${t('api_keys')} (account_id);`,
  async apply(tx, events, t) {
    for (const recorded of events) {
      const e = recorded as unknown as AccountEvent;
      switch (e.type) {
        case 'AccountCreated':
          await tx.query(`INSERT INTO ${t('accounts')} (id, name, created_at) VALUES ($1,$2,$3) ON CONFLICT DO NOTHING`, [
            e.data.account_id, e.data.name, e.data.created_at,
          ]);
          break;
        case 'UserAdded':
          await tx.query(
            `INSERT INTO ${t('users')} (id, account_id, email, role, created_at) VALUES ($1,$2,$3,$4,$5) ON CONFLICT DO NOTHING`,
            [e.data.user_id, e.data.account_id, e.data.email, e.data.role, e.data.created_at],
          );
          // an event from before credentials left the log (e.g. appended by an older process during an upgrade)
          if (e.data.password_hash) await adoptLegacyCredential(tx, 'password', e.data.user_id, e.data.account_id, e.data.password_hash);
          break;
        case 'ApiKeyIssued':
          await tx.query(
            `INSERT INTO ${t('api_keys')} (id, account_id, prefix, name, scopes, created_at, replaces) VALUES ($1,$2,$3,$4,$5,$6,$7)
             ON CONFLICT DO NOTHING`,
            [e.data.key_id, e.data.account_id, e.data.prefix, e.data.name, e.data.scopes, e.data.created_at, e.data.replaces ?? null],
          );
          if (e.data.key_hash) await adoptLegacyCredential(tx, 'api_key', e.data.key_id, e.data.account_id, e.data.key_hash);
          break;
        case 'ApiKeyExpirySet':
          await tx.query(`UPDATE ${t('api_keys')} SET expires_at = $2 WHERE id = $1`, [e.data.key_id, e.data.expires_at]);
          break;
        case 'ApiKeyRevoked':
          await tx.query(`UPDATE ${t('api_keys')} SET revoked_at = $2 WHERE id = $1`, [e.data.key_id, e.data.revoked_at]);
          break;
        case 'WebhookSecretIssued':
          await tx.query(`UPDATE ${t('accounts')} SET webhook_secret_sealed = $2 WHERE id = $1`, [e.data.account_id, e.data.secret_sealed]);
          break;
        case 'AccountSettingsChanged':
          await tx.query(`UPDATE ${t('accounts')} SET default_country = $2, timezone = $3, template_variables = $4 WHERE id = $1`, [
            e.data.account_id, e.data.default_country, e.data.timezone, e.data.template_variables ?? DEFAULT_SETTINGS.template_variables,
          ]);
          break;
      }
    }
  },
};

/** Every account, oldest first (`engage accounts list`). */
export async function listAccounts(db: Db): Promise<Pick<AccountRow, 'id' | 'name' | 'created_at'>[]> {
  const { rows } = await db.query<Pick<AccountRow, 'id' | 'name' | 'created_at'>>('SELECT id, name, created_at FROM accounts ORDER BY created_at, id');
  return rows;
}

export async function findAccount(db: Db, id: string): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>('SELECT * FROM accounts WHERE id = $1', [id]);
  return rows[0];
}

/** Whether the read model has any account at all (first start). */
export async function anyAccountExists(db: Db): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM accounts LIMIT 1');
  return rows.length > 0;
}

/** The account's sealed per-message webhook secret, if it has one. */
export async function accountWebhookSecretSealed(db: Db, accountId: string): Promise<string | null> {
  const { rows } = await db.query<Pick<AccountRow, 'webhook_secret_sealed'>>('SELECT webhook_secret_sealed FROM accounts WHERE id = $1', [accountId]);
  return rows[0]?.webhook_secret_sealed ?? null;
}

/**
 * Until this version's generation swaps in, the live one (built by older code) may lack the newer
 * settings columns: its accounts read as the settings it has, the others at their defaults (stale,
 * never wrong).
 */
async function withoutSettingsColumns<T>(query: () => Promise<T>, meanwhile: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch (err) {
    if ((err as { code?: string }).code === '42703') return meanwhile(); // undefined_column
    throw err;
  }
}

/** The account's settings (the defaults for an unknown account). */
export async function accountSettings(db: Db, accountId: string): Promise<AccountSettings> {
  const read = (columns: string) => async () => {
    const { rows } = await db.query<Partial<AccountSettings>>(`SELECT ${columns} FROM accounts WHERE id = $1`, [accountId]);
    return { ...DEFAULT_SETTINGS, ...rows[0] };
  };
  // version 3 had no template_variables, version 2 no settings at all
  return withoutSettingsColumns(read('default_country, timezone, template_variables'), () =>
    withoutSettingsColumns(read('default_country, timezone'), async () => DEFAULT_SETTINGS),
  );
}

/** The time zone of each of these accounts that has one set, by account id: one query for them all. */
export async function accountTimezones(db: Db, accountIds: readonly string[]): Promise<Map<string, string>> {
  if (accountIds.length === 0) return new Map();
  return withoutSettingsColumns(async () => {
    const { rows } = await db.query<{ id: string; timezone: string }>('SELECT id, timezone FROM accounts WHERE id = ANY($1::text[]) AND timezone IS NOT NULL', [[...new Set(accountIds)]]);
    return new Map(rows.map((r) => [r.id, r.timezone]));
  }, async () => new Map<string, string>());
}

export async function userExists(db: Db, id: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM users WHERE id = $1', [id]);
  return rows.length > 0;
}

/** A user as GET /v1/account/me shows it. */
/** Whether `email` (lowercased) is the email of one of the account's users. */
export async function isAccountUserEmail(db: Db, accountId: string, email: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM users WHERE account_id = $1 AND lower(email) = $2', [accountId, email]);
  return rows.length > 0;
}

export async function userProfile(db: Db, id: string): Promise<Pick<UserRow, 'id' | 'email' | 'role'> | undefined> {
  const { rows } = await db.query<Pick<UserRow, 'id' | 'email' | 'role'>>('SELECT id, email, role FROM users WHERE id = $1', [id]);
  return rows[0];
}

/** The user with this email (lower case) and its password hash; a user needs both its row here and its credential. */
export async function userWithPasswordHash(db: Db, email: string): Promise<(Pick<UserRow, 'id' | 'account_id' | 'role'> & { password_hash: string }) | undefined> {
  const { rows } = await db.query<Pick<UserRow, 'id' | 'account_id' | 'role'> & { password_hash: string }>(
    `SELECT u.id, u.account_id, u.role, c.hash AS password_hash FROM users u JOIN credentials c ON c.kind = 'password' AND c.id = u.id AND c.account_id = u.account_id
      WHERE u.email = $1`,
    [email],
  );
  return rows[0];
}

/** The key whose credential has this hash; a key needs both its row here and its credential. */
export async function apiKeyByHash(db: Db, hash: string): Promise<Pick<ApiKeyRow, 'id' | 'account_id' | 'scopes' | 'expires_at' | 'revoked_at'> | undefined> {
  const { rows } = await db.query<Pick<ApiKeyRow, 'id' | 'account_id' | 'scopes' | 'expires_at' | 'revoked_at'>>(
    `SELECT k.id, k.account_id, k.scopes, k.expires_at, k.revoked_at FROM credentials c JOIN api_keys k ON k.id = c.id AND k.account_id = c.account_id
      WHERE c.kind = 'api_key' AND c.hash = $1`,
    [hash],
  );
  return rows[0];
}

export const findApiKey = (db: Db, accountId: string, id: string) => findInAccount<ApiKeyRow>(db, 'api_keys', accountId, id);

/** The account's keys, newest first (revoked and expired ones included). */
export async function listApiKeys(db: Db, accountId: string): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>('SELECT * FROM api_keys WHERE account_id = $1 ORDER BY id DESC', [accountId]);
  return rows;
}

export async function accountOfApiKey(db: Db, keyId: string): Promise<string | undefined> {
  const { rows } = await db.query<Pick<ApiKeyRow, 'account_id'>>('SELECT account_id FROM api_keys WHERE id = $1', [keyId]);
  return rows[0]?.account_id;
}
