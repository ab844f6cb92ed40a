// Decides from pasted mail headers whether mail from a domain carries a DKIM signature for it
// (SPEC check-signing): DKIM-Signature tag-lists (RFC 6376 §3.2) and Authentication-Results (RFC 8601)
// are read as text only; nothing is looked up in DNS and no signature is verified here.
import { domainToASCII } from 'node:url';
import { getDomain } from 'tldts';

const MAX_HEADER_BYTES = 256 * 1024;

export class SigningInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SigningInputError';
  }
}

export interface DkimSignatureSeen {
  d: string;
  s: string;
  a: string;
  i: string | null;
  signed_headers: string[];
  alignment: 'strict' | 'relaxed' | null;
  /** why the signature cannot count (duplicate tag, missing d=, …); null when well-formed */
  malformed: string | null;
}

export interface DkimResultSeen {
  result: string;
  d: string | null;
  s: string | null;
  authserv_id: string;
  alignment: 'strict' | 'relaxed' | null;
}

export type SigningVerdict = 'pass' | 'fail' | 'present' | 'missing';

export interface SigningCheck {
  verdict: SigningVerdict;
  /** an aligned dkim=pass result (pass); else an aligned failing result (fail); else the first
   * well-formed aligned DKIM-Signature (present: signed, unverified); else null (missing) */
  decided_by: {
    source: 'authentication_results' | 'dkim_signature';
    d: string;
    s: string | null;
    alignment: 'strict' | 'relaxed';
    result: string | null;
  } | null;
  signatures: DkimSignatureSeen[];
  results: DkimResultSeen[];
}

/** `headers`: a raw header blob, the text of a JSON map of header names, or that map itself. */
export function checkSigning(
  domain: string,
  headers: string | Record<string, string | string[]>,
  authenticationResults?: string,
): SigningCheck {
  const checked = domainName(domain);
  if (checked === null) throw new SigningInputError(`"${domain}" is not a domain name`);
  const size = Buffer.byteLength(typeof headers === 'string' ? headers : JSON.stringify(headers ?? null)) +
    Buffer.byteLength(authenticationResults ?? '');
  if (size > MAX_HEADER_BYTES) throw new SigningInputError(`headers are larger than ${MAX_HEADER_BYTES / 1024} KiB`);

  const fields = headerFields(headers);
  const arValues = [
    // a value pasted with its field name is the same value
    ...(authenticationResults?.trim() ? [unfold(authenticationResults).replace(/^\s*authentication-results\s*:/i, '')] : []),
    ...fields.filter((f) => f.name === 'authentication-results').map((f) => f.value),
  ];
  const signatures = fields.filter((f) => f.name === 'dkim-signature').map((f) => readSignature(f.value, checked));
  const results = arValues.flatMap((value) => readDkimResults(value, checked));
  return { ...decide(signatures, results), signatures, results };
}

const FAILING_RESULTS: ReadonlySet<string> = new Set(['fail', 'permerror', 'temperror', 'neutral', 'policy']);

function decide(signatures: DkimSignatureSeen[], results: DkimResultSeen[]): Pick<SigningCheck, 'verdict' | 'decided_by'> {
  const fromResult = (r: DkimResultSeen | undefined) =>
    r && r.d !== null && r.alignment !== null
      ? { source: 'authentication_results' as const, d: r.d, s: r.s, alignment: r.alignment, result: r.result }
      : null;
  const passed = fromResult(results.find((r) => r.alignment !== null && r.result === 'pass'));
  if (passed) return { verdict: 'pass', decided_by: passed };
  const failed = fromResult(results.find((r) => r.alignment !== null && FAILING_RESULTS.has(r.result)));
  if (failed) return { verdict: 'fail', decided_by: failed };
  const signed = signatures.find((s) => s.malformed === null && s.alignment !== null);
  if (signed?.alignment) {
    return { verdict: 'present', decided_by: { source: 'dkim_signature', d: signed.d, s: signed.s, alignment: signed.alignment, result: null } };
  }
  return { verdict: 'missing', decided_by: null };
}

/** A name lower-cased, without its trailing dot, in IDNA (A-label) form; null when not a domain name. */
function domainName(text: string): string | null {
  const ascii = domainToASCII(text.trim().toLowerCase().replace(/\.$/, ''));
  if (ascii === '' || ascii.length > 253) return null;
  return ascii.split('.').every((label) => /^[a-z0-9_-]{1,63}$/.test(label)) ? ascii : null;
}

// The full Public Suffix List, private section included: two customers of one hosting suffix
// (a.github.io, b.github.io) are different organisations, so their signatures must not align.
const organisationalDomain = (name: string) => getDomain(name, { allowPrivateDomains: true });

/** How the domain `d` aligns with `domain`: the same name (strict), the same organisational domain (relaxed), or not at all. */
export function alignmentOf(d: string, domain: string): 'strict' | 'relaxed' | null {
  if (d === domain) return 'strict';
  const organisation = organisationalDomain(domain);
  return organisation !== null && organisation === organisationalDomain(d) ? 'relaxed' : null;
}

// ---- header fields ------------------------------------------------------------------------

interface HeaderField {
  /** lower case */
  name: string;
  /** unfolded (line breaks removed, the folding whitespace kept) */
  value: string;
}

const unfold = (value: string) => value.replace(/\r\n|\r|\n/g, '');

function headerFields(headers: unknown): HeaderField[] {
  if (typeof headers !== 'string') return fieldsOfMap(headers);
  const text = headers.replace(/^\uFEFF/, '');
  if (text.trim() === '') throw new SigningInputError('headers are empty');
  // no header field name starts with a bracket: this is JSON, and a JSON array is refused as such
  if (!/^\s*[{[]/.test(text)) return fieldsOfBlob(text);
  let map: unknown;
  try {
    map = JSON.parse(text);
  } catch {
    throw new SigningInputError('headers start like a JSON object but are not valid JSON');
  }
  return fieldsOfMap(map);
}

function fieldsOfMap(map: unknown): HeaderField[] {
  if (map === null || typeof map !== 'object' || Array.isArray(map)) {
    throw new SigningInputError('headers must be a header blob or a JSON object of header names to strings or arrays of strings');
  }
  const fields: HeaderField[] = [];
  for (const [name, value] of Object.entries(map)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    for (const one of values) {
      if (typeof one !== 'string') throw new SigningInputError(`header "${name}" must be a string or an array of strings`);
      fields.push({ name: name.trim().toLowerCase(), value: unfold(one) });
    }
  }
  if (fields.length === 0) throw new SigningInputError('headers are empty');
  return fields;
}

/** RFC 5322 header lines up to the first blank line (the body, if pasted, follows it). */
function fieldsOfBlob(text: string): HeaderField[] {
  const lines = text.replace(/^(?:[ \t]*(?:\r\n|\r|\n))+/, '').split(/\r\n|\r|\n/);
  const fields: HeaderField[] = [];
  let current: HeaderField | null = null;
  for (const line of lines) {
    if (line.trim() === '') break;
    if (/^[ \t]/.test(line)) {
      if (current) current.value += line;
      continue;
    }
    const field = /^([!-9;-~]+)[ \t]*:(.*)$/.exec(line);
    // an mbox "From " line or a label the mail client added is not a header field
    current = field ? { name: field[1].toLowerCase(), value: field[2] } : null;
    if (current) fields.push(current);
  }
  if (fields.length === 0) throw new SigningInputError('no header fields found: expected "Name: value" lines or a JSON object');
  return fields;
}

// ---- DKIM-Signature (RFC 6376 §3.2, §3.5) ------------------------------------------------

const REQUIRED_TAGS = ['v', 'a', 'b', 'bh', 'd', 'h', 's'] as const;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function readSignature(value: string, domain: string): DkimSignatureSeen {
  const { tags, problem } = parseTagList(value);
  const rawD = tags.get('d') ?? '';
  const d = domainName(rawD);
  const signedHeaders = (tags.get('h') ?? '')
    .split(':')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  return {
    d: d ?? rawD.toLowerCase(),
    s: tags.get('s') ?? '',
    a: (tags.get('a') ?? '').toLowerCase(),
    i: tags.get('i') ?? null,
    signed_headers: signedHeaders,
    alignment: d === null ? null : alignmentOf(d, domain),
    malformed: problem ?? signatureProblem(tags, d, signedHeaders),
  };
}

/** Tag names are case-sensitive; values lose surrounding FWS, b= and bh= lose all of it. */
function parseTagList(value: string): { tags: Map<string, string>; problem: string | null } {
  const tags = new Map<string, string>();
  const specs = value.split(';');
  // a trailing ";" is allowed
  if (specs.length > 1 && specs[specs.length - 1].trim() === '') specs.pop();
  for (const spec of specs) {
    const equals = spec.indexOf('=');
    if (equals < 0) return { tags, problem: spec.trim() === '' ? 'an empty tag' : `"${spec.trim()}" is not tag=value` };
    const name = spec.slice(0, equals).trim();
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) return { tags, problem: `"${name}" is not a tag name` };
    if (tags.has(name)) return { tags, problem: `duplicate tag ${name}=` };
    const tagValue = spec.slice(equals + 1);
    tags.set(name, name === 'b' || name === 'bh' ? tagValue.replace(/\s+/g, '') : tagValue.trim());
  }
  return { tags, problem: null };
}

function signatureProblem(tags: Map<string, string>, d: string | null, signedHeaders: string[]): string | null {
  for (const name of REQUIRED_TAGS) {
    if (!tags.has(name)) return `missing required tag ${name}=`;
    if (tags.get(name) === '') return `required tag ${name}= is empty`;
  }
  const get = (name: string) => tags.get(name) ?? '';
  if (get('v') !== '1') return `v=${get('v')} is not 1`;
  if (!/^[a-z0-9]+-[a-z0-9]+$/i.test(get('a'))) return `a=${get('a')} is not an algorithm`;
  if (!BASE64.test(get('b')) || !BASE64.test(get('bh'))) return 'b= or bh= is not base64';
  if (d === null) return `d=${get('d')} is not a domain name`;
  if (!signedHeaders.includes('from')) return 'h= does not sign From';
  // §3.5: the domain of i= must be d= or one of its subdomains
  const identity = tags.get('i');
  if (identity !== undefined) {
    const identityDomain = domainName(identity.slice(identity.lastIndexOf('@') + 1));
    if (identityDomain === null || (identityDomain !== d && !identityDomain.endsWith(`.${d}`))) {
      return `i=${identity} is not within d=${d}`;
    }
  }
  return null;
}

// ---- Authentication-Results (RFC 8601) ----------------------------------------------------

type Token = { kind: 'word'; text: string } | { kind: '=' } | { kind: ';' };

/** Words, "=" and ";", with (comments) dropped and "quoted strings" unquoted. */
function lex(value: string): Token[] {
  const tokens: Token[] = [];
  let word: string | null = null;
  const flush = () => {
    if (word !== null) tokens.push({ kind: 'word', text: word });
    word = null;
  };
  let i = 0;
  while (i < value.length) {
    const c = value[i];
    if (c === '(') {
      flush();
      i = afterComment(value, i);
    } else if (c === '"') {
      let text = '';
      for (i += 1; i < value.length && value[i] !== '"'; i += 1) text += value[i] === '\\' ? (value[++i] ?? '') : value[i];
      word = (word ?? '') + text;
      i += 1;
    } else if (c === ';' || c === '=') {
      flush();
      tokens.push({ kind: c });
      i += 1;
    } else if (/\s/.test(c)) {
      flush();
      i += 1;
    } else {
      word = (word ?? '') + c;
      i += 1;
    }
  }
  flush();
  return tokens;
}

/** Index after the comment opening at `start`; comments nest and may hide ";" or "=". */
function afterComment(value: string, start: number): number {
  let depth = 0;
  for (let i = start; i < value.length; i += 1) {
    if (value[i] === '\\') i += 1;
    else if (value[i] === '(') depth += 1;
    else if (value[i] === ')' && --depth === 0) return i + 1;
  }
  return value.length;
}

interface Segment {
  /** words not part of name=value (the authserv-id, its version, "none") */
  bare: string[];
  pairs: [string, string][];
}

function segments(tokens: Token[]): Segment[] {
  const all: Segment[] = [{ bare: [], pairs: [] }];
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i];
    const segment = all[all.length - 1];
    if (token.kind === ';') all.push({ bare: [], pairs: [] });
    else if (token.kind === 'word' && tokens[i + 1]?.kind === '=') {
      const next = tokens[i + 2];
      segment.pairs.push([token.text, next?.kind === 'word' ? next.text : '']);
      i += next?.kind === 'word' ? 2 : 1;
    } else if (token.kind === 'word') segment.bare.push(token.text);
  }
  return all;
}

function readDkimResults(value: string, domain: string): DkimResultSeen[] {
  const [head, ...rest] = segments(lex(value));
  // a pasted value without its authserv-id starts with a result: keep it rather than lose it
  const authservId = head.pairs.length === 0 ? (head.bare[0] ?? '') : '';
  const resinfos = head.pairs.length === 0 ? rest : [head, ...rest];
  const seen: DkimResultSeen[] = [];
  for (const { pairs } of resinfos) {
    const [method, result] = pairs[0] ?? ['', ''];
    if (method.toLowerCase().replace(/\/\d+$/, '') !== 'dkim') continue;
    const properties = new Map(pairs.slice(1).map(([name, v]) => [name.toLowerCase(), v] as const));
    const identity = properties.get('header.i');
    const rawD = properties.get('header.d') ?? (identity === undefined ? undefined : identity.slice(identity.lastIndexOf('@') + 1));
    const d = rawD === undefined ? null : domainName(rawD);
    seen.push({
      result: result.toLowerCase(),
      d,
      s: properties.get('header.s') ?? null,
      authserv_id: authservId,
      alignment: d === null ? null : alignmentOf(d, domain),
    });
  }
  return seen;
}
