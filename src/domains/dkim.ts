// DKIM keys of email domains: a new key pair per domain (RSA-2048, or Ed25519 per RFC 8463), its
// selector, and the p= value of the TXT record that publishes the public half (RFC 6376 §3.6.1).
import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { DkimAlgorithm } from '../../commands/email-domain.ts';

const generate = promisify(generateKeyPair);

export const DKIM_ALGORITHMS = ['rsa-sha256', 'ed25519-sha256'] as const satisfies readonly DkimAlgorithm[];

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo: the raw 32-byte key follows it. */
const ED25519_SPKI_PREFIX = 12;

export interface NewDkimKey {
  selector: string;
  algorithm: DkimAlgorithm;
  publicKey: string;
  privateKeyPem: string;
}

/**
 * A fresh selector: dated, so a rotation is visible in DNS, and with a random part, so two accounts
 * adding the same domain never publish under the same name.
 */
export function newSelector(now: Date): string {
  const month = now.toISOString().slice(0, 7).replace('-', '');
  return `engage${month}-${randomBytes(4).toString('hex')}`;
}

export async function newDkimKey(algorithm: DkimAlgorithm, now: Date): Promise<NewDkimKey> {
  const selector = newSelector(now);
  if (algorithm === 'ed25519-sha256') {
    const { publicKey, privateKey } = await generate('ed25519');
    const spki = publicKey.export({ type: 'spki', format: 'der' });
    // RFC 8463 §4.2: p= is the bare 32-byte public key, not an SPKI structure
    return { selector, algorithm, publicKey: spki.subarray(ED25519_SPKI_PREFIX).toString('base64'), privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
  }
  const { publicKey, privateKey } = await generate('rsa', { modulusLength: 2048 });
  return { selector, algorithm, publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** The DKIM TXT record's value for a public key. */
export const dkimRecordValue = (algorithm: DkimAlgorithm | string, publicKey: string) =>
  `v=DKIM1; k=${algorithm === 'ed25519-sha256' ? 'ed25519' : 'rsa'}; p=${publicKey}`;

/** RFC 6376 §3.2 tag=value list, whitespace removed from values (enough to compare p= and k=). */
export function dkimTags(value: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of value.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    tags.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).replace(/\s+/g, ''));
  }
  return tags;
}
