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

/** Each dotted path split once: a path is one of the few the rules name, split for every event sealed or opened. */
const splitPaths = new Map<string, readonly string[]>();
function partsOf(path: string): readonly string[] {
  let parts = splitPaths.get(path);
  if (parts === undefined) {
    parts = path.split('.');
    // the rules' paths, and whatever a test passes: bounded all the same
    if (splitPaths.size < 1_000) splitPaths.set(path, parts);
  }
  return parts;
}

/** The value at a dotted path (undefined where the path does not lead). */
export function valueAt(data: Data, path: string): unknown {
  let at: unknown = data;
  for (const part of partsOf(path)) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Data)[part];
  }
  return at;
}

/**
 * The data with values set (or, for undefined, removed) at dotted paths, on copies of the objects
 * along them: each object on the way is copied once, however many paths pass through it, key by key
 * (see withField), a removed value left out of its copy rather than deleted from it. `top`, when
 * given, is the copy of `data` to start from (made by the caller, key by key too).
 */
function withValues(data: Data, values: readonly (readonly [string, unknown])[], top?: Data): Data {
  const removed = values.filter(([, v]) => v === undefined).map(([path]) => path);
  // the objects copied so far: the originals and their copies, side by side (a path or two share each)
  const originals: object[] = [data];
  const copies: Data[] = [top ?? copyWithout(data, removed, '')];
  const copyOf = (original: Data, prefix: string): Data => {
    const i = originals.indexOf(original);
    if (i >= 0) return copies[i];
    const copy = copyWithout(original, removed, prefix);
    originals.push(original);
    copies.push(copy);
    return copy;
  };
  for (const [path, value] of values) {
    const parts = partsOf(path);
    let original: unknown = data;
    let at = copies[0];
    let prefix = '';
    for (let i = 0; i < parts.length - 1; i++) {
      original = (original as Data)[parts[i]];
      if (original === null || typeof original !== 'object') break;
      prefix += `${parts[i]}.`;
      const copy = copyOf(original as Data, prefix);
      at[parts[i]] = copy;
      at = copy;
    }
    if (original === null || typeof original !== 'object') continue;
    // a removed value is left out of its object's copy (deleted only from a copy made by the caller)
    const last = parts[parts.length - 1];
    if (value !== undefined) at[last] = value;
    else if (last in at) delete at[last];
  }
  return copies[0];
}

/**
 * A copy of the object, key by key (see withField), without the keys that `removed` (dotted paths)
 * names directly under `prefix` ('' for the top level).
 */
function copyWithout(object: Data, removed: readonly string[], prefix: string): Data {
  const out: Data = {};
  for (const k in object) if (removed.length === 0 || !removed.includes(prefix + k)) out[k] = object[k];
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
  let nested = false;
  for (const path of paths) {
    const v = valueAt(data, path);
    if (v === undefined || v === null) continue;
    values[path] = v;
    fields[path] = kindOf(v);
    if (path.includes('.')) nested = true;
  }
  const sealedPaths = Object.keys(fields);
  if (sealedPaths.length === 0) return data;
  const out = nested ? withValues(data, sealedPaths.map((path) => [path, undefined] as const)) : copyWithout(data, sealedPaths, '');
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
  const opened: [string, unknown][] = [];
  for (const path in pd.fields) opened.push([path, values ? values[path] : erasedValue(pd.fields[path])]);
  // the data as it was, key by key, with the envelope in its place: the opened values go after
  const top: Data = {};
  for (const k in data) top[k] = k === 'personal_data' ? ({ key: pd.key, erased: values === undefined } satisfies OpenedPersonalData) : data[k];
  return withValues(data, opened, top);
}
