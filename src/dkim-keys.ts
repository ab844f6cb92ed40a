// DKIM_KEYS: the signing keys of From domains, given inline as JSON or as a path to a JSON file.
// Parsed once, when the configuration loads (src/config.ts), so a bad key stops the start.
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export interface DkimKey {
  selector: string;
  /** PEM (PKCS#1 or PKCS#8) */
  privateKey: string;
}

const DkimKeysSchema = z.record(
  z.string().min(1),
  z.strictObject({
    selector: z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62})$/, 'a DNS label such as s1 or 2026a'),
    privateKey: z.string().min(1),
  }),
);

/**
 * Reads DKIM_KEYS: a JSON object {"example.com": {"selector": "s1", "privateKey": "-----BEGIN …"}},
 * inline or in a file whose path is given. Every key is parsed now, so a bad one stops the start
 * instead of failing sends. Error messages never quote the value (it holds private keys).
 */
export function parseDkimKeys(value: string | undefined): Map<string, DkimKey> {
  const keys = new Map<string, DkimKey>();
  if (value === undefined || value.trim() === '') return keys;
  let text = value.trim();
  if (!text.startsWith('{')) {
    try {
      text = readFileSync(text, 'utf8');
    } catch (err) {
      throw new Error(`DKIM_KEYS: cannot read the key file ${value.trim()}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('DKIM_KEYS: not valid JSON (expected {"<domain>": {"selector": "…", "privateKey": "<PEM>"}})');
  }
  const parsed = DkimKeysSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`DKIM_KEYS: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  for (const [domain, key] of Object.entries(parsed.data)) {
    try {
      createPrivateKey(key.privateKey);
    } catch {
      throw new Error(`DKIM_KEYS: the privateKey of ${domain} is not a PEM private key`);
    }
    keys.set(domain.trim().toLowerCase().replace(/\.$/, ''), key);
  }
  return keys;
}
