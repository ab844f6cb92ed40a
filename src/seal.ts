// Values sealed (AES-256-GCM) with a service key kept in service_secrets: webhook signing secrets in
// events, so the audit trail (`engage streams show`) never shows them in clear, and the responses the
// idempotency plugin keeps for replay (they may carry a new API key or signing secret). The key's
// name, webhook_seal, is where it was first used; values sealed under it stay readable. A bulk's
// intake (src/messages/bulk-intake.ts) is sealed under a key of its own, bulk_intake_seal.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { storedSecret } from './service-secrets.ts';

/** The key seal and unseal use (its name is where it was first used). */
const WEBHOOK_SEAL = 'webhook_seal';

async function sealKey(pool: pg.Pool, name: string): Promise<Buffer> {
  // base64 of 32 random bytes when this key was first made here; base64url from serviceSecret now:
  // Node's base64 decoder reads both
  return Buffer.from(await storedSecret(pool, name), 'base64');
}

/** Bytes sealed under the service key `keyName` (made on first use): the IV, the tag, then the body. */
export async function sealBytes(pool: pg.Pool, keyName: string, plain: Buffer): Promise<Buffer> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await sealKey(pool, keyName), iv);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** The bytes sealBytes sealed under `keyName` (throws when they were changed). */
export async function unsealBytes(pool: pg.Pool, keyName: string, sealed: Buffer): Promise<Buffer> {
  const decipher = createDecipheriv('aes-256-gcm', await sealKey(pool, keyName), sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
}

export async function seal(pool: pg.Pool, secret: string): Promise<string> {
  return `sealed:v1:${(await sealBytes(pool, WEBHOOK_SEAL, Buffer.from(secret, 'utf8'))).toString('base64')}`;
}

export async function unseal(pool: pg.Pool, sealed: string): Promise<string> {
  if (!sealed.startsWith('sealed:v1:')) throw new Error('not a sealed secret');
  return (await unsealBytes(pool, WEBHOOK_SEAL, Buffer.from(sealed.slice(10), 'base64'))).toString('utf8');
}
