// Dashboard passwords: scrypt (memory-hard KDF, built into Node) with a per-password salt. The hash
// carries its parameters (scrypt$N$r$p$salt$key), so the cost can rise and older hashes still verify
// (and are rehashed on the next successful login: passwordNeedsRehash).
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { Logger } from 'pino';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** OWASP's minimum for scrypt: N = 2^17, r = 8, p = 1 (128 MiB and a few hundred ms per hash). */
export const PASSWORD_PARAMS: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };

/** The parameters new hashes get where PASSWORD_SCRYPT_N sets the cost (README "Security notes"). */
export const passwordParams = (N: number): ScryptParams => ({ ...PASSWORD_PARAMS, N });

/** Logs a warning at start when PASSWORD_SCRYPT_N is below OWASP's minimum: the hashes it makes are cheap to guess against. */
export function warnWhenPasswordsCheap(N: number, log: Pick<Logger, 'warn'>): void {
  if (N >= PASSWORD_PARAMS.N) return;
  log.warn({ password_scrypt_n: N }, `PASSWORD_SCRYPT_N is ${N}, below OWASP's minimum of ${PASSWORD_PARAMS.N}: new dashboard passwords are hashed cheaply; unset it anywhere real passwords are kept`);
}

const KEYLEN = 32;
/** twice what the largest parameters we accept need (128 · N · r bytes) */
const MAX_N = 2 ** 20;
const MAX_R = 16;
const maxmem = (params: ScryptParams) => 2 * 128 * params.N * params.r + 1024 * 1024;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, KEYLEN, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string, params: ScryptParams = PASSWORD_PARAMS): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, { ...params, maxmem: maxmem(params) });
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

function parse(stored: string): (ScryptParams & { salt: string; key: string }) | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [, N, r, p, salt, key] = parts;
  const params = { N: Number(N), r: Number(r), p: Number(p) };
  const ok = Number.isInteger(params.N) && params.N > 1 && params.N <= MAX_N && Number.isInteger(params.r) && params.r >= 1 && params.r <= MAX_R && params.p === 1;
  return ok ? { ...params, salt, key } : undefined;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const h = parse(stored);
  if (!h) return false;
  const expected = Buffer.from(h.key, 'base64');
  const actual = await scrypt(password, Buffer.from(h.salt, 'base64'), { N: h.N, r: h.r, p: h.p, maxmem: maxmem(h) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** true when `stored` was made with a lower cost than new hashes get (`params`): rehash it once the password is known to be right. */
export function passwordNeedsRehash(stored: string, params: ScryptParams = PASSWORD_PARAMS): boolean {
  const h = parse(stored);
  return !h || h.N < params.N || h.r < params.r;
}

/** A hash that verifyPassword can be run against when no user exists, so timing does not reveal that (the cost of new ones, `params`). */
export const dummyHash = (params: ScryptParams = PASSWORD_PARAMS) => `scrypt$${params.N}$${params.r}$${params.p}$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`;
