// The account aggregate (stream account-<id>): the account, its dashboard users, its API keys and
// its settings (default country, time zone).
// Credential material (password and key hashes) is not part of these events: the handler in
// src/accounts/service.ts keeps it in the credentials table (issue 8, finding 7). Events written before
// that carry `password_hash` / `key_hash`; they stay as they are, and readers redact them.
import type { Decider } from '../src/decider.ts';
import { AppError, conflict, notFound } from '../src/errors.ts';

export type Scope = 'read' | 'write' | 'settings';
export type Role = 'owner' | 'admin' | 'member' | 'viewer';

export type AccountEvent =
  | { type: 'AccountCreated'; data: { account_id: string; name: string; created_at: string } }
  /** password_hash: only in events written before credentials left the log (legacy, never written now) */
  | { type: 'UserAdded'; data: { account_id: string; user_id: string; email: string; password_hash?: string; role: Role; created_at: string } }
  | {
      type: 'ApiKeyIssued';
      /** key_hash: only in events written before credentials left the log (legacy, never written now) */
      data: { account_id: string; key_id: string; key_hash?: string; prefix: string; name: string | null; scopes: Scope[] | null; created_at: string; replaces?: string };
    }
  | { type: 'ApiKeyExpirySet'; data: { account_id: string; key_id: string; expires_at: string; reason: 'rotated' } }
  | { type: 'ApiKeyRevoked'; data: { account_id: string; key_id: string; revoked_at: string } }
  /** the account's signing secret for per-message delivery webhooks (sealed, never in clear) */
  | { type: 'WebhookSecretIssued'; data: { account_id: string; secret_sealed: string; issued_at: string; rotated: boolean } }
  /** the account's settings after the change, whole (a reader needs no earlier event to know them) */
  | { type: 'AccountSettingsChanged'; data: { account_id: string } & StoredSettings & { changed_at: string } };

/**
 * Account-wide defaults: the country of phone numbers without a + (imports), the time zone of quiet
 * hours, and whether a template's variables must all be given (README "Templates").
 */
export interface AccountSettings {
  /** ISO 3166-1 alpha-2, or null */
  default_country: string | null;
  /** IANA time zone, or null */
  timezone: string | null;
  /** strict: a send that leaves a variable of its template without a value is refused; lenient: it renders empty */
  template_variables: TemplateVariables;
}

export type TemplateVariables = 'strict' | 'lenient';
/** The settings as an event holds them: one written before a setting existed has not got it. */
type StoredSettings = Omit<AccountSettings, 'template_variables'> & { template_variables?: TemplateVariables };
/** An account's settings before it changed any (and what an event from before a setting existed leaves it at). */
export const DEFAULT_SETTINGS: AccountSettings = { default_country: null, timezone: null, template_variables: 'lenient' };

export interface AccountState {
  exists: boolean;
  accountId?: string;
  users: Map<string, { email: string; role: Role }>;
  keys: Map<string, { scopes: Scope[] | null; name: string | null; expiresAt?: string; revoked: boolean }>;
  /** the per-message webhook secret in force (sealed), once one is issued */
  webhookSecretSealed?: string;
  settings: AccountSettings;
}

export type AccountCommand =
  | { type: 'CreateAccount'; accountId: string; name: string; now: Date }
  | { type: 'AddUser'; userId: string; email: string; role: Role; now: Date }
  | { type: 'IssueApiKey'; keyId: string; prefix: string; name: string | null; scopes: Scope[] | null; now: Date }
  | { type: 'RotateApiKey'; oldKeyId: string; keyId: string; prefix: string; graceMs: number; now: Date }
  | { type: 'RevokeApiKey'; keyId: string; now: Date }
  | { type: 'IssueWebhookSecret'; secretSealed: string; rotate: boolean; now: Date }
  /** a setting left out stays as it is; null clears it */
  | { type: 'SetAccountSettings'; defaultCountry?: string | null; timezone?: string | null; templateVariables?: TemplateVariables; now: Date };

type Entries<M> = M extends Map<infer K, infer V> ? [K, V][] : never;

export const accountDecider: Decider<AccountCommand, AccountState, AccountEvent> = {
  initialState: { exists: false, users: new Map(), keys: new Map(), settings: DEFAULT_SETTINGS },
  // evolve copies its maps for every change, so the map entries may be shared with the snapshot
  snapshot: {
    kind: 'account',
    version: 1,
    every: 100,
    encode: (state) => ({ ...state, users: [...state.users], keys: [...state.keys] }),
    decode: (value) => {
      const v = value as Omit<AccountState, 'users' | 'keys'> & { users: Entries<AccountState['users']>; keys: Entries<AccountState['keys']> };
      return { ...v, users: new Map(v.users), keys: new Map(v.keys) };
    },
  },

  evolve(state, event) {
    switch (event.type) {
      case 'AccountCreated':
        return { ...state, exists: true, accountId: event.data.account_id };
      case 'UserAdded': {
        const users = new Map(state.users);
        users.set(event.data.user_id, { email: event.data.email, role: event.data.role });
        return { ...state, users };
      }
      case 'ApiKeyIssued': {
        const keys = new Map(state.keys);
        keys.set(event.data.key_id, { scopes: event.data.scopes, name: event.data.name, revoked: false });
        return { ...state, keys };
      }
      case 'ApiKeyExpirySet': {
        const keys = new Map(state.keys);
        const k = keys.get(event.data.key_id);
        if (k) keys.set(event.data.key_id, { ...k, expiresAt: event.data.expires_at });
        return { ...state, keys };
      }
      case 'ApiKeyRevoked': {
        const keys = new Map(state.keys);
        const k = keys.get(event.data.key_id);
        if (k) keys.set(event.data.key_id, { ...k, revoked: true });
        return { ...state, keys };
      }
      case 'WebhookSecretIssued':
        return { ...state, webhookSecretSealed: event.data.secret_sealed };
      case 'AccountSettingsChanged':
        return {
          ...state,
          settings: { default_country: event.data.default_country, timezone: event.data.timezone, template_variables: event.data.template_variables ?? DEFAULT_SETTINGS.template_variables },
        };
    }
  },

  decide(command, state) {
    const at = command.now.toISOString();
    if (command.type === 'CreateAccount') {
      if (state.exists) throw conflict('account already exists');
      return [{ type: 'AccountCreated', data: { account_id: command.accountId, name: command.name, created_at: at } }];
    }
    if (!state.exists || !state.accountId) throw notFound('account');
    const account_id = state.accountId;
    switch (command.type) {
      case 'AddUser':
        return [
          {
            type: 'UserAdded',
            data: { account_id, user_id: command.userId, email: command.email, role: command.role, created_at: at },
          },
        ];
      case 'IssueApiKey':
        return [
          {
            type: 'ApiKeyIssued',
            data: { account_id, key_id: command.keyId, prefix: command.prefix, name: command.name, scopes: command.scopes, created_at: at },
          },
        ];
      case 'RotateApiKey': {
        const old = state.keys.get(command.oldKeyId);
        if (!old || old.revoked) throw notFound('api key');
        if (old.expiresAt && Date.parse(old.expiresAt) <= command.now.getTime()) throw new AppError(409, 'conflict', 'this key has expired and cannot be rotated');
        const expires = new Date(command.now.getTime() + command.graceMs).toISOString();
        const earlier = old.expiresAt && old.expiresAt < expires ? old.expiresAt : expires;
        return [
          {
            type: 'ApiKeyIssued',
            data: { account_id, key_id: command.keyId, prefix: command.prefix, name: old.name, scopes: old.scopes, created_at: at, replaces: command.oldKeyId },
          },
          { type: 'ApiKeyExpirySet', data: { account_id, key_id: command.oldKeyId, expires_at: earlier, reason: 'rotated' } },
        ];
      }
      case 'IssueWebhookSecret':
        if (state.webhookSecretSealed !== undefined && !command.rotate) return [];
        return [{ type: 'WebhookSecretIssued', data: { account_id, secret_sealed: command.secretSealed, issued_at: at, rotated: command.rotate } }];
      case 'RevokeApiKey': {
        const k = state.keys.get(command.keyId);
        if (!k) throw notFound('api key');
        if (k.revoked) return [];
        return [{ type: 'ApiKeyRevoked', data: { account_id, key_id: command.keyId, revoked_at: at } }];
      }
      case 'SetAccountSettings': {
        const next: AccountSettings = {
          default_country: command.defaultCountry === undefined ? state.settings.default_country : command.defaultCountry,
          timezone: command.timezone === undefined ? state.settings.timezone : command.timezone,
          template_variables: command.templateVariables ?? state.settings.template_variables,
        };
        const now = state.settings;
        if (next.default_country === now.default_country && next.timezone === now.timezone && next.template_variables === now.template_variables) return [];
        return [{ type: 'AccountSettingsChanged', data: { account_id, ...next, changed_at: at } }];
      }
    }
  },
};

export const accountStream = (accountId: string) => `account-${accountId}`;
export const ACCOUNT_EVENT_TYPES = ['AccountCreated', 'UserAdded', 'ApiKeyIssued', 'ApiKeyExpirySet', 'ApiKeyRevoked', 'WebhookSecretIssued', 'AccountSettingsChanged'] as const;
