// Prefixed ULIDs, the public ids of every resource (README "API conventions").
import { createHash, randomFillSync } from 'node:crypto';
import { encodeTime, monotonicFactory, ulid } from 'ulid';

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
  bulk: 'blk',
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
  campaign: 'cmp',
  inboundMessage: 'inb',
  webhookReplay: 'rpl',
  template: 'tpl',
  device: 'dev',
  form: 'frm',
  formSubmission: 'fsub',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${next()}`;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const digestOf = (parts: readonly string[]) => createHash('sha256').update(parts.join('\u0000')).digest();

/**
 * An id that `parts` determine (the same parts always give the same id), with the time `at` in its
 * ULID: what a write that may be repeated after a crash names its new streams with, so that the
 * repeat finds them where the first attempt wrote them.
 */
export function derivedId(kind: IdKind, at: Date, ...parts: string[]): string {
  const digest = digestOf([kind, ...parts]);
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[digest[i] & 31];
  return `${ID_PREFIXES[kind]}_${encodeTime(at.getTime(), 10)}${random}`;
}

/** A UUID that `parts` determine (RFC 9562 version 8 layout): an event id that a repeated write repeats. */
export function derivedUuid(...parts: string[]): string {
  const b = digestOf(parts).subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x80;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** True when `id` is a well-formed id of that kind (anything else can only be a 404). */
export function isId(kind: IdKind, id: string): boolean {
  const prefix = `${ID_PREFIXES[kind]}_`;
  return id.startsWith(prefix) && ULID_RE.test(id.slice(prefix.length));
}
