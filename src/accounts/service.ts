// Account, user and API key operations shared by the HTTP routes, the CLI and first start.
import { createHash, randomBytes } from 'node:crypto';
import { accountDecider, accountStream, type AccountCommand, type Role, type Scope } from '../../commands/account.ts';
import { accountOfApiKey, userExists } from '../../projections/auth.ts';
import { claim, claimIsFresh, release } from '../claims.ts';
import type { Engage } from '../context.ts';
import { handleCommand } from '../command-handler.ts';
import { storeCredential } from '../credentials.ts';
import { conflict, notFound } from '../errors.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { newId } from '../ids.ts';
import { hashPassword, passwordParams } from './passwords.ts';

export const KEY_ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** How every API key begins: how a key sent in the wrong header is recognised (README "API keys and credentials"). */
export const API_KEY_PREFIX = 'ek_live_';

export function generateApiKey(): { key: string; hash: string; prefix: string } {
  const key = `${API_KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
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
    if (await userExists(engage.pool, owner)) return true;
    // not in the read model (yet): the owner's account may still be being created, or not projected
    // yet; only a claim older than that is stale, else concurrent sign-ups could share one email
    return claimIsFresh(engage.pool, USER_EMAIL, email, owner, 60_000);
  });
  if (holder) throw conflict('a user with this email already exists');
  try {
    const now = engage.clock.now();
    const meta = { ...metadata, accountId };
    await handleCommand(engage.store, accountDecider, accountStream(accountId), { type: 'CreateAccount', accountId, name: input.name, now }, meta);
    await appendUser(engage, accountId, { userId, email, password: input.password, role: 'owner', now }, { ...meta, actor: metadata.actor ?? userId });
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
  const holder = await claim(engage.pool, USER_EMAIL, email, userId, (owner) => userExists(engage.pool, owner));
  if (holder) throw conflict('a user with this email already exists');
  try {
    const position = await appendUser(engage, accountId, { userId, email, password: input.password, role: input.role }, { ...metadata, accountId });
    return { user_id: userId, position };
  } catch (err) {
    await release(engage.pool, USER_EMAIL, email, userId);
    throw err;
  }
}

/**
 * Stores a user's password credential, then appends the user (src/credentials.ts says why in that
 * order). A failed append leaves the row in place: an append can fail after it committed (the reply
 * was lost), and deleting the row then would lock the user out for good; an orphan row is inert.
 */
async function appendUser(
  engage: Engage,
  accountId: string,
  /** `now` defaults to the time of the append */
  user: { userId: string; email: string; password: string; role: Role; now?: Date },
  metadata: EventMetadata,
): Promise<Position> {
  await storeCredential(engage.pool, 'password', user.userId, accountId, await hashPassword(user.password, passwordParams(engage.config.PASSWORD_SCRYPT_N)));
  const result = await handleCommand(
    engage.store,
    accountDecider,
    accountStream(accountId),
    { type: 'AddUser', userId: user.userId, email: user.email, role: user.role, now: user.now ?? engage.clock.now() },
    metadata,
  );
  return result.position!;
}

/** Stores a new key's credential, then appends the command that issues it (as appendUser, credential first). */
async function appendNewKey(
  engage: Engage,
  accountId: string,
  command: (key: { keyId: string; prefix: string; now: Date }) => AccountCommand,
  metadata: EventMetadata,
) {
  const { key, hash, prefix } = generateApiKey();
  const keyId = newId('key');
  await storeCredential(engage.pool, 'api_key', keyId, accountId, hash);
  const result = await handleCommand(engage.store, accountDecider, accountStream(accountId), command({ keyId, prefix, now: engage.clock.now() }), { ...metadata, accountId });
  return { key, key_id: keyId, result };
}

export async function issueApiKey(
  engage: Engage,
  accountId: string,
  input: { name: string | null; scopes: Scope[] | null },
  metadata: EventMetadata,
): Promise<{ key: string; key_id: string; position: Position }> {
  const { key, key_id, result } = await appendNewKey(engage, accountId, (k) => ({ type: 'IssueApiKey', ...k, name: input.name, scopes: input.scopes }), metadata);
  return { key, key_id, position: result.position! };
}

/** Issues a replacement key; the old one keeps working for the grace window. */
export async function rotateApiKey(
  engage: Engage,
  accountId: string,
  oldKeyId: string,
  metadata: EventMetadata,
): Promise<{ key: string; key_id: string; old_key_expires_at: string; position: Position }> {
  const { key, key_id, result } = await appendNewKey(engage, accountId, (k) => ({ type: 'RotateApiKey', oldKeyId, ...k, graceMs: KEY_ROTATION_GRACE_MS }), metadata);
  const expiry = result.events.find((e) => e.type === 'ApiKeyExpirySet');
  if (!expiry || expiry.type !== 'ApiKeyExpirySet') throw notFound('api key');
  return { key, key_id, old_key_expires_at: expiry.data.expires_at, position: result.position! };
}

/** The account a key belongs to, from the auth read model. */
export async function accountOfKey(engage: Engage, keyId: string): Promise<string | undefined> {
  return accountOfApiKey(engage.pool, keyId);
}
