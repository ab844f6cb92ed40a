// How personal data sits in an event: the personal fields of its data (named by dotted paths) are
// taken out and sealed together (AES-256-GCM) under their subject's data key; the event keeps
// `personal_data: {key, fields, sealed}` — the key's id, each field's JSON kind (what it reads as
// once erased), and the ciphertext. Opening puts the fields back; when the key is gone they read as
// ERASED (a string field), {} (an object) or [] (a list), and `personal_data.erased` is true.
import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';

/** What an erased text value reads as, everywhere. */
export const ERASED = '[erased]';

type Kind = 'string' | 'object' | 'array' | 'number' | 'boolean';

/** The envelope stored in an event's data. */
export interface SealedPersonalData {
  key: string;
  fields: Record<string, Kind>;
  sealed: string;
}

/** What an opened event's data carries instead: which key it was, and whether that key is gone. */
export interface OpenedPersonalData {
  key: string;
  erased: boolean;
}

type Data = Record<string, unknown>;

/** The value at a dotted path (undefined where the path does not lead). */
export function valueAt(data: Data, path: string): unknown {
  let at: unknown = data;
  for (const part of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Data)[part];
  }
  return at;
}

/**
 * The data with values set (or, for undefined, removed) at dotted paths, on copies of the objects
 * along them: each object on the way is copied once, however many paths pass through it.
 */
function withValues(data: Data, values: Iterable<[string, unknown]>): Data {
  const out: Data = { ...data };
  const copies = new Set<object>([out]);
  for (const [path, value] of values) {
    const parts = path.split('.');
    let at: Data | undefined = out;
    for (let i = 0; i < parts.length - 1 && at; i++) {
      const next = at[parts[i]];
      if (next === null || typeof next !== 'object') at = undefined;
      else {
        if (!copies.has(next)) {
          at[parts[i]] = { ...(next as Data) };
          copies.add(at[parts[i]] as object);
        }
        at = at[parts[i]] as Data;
      }
    }
    if (!at) continue;
    const last = parts[parts.length - 1];
    if (value === undefined) delete at[last];
    else at[last] = value;
  }
  return out;
}

/**
 * A copy of the data with one field set (last), made key by key: a spread, or a delete, can leave
 * an object in dictionary mode, where every field added afterwards costs microseconds, which a bulk
 * of 10,000 messages pays many times over (README "The write path").
 */
export function withField(data: Data, name: string, value: unknown): Data {
  const out: Data = {};
  for (const k in data) if (k !== name) out[k] = data[k];
  out[name] = value;
  return out;
}

/** A copy of the data without these top-level fields, made key by key (see withField). */
function without(data: Data, names: readonly string[]): Data {
  const out: Data = {};
  for (const k in data) if (!names.includes(k)) out[k] = data[k];
  return out;
}

const NONCE_BYTES = 12;
/** Crypto-random nonces drawn from a pooled buffer: one call for the OS's randomness per 1,024 seals, not one each. */
const nonces = Buffer.alloc(NONCE_BYTES * 1024);
let nextNonce = nonces.length;
function nonce(): Buffer {
  if (nextNonce === nonces.length) {
    randomFillSync(nonces);
    nextNonce = 0;
  }
  // a copy: the pooled bytes are overwritten at the next refill
  return Buffer.from(nonces.subarray(nextNonce, (nextNonce += NONCE_BYTES)));
}

const kindOf = (v: unknown): Kind => (Array.isArray(v) ? 'array' : (typeof v as Kind));
const erasedValue = (kind: Kind): unknown => (kind === 'object' ? {} : kind === 'array' ? [] : kind === 'string' ? ERASED : null);

/**
 * The data with the values at `paths` sealed under the key (paths absent or null are left as they
 * are: nothing personal to hide). Unchanged when there is nothing to seal; with no key (an erased
 * subject) the values are dropped, not sealed.
 */
export function sealPersonalData(data: Data, paths: readonly string[], keyId: string, key: Uint8Array | null): Data {
  const values: Data = {};
  const fields: Record<string, Kind> = {};
  for (const path of paths) {
    const v = valueAt(data, path);
    if (v === undefined || v === null) continue;
    values[path] = v;
    fields[path] = kindOf(v);
  }
  const sealedPaths = Object.keys(fields);
  if (sealedPaths.length === 0) return data;
  const out = sealedPaths.some((path) => path.includes('.')) ? withValues(data, sealedPaths.map((path) => [path, undefined])) : without(data, sealedPaths);
  // the subject was erased: what is written for it now is kept already erased
  if (!key) return withField(out, 'personal_data', { key: keyId, fields, sealed: '' } satisfies SealedPersonalData);
  const iv = nonce();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  // the key id is authenticated with the data: a blob moved under another key id does not open
  cipher.setAAD(Buffer.from(keyId, 'utf8'));
  const body = Buffer.concat([cipher.update(JSON.stringify(values), 'utf8'), cipher.final()]);
  const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  return withField(out, 'personal_data', { key: keyId, fields, sealed } satisfies SealedPersonalData);
}

/** One event's data to seal (sealPersonalData's arguments): what a batch's sealing is made of. */
export interface SealJob {
  data: Data;
  paths: readonly string[];
  keyId: string;
  /** null: the subject was erased (a Uint8Array when the job has crossed to a CPU work thread) */
  key: Uint8Array | null;
}

/** Seals each job's data, in order (here, or elsewhere: src/personal-data/seal-jobs.ts). */
export type SealMany = (jobs: SealJob[]) => Promise<Data[]>;

/** The jobs sealed one after another, here. */
export function sealJobs(jobs: readonly SealJob[]): Data[] {
  return jobs.map((j) => sealPersonalData(j.data, j.paths, j.keyId, j.key));
}

export const sealInline: SealMany = async (jobs) => sealJobs(jobs);

/** The key id an event's data is sealed under, if any. */
export function sealedKeyOf(data: unknown): string | undefined {
  const pd = (data as { personal_data?: Partial<SealedPersonalData> } | null)?.personal_data;
  return pd && typeof pd.key === 'string' && typeof pd.sealed === 'string' ? pd.key : undefined;
}

/** The data with its personal fields back (or erased, when `key` is null). */
export function openPersonalData(data: Data, key: Buffer | null): Data {
  const pd = data.personal_data as SealedPersonalData;
  let values: Data | undefined;
  if (key) {
    try {
      const raw = Buffer.from(pd.sealed, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(pd.key, 'utf8'));
      decipher.setAuthTag(raw.subarray(12, 28));
      values = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as Data;
    } catch {
      values = undefined; // not sealed under this key: as unreadable as an erased one
    }
  }
  const opened = Object.entries(pd.fields).map(([path, kind]): [string, unknown] => [path, values ? values[path] : erasedValue(kind)]);
  return withValues({ ...data, personal_data: { key: pd.key, erased: values === undefined } satisfies OpenedPersonalData }, opened);
}
