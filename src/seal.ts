// Values sealed (AES-256-GCM) with a service key kept in service_secrets: webhook signing secrets in
// events, so the audit trail (`engage streams show`) never shows them in clear, and the responses the
// idempotency plugin keeps for replay (they may carry a new API key or signing secret). The key's
// name, webhook_seal, is where it was first used; values sealed under it stay readable.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { storedSecret } from './service-secrets.ts';

async function sealKey(pool: pg.Pool): Promise<Buffer> {
  // base64 of 32 random bytes when this key was first made here; base64url from serviceSecret now:
  // Node's base64 decoder reads both
  return Buffer.from(await storedSecret(pool, 'webhook_seal'), 'base64');
}

export async function seal(pool: pg.Pool, secret: string): Promise<string> {
  const key = await sealKey(pool);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `sealed:v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

export async function unseal(pool: pg.Pool, sealed: string): Promise<string> {
  if (!sealed.startsWith('sealed:v1:')) throw new Error('not a sealed secret');
  const raw = Buffer.from(sealed.slice(10), 'base64');
  const key = await sealKey(pool);
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
