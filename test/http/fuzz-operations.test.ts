// Every operation of the HTTP API, enumerated from the service's own OpenAPI document, against
// hostile path parameters, bodies and query strings (issue 25): no answer is a 5xx, and every 4xx
// carries the flat error body {error, message}. The inputs are derived from each operation's
// documented schemas, deterministically (a fixed seed per operation), about a dozen per operation,
// so a route added later is fuzzed without a change here. Provider callbacks are not in the document
// and have their own fuzz (test/webhooks-inbound/fuzz.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeChatCompletions, startFakeChatCompletions } from '../support/chat-completions.ts';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { type ApiResponse, expectNoServerError } from '../support/http.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';
import { eventually } from '../support/waits.ts';
import { postCarrier, SECRETS } from '../webhooks-inbound/helpers.ts';

type Schema = Record<string, any>;

interface Operation {
  method: string;
  /** the documented path, e.g. /v1/contacts/{id} (a wildcard route as /c/*) */
  template: string;
  /** path parameter names in order; a wildcard is `*` */
  params: string[];
  query: { name: string; schema: Schema }[];
  /** the documented JSON body schema, with the document's $defs beside it */
  body?: Schema;
  /** a streamed upload (text/csv or multipart) */
  upload: boolean;
  auth: 'key' | 'token' | 'none';
}

interface FuzzRequest {
  /** what the request tries, for the failure message */
  what: string;
  path: string;
  /** the query string as sent (already encoded: hostile escapes stay as they are), without `?` */
  query?: string;
  body?: unknown;
  /** sent as it is (wins over body) */
  raw?: string | Buffer;
  contentType?: string;
}

// ---------- hostile values ----------

const BIG = 'x'.repeat(100_000);
const DEPTH = 2_000;
/** a year Postgres cannot store though JavaScript can (timestamps beyond a column's range) */
const EXTREME_DATE = '-099999-01-01T00:00:00.000Z';
const deepArray = (): unknown => JSON.parse(`${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`);
function deepObject(): unknown {
  let v: unknown = {};
  for (let i = 0; i < DEPTH; i++) v = { a: v };
  return v;
}
/** a ULID no resource has */
const MISSING_ULID = '01J9ZZZZZZZZZZZZZZZZZZZZZZ';
/** path segment values besides the ids: NUL, a lone surrogate as UTF-8, 5,000 characters, a traversal, route words */
const HOSTILE_SEGMENTS = ['%00', '%ED%A0%80', 'a'.repeat(5_000), '..%2F..%2Fhealth', 'history', 'schema'];
/**
 * Cursors this API could have made (base64url JSON, under the 512 characters a cursor may have) whose
 * values are not ones it would: every cursor shape's keys at once, with a time that is not one, or
 * one beyond Postgres, and numbers beyond a bigint.
 */
const HOSTILE_CURSORS = [
  { id: 'z'.repeat(40), at: 'not a time', favorite: true, created_at: '2024-01-01T00:00:00Z', address_hash: 'x'.repeat(64), c: '99999999999999999999', p: '99999999999999999999', s: 0 },
  { id: '', at: EXTREME_DATE, favorite: false, created_at: '2024-01-01T00:00:00.000Z', address_hash: '', c: '0', p: '0', s: Number.MAX_SAFE_INTEGER },
].map((c) => Buffer.from(JSON.stringify(c)).toString('base64url'));

// ---------- deterministic choice ----------

/** mulberry32: the same sequence for the same seed */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
/** a seed from the operation's name (FNV-1a), so one operation's choices do not move when another is added */
function seedOf(text: string): number {
  let h = 0x811c9dc5 ^ 25;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
function pick<T>(items: readonly T[], n: number, random: () => number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < n && pool.length) out.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  return out;
}

// ---------- the document ----------

function operationsOf(doc: Schema): Operation[] {
  const ops: Operation[] = [];
  for (const [template, methods] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const parameters: Schema[] = op.parameters ?? [];
      const params = parameters.filter((p) => p.in === 'path').map((p) => p.name as string);
      if (template.endsWith('/*')) params.push('*');
      const content: Record<string, Schema> | undefined = op.requestBody?.content;
      const security = ((op.security ?? []) as Schema[]).map((s) => Object.keys(s)[0]);
      ops.push({
        method: method.toUpperCase(),
        template,
        params,
        query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name as string, schema: p.schema as Schema })),
        ...(content?.['application/json'] ? { body: content['application/json'].schema as Schema } : {}),
        upload: content !== undefined && ('text/csv' in content || 'multipart/form-data' in content),
        auth: security.includes('apiKey') ? 'key' : security.includes('bearer') ? 'token' : 'none',
      });
    }
  }
  return ops;
}

// ---------- values that fit a schema ----------

interface SampleContext {
  /** the schema's root, where $ref points */
  root: Schema;
  /** property name → a value that names something real in the caller's account (or a well-formed one) */
  hints: Record<string, unknown>;
  /** every leaf of the sample, with its schema: where single-property mutations go */
  leaves: { path: (string | number)[]; schema: Schema }[];
  /** all properties; the required ones; the required ones and the first optional one (for "one of email or phone") */
  fields: 'all' | 'required' | 'first';
}

function deref(schema: Schema, root: Schema): Schema {
  let s = schema;
  for (let i = 0; i < 10 && typeof s?.$ref === 'string'; i++) s = s.$ref.split('/').slice(1).reduce((at: Schema, k: string) => at?.[k], root) ?? {};
  return s ?? {};
}
const typeOf = (s: Schema): string | undefined => (Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type);
const PATTERN_CANDIDATES = ['fuzz', 'fuzz_field', '123456', 'abc', 'a', '1', 'A1', '+447400123456', '2025-01-01', '2025-01'];
/** values at the ends of what a documented pattern lets through: year 0000 and 9999, all zeros, all nines */
const PATTERN_EDGES = ['0000-02-29', '0000-01-01', '9999-12-31', '0000-01', '9999-12', '000000', '999999', '0', '99999999999999999999'];
/** a string property that holds a time, by its name */
const TIME_NAME = /(^|_)(at|from|until|to|since|before|after|timestamp|date|time)$/;
/** the ends of the range the API accepts (README "Timestamps"), and the widest offset */
const TIME_EDGES = ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '0001-01-01T00:00:00+14:00'];
const patternEdges = (schema: Schema): string[] => {
  if (typeof schema.pattern !== 'string') return [];
  const re = new RegExp(schema.pattern, 'u');
  return PATTERN_EDGES.filter((e) => re.test(e)).slice(0, 2);
};

function sample(schema: Schema, ctx: SampleContext, path: (string | number)[] = [], depth = 0): unknown {
  const s = deref(schema, ctx.root);
  const name = path.at(-1);
  if (s.const !== undefined) return s.const;
  const hint = typeof name === 'string' && Object.hasOwn(ctx.hints, name) ? ctx.hints[name] : undefined;
  const isRecord = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const fits = hint !== undefined && (typeOf(s) === 'object' ? isRecord(hint) : typeOf(s) === 'array' ? Array.isArray(hint) : !isRecord(hint) && !Array.isArray(hint));
  if (fits && !(typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(String(hint)))) {
    ctx.leaves.push({ path, schema: s });
    return hint;
  }
  if (Array.isArray(s.enum)) return s.enum[0];
  const alternatives: Schema[] | undefined = s.anyOf ?? s.oneOf;
  if (alternatives) return sample(alternatives.find((a) => deref(a, ctx.root).type !== 'null') ?? alternatives[0]!, ctx, path, depth);
  if (s.default !== undefined) return s.default;
  switch (typeOf(s)) {
    case 'object': {
      const out: Record<string, unknown> = {};
      if (depth > 5) return out;
      const required: string[] = s.required ?? [];
      let optional = 0;
      for (const [k, p] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
        if (!required.includes(k) && ctx.fields !== 'all' && (ctx.fields === 'required' || optional++ > 0)) continue;
        out[k] = sample(p, ctx, [...path, k], depth + 1);
      }
      if (s.additionalProperties && Object.keys(out).length === 0 && !s.properties) ctx.leaves.push({ path, schema: s });
      return out;
    }
    case 'array':
      return s.items && depth <= 5 ? [sample(s.items, ctx, [...path, 0], depth + 1)] : [];
    case 'string': {
      ctx.leaves.push({ path, schema: s });
      if (typeof s.pattern === 'string') {
        const re = new RegExp(s.pattern, 'u');
        return PATTERN_CANDIDATES.find((c) => re.test(c)) ?? 'fuzz';
      }
      if (s.format === 'date') return '2025-01-01';
      if (s.format === 'date-time') return '2025-01-01T00:00:00Z';
      return 'fuzz';
    }
    case 'integer':
    case 'number':
      ctx.leaves.push({ path, schema: s });
      return Math.max(1, typeof s.minimum === 'number' && s.minimum > -1e15 ? s.minimum : 1);
    case 'boolean':
      ctx.leaves.push({ path, schema: s });
      return true;
    default:
      // any value ({}): where a handler takes what it is given
      ctx.leaves.push({ path, schema: s });
      return 'fuzz';
  }
}

/** `value` with every string (not key) replaced by `f` of it */
function mapStrings(value: unknown, f: (s: string) => unknown): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)]));
  return value;
}
function mapNumbers(value: unknown, f: (n: number) => unknown): unknown {
  if (typeof value === 'number') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapNumbers(v, f));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapNumbers(v, f)]));
  return value;
}
function hasLeaf(value: unknown, test: (v: unknown) => boolean): boolean {
  if (test(value)) return true;
  if (value && typeof value === 'object') return Object.values(value).some((v) => hasLeaf(v, test));
  return false;
}
/** a value of another JSON type than `v` */
function wrongType(v: unknown): unknown {
  if (typeof v === 'string') return 12345;
  if (typeof v === 'number') return 'not a number';
  if (typeof v === 'boolean') return 'yes';
  if (Array.isArray(v)) return { length: 1 };
  if (v && typeof v === 'object') return ['an', 'array'];
  return 'fuzz';
}
function withValue(base: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(base) as any;
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k];
  at[path.at(-1)!] = value;
  return copy;
}

interface Mutation {
  label: string;
  value: unknown;
}
/** what one leaf may be replaced by; the suspicious ones first (where the schema sets no bound) */
function mutationsOf(schema: Schema, name: string | number | undefined): { suspicious: Mutation[]; other: Mutation[] } {
  const suspicious: Mutation[] = [];
  const other: Mutation[] = [];
  const type = typeOf(schema);
  if (type === 'string') {
    const unbounded = !(typeof schema.maxLength === 'number' && schema.maxLength < 100_000);
    (unbounded ? suspicious : other).push({ label: '100 KB string', value: BIG });
    (schema.enum || schema.pattern ? other : suspicious).push({ label: 'a timestamp beyond Postgres', value: EXTREME_DATE });
    for (const edge of patternEdges(schema)) suspicious.push({ label: `the pattern's edge ${edge}`, value: edge });
    if (typeof name === 'string' && TIME_NAME.test(name) && !schema.enum) for (const edge of TIME_EDGES) suspicious.push({ label: `the timestamp ${edge}`, value: edge });
    other.push({ label: 'NUL', value: 'a\u0000b' }, { label: 'lone surrogate', value: '\ud800' }, { label: 'wrong type', value: 1e308 });
  } else if (type === 'integer' || type === 'number') {
    const bounded = typeof schema.maximum === 'number' && schema.maximum <= Number.MAX_SAFE_INTEGER && typeof schema.minimum === 'number' && schema.minimum >= -Number.MAX_SAFE_INTEGER;
    (bounded ? other : suspicious).push({ label: '1e308', value: 1e308 }, { label: '-1e308', value: -1e308 });
    (type === 'integer' ? suspicious : other).push({ label: 'negative fraction', value: -1.5 });
    other.push({ label: '-1', value: -1 }, { label: 'wrong type', value: '1' });
  } else if (type === 'boolean') {
    other.push({ label: 'wrong type', value: 'true' }, { label: 'null', value: null });
  } else if (type === 'object') {
    suspicious.push({ label: `object nested ${DEPTH} deep`, value: deepObject() }, { label: '100 KB key', value: { [BIG]: 'x' } });
    other.push({ label: 'array for an object', value: [] });
  } else {
    // any value: whatever the handler does with it
    suspicious.push({ label: `array nested ${DEPTH} deep`, value: deepArray() }, { label: '100 KB string', value: BIG }, { label: '1e308', value: 1e308 });
    other.push({ label: `object nested ${DEPTH} deep`, value: deepObject() });
  }
  return { suspicious, other };
}

// ---------- query strings ----------

function queryMutations(name: string, schema: Schema): string[] {
  const type = typeOf(schema) ?? (schema.anyOf ? typeOf(schema.anyOf[0]) : undefined);
  if (type === 'integer' || type === 'number') return ['-1', '0.5', '1e308', '-1e308', 'NaN', '%00'];
  if (type === 'boolean') return ['maybe', '%00'];
  const edges = [...patternEdges(schema), ...(TIME_NAME.test(name) && !schema.enum ? TIME_EDGES : [])].map(encodeURIComponent);
  return ['%00', '%ED%A0%80', 'q'.repeat(5_000), encodeURIComponent(EXTREME_DATE), '', ...edges];
}
const encodeQuery = (entries: [string, string][]) => entries.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&');

// ---------- the run ----------

const describeBody = (r: FuzzRequest) => (r.raw !== undefined ? (typeof r.raw === 'string' ? r.raw : `<${r.raw.length} bytes: ${r.raw.toString('latin1')}>`) : r.body === undefined ? '' : JSON.stringify(r.body));
/** a request as a failure names it, long runs of one character shortened (a 100 KB string, 2,000 brackets) */
function shown(method: string, r: FuzzRequest): string {
  const text = `${method} ${r.path}${r.query !== undefined ? `?${r.query}` : ''} [${r.what}] body: ${describeBody(r)}`;
  const short = text.replace(/(.)\1{39,}/gsu, (run, c: string) => `${c}×${run.length / c.length}`);
  return short.length > 700 ? `${short.slice(0, 600)}…${short.slice(-80)}` : short;
}

/** POST /v1/mcp speaks JSON-RPC: its protocol errors are JSON-RPC error objects, not the flat body (README "Agent tools (MCP)") */
const isJsonRpcError = (body: any) => body?.jsonrpc === '2.0' && typeof body.error?.code === 'number' && typeof body.error.message === 'string';

let dns: TestDnsServer;
let receiver: Receiver;
let ai: FakeChatCompletions;
let server: TestServer;

beforeAll(async () => {
  dns = await startDnsServer();
  receiver = await startReceiver();
  ai = await startFakeChatCompletions();
  server = await startTestServer({
    RATE_LIMITS_ENABLED: 'false',
    // the carrier's callback secret: an inbound sms makes the conversation the conversation routes need
    ...SECRETS,
    // domain checks ask a local DNS server with no records, not the machine's
    DNS_SERVERS: dns.address,
    // webhook endpoints and webhook_url values point at a local receiver, so writes that take a URL can succeed
    OUTBOUND_ALLOW_PRIVATE: 'true',
    ...ai.env(),
  });
});
afterAll(async () => {
  await server?.close();
  await Promise.all([dns?.close(), receiver?.close(), ai?.close()]);
});

/** The real resources of an account, by the path segment their ids follow (contacts, lists, …). */
type Resources = Record<string, string>;

const CSV_CONTENT = 'email,first_name\nfixture-import@example.com,Imported\n';

/** the number the accounts send sms from, that their contacts reply to */
const OUR_SMS_NUMBER = '+447400123111';

async function resourcesOf(key: string, tag: string, customer: string): Promise<Resources> {
  const ids: Resources = {};
  const call = (method: string, path: string, body?: unknown) => server.call(method, path, { key, ...(body !== undefined ? { body } : {}) });
  const create = async (segment: string, path: string, body?: unknown) => {
    const res = await call('POST', path, body ?? {});
    if (res.status < 300 && typeof res.body?.id === 'string') ids[segment] = res.body.id;
    return res;
  };
  await create('contacts', '/v1/contacts', { email: `fixture-${tag}@example.com`, phone: '+447400123456', first_name: 'Fixture', tags: ['vip'] });
  await create('fields', '/v1/contacts/fields', { key: 'fixture', type: 'text' });
  await create('lists', '/v1/lists', { name: `Fixture ${tag}` });
  if (ids.lists && ids.contacts) await call('POST', `/v1/lists/${ids.lists}/contacts`, { contact_id: ids.contacts });
  await create('segments', '/v1/segments', { name: `Fixture ${tag}`, rules: { match: 'all', rules: [{ field: 'tag', operator: 'has', value: 'vip' }] } });
  await create('messages', '/v1/messages/send', { to: '+447400123456', channel: 'sms', message: 'fixture' });
  if (ids.lists) await create('campaigns', '/v1/campaigns', { name: 'Fixture', audience: { list_id: ids.lists }, channel: 'sms', message: 'fixture campaign', scheduled_at: new Date(Date.now() + 86_400_000).toISOString() });
  // a conversation: the customer replies to a message the account sent them
  await call('POST', '/v1/messages/send', { to: customer, channel: 'sms', message: 'fixture', sender: OUR_SMS_NUMBER });
  await postCarrier(server, { MessageSid: `SM${tag.padStart(32, '0')}`, AccountSid: 'AC1', From: customer, To: OUR_SMS_NUMBER, Body: 'a reply', NumMedia: '0' });
  ids.conversations = await eventually(`the ${tag} account's conversation`, async () => (await call('GET', '/v1/conversations')).body?.data?.[0]?.id as string | undefined);
  // a second key: the one the operations may rotate and revoke (the run's own key stays)
  await create('api-keys', '/v1/account/api-keys', { name: 'spare' });
  await create('webhook-endpoints', '/v1/webhook-endpoints', { url: receiver.url });
  if (ids['webhook-endpoints']) {
    await call('POST', `/v1/webhook-endpoints/${ids['webhook-endpoints']}/test`, {});
    await create('replays', `/v1/webhook-endpoints/${ids['webhook-endpoints']}/replay`, { from: '2020-01-01T00:00:00Z' });
  }
  await create('email-domains', '/v1/account/email-domains', { domain: `mail-${tag}.example.com` });
  await create('link-domains', '/v1/account/link-domains', { domain: `links-${tag}.example.com` });
  await create('senders', '/v1/senders', { sender: '+15017122661', channel: 'sms', country: 'US' });
  await create('integrations', '/v1/integrations', { provider: 'twilio', name: 'fixture', credentials: { account_sid: `AC${'0a'.repeat(16)}`, auth_token: 'f'.repeat(32), from: '+14155550100' } });
  const unsubscribed = `unsubscribed-${tag}@example.com`;
  if ((await call('POST', '/v1/account/unsubscribes', { email: unsubscribed })).status < 300) ids.unsubscribes = unsubscribed;
  const imported = await server.call('POST', '/v1/contacts/import', { key, raw: CSV_CONTENT, headers: { 'content-type': 'text/csv' } });
  if (typeof imported.body?.id === 'string') ids.imports = imported.body.id;
  // what the writes above made without answering its id: the first of each list
  const firstOf = async (segment: string, path: string) => {
    if (ids[segment]) return;
    const res = await call('GET', path);
    const id = res.body?.data?.[0]?.id;
    if (typeof id === 'string') ids[segment] = id;
  };
  await firstOf('campaigns', '/v1/campaigns');
  await firstOf('imports', '/v1/contacts/imports');
  if (ids['webhook-endpoints']) await firstOf('deliveries', `/v1/webhook-endpoints/${ids['webhook-endpoints']}/deliveries`);
  return ids;
}

describe('every operation of the OpenAPI document', () => {
  it('answers hostile path parameters, bodies and query strings with a 2xx, 3xx or a 4xx with the flat error body, never a 5xx', { timeout: 300_000 }, async () => {
    const doc = (await server.call('GET', '/v1/openapi.json')).body as Schema;
    const operations = operationsOf(doc);
    expect(operations.length).toBeGreaterThan(100);

    const own = await server.newAccount('Fuzz');
    const other = await server.newAccount('Other');
    const token = (await server.call('POST', '/v1/auth/login', { body: { email: own.email, password: own.password } })).body.token as string;
    const mine = await resourcesOf(own.key, 'own', '+447400123101');
    const theirs = await resourcesOf(other.key, 'other', '+447400123102');
    // every fixture made: without them the operations would only see 404s
    const made = ['contacts', 'fields', 'lists', 'segments', 'messages', 'campaigns', 'conversations', 'api-keys', 'webhook-endpoints', 'replays', 'deliveries', 'email-domains', 'link-domains', 'senders', 'integrations', 'unsubscribes', 'imports'];
    expect(Object.keys(mine)).toEqual(expect.arrayContaining(made));
    expect(Object.keys(theirs)).toEqual(expect.arrayContaining(made));
    theirs['api-keys'] = (await server.call('GET', '/v1/account/api-keys', { key: other.key })).body.data[0].id;
    const trackingKey = (await server.call('GET', '/v1/account/tracking-key', { key: own.key })).body?.key;

    const hints: Record<string, unknown> = {
      email: 'fuzz@example.com',
      phone: '+447400123456',
      to: '+447400123456',
      message: 'hello',
      country: 'GB',
      default_country: 'GB',
      timezone: 'Europe/London',
      language: 'en',
      currency: 'EUR',
      url: receiver.url,
      webhook_url: receiver.url,
      logo_url: receiver.url,
      domain: 'fuzz.example.com',
      contact_id: mine.contacts,
      list_id: mine.lists,
      segment_id: mine.segments,
      timestamp: '2025-01-01T00:00:00Z',
      scheduled_at: '2099-01-01T00:00:00Z',
      from: '2020-01-01T00:00:00Z',
      until: '2030-01-01T00:00:00Z',
      sender: '+15017122661',
      code: '123456',
      method: 'tools/list',
      xml: '<feedback></feedback>',
      key: typeof trackingKey === 'string' ? trackingKey : 'fuzz',
      tags: ['vip'],
      events: ['message.delivered'],
      messages: [{ to: '+447400123456', channel: 'sms', message: 'hello' }],
      rules: [{ field: 'tag', operator: 'has', value: 'vip' }],
      origins: ['https://example.com'],
      identity: { email: 'fuzz@example.com' },
      credentials: { url: 'smtp://user:pass@127.0.0.1:2525' },
      tool: 'list_messages',
      mapping: '{"email":"email"}',
      file_name: 'fuzz.csv',
    };

    /** an operation's own hints over the common ones */
    const hintsOf: Record<string, Record<string, unknown>> = { 'POST /v1/auth/login': { email: own.email, password: own.password } };

    const failures: string[] = [];
    const perOperation = new Map<string, number>();
    let requests = 0;
    const started = Date.now();

    async function send(op: Operation, r: FuzzRequest): Promise<ApiResponse> {
      requests++;
      const key = `${op.method} ${op.template}`;
      perOperation.set(key, (perOperation.get(key) ?? 0) + 1);
      // as an API client asks: the public pages answer their errors as the flat body too (README "Suppressions and unsubscribes")
      const headers: Record<string, string> = { accept: 'application/json' };
      if (op.auth === 'key') headers['x-api-key'] = own.key;
      if (op.auth === 'token') headers.authorization = `Bearer ${token}`;
      // the public routes as a browser on the account's allowed origin calls them (browser tracking)
      if (op.auth === 'none') headers.origin = 'https://example.com';
      let payload: string | Buffer | undefined = r.raw;
      // a new address each time, so a create is not a 409 for the one before it
      if (payload === undefined && r.body !== undefined) payload = JSON.stringify(r.body, (_, v) => (v === hints.email ? `fuzz-${requests}@example.com` : v === hints.phone ? `+4474009${String(requests).padStart(5, '0')}` : v));
      if (payload !== undefined) headers['content-type'] = r.contentType ?? 'application/json';
      const url = `${server.url}${r.path}${r.query !== undefined ? `?${r.query}` : ''}`;
      let res: ApiResponse;
      try {
        const answer = await fetch(url, { method: op.method, headers, body: typeof payload === 'string' || payload === undefined ? payload : new Uint8Array(payload) });
        const text = await answer.text();
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          /* not JSON */
        }
        res = { status: answer.status, body: parsed, headers: answer.headers };
      } catch (err) {
        // the connection itself failed: as bad as a 5xx
        res = { status: 599, body: `no answer: ${String(err)}`, headers: new Headers() };
      }
      try {
        if (op.template === '/v1/mcp' && isJsonRpcError(res.body)) expect(res.status, `${shown(op.method, r)} → ${res.status} ${JSON.stringify(res.body).slice(0, 1000)}`).toBeLessThan(500);
        else expectNoServerError(res, shown(op.method, r));
      } catch (err) {
        failures.push((err as Error).message.split('\n')[0]!);
      }
      return res;
    }

    // No operation is skipped. What could break the rest of the run cannot happen here: the run's own
    // key is never a path value (the api-keys operations rotate and revoke a spare key made for them),
    // an erasure erases fixtures only, and deletions and erasures run last: one that removes the
    // account's resource would leave the operations after it only 404s.
    const removes = (o: Operation) => o.method === 'DELETE' || o.template.endsWith('/erase');
    // (the deepest first: a list's membership before the list)
    const depth = (o: Operation) => o.template.split('/').length;
    const ordered = [...operations.filter((o) => !removes(o)), ...operations.filter(removes).sort((a, b) => depth(b) - depth(a))];
    for (const op of ordered) {
      const random = seeded(seedOf(`${op.method} ${op.template}`));
      const segmentOf = (param: string) => {
        const parts = op.template.split('/');
        return parts[parts.indexOf(param === '*' ? '*' : `{${param}}`) - 1] ?? '';
      };
      const ownId = (param: string) => {
        const segment = segmentOf(param);
        if (mine[segment]) return mine[segment]!;
        if (segment === 'unsubscribe') return 'not-a-token';
        return `${theirs[segment]?.split('_')[0] ?? 'zz'}_${MISSING_ULID}`;
      };
      const pathWith = (values: Record<string, string>) => op.template.replace(/\{(\w+)\}|\*/g, (m, name: string | undefined) => values[name ?? '*'] ?? ownId(name ?? '*'));
      const realPath = pathWith({});
      // the query: a sample of each documented parameter but the cursor and those left at their default
      const queryHints = op.query
        .filter((q) => q.name !== 'cursor' && q.schema.default === undefined)
        .map((q): [string, unknown] => [q.name, sample(q.schema, { root: q.schema, hints, leaves: [], fields: 'all' }, [q.name])])
        .filter((e): e is [string, string] => typeof e[1] === 'string')
        .map(([k, v]): [string, string] => [k, encodeURIComponent(v)]);
      const realQuery = queryHints.length ? encodeQuery(queryHints) : undefined;

      // the body: a sample of the documented schema (with the account's real ids), then hostile shapes of it
      let base: unknown;
      if (op.body) {
        const opHints = { ...hints, ...(hintsOf[`${op.method} ${op.template}`] ?? {}) };
        const full: SampleContext = { root: op.body, hints: opHints, leaves: [], fields: 'all' };
        base = sample(op.body, full);
        let leaves = full.leaves;
        let status = (await send(op, { what: 'a sample of the documented body', path: realPath, query: realQuery, body: base })).status;
        // all optional fields together may conflict ("email or phone"): fewer of them, the first that is taken is the base
        for (const fields of ['required', 'first'] as const) {
          if (status !== 400) break;
          const ctx: SampleContext = { root: op.body, hints: opHints, leaves: [], fields };
          const slim = sample(op.body, ctx);
          if (JSON.stringify(slim) === JSON.stringify(base)) continue;
          status = (await send(op, { what: `a sample of the documented body (${fields} fields)`, path: realPath, query: realQuery, body: slim })).status;
          if (status < 400) ((base = slim), (leaves = ctx.leaves));
        }
        const bodies: [string, unknown][] = [
          ['the empty object', {}],
          ['null', null],
          ['an array instead of an object', [base]],
          [`an unknown field nested ${DEPTH} deep`, { ...(base as object), fuzz_unknown: deepArray() }],
        ];
        if (base && typeof base === 'object' && Object.keys(base).length) {
          bodies.push(['every property of another type', Array.isArray(base) ? [wrongType(base[0])] : Object.fromEntries(Object.entries(base).map(([k, v]) => [k, wrongType(v)]))]);
        }
        if (hasLeaf(base, (v) => typeof v === 'string')) {
          bodies.push(['NUL in every string', mapStrings(base, (s) => `${s}\u0000`)], ['a lone surrogate in every string', mapStrings(base, (s) => `\ud800${s}`)], ['every string 100 KB', mapStrings(base, () => BIG)]);
        }
        if (hasLeaf(base, (v) => typeof v === 'number')) bodies.push(['every number ±1e308', mapNumbers(base, (n) => (n >= 0 ? 1e308 : -1e308))]);
        for (const [what, body] of bodies) await send(op, { what, path: realPath, query: realQuery, body });
        // one property at a time, the rest left valid: the unbounded ones first
        const suspicious: { path: (string | number)[]; m: Mutation }[] = [];
        const other: { path: (string | number)[]; m: Mutation }[] = [];
        for (const leaf of leaves) {
          const ms = mutationsOf(leaf.schema, leaf.path.at(-1));
          for (const m of ms.suspicious) suspicious.push({ path: leaf.path, m });
          for (const m of ms.other) other.push({ path: leaf.path, m });
        }
        const chosen = pick(suspicious, 4, random);
        chosen.push(...pick(other, 5 - Math.min(chosen.length, 4), random));
        for (const { path, m } of chosen) {
          await send(op, { what: `${path.join('.') || '(body)'}: ${m.label}`, path: realPath, query: realQuery, body: withValue(base, path, m.value) });
        }
      } else if (op.upload) {
        // a streamed CSV upload: malformed files, and multipart that is not
        const uploads: [string, string | Buffer, string][] = [
          ['a small CSV', CSV_CONTENT, 'text/csv'],
          ['NUL in a cell', 'email,first_name\nnul@example.com,a\u0000b\n', 'text/csv'],
          ['a lone surrogate as UTF-8 bytes', Buffer.concat([Buffer.from('email,first_name\nsur@example.com,'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('\n')]), 'text/csv'],
          ['a 100 KB cell', `email,first_name\nbig@example.com,${BIG}\n`, 'text/csv'],
          ['600 columns', `${Array.from({ length: 600 }, (_, i) => `c${i}`).join(',')}\n`, 'text/csv'],
          ['an unterminated quote', 'email,first_name\n"quote@example.com,open\n', 'text/csv'],
          ['an empty file', '', 'text/csv'],
          ['multipart that is not', 'not multipart at all', 'multipart/form-data; boundary=fuzz'],
          ['a multipart form without its file', '--fuzz\r\nContent-Disposition: form-data; name="mapping"\r\n\r\n{"email":"email"}\r\n--fuzz--\r\n', 'multipart/form-data; boundary=fuzz'],
        ];
        for (const [what, raw, contentType] of uploads) await send(op, { what, path: realPath, query: realQuery, raw, contentType });
      } else {
        await send(op, { what: 'the real resource', path: realPath, query: realQuery });
        if (op.method !== 'GET') {
          // an operation documented without a body: one it does not expect
          await send(op, { what: 'an undocumented body', path: realPath, query: realQuery, body: { fuzz: '\ud800' } });
          await send(op, { what: `an undocumented body nested ${DEPTH} deep`, path: realPath, query: realQuery, raw: JSON.stringify(deepArray()) });
        }
      }

      // path parameters: a missing id of the right prefix, another account's real one, and hostile segments
      const perParam = Math.max(op.body || op.upload ? 4 : 8 / op.params.length, 3);
      for (const param of op.params) {
        const segment = segmentOf(param);
        const prefix = (mine[segment] ?? theirs[segment])?.split('_')[0];
        const firsts = [prefix ? `${prefix}_${MISSING_ULID}` : `missing_${MISSING_ULID}`, ...(theirs[segment] ? [encodeURIComponent(theirs[segment]!)] : [])];
        const values = [...firsts, ...pick(HOSTILE_SEGMENTS, Math.max(0, perParam - firsts.length), random)];
        for (const value of values) {
          await send(op, { what: `${param} = ${value === firsts[1] ? "another account's" : value}`, path: pathWith({ [param]: value }), query: realQuery, ...(op.body ? { body: base } : {}) });
        }
      }

      // the query string: every parameter a lone surrogate at once, then a few parameters one at a time
      const body = op.body ? { body: base } : {};
      if (op.query.length) {
        await send(op, { what: 'every query parameter a lone surrogate', path: realPath, query: encodeQuery(op.query.map((q) => [q.name, '%ED%A0%80'])), ...body });
        const pairs = op.query.flatMap((q) => [...queryMutations(q.name, q.schema).map((v) => ({ name: q.name, value: v })), { name: q.name, value: 'repeated' }]);
        for (const { name, value } of pick(pairs, 3, random)) {
          const rest = queryHints.filter(([k]) => k !== name);
          const entries: [string, string][] = value === 'repeated' ? [[name, 'a'], [name, 'b']] : [[name, value]];
          await send(op, { what: `query ${name} = ${value === 'repeated' ? 'given twice' : value}`, path: realPath, query: encodeQuery([...rest, ...entries]), ...body });
        }
        if (op.query.some((q) => q.name === 'cursor')) {
          for (const cursor of HOSTILE_CURSORS) await send(op, { what: `a well-formed cursor with hostile values ${Buffer.from(cursor, 'base64url').toString()}`, path: realPath, query: encodeQuery([['cursor', cursor]]), ...body });
        }
      } else {
        await send(op, { what: 'an unknown query parameter', path: realPath, query: 'fuzz=%ED%A0%80&fuzz=%00', ...body });
      }
    }

    const counts = [...perOperation.values()];
    console.log(`fuzzed ${operations.length} operations with ${requests} requests (${Math.min(...counts)}–${Math.max(...counts)} each) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(perOperation.size, 'every operation of the document was fuzzed').toBe(operations.length);
    expect(failures, `${failures.length} answers broke the contract:\n${failures.join('\n')}`).toEqual([]);
  });

  it('afterwards the service still answers, its read models running', async () => {
    const { key } = await server.newAccount('After');
    expect((await server.call('GET', '/v1/contacts', { key })).status).toBe(200);
    const health = (await server.call('GET', '/health')).body;
    expect(health.projections.filter((p: { status: string }) => p.status === 'failed')).toEqual([]);
  });
});
