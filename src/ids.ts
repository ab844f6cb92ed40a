// Prefixed ULIDs, the public ids of every resource (README "API conventions").
import { randomFillSync } from 'node:crypto';
import { monotonicFactory, ulid } from 'ulid';

// ulid's default PRNG asks the OS for randomness 16 times per id; ids are not secrets, so draw
// from a pooled buffer of crypto-random bytes instead
const pool = new Uint8Array(4096);
let at = pool.length;
export function pooledRandom(): number {
  if (at === pool.length) {
    randomFillSync(pool);
    at = 0;
  }
  return pool[at++] / 256;
}

const next = monotonicFactory(pooledRandom);

/** A plain ULID (request ids). */
export const newUlid = () => ulid(undefined, pooledRandom);

export const ID_PREFIXES = {
  account: 'acct',
  key: 'key',
  user: 'usr',
  message: 'msg',
  contact: 'ct',
  field: 'fld',
  list: 'lst',
  segment: 'seg',
  webhookEndpoint: 'we',
  delivery: 'whd',
  domain: 'dom',
  linkDomain: 'ldom',
  sender: 'snd',
  conversation: 'conv',
  integration: 'int',
  import: 'imp',
  dataKey: 'dk',
  erasure: 'er',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${next()}`;
}

const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** True when `id` is a well-formed id of that kind (anything else can only be a 404). */
export function isId(kind: IdKind, id: string): boolean {
  const prefix = `${ID_PREFIXES[kind]}_`;
  return id.startsWith(prefix) && ULID_RE.test(id.slice(prefix.length));
}
