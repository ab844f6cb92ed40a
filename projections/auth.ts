// Read model for authentication: accounts, dashboard users and API keys. No hashes: those live in
// the credentials table (src/credentials.ts); authentication joins the two by id.
import type { AccountEvent } from '../commands/account.ts';
import { ACCOUNT_EVENT_TYPES } from '../commands/account.ts';
import { adoptLegacyCredential } from '../src/credentials.ts';
import type { Projection } from '../src/projection.ts';

export const authProjection: Projection = {
  name: 'auth',
  // 2: password_hash and key_hash left users and api_keys (issue 8, finding 7)
  version: 2,
  tables: ['accounts', 'users', 'api_keys'],
  types: [...ACCOUNT_EVENT_TYPES],
  schema: (t) => `
    CREATE TABLE ${t('accounts')} (id text PRIMARY KEY, name text NOT NULL, created_at timestamptz NOT NULL, webhook_secret_sealed text);
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
      }
    }
  },
};
