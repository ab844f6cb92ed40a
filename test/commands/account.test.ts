// The account decider's rules (commands/account.ts): creating an account, its users, issuing,
// rotating (with a grace window) and revoking API keys, the delivery-webhook signing secret, and the
// account's settings (default country, time zone).
import { describe, it } from 'vitest';
import { accountDecider, type AccountEvent } from '../../commands/account.ts';
import { AppError } from '../../src/errors.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(accountDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const MINUTE = 60_000;
/** the instant `minutes` after T0; commands carry their time */
const at = (minutes: number) => new Date(T0 + minutes * MINUTE);
const iso = (minutes: number) => at(minutes).toISOString();

const account_id = 'acct_1';
const created: AccountEvent = { type: 'AccountCreated', data: { account_id, name: 'Acme', created_at: iso(0) } };
const keyIssued = (key_id: string, minutes = 1, extra: { replaces?: string; name?: string | null; scopes?: ('read' | 'write' | 'settings')[] | null } = {}): AccountEvent => ({
  type: 'ApiKeyIssued',
  data: { account_id, key_id, prefix: `pk_${key_id}`, name: extra.name === undefined ? 'ci' : extra.name, scopes: extra.scopes === undefined ? ['read'] : extra.scopes, created_at: iso(minutes), ...(extra.replaces ? { replaces: extra.replaces } : {}) },
});
const expirySet = (key_id: string, expiresMinutes: number): AccountEvent => ({
  type: 'ApiKeyExpirySet',
  data: { account_id, key_id, expires_at: iso(expiresMinutes), reason: 'rotated' },
});
const revoked = (key_id: string, minutes: number): AccountEvent => ({ type: 'ApiKeyRevoked', data: { account_id, key_id, revoked_at: iso(minutes) } });
const secretIssued = (minutes: number, rotated: boolean, sealed = 'sealed-1'): AccountEvent => ({
  type: 'WebhookSecretIssued',
  data: { account_id, secret_sealed: sealed, issued_at: iso(minutes), rotated },
});
const settingsChanged = (minutes: number, default_country: string | null, timezone: string | null, template_variables: 'strict' | 'lenient' = 'lenient'): AccountEvent => ({
  type: 'AccountSettingsChanged',
  data: { account_id, default_country, timezone, template_variables, changed_at: iso(minutes) },
});
const GRACE_MINUTES = 60;
const rotate = (oldKeyId: string, keyId: string, minutes: number) => ({
  type: 'RotateApiKey' as const,
  oldKeyId,
  keyId,
  prefix: `pk_${keyId}`,
  graceMs: GRACE_MINUTES * MINUTE,
  now: at(minutes),
});

describe('creating an account', () => {
  it('an account is created with its name', () => {
    given([]).when({ type: 'CreateAccount', accountId: account_id, name: 'Acme', now: at(0) }).then([created]);
  });

  it('an account is created only once', () => {
    given([created]).when({ type: 'CreateAccount', accountId: account_id, name: 'Acme again', now: at(1) }).thenThrows(domainError('conflict', 409));
  });

  it('nothing can be done to an account that does not exist', () => {
    given([]).when({ type: 'AddUser', userId: 'usr_1', email: 'a@example.com', role: 'owner', now: at(1) }).thenThrows(domainError('not_found', 404));
    given([]).when({ type: 'IssueApiKey', keyId: 'k1', prefix: 'pk_k1', name: null, scopes: null, now: at(1) }).thenThrows(domainError('not_found', 404));
    given([]).when({ type: 'IssueWebhookSecret', secretSealed: 's', rotate: false, now: at(1) }).thenThrows(domainError('not_found', 404));
    given([]).when({ type: 'SetAccountSettings', defaultCountry: 'FR', now: at(1) }).thenThrows(domainError('not_found', 404));
  });
});

describe('users', () => {
  it('a user is added with an email and a role, and no credential material in the event', () => {
    given([created])
      .when({ type: 'AddUser', userId: 'usr_1', email: 'a@example.com', role: 'admin', now: at(1) })
      .then([{ type: 'UserAdded', data: { account_id, user_id: 'usr_1', email: 'a@example.com', role: 'admin', created_at: iso(1) } }]);
  });
});

describe('issuing and revoking API keys', () => {
  it('a key is issued with its prefix, name and scopes, and no key hash in the event', () => {
    given([created]).when({ type: 'IssueApiKey', keyId: 'k1', prefix: 'pk_k1', name: 'ci', scopes: ['read'], now: at(1) }).then([keyIssued('k1')]);
  });

  it('a key without scopes (full access) and without a name is issued as such', () => {
    given([created])
      .when({ type: 'IssueApiKey', keyId: 'k1', prefix: 'pk_k1', name: null, scopes: null, now: at(1) })
      .then([{ type: 'ApiKeyIssued', data: { account_id, key_id: 'k1', prefix: 'pk_k1', name: null, scopes: null, created_at: iso(1) } }]);
  });

  it('a key is revoked', () => {
    given([created, keyIssued('k1')]).when({ type: 'RevokeApiKey', keyId: 'k1', now: at(5) }).then([revoked('k1', 5)]);
  });

  it('revoking a revoked key again changes nothing', () => {
    given([created, keyIssued('k1'), revoked('k1', 5)]).when({ type: 'RevokeApiKey', keyId: 'k1', now: at(6) }).thenNothingHappened();
  });

  it('revoking an unknown key is a 404', () => {
    given([created, keyIssued('k1')]).when({ type: 'RevokeApiKey', keyId: 'k2', now: at(5) }).thenThrows(domainError('not_found', 404));
  });

  it('a key past its rotation expiry can still be revoked', () => {
    given([created, keyIssued('k1'), keyIssued('k2', 10, { replaces: 'k1' }), expirySet('k1', 70)])
      .when({ type: 'RevokeApiKey', keyId: 'k1', now: at(100) })
      .then([revoked('k1', 100)]);
  });
});

describe('rotating an API key', () => {
  it('rotation issues a new key with the old name and scopes, and the old key expires after the grace window', () => {
    given([created, keyIssued('k1', 1, { name: 'deploy', scopes: ['read', 'write'] })])
      .when(rotate('k1', 'k2', 10))
      .then([keyIssued('k2', 10, { name: 'deploy', scopes: ['read', 'write'], replaces: 'k1' }), expirySet('k1', 10 + GRACE_MINUTES)]);
  });

  it('rotating a key again within its grace window never extends that window', () => {
    given([created, keyIssued('k1'), keyIssued('k2', 10, { replaces: 'k1' }), expirySet('k1', 70)])
      .when(rotate('k1', 'k3', 30))
      .then([keyIssued('k3', 30, { replaces: 'k1' }), expirySet('k1', 70)]);
  });

  it('a grace window shorter than the remaining one brings the expiry forward', () => {
    given([created, keyIssued('k1'), keyIssued('k2', 10, { replaces: 'k1' }), expirySet('k1', 70)])
      .when({ ...rotate('k1', 'k3', 30), graceMs: 0 })
      .then([keyIssued('k3', 30, { replaces: 'k1' }), expirySet('k1', 30)]);
  });

  it('an expired key cannot be rotated, from the instant it expires', () => {
    const history = [created, keyIssued('k1'), keyIssued('k2', 10, { replaces: 'k1' }), expirySet('k1', 70)];
    given(history)
      .when(rotate('k1', 'k3', 70))
      .thenThrows(AppError, (e) => e.statusCode === 409 && e.code === 'conflict' && /expired/.test(e.message));
    given(history).when(rotate('k1', 'k3', 69)).then([keyIssued('k3', 69, { replaces: 'k1' }), expirySet('k1', 70)]);
  });

  it('a revoked or unknown key cannot be rotated', () => {
    given([created, keyIssued('k1'), revoked('k1', 5)]).when(rotate('k1', 'k2', 10)).thenThrows(domainError('not_found', 404));
    given([created]).when(rotate('k1', 'k2', 10)).thenThrows(domainError('not_found', 404));
  });
});

describe('events written before credentials left the log', () => {
  it('a key issued with its hash in the event (legacy) is rotated like any other, and the new key carries no hash', () => {
    const legacy: AccountEvent = { type: 'ApiKeyIssued', data: { account_id, key_id: 'k1', key_hash: 'argon2…', prefix: 'pk_k1', name: 'ci', scopes: ['read'], created_at: iso(1) } };
    given([created, legacy]).when(rotate('k1', 'k2', 10)).then([keyIssued('k2', 10, { replaces: 'k1' }), expirySet('k1', 10 + GRACE_MINUTES)]);
  });
});

describe('the delivery-webhook signing secret', () => {
  it('the first secret is issued sealed', () => {
    given([created]).when({ type: 'IssueWebhookSecret', secretSealed: 'sealed-1', rotate: false, now: at(1) }).then([secretIssued(1, false)]);
  });

  it('asking for a secret when there is one keeps the one there is', () => {
    given([created, secretIssued(1, false)]).when({ type: 'IssueWebhookSecret', secretSealed: 'sealed-2', rotate: false, now: at(2) }).thenNothingHappened();
  });

  it('rotating replaces the secret', () => {
    given([created, secretIssued(1, false)])
      .when({ type: 'IssueWebhookSecret', secretSealed: 'sealed-2', rotate: true, now: at(2) })
      .then([secretIssued(2, true, 'sealed-2')]);
  });

  it('rotating when there is no secret yet issues one, marked as a rotation', () => {
    given([created]).when({ type: 'IssueWebhookSecret', secretSealed: 'sealed-1', rotate: true, now: at(1) }).then([secretIssued(1, true)]);
  });
});

describe('account settings', () => {
  it('setting the default country records both settings, the time zone still unset', () => {
    given([created]).when({ type: 'SetAccountSettings', defaultCountry: 'FR', now: at(1) }).then([settingsChanged(1, 'FR', null)]);
  });

  it('a setting left out keeps its value; the event carries the whole result', () => {
    given([created, settingsChanged(1, 'FR', null)])
      .when({ type: 'SetAccountSettings', timezone: 'Europe/Paris', now: at(2) })
      .then([settingsChanged(2, 'FR', 'Europe/Paris')]);
  });

  it('null clears a setting', () => {
    given([created, settingsChanged(1, 'FR', 'Europe/Paris')])
      .when({ type: 'SetAccountSettings', defaultCountry: null, now: at(2) })
      .then([settingsChanged(2, null, 'Europe/Paris')]);
  });

  it('both settings change in one event', () => {
    given([created, settingsChanged(1, 'FR', 'Europe/Paris')])
      .when({ type: 'SetAccountSettings', defaultCountry: 'DE', timezone: null, now: at(2) })
      .then([settingsChanged(2, 'DE', null)]);
  });

  it('the same values again change nothing', () => {
    given([created, settingsChanged(1, 'FR', 'Europe/Paris')])
      .when({ type: 'SetAccountSettings', defaultCountry: 'FR', timezone: 'Europe/Paris', now: at(2) })
      .thenNothingHappened();
    given([created]).when({ type: 'SetAccountSettings', defaultCountry: null, timezone: null, now: at(1) }).thenNothingHappened();
    given([created, settingsChanged(1, 'FR', null)]).when({ type: 'SetAccountSettings', now: at(2) }).thenNothingHappened();
  });

  it('template variables are lenient until made strict, and kept when another setting changes', () => {
    given([created]).when({ type: 'SetAccountSettings', templateVariables: 'lenient', now: at(1) }).thenNothingHappened();
    given([created]).when({ type: 'SetAccountSettings', templateVariables: 'strict', now: at(1) }).then([settingsChanged(1, null, null, 'strict')]);
    given([created, settingsChanged(1, null, null, 'strict')])
      .when({ type: 'SetAccountSettings', defaultCountry: 'FR', now: at(2) })
      .then([settingsChanged(2, 'FR', null, 'strict')]);
  });

  it('an event written before template variables existed leaves them lenient', () => {
    const older: AccountEvent = { type: 'AccountSettingsChanged', data: { account_id, default_country: 'FR', timezone: null, changed_at: iso(1) } };
    given([created, older]).when({ type: 'SetAccountSettings', templateVariables: 'lenient', defaultCountry: 'FR', now: at(2) }).thenNothingHappened();
    given([created, older]).when({ type: 'SetAccountSettings', templateVariables: 'strict', now: at(2) }).then([settingsChanged(2, 'FR', null, 'strict')]);
  });
});
