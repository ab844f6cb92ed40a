// The keyed hash of a recipient address: HMAC-SHA256 under a service secret, so an address can be
// recognised (a suppression kept after erasure, the data key of an address, a suppression stream's
// name) without being stored, and cannot be recovered from the hash by trying likely addresses
// without that secret.
import { createHmac, createSecretKey } from 'node:crypto';
import type pg from 'pg';
import { storedSecret } from '../service-secrets.ts';

type Queryable = Pick<pg.Pool, 'query'>;

/** Addresses as compared: emails case-insensitively, phone numbers and device tokens as given (E.164 already). */
export const normaliseAddress = (address: string) => (address.includes('@') ? address.trim().toLowerCase() : address.trim());

/** A hasher bound to this deployment's secret (read once per pool; it never changes). */
export async function addressHasher(pool: Queryable): Promise<(address: string) => string> {
  // the secret's UTF-8 bytes as a key object made once: the same HMAC, without encoding the key
  // again for every address of a bulk
  const key = createSecretKey(Buffer.from(await storedSecret(pool, 'address_hash'), 'utf8'));
  return (address) => createHmac('sha256', key).update(normaliseAddress(address), 'utf8').digest('base64url');
}
