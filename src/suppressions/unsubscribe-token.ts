// The token of a one-click unsubscribe link (README "Suppressions and unsubscribes"): it names the
// account and the message (never the address), is signed with a service secret so it cannot be
// forged or altered, and does not expire: marketing mail is read weeks late.
//
//   u1.<base64url(account ULID ‖ message ULID, 16 bytes each)>.<base64url(HMAC-SHA256(secret, "u1.<payload>"))>
//
// 90 characters: the ids go as bytes, as the router takes path segments of at most 100 characters.
// "u1" is the version: a later format gets another prefix and this one keeps verifying.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { ID_PREFIXES, isId } from '../ids.ts';
import { storedSecret } from '../service-secrets.ts';

const VERSION = 'u1';
const SECRET_NAME = 'unsubscribe_token';
/** HMAC-SHA256 is 32 bytes */
const MAC_BYTES = 32;
const ULID_BYTES = 16;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export interface UnsubscribeTarget {
  accountId: string;
  messageId: string;
}

/** A ULID's 128 bits (26 Crockford base-32 digits, the first at most 7). */
function ulidToBytes(ulid: string): Buffer {
  let n = 0n;
  for (const c of ulid) n = n * 32n + BigInt(CROCKFORD.indexOf(c));
  if (n >> 128n) throw new Error('not a ULID');
  return Buffer.from(n.toString(16).padStart(ULID_BYTES * 2, '0'), 'hex');
}

function ulidFromBytes(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let s = '';
  for (let i = 0; i < 26; i++, n >>= 5n) s = CROCKFORD[Number(n & 31n)] + s;
  return s;
}

const ulidOf = (kind: 'account' | 'message', id: string) => {
  if (!isId(kind, id)) throw new Error(`not a ${kind} id`);
  return ulidToBytes(id.slice(ID_PREFIXES[kind].length + 1));
};

const mac = (key: string, signed: string) => createHmac('sha256', key).update(signed, 'utf8').digest();

/** Signs and reads unsubscribe tokens with this deployment's secret (generated once, kept in service_secrets). */
export class UnsubscribeTokens {
  private constructor(private readonly key: string) {}

  static async of(db: Pick<pg.Pool, 'query'>): Promise<UnsubscribeTokens> {
    return new UnsubscribeTokens(await storedSecret(db, SECRET_NAME));
  }

  sign(target: UnsubscribeTarget): string {
    const payload = Buffer.concat([ulidOf('account', target.accountId), ulidOf('message', target.messageId)]).toString('base64url');
    const signed = `${VERSION}.${payload}`;
    return `${signed}.${mac(this.key, signed).toString('base64url')}`;
  }

  /** The account and message a genuine token names; undefined for anything else (malformed, altered, forged). */
  verify(token: string): UnsubscribeTarget | undefined {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== VERSION) return undefined;
    const [, payload, signature] = parts;
    const given = Buffer.from(signature, 'base64url');
    // a signature of another length cannot match (timingSafeEqual needs equal lengths); one spelled
    // otherwise than we write it (base64url's unused trailing bits) is an altered token
    if (given.length !== MAC_BYTES || given.toString('base64url') !== signature) return undefined;
    // constant time: how much of the signature was right must not show in how long the answer takes
    if (!timingSafeEqual(given, mac(this.key, `${VERSION}.${payload}`))) return undefined;
    const ids = Buffer.from(payload, 'base64url');
    if (ids.length !== 2 * ULID_BYTES) return undefined;
    return {
      accountId: `${ID_PREFIXES.account}_${ulidFromBytes(ids.subarray(0, ULID_BYTES))}`,
      messageId: `${ID_PREFIXES.message}_${ulidFromBytes(ids.subarray(ULID_BYTES))}`,
    };
  }
}
