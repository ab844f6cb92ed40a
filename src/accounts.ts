// Account, user and API key operations shared by the HTTP routes, the CLI and first start.
import { createHash, randomBytes } from 'node:crypto';
import { accountDecider, accountStream, type Role, type Scope } from '../commands/account.ts';
import { claim, release } from './claims.ts';
import type { Engage } from './context.ts';
import { handleCommand } from './decider.ts';
import { storeCredential } from './credentials.ts';
import { conflict, notFound } from './errors.ts';
import type { EventMetadata, Position } from './eventstore/port.ts';
import { newId } from './ids.ts';
import { hashPassword } from './passwords.ts';

export const KEY_ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateApiKey(): { key: string; hash: string; prefix: string } {
  const key = `ek_live_${randomBytes(24).toString('base64url')}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, 12) };
}

const USER_EMAIL = { accountId: '*', kind: 'user_email' };

export interface CreatedAccount {
  account_id: string;
  user_id: string;
  api_key: string;
  key_id: string;
  position: Position;
}

/** Creates an account with its owner user and a first full-access API key. */
export async function createAccount(
  engage: Engage,
  input: { name: string; email: string; password: string },
  metadata: EventMetadata = { actor: 'system' },
): Promise<CreatedAccount> {
  const accountId = newId('account');
  const userId = newId('user');
  const email = input.email.trim().toLowerCase();
  const holder = await claim(engage.pool, USER_EMAIL, email, userId, async (owner) => {
    const { rows } = await engage.pool.query('SELECT 1 FROM users WHERE id = $1', [owner]);
    if (rows.length > 0) return true;
    // not in the read model (yet): the owner's account may still be being created, or not projected
    // yet; only a claim older than that is stale, else concurrent sign-ups could share one email
    const fresh = await engage.pool.query(
      `SELECT 1 FROM unique_claims WHERE account_id = $1 AND kind = $2 AND value = $3 AND owner_id = $4 AND created_at > now() - interval '60 seconds'`,
      [USER_EMAIL.accountId, USER_EMAIL.kind, email, owner],
    );
    return fresh.rows.length > 0;
  });
  if (holder) throw conflict('a user with this email already exists');
  try {
    const now = engage.clock.now();
    const meta = { ...metadata, accountId };
    await handleCommand(engage.store, accountDecider, accountStream(accountId), { type: 'CreateAccount', accountId, name: input.name, now }, meta);
    // the credential row first, then the event (src/credentials.ts says why). A failed append leaves
    // the row in place: an append can fail after it committed (the reply was lost), and deleting the
    // row then would lock the user out for good; an orphan row is inert.
    await storeCredential(engage.pool, 'password', userId, accountId, await hashPassword(input.password));
    await handleCommand(
      engage.store,
      accountDecider,
      accountStream(accountId),
      { type: 'AddUser', userId, email, role: 'owner' as Role, now },
      { ...meta, actor: metadata.actor ?? userId },
    );
    const issued = await issueApiKey(engage, accountId, { name: 'default', scopes: null }, meta);
    return { account_id: accountId, user_id: userId, api_key: issued.key, key_id: issued.key_id, position: issued.position };
  } catch (err) {
    await release(engage.pool, USER_EMAIL, email, userId);
    throw err;
  }
}

/** Adds a dashboard user with a role to an existing account (the email is unique across accounts). */
export async function addUser(
  engage: Engage,
  accountId: string,
  input: { email: string; password: string; role: Role },
  metadata: EventMetadata,
): Promise<{ user_id: string; position: Position }> {
  const userId = newId('user');
  const email = input.email.trim().toLowerCase();
  const holder = await claim(engage.pool, USER_EMAIL, email, userId, async (owner) => {
    const { rows } = await engage.pool.query('SELECT 1 FROM users WHERE id = $1', [owner]);
    return rows.length > 0;
  });
  if (holder) throw conflict('a user with this email already exists');
  try {
    await storeCredential(engage.pool, 'password', userId, accountId, await hashPassword(input.password));
    const result = await handleCommand(
      engage.store,
      accountDecider,
      accountStream(accountId),
      { type: 'AddUser', userId, email, role: input.role, now: engage.clock.now() },
      { ...metadata, accountId },
    );
    return { user_id: userId, position: result.position! };
  } catch (err) {
    await release(engage.pool, USER_EMAIL, email, userId);
    throw err;
  }
}

export async function issueApiKey(
  engage: Engage,
  accountId: string,
  input: { name: string | null; scopes: Scope[] | null },
  metadata: EventMetadata,
): Promise<{ key: string; key_id: string; position: Position }> {
  const { key, hash, prefix } = generateApiKey();
  const keyId = newId('key');
  await storeCredential(engage.pool, 'api_key', keyId, accountId, hash);
  const result = await handleCommand(
    engage.store,
    accountDecider,
    accountStream(accountId),
    { type: 'IssueApiKey', keyId, prefix, name: input.name, scopes: input.scopes, now: engage.clock.now() },
    { ...metadata, accountId },
  );
  return { key, key_id: keyId, position: result.position! };
}

/** Issues a replacement key; the old one keeps working for the grace window. */
export async function rotateApiKey(
  engage: Engage,
  accountId: string,
  oldKeyId: string,
  metadata: EventMetadata,
): Promise<{ key: string; key_id: string; old_key_expires_at: string; position: Position }> {
  const { key, hash, prefix } = generateApiKey();
  const keyId = newId('key');
  await storeCredential(engage.pool, 'api_key', keyId, accountId, hash);
  const result = await handleCommand(
    engage.store,
    accountDecider,
    accountStream(accountId),
    { type: 'RotateApiKey', oldKeyId, keyId, prefix, graceMs: KEY_ROTATION_GRACE_MS, now: engage.clock.now() },
    { ...metadata, accountId },
  );
  const expiry = result.events.find((e) => e.type === 'ApiKeyExpirySet');
  if (!expiry || expiry.type !== 'ApiKeyExpirySet') throw notFound('api key');
  return { key, key_id: keyId, old_key_expires_at: expiry.data.expires_at, position: result.position! };
}

/** The account a key belongs to, from the event store (for the CLI, which may run with no read model caught up). */
export async function accountOfKey(engage: Engage, keyId: string): Promise<string | undefined> {
  const { rows } = await engage.pool.query<{ account_id: string }>('SELECT account_id FROM api_keys WHERE id = $1', [keyId]);
  return rows[0]?.account_id;
}
