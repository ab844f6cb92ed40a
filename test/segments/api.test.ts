// Segments over HTTP (README "Segments";
// README "Segments"): CRUD with live counts, pagination, tenant isolation, the rule schema, every
// operator family matching exactly the right contacts, nested groups, invalid rules answered with
// their exact paths, values and keys matched literally (never SQL), counts that follow every write
// that changes membership, members pages, preview = saved count, and a rebuild of the read model.
import { beforeAll, describe, expect, it } from 'vitest';
import { segmentsProjection } from '../../projections/segments.ts';
import { segmentContactIds } from '../../src/segments/service.ts';
import { readyAccount, type TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { expectRejected } from '../support/http.ts';
import { HOLD_SANDBOX, SECRETS, sendAndWaitSent } from '../webhooks-inbound/helpers.ts';

const SEGMENT_ID_RE = /^seg_[0-9A-HJKMNP-TV-Z]{26}$/;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MISSING_SEGMENT = 'seg_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const MISSING_LIST = 'lst_01ARZ3NDEKTSV4RRFFQ69G5FAV';

// the SMTP feedback secret: a complaint is how a recipient gets suppressed
const server = testServerForSuite({ ...SECRETS, ...HOLD_SANDBOX });

async function ok(key: string, method: string, path: string, body?: unknown, status = 200) {
  const res = await server.call(method, path, { key, body });
  expect(res.status, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

type Rules = { match: 'all' | 'any'; rules: unknown[] };
const all = (...rules: unknown[]): Rules => ({ match: 'all', rules });
const any = (...rules: unknown[]): Rules => ({ match: 'any', rules });
const rule = (field: string, operator: string, value?: unknown) => (value === undefined ? { field, operator } : { field, operator, value });

const createSegment = (key: string, body: Record<string, unknown>) => ok(key, 'POST', '/v1/segments', body, 201);
const createContact = (key: string, body: Record<string, unknown>) => ok(key, 'POST', '/v1/contacts', body, 201);
const countOf = async (key: string, id: string) => (await ok(key, 'GET', `/v1/segments/${id}`)).count as number;
const previewCount = async (key: string, rules: Rules) => (await ok(key, 'POST', '/v1/segments/preview', { rules })).count as number;
const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
const sorted = (xs: string[]) => [...xs].sort();

/** Every page of a paginated route, following next_cursor. */
async function allPages(key: string, path: string, limit: number) {
  const pages: any[][] = [];
  let cursor: string | null = null;
  do {
    const body = await ok(key, 'GET', `${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    pages.push(body.data);
    cursor = body.next_cursor;
    expect(pages.length).toBeLessThan(100);
  } while (cursor);
  return pages;
}

const FIELDS = [
  { key: 'plan', label: 'Plan', type: 'select', options: ['free', 'pro', 'Team'] },
  { key: 'score', label: 'Score', type: 'number' },
  { key: 'active', label: 'Active', type: 'boolean' },
  { key: 'birthday', label: 'Birthday', type: 'date' },
  { key: 'note', label: 'Note', type: 'text' },
];

describe('creating, reading, replacing and deleting a segment', () => {
  it('creates a segment (201) with its rules and live count; GET answers the same', async () => {
    const { key } = await readyAccount(server);
    await createContact(key, { email: 'crud-1@example.com', tags: ['vip'] });
    await createContact(key, { email: 'crud-2@example.com', tags: ['trial'] });
    const rules = all(rule('tag', 'has', 'vip'));
    const segment = await createSegment(key, { name: '  VIPs ', description: 'our best', rules });
    expect(segment).toEqual({
      id: expect.stringMatching(SEGMENT_ID_RE),
      name: 'VIPs',
      description: 'our best',
      rules,
      count: 1,
      created_at: expect.stringMatching(RFC3339_UTC),
      updated_at: segment.created_at,
    });
    expect(await ok(key, 'GET', `/v1/segments/${segment.id}`)).toEqual(segment);
    expect((await createSegment(key, { name: 'No description', rules })).description).toBeNull();
  });

  it('PUT replaces name, description and rules (a description left out is removed); the same body again changes nothing', async () => {
    const { key } = await readyAccount(server);
    await createContact(key, { email: 'put-1@example.com', country: 'FR' });
    const segment = await createSegment(key, { name: 'Old', description: 'about', rules: all(rule('contact.country', 'eq', 'de')) });
    expect(segment.count).toBe(0);
    const body = { name: 'French', rules: any(rule('contact.country', 'eq', 'fr'), rule('contact.country', 'eq', 'be')) };
    const replaced = await ok(key, 'PUT', `/v1/segments/${segment.id}`, body);
    expect(replaced).toMatchObject({ id: segment.id, name: 'French', description: null, rules: body.rules, count: 1, created_at: segment.created_at });
    expect(Date.parse(replaced.updated_at)).toBeGreaterThanOrEqual(Date.parse(segment.updated_at));
    expect(await ok(key, 'PUT', `/v1/segments/${segment.id}`, body)).toEqual(replaced);
    expect(await ok(key, 'GET', `/v1/segments/${segment.id}`)).toEqual(replaced);
    const events = await server.engage.store.readStream(`segment-${segment.id}`);
    expect(events.map((e) => e.type)).toEqual(['SegmentCreated', 'SegmentUpdated']);
  });

  it('deletes a segment (200 {id, deleted: true}, as every delete): it is gone from GET, the listing and every route of it; its contacts stay', async () => {
    const { key } = await readyAccount(server);
    const c = await createContact(key, { email: 'kept@example.com' });
    const keep = await createSegment(key, { name: 'Keep', rules: all(rule('contact.email', 'is_set')) });
    const gone = await createSegment(key, { name: 'Gone', rules: all(rule('contact.email', 'is_set')) });
    const res = await server.call('DELETE', `/v1/segments/${gone.id}`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: gone.id, deleted: true });
    expect(ids((await ok(key, 'GET', '/v1/segments')).data)).toEqual([keep.id]);
    for (const [method, path, body] of [
      ['GET', `/v1/segments/${gone.id}`],
      ['PUT', `/v1/segments/${gone.id}`, { name: 'x', rules: all(rule('tag', 'has', 'x')) }],
      ['DELETE', `/v1/segments/${gone.id}`],
      ['GET', `/v1/segments/${gone.id}/contacts`],
    ] as const) {
      const r = await server.call(method, path, { key, body });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body).toMatchObject({ error: 'not_found', message: 'segment not found' });
    }
    expect((await ok(key, 'GET', `/v1/contacts/${c.id}`)).id).toBe(c.id);
  });

  it('answers 404 for a missing segment, a path segment that is not a segment id, and another account’s segment alike', async () => {
    const a = await readyAccount(server);
    const b = await readyAccount(server);
    const theirs = await createSegment(a.key, { name: 'Private', rules: all(rule('contact.email', 'is_set')) });
    const missing = await server.call('GET', `/v1/segments/${MISSING_SEGMENT}`, { key: b.key });
    expect(missing.status).toBe(404);
    for (const id of [MISSING_SEGMENT, 'not-an-id', MISSING_LIST, theirs.id]) {
      for (const [method, path, body] of [
        ['GET', `/v1/segments/${id}`],
        ['PUT', `/v1/segments/${id}`, { name: 'hijacked', rules: all(rule('tag', 'has', 'x')) }],
        ['DELETE', `/v1/segments/${id}`],
        ['GET', `/v1/segments/${id}/contacts`],
      ] as const) {
        const res = await server.call(method, path, { key: b.key, body });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body, `${method} ${path}`).toEqual(missing.body);
      }
    }
    expect(await ok(a.key, 'GET', `/v1/segments/${theirs.id}`)).toMatchObject({ name: 'Private' });
    expect((await ok(b.key, 'GET', '/v1/segments')).data).toEqual([]);
  });

  it('counts only the account’s own contacts', async () => {
    const a = await readyAccount(server);
    const b = await readyAccount(server);
    await createContact(a.key, { email: 'mine@example.com', tags: ['shared-tag'] });
    await createContact(b.key, { email: 'theirs@example.com', tags: ['shared-tag'] });
    await createContact(b.key, { email: 'theirs-2@example.com', tags: ['shared-tag'] });
    const rules = all(rule('tag', 'has', 'shared-tag'));
    expect((await createSegment(a.key, { name: 'Tagged', rules })).count).toBe(1);
    expect(await previewCount(b.key, rules)).toBe(2);
  });
});

describe('GET /v1/segments: newest first, by cursor, each with a live count', () => {
  it('pages through every segment exactly once, each with its count', async () => {
    const { key } = await readyAccount(server);
    for (let i = 0; i < 3; i++) await createContact(key, { email: `page-${i}@example.com`, tags: i ? ['t'] : [] });
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await createSegment(key, { name: `S${i}`, rules: all(rule('tag', i % 2 ? 'has' : 'not_has', 't')) })).id);
    const full = await ok(key, 'GET', '/v1/segments');
    expect(ids(full.data)).toEqual([...made].reverse());
    expect(full.next_cursor).toBeNull();
    expect(full.data.map((s: { count: number }) => s.count)).toEqual([1, 2, 1, 2, 1]);
    for (const limit of [1, 2, 3]) {
      const pages = await allPages(key, '/v1/segments', limit);
      expect(pages.every((p) => p.length <= limit)).toBe(true);
      expect(ids(pages.flat()), `limit ${limit}`).toEqual([...made].reverse());
    }
  });

  it('rejects a bad limit, a cursor it did not issue and an unknown parameter with 400 naming it', async () => {
    const { key } = await readyAccount(server);
    for (const [query, path] of [['limit=0', 'limit'], ['limit=501', 'limit'], ['cursor=garbage', 'cursor'], ['colour=red', 'colour']]) {
      expectRejected(await server.call('GET', `/v1/segments?${query}`, { key }), path);
    }
  });
});

describe('GET /v1/segments/schema', () => {
  it('lists the standard fields, the account’s custom fields by type with select options, list, tag, event and suppressed, each with its operators', async () => {
    const { key } = await readyAccount(server);
    for (const f of FIELDS) await ok(key, 'POST', '/v1/contacts/fields', f, 201);
    const schema = await ok(key, 'GET', '/v1/segments/schema');
    const byField = new Map(schema.fields.map((f: { field: string }) => [f.field, f]));
    const ops = (field: string) => (byField.get(field) as { operators: { operator: string; value: string }[] }).operators;
    const names = (field: string) => ops(field).map((o) => o.operator);

    expect([...byField.keys()]).toEqual([
      'contact.email', 'contact.phone', 'contact.first_name', 'contact.last_name', 'contact.country', 'contact.language', 'contact.timezone',
      'contact.external_id', 'contact.created_at',
      'custom.plan', 'custom.score', 'custom.active', 'custom.birthday', 'custom.note',
      'list', 'tag', 'event.<name>', 'suppressed',
    ]);
    expect(byField.get('custom.plan')).toMatchObject({ label: 'Plan', type: 'select', options: ['free', 'pro', 'Team'] });
    expect(byField.get('custom.score')).toMatchObject({ label: 'Score', type: 'number' });
    expect(byField.get('custom.score')).not.toHaveProperty('options');
    expect(names('contact.email')).toEqual(['eq', 'neq', 'contains', 'not_contains', 'starts_with', 'ends_with', 'in', 'not_in', 'is_set', 'is_not_set']);
    expect(names('custom.score')).toEqual(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'between', 'is_set', 'is_not_set']);
    expect(names('custom.birthday')).toEqual(['before', 'after', 'on', 'within_last_days', 'more_than_days_ago', 'is_set', 'is_not_set']);
    expect(names('contact.created_at')).toEqual(names('custom.birthday'));
    expect(names('custom.active')).toEqual(['is_true', 'is_false', 'is_set', 'is_not_set']);
    expect(names('custom.plan')).toEqual(['eq', 'neq', 'in', 'not_in', 'is_set', 'is_not_set']);
    expect(ops('list')).toEqual([{ operator: 'in', value: 'list_id' }, { operator: 'not_in', value: 'list_id' }]);
    expect(ops('tag')).toEqual([{ operator: 'has', value: 'string' }, { operator: 'not_has', value: 'string' }]);
    expect(ops('suppressed')).toEqual([{ operator: 'is_true', value: 'none' }, { operator: 'is_false', value: 'none' }]);
    expect(ops('event.<name>')).toEqual([
      { operator: 'performed', value: 'none', count: 'optional', within_days: 'optional' },
      { operator: 'not_performed', value: 'none', within_days: 'optional' },
      { operator: 'performed_at_most', value: 'none', count: 'required', within_days: 'optional' },
    ]);
    // each operator's value type is explained, and the limits are stated
    expect(ops('custom.score').find((o) => o.operator === 'between')!.value).toBe('number_range');
    expect(ops('custom.plan').find((o) => o.operator === 'in')!.value).toBe('option[]');
    for (const f of schema.fields) for (const o of f.operators) expect(schema.value_types[o.value], `${f.field} ${o.operator}`).toEqual(expect.any(String));
    expect(schema.limits).toEqual({ max_depth: 3, max_rules: 50, max_in_values: 1000 });
  });

  it('is a route of its own (schema and preview are never read as an id), and another account sees only its own fields', async () => {
    const { key } = await readyAccount(server);
    const schema = await ok(key, 'GET', '/v1/segments/schema');
    expect(schema.fields.filter((f: { field: string }) => f.field.startsWith('custom.'))).toEqual([]);
    expect((await server.call('GET', '/v1/segments/preview', { key })).status).toBe(404);
    expect((await server.call('PUT', '/v1/segments/schema', { key, body: { name: 'x', rules: all(rule('tag', 'has', 'x')) } })).status).toBe(404);
  });
});

describe('each operator family matches exactly the right contacts', () => {
  let acct: TestAccount;
  let a: any, b: any, c: any, d: any;
  let list: string;

  /** The contacts a rule set matches (by a preview's sample), checked against its count. */
  async function matching(rules: Rules): Promise<string[]> {
    const res = await ok(acct.key, 'POST', '/v1/segments/preview', { rules, sample: true });
    expect(res.count, JSON.stringify(rules)).toBe(res.sample.length);
    return sorted(ids(res.sample));
  }
  const expectMatch = async (rules: Rules, expected: any[]) => expect(await matching(rules), JSON.stringify(rules)).toEqual(sorted(ids(expected)));

  beforeAll(async () => {
    acct = await readyAccount(server);
    for (const f of FIELDS) await ok(acct.key, 'POST', '/v1/contacts/fields', f, 201);
    a = await createContact(acct.key, {
      email: 'Ada@Example.com', phone: '+14155550101', first_name: 'Ada', last_name: 'Lovelace', country: 'GB', language: 'en', timezone: 'Europe/London',
      external_id: 'ext-1', tags: ['vip', 'early'],
      custom_fields: { plan: 'pro', score: 42.5, active: true, birthday: '1990-04-01', note: 'Likes tea' },
    });
    b = await createContact(acct.key, {
      email: 'grace@navy.mil', phone: '+33612345678', first_name: 'Grace', last_name: 'Hopper', country: 'US', tags: ['vip'],
      custom_fields: { plan: 'free', score: 7, active: false, birthday: '1985-12-09T10:00:00+01:00', note: '100% cotton_x' },
    });
    c = await createContact(acct.key, { email: 'alan@example.org', first_name: 'alan', country: 'GB', custom_fields: { plan: 'Team' } });
    d = await createContact(acct.key, { external_id: 'EXT-4', custom_fields: { score: 100 } });
    list = (await ok(acct.key, 'POST', '/v1/lists', { name: 'L' }, 201)).id;
    for (const x of [a, c]) await ok(acct.key, 'POST', `/v1/lists/${list}/contacts`, { contact_id: x.id }, 201);
  });

  it('text: eq, neq, in, not_in case-insensitively; the pattern operators; is_set; a negative operator includes unset values', async () => {
    await expectMatch(all(rule('contact.email', 'eq', 'ADA@example.COM')), [a]);
    await expectMatch(all(rule('contact.first_name', 'eq', 'ALAN')), [c]);
    await expectMatch(all(rule('contact.first_name', 'neq', 'ada')), [b, c, d]);
    await expectMatch(all(rule('contact.last_name', 'contains', 'OVE')), [a]);
    await expectMatch(all(rule('contact.last_name', 'not_contains', 'ove')), [b, c, d]);
    await expectMatch(all(rule('contact.email', 'starts_with', 'grace@')), [b]);
    await expectMatch(all(rule('contact.email', 'ends_with', '.ORG')), [c]);
    await expectMatch(all(rule('contact.country', 'in', ['gb', 'FR'])), [a, c]);
    await expectMatch(all(rule('contact.country', 'not_in', ['gb'])), [b, d]);
    await expectMatch(all(rule('contact.external_id', 'is_set')), [a, d]);
    await expectMatch(all(rule('contact.external_id', 'is_not_set')), [b, c]);
    await expectMatch(all(rule('contact.language', 'eq', 'EN')), [a]);
    await expectMatch(all(rule('contact.timezone', 'starts_with', 'europe/')), [a]);
    // phone numbers compare whole in E.164, however written
    await expectMatch(all(rule('contact.phone', 'eq', '+1 (415) 555-0101')), [a]);
    await expectMatch(all(rule('contact.phone', 'in', ['+33 6 12 34 56 78', '+44 20 7946 0958'])), [b]);
    await expectMatch(all(rule('contact.phone', 'starts_with', '+33')), [b]);
    // % and _ are literal characters, not wildcards
    await expectMatch(all(rule('custom.note', 'contains', '%')), [b]);
    await expectMatch(all(rule('custom.note', 'contains', '_')), [b]);
    await expectMatch(all(rule('custom.note', 'starts_with', '100%')), [b]);
    await expectMatch(all(rule('custom.note', 'ends_with', 'TEA')), [a]);
    await expectMatch(all(rule('custom.note', 'eq', 'likes tea')), [a]);
    await expectMatch(all(rule('custom.note', 'is_not_set')), [c, d]);
  });

  it('number: eq (as a number: 42.5), neq, gt, gte, lt, lte, between (both ends included), is_set', async () => {
    await expectMatch(all(rule('custom.score', 'eq', 42.5)), [a]);
    await expectMatch(all(rule('custom.score', 'eq', 100.0)), [d]);
    await expectMatch(all(rule('custom.score', 'neq', 42.5)), [b, c, d]);
    await expectMatch(all(rule('custom.score', 'gt', 42.5)), [d]);
    await expectMatch(all(rule('custom.score', 'gte', 42.5)), [a, d]);
    await expectMatch(all(rule('custom.score', 'lt', 42.5)), [b]);
    await expectMatch(all(rule('custom.score', 'lte', 42.5)), [a, b]);
    await expectMatch(all(rule('custom.score', 'between', [7, 42.5])), [a, b]);
    await expectMatch(all(rule('custom.score', 'between', [-1e9, 1e9])), [a, b, d]);
    await expectMatch(all(rule('custom.score', 'is_set')), [a, b, d]);
    await expectMatch(all(rule('custom.score', 'is_not_set')), [c]);
  });

  it('boolean: is_true, is_false, is_set, is_not_set', async () => {
    await expectMatch(all(rule('custom.active', 'is_true')), [a]);
    await expectMatch(all(rule('custom.active', 'is_false')), [b]);
    await expectMatch(all(rule('custom.active', 'is_set')), [a, b]);
    await expectMatch(all(rule('custom.active', 'is_not_set')), [c, d]);
  });

  it('date: before, after and on a UTC day or an instant; within_last_days, more_than_days_ago; is_set', async () => {
    // b's birthday is 1985-12-09T09:00:00Z
    await expectMatch(all(rule('custom.birthday', 'before', '1990-01-01')), [b]);
    await expectMatch(all(rule('custom.birthday', 'before', '1990-04-01')), [b]);
    await expectMatch(all(rule('custom.birthday', 'after', '1990-03-31')), [a]);
    await expectMatch(all(rule('custom.birthday', 'after', '1990-04-01')), []);
    await expectMatch(all(rule('custom.birthday', 'on', '1990-04-01')), [a]);
    await expectMatch(all(rule('custom.birthday', 'on', '1985-12-09')), [b]);
    await expectMatch(all(rule('custom.birthday', 'before', '1985-12-09T09:00:00Z')), []);
    await expectMatch(all(rule('custom.birthday', 'before', '1985-12-09T10:00:01+01:00')), [b]);
    await expectMatch(all(rule('custom.birthday', 'after', '1985-12-09T08:59:59Z')), [a, b]);
    await expectMatch(all(rule('custom.birthday', 'more_than_days_ago', 365)), [a, b]);
    await expectMatch(all(rule('custom.birthday', 'within_last_days', 30)), []);
    await expectMatch(all(rule('custom.birthday', 'is_set')), [a, b]);
    await expectMatch(all(rule('custom.birthday', 'is_not_set')), [c, d]);
    // every contact here was created a moment ago
    await expectMatch(all(rule('contact.created_at', 'within_last_days', 1)), [a, b, c, d]);
    await expectMatch(all(rule('contact.created_at', 'more_than_days_ago', 1)), []);
    await expectMatch(all(rule('contact.created_at', 'before', '2000-01-01')), []);
    await expectMatch(all(rule('contact.created_at', 'after', '2000-01-01T00:00:00Z')), [a, b, c, d]);
    await expectMatch(all(rule('contact.created_at', 'is_not_set')), []);
  });

  it('select: eq, neq, in, not_in, is_set', async () => {
    await expectMatch(all(rule('custom.plan', 'eq', 'pro')), [a]);
    await expectMatch(all(rule('custom.plan', 'eq', 'Team')), [c]);
    await expectMatch(all(rule('custom.plan', 'neq', 'pro')), [b, c, d]);
    await expectMatch(all(rule('custom.plan', 'in', ['free', 'Team'])), [b, c]);
    await expectMatch(all(rule('custom.plan', 'not_in', ['free'])), [a, c, d]);
    await expectMatch(all(rule('custom.plan', 'is_set')), [a, b, c]);
    await expectMatch(all(rule('custom.plan', 'is_not_set')), [d]);
    // an option written in another case is that option, and is saved as the definition spells it
    await expectMatch(all(rule('custom.plan', 'eq', 'TEAM')), [c]);
    await expectMatch(all(rule('custom.plan', 'in', ['PRO', 'free'])), [a, b]);
    const saved = await ok(acct.key, 'POST', '/v1/segments', { name: 'any case', rules: all(rule('custom.plan', 'in', ['PRO', 'team'])) }, 201);
    expect(saved.rules.rules[0].value).toEqual(['pro', 'Team']);
    expect(saved.count).toBe(2);
  });

  it('tag: has and not_has (exact tags); list: in and not_in', async () => {
    await expectMatch(all(rule('tag', 'has', 'vip')), [a, b]);
    await expectMatch(all(rule('tag', 'has', 'early')), [a]);
    await expectMatch(all(rule('tag', 'not_has', 'vip')), [c, d]);
    await expectMatch(all(rule('tag', 'has', 'VIP')), []);
    await expectMatch(all(rule('list', 'in', list)), [a, c]);
    await expectMatch(all(rule('list', 'not_in', list)), [b, d]);
  });

  it('groups: all, any, and nesting three deep', async () => {
    await expectMatch(all(rule('tag', 'has', 'vip'), rule('contact.country', 'eq', 'gb')), [a]);
    await expectMatch(any(rule('tag', 'has', 'early'), rule('custom.score', 'gte', 100)), [a, d]);
    await expectMatch(any(all(rule('tag', 'has', 'vip'), rule('custom.plan', 'eq', 'free')), rule('list', 'in', list)), [a, b, c]);
    await expectMatch(
      all(rule('contact.email', 'is_set'), any(rule('custom.active', 'is_true'), all(rule('list', 'in', list), rule('custom.plan', 'neq', 'pro')))),
      [a, c],
    );
    // the same list twice (joined once) and an any of a rule and its negation
    await expectMatch(any(rule('list', 'in', list), rule('list', 'not_in', list)), [a, b, c, d]);
    await expectMatch(all(rule('list', 'in', list), rule('list', 'not_in', list)), []);
  });

  it('members: GET /v1/segments/:id/contacts pages the matching contacts in id order, as the contacts API shows them', async () => {
    const segment = await createSegment(acct.key, { name: 'Everyone', rules: all(rule('contact.created_at', 'is_set')) });
    const everyone = [a, b, c, d].map((x) => x.id);
    for (const limit of [1, 3, 4, 50]) {
      const pages = await allPages(acct.key, `/v1/segments/${segment.id}/contacts`, limit);
      expect(ids(pages.flat()), `limit ${limit}`).toEqual(everyone);
    }
    const first = await ok(acct.key, 'GET', `/v1/segments/${segment.id}/contacts?limit=1`);
    expect(first.data[0]).toEqual(await ok(acct.key, 'GET', `/v1/contacts/${a.id}`));
    expectRejected(await server.call('GET', `/v1/segments/${segment.id}/contacts?cursor=nope`, { key: acct.key }), 'cursor');
    expectRejected(await server.call('GET', `/v1/segments/${segment.id}/contacts?limit=0`, { key: acct.key }), 'limit');
  });

  it('a preview counts what the saved segment counts, and shows at most 10 contacts only when asked', async () => {
    const rules = any(rule('tag', 'has', 'vip'), rule('custom.score', 'gt', 50));
    const saved = await createSegment(acct.key, { name: 'Preview', rules });
    expect(saved.count).toBe(3);
    expect(await ok(acct.key, 'POST', '/v1/segments/preview', { rules })).toEqual({ count: 3 });
    const withSample = await ok(acct.key, 'POST', '/v1/segments/preview', { rules, sample: true });
    expect(ids(withSample.sample)).toEqual([a.id, b.id, d.id]);
  });
});

describe('invalid rules', () => {
  let acct: TestAccount;
  let otherList: string;
  let otherField: string;
  const valid = rule('tag', 'has', 'x');

  beforeAll(async () => {
    acct = await readyAccount(server);
    for (const f of FIELDS) await ok(acct.key, 'POST', '/v1/contacts/fields', f, 201);
    const other = await readyAccount(server);
    otherList = (await ok(other.key, 'POST', '/v1/lists', { name: 'theirs' }, 201)).id;
    otherField = 'only_theirs';
    await ok(other.key, 'POST', '/v1/contacts/fields', { key: otherField, type: 'text' }, 201);
  });

  const nested = (depth: number): Rules => (depth === 1 ? all(valid) : all(nested(depth - 1)));

  const cases: [string, () => unknown, string][] = [
    ['rules missing', () => undefined, 'rules'],
    ['rules an array', () => [valid], 'rules'],
    ['a rule instead of a group', () => valid, 'rules'],
    ['match unknown', () => ({ match: 'some', rules: [valid] }), 'match'],
    ['a group without rules', () => all(), 'rules'],
    ['an unknown key in the set', () => ({ ...all(valid), limit: 5 }), 'limit'],
    ['an unknown operator', () => all(valid, valid, rule('contact.email', 'gt', 'x')), 'rules[2].operator'],
    ['a nested value of the wrong type', () => all(valid, all(rule('custom.score', 'gt', '5'))), 'rules[1].rules[0].value'],
    ['an unknown custom key', () => all(rule('custom.nope', 'eq', 'x')), 'rules[0].field'],
    ['another account’s custom key', () => all(rule(`custom.${otherField}`, 'eq', 'x')), 'rules[0].field'],
    ['a key with quotes', () => all(rule(`custom.o'brien"; --`, 'eq', 'x')), 'rules[0].field'],
    ['an unknown standard field', () => all(rule('contact.password', 'eq', 'x')), 'rules[0].field'],
    ['contact.tags instead of tag', () => all(rule('contact.tags', 'has', 'x')), 'rules[0].field'],
    ['no such field at all', () => all(rule('colour', 'eq', 'x')), 'rules[0].field'],
    ['an event without a name', () => all(rule('event.', 'performed')), 'rules[0].field'],
    ['a list that does not exist', () => all(rule('list', 'in', MISSING_LIST)), 'rules[0].value'],
    ['another account’s list', () => all(valid, rule('list', 'not_in', otherList)), 'rules[1].value'],
    ['not a list id', () => all(rule('list', 'in', 'newsletter')), 'rules[0].value'],
    ['an option that is not the field’s', () => all(rule('custom.plan', 'eq', 'gold')), 'rules[0].value'],
    ['one bad value among an in', () => all(rule('contact.country', 'in', ['GB', 5])), 'rules[0].value[1]'],
    ['too many values for in', () => all(rule('contact.country', 'in', Array.from({ length: 1001 }, (_, i) => `c${i}`))), 'rules[0].value'],
    ['an empty in', () => all(rule('contact.country', 'in', [])), 'rules[0].value'],
    ['a value where none is taken', () => all(rule('contact.email', 'is_set', true)), 'rules[0].value'],
    ['no value where one is needed', () => all(rule('contact.email', 'eq')), 'rules[0].value'],
    ['an empty text value', () => all(rule('contact.email', 'contains', '')), 'rules[0].value'],
    ['a phone number that is not one', () => all(rule('contact.phone', 'eq', '12')), 'rules[0].value'],
    ['not a date', () => all(rule('custom.birthday', 'before', '2026-02-30')), 'rules[0].value'],
    ['on with an instant', () => all(rule('contact.created_at', 'on', '2026-01-01T00:00:00Z')), 'rules[0].value'],
    ['days not whole', () => all(rule('contact.created_at', 'within_last_days', 1.5)), 'rules[0].value'],
    ['a range upside down', () => all(rule('custom.score', 'between', [5, 1])), 'rules[0].value'],
    ['a number that is a string', () => all(rule('custom.score', 'eq', '5')), 'rules[0].value'],
    ['count on a rule that is not an event', () => all(rule('tag', 'has', 'x'), { ...valid, count: 2 }), 'rules[1].count'],
    ['performed_at_most without a count', () => all(rule('event.signup', 'performed_at_most')), 'rules[0].count'],
    ['not_performed with a count', () => all({ ...rule('event.signup', 'not_performed'), count: 1 }), 'rules[0].count'],
    ['performed with count 0', () => all({ ...rule('event.signup', 'performed'), count: 0 }), 'rules[0].count'],
    ['within_days 0', () => all({ ...rule('event.signup', 'performed'), within_days: 0 }), 'rules[0].within_days'],
    ['an event rule with a value', () => all(rule('event.signup', 'performed', 1)), 'rules[0].value'],
    ['an unknown key in a rule', () => all({ ...valid, colour: 'red' }), 'rules[0].colour'],
    ['neither rule nor group', () => all(valid, 'tag has x'), 'rules[1]'],
    ['groups four deep', () => nested(4), 'rules[0].rules[0].rules[0]'],
    ['51 rules in all', () => all(...Array.from({ length: 26 }, () => valid), all(...Array.from({ length: 25 }, () => valid))), 'rules'],
  ];

  it.each(cases)('%s: 400 validation_error naming the path, on create, replace and preview', async (_name, rules, path) => {
    expectRejected(await server.call('POST', '/v1/segments', { key: acct.key, body: { name: 'Bad', rules: rules() } }), path);
    expectRejected(await server.call('POST', '/v1/segments/preview', { key: acct.key, body: { rules: rules() } }), path);
  });

  it('the limits themselves are accepted: 3 deep, 50 rules, 1,000 values', async () => {
    await previewCount(acct.key, nested(3));
    await previewCount(acct.key, all(...Array.from({ length: 25 }, () => valid), all(...Array.from({ length: 25 }, () => valid))));
    await previewCount(acct.key, all(rule('contact.country', 'in', Array.from({ length: 1000 }, (_, i) => `c${i}`))));
  });

  it('a replace with bad rules changes nothing; nothing is created by a bad create; the body’s own fields are checked too', async () => {
    const segment = await createSegment(acct.key, { name: 'Stays', rules: all(valid) });
    expectRejected(await server.call('PUT', `/v1/segments/${segment.id}`, { key: acct.key, body: { name: 'Changed', rules: all(rule('custom.nope', 'eq', 'x')) } }), 'rules[0].field');
    expectRejected(await server.call('PUT', `/v1/segments/${segment.id}`, { key: acct.key, body: { name: 'Changed' } }), 'rules');
    expect(await ok(acct.key, 'GET', `/v1/segments/${segment.id}`)).toEqual(segment);
    for (const [body, path] of [
      [{ rules: all(valid) }, 'name'],
      [{ name: '  ', rules: all(valid) }, 'name'],
      [{ name: 'x'.repeat(201), rules: all(valid) }, 'name'],
      [{ name: 'ok', description: 5, rules: all(valid) }, 'description'],
      [{ name: 'ok', rules: all(valid), count: 3 }, 'count'],
      [{ name: 'nul \u0000', rules: all(valid) }, 'name'],
      [{ name: 'ok', rules: all(rule('tag', 'has', 'nul \u0000')) }, 'rules.rules.0.value'],
    ] as const) {
      expectRejected(await server.call('POST', '/v1/segments', { key: acct.key, body }), path);
    }
    expectRejected(await server.call('POST', '/v1/segments/preview', { key: acct.key, body: { rules: all(valid), sample: 'yes' } }), 'sample');
    expect(ids((await ok(acct.key, 'GET', '/v1/segments')).data)).toEqual([segment.id]);
  });
});

describe('values and keys are matched literally, never run as SQL', () => {
  it('an injection attempt in a value matches only the contact holding that exact text, and every table is still there', async () => {
    const { key } = await readyAccount(server);
    await ok(key, 'POST', '/v1/contacts/fields', { key: 'note', type: 'text' }, 201);
    const evil = `'); DROP TABLE contacts; --`;
    const holder = await createContact(key, { email: 'holder@example.com', first_name: evil, tags: [evil], custom_fields: { note: `x' OR '1'='1` } });
    await createContact(key, { email: 'other@example.com', first_name: 'Other', custom_fields: { note: 'plain' } });
    expect(await previewCount(key, all(rule('contact.first_name', 'eq', evil)))).toBe(1);
    expect(await previewCount(key, all(rule('tag', 'has', evil)))).toBe(1);
    expect(await previewCount(key, all(rule('contact.last_name', 'eq', `x' OR '1'='1`)))).toBe(0);
    expect(await previewCount(key, all(rule('custom.note', 'eq', `x' OR '1'='1`)))).toBe(1);
    expect(await previewCount(key, all(rule('custom.note', 'contains', `' OR 1=1 --`)))).toBe(0);
    expect(await previewCount(key, all(rule('contact.email', 'in', [evil, `"; DELETE FROM contacts; --`, 'holder@example.com'])))).toBe(1);
    const segment = await createSegment(key, { name: evil, rules: all(rule('contact.first_name', 'contains', `); DROP`)) });
    expect(ids((await ok(key, 'GET', `/v1/segments/${segment.id}/contacts`)).data)).toEqual([holder.id]);
    expect((await ok(key, 'GET', '/v1/contacts')).data).toHaveLength(2);
  });
});

describe('a custom field definition deleted after the segment was saved', () => {
  it('the segment keeps counting as saved; values of another type (the key defined again) match nothing and break nothing', async () => {
    const { key } = await readyAccount(server);
    const renewal = await ok(key, 'POST', '/v1/contacts/fields', { key: 'renewal', type: 'date' }, 201);
    const tier = await ok(key, 'POST', '/v1/contacts/fields', { key: 'tier', type: 'number' }, 201);
    await createContact(key, { email: 'r1@example.com', custom_fields: { renewal: '2026-01-01', tier: 3 } });
    await createContact(key, { email: 'r2@example.com', custom_fields: { renewal: '2031-01-01T00:00:00Z', tier: 1 } });
    const byDate = await createSegment(key, { name: 'Renews before 2030', rules: all(rule('custom.renewal', 'before', '2030-01-01')) });
    const byNumber = await createSegment(key, { name: 'Tier 2+', rules: all(rule('custom.tier', 'gte', 2)) });
    expect([byDate.count, byNumber.count]).toEqual([1, 1]);

    await ok(key, 'DELETE', `/v1/contacts/fields/${renewal.id}`);
    await ok(key, 'DELETE', `/v1/contacts/fields/${tier.id}`);
    expect([await countOf(key, byDate.id), await countOf(key, byNumber.id)]).toEqual([1, 1]);

    // the keys defined again as text, with values no date or number rule may cast
    await ok(key, 'POST', '/v1/contacts/fields', { key: 'renewal', type: 'text' }, 201);
    await ok(key, 'POST', '/v1/contacts/fields', { key: 'tier', type: 'text' }, 201);
    for (const [renewalText, tierText] of [['now', 'infinity'], ['2026-02-30', '5'], ['0000-01-01', '6'], ['2026-13-01', '7'], ['2025-02-29T00:00:00Z', '8'], ['today', 'NaN'], ['2020-01-01 trailing', '1e400'], ['epoch', '']]) {
      await createContact(key, { external_id: `t-${renewalText}`, custom_fields: { renewal: renewalText, tier: tierText } });
    }
    expect([await countOf(key, byDate.id), await countOf(key, byNumber.id)]).toEqual([1, 1]);
    expect(await ok(key, 'GET', '/v1/segments')).toMatchObject({ data: [{ id: byNumber.id, count: 1 }, { id: byDate.id, count: 1 }] });
    // a new segment on the key is checked against today's definition (text)
    expectRejected(await server.call('POST', '/v1/segments', { key, body: { name: 'x', rules: all(rule('custom.tier', 'gte', 2)) } }), 'rules[0].operator');
    expect(await previewCount(key, all(rule('custom.renewal', 'eq', 'NOW')))).toBe(1);
  });
});

describe('counts are live: the next read after a write that changes membership shows it', () => {
  it('follows a PATCH of a contact, list adds and removes, a contact’s deletion and erasure, and a suppression', async () => {
    const { key, accountId } = await readyAccount(server);
    await ok(key, 'POST', '/v1/contacts/fields', { key: 'plan', type: 'select', options: ['free', 'pro'] }, 201);
    const list = (await ok(key, 'POST', '/v1/lists', { name: 'Newsletter' }, 201)).id;
    const x = await createContact(key, { email: 'live-x@example.com', custom_fields: { plan: 'free' } });
    const y = await createContact(key, { email: 'live-y@example.com', custom_fields: { plan: 'pro' } });
    const pro = await createSegment(key, { name: 'Pro', rules: all(rule('custom.plan', 'eq', 'pro')) });
    const onList = await createSegment(key, { name: 'On the list', rules: all(rule('list', 'in', list), rule('tag', 'not_has', 'churned')) });
    const reachable = await createSegment(key, { name: 'Reachable', rules: all(rule('suppressed', 'is_false')) });
    const suppressed = await createSegment(key, { name: 'Suppressed', rules: all(rule('suppressed', 'is_true')) });
    expect([pro.count, onList.count, reachable.count, suppressed.count]).toEqual([1, 0, 2, 0]);

    await ok(key, 'PATCH', `/v1/contacts/${x.id}`, { custom_fields: { plan: 'pro' } });
    expect(await countOf(key, pro.id)).toBe(2);
    await ok(key, 'PATCH', `/v1/contacts/${y.id}`, { custom_fields: { plan: null } });
    expect(await countOf(key, pro.id)).toBe(1);

    await ok(key, 'POST', `/v1/lists/${list}/contacts`, { contact_id: x.id }, 201);
    expect(await countOf(key, onList.id)).toBe(1);
    await ok(key, 'POST', `/v1/lists/${list}/contacts`, { contact_id: y.id }, 201);
    expect(await countOf(key, onList.id)).toBe(2);
    await ok(key, 'PATCH', `/v1/contacts/${y.id}`, { tags: ['churned'] });
    expect(await countOf(key, onList.id)).toBe(1);
    await ok(key, 'PATCH', `/v1/contacts/${y.id}`, { tags: [] });
    await ok(key, 'DELETE', `/v1/lists/${list}/contacts/${x.id}`);
    expect(ids((await ok(key, 'GET', `/v1/segments/${onList.id}/contacts`)).data)).toEqual([y.id]);

    // a complaint suppresses x's address (the provider callback does not wait for read models: the test does)
    const { id: messageId } = await sendAndWaitSent(server, key, { to: 'live-x@example.com', channel: 'email', subject: 's', message: 'm' });
    const complaint = await server.call('POST', '/v1/webhooks/smtp', {
      body: { type: 'complaint', message_id: messageId, recipient: 'live-x@example.com' },
      headers: { 'x-smtp-feedback-secret': SECRETS.WEBHOOK_SECRET_SMTP },
    });
    expect(complaint.status).toBe(200);
    await server.caughtUp(['suppressions']);
    const rows = await server.engage.pool.query('SELECT count(*)::int AS n FROM suppressions WHERE account_id = $1', [accountId]);
    expect(rows.rows[0].n).toBe(1);
    expect([await countOf(key, reachable.id), await countOf(key, suppressed.id)]).toEqual([1, 1]);
    expect(ids((await ok(key, 'GET', `/v1/segments/${suppressed.id}/contacts`)).data)).toEqual([x.id]);

    await ok(key, 'DELETE', `/v1/contacts/${y.id}`);
    expect([await countOf(key, onList.id), await countOf(key, reachable.id)]).toEqual([0, 0]);
    await ok(key, 'POST', `/v1/contacts/${x.id}/erase`, {});
    expect([await countOf(key, pro.id), await countOf(key, suppressed.id)]).toEqual([0, 0]);
  });
});

describe('scopes', () => {
  it('a read-only key may read, list, preview and see the schema, but gets 403 on every change', async () => {
    const acct = await readyAccount(server);
    const segment = await createSegment(acct.key, { name: 'Scoped', rules: all(rule('contact.email', 'is_set')) });
    const reader = (await ok(acct.key, 'POST', '/v1/account/api-keys', { scopes: ['read'] }, 201)).key as string;
    expect((await ok(reader, 'GET', '/v1/segments')).data).toHaveLength(1);
    expect((await ok(reader, 'GET', `/v1/segments/${segment.id}`)).name).toBe('Scoped');
    await ok(reader, 'GET', `/v1/segments/${segment.id}/contacts`);
    await ok(reader, 'GET', '/v1/segments/schema');
    expect(await previewCount(reader, all(rule('contact.email', 'is_set')))).toBe(0);
    for (const [method, path, body] of [
      ['POST', '/v1/segments', { name: 'nope', rules: all(rule('contact.email', 'is_set')) }],
      ['PUT', `/v1/segments/${segment.id}`, { name: 'nope', rules: all(rule('contact.email', 'is_set')) }],
      ['DELETE', `/v1/segments/${segment.id}`],
    ] as const) {
      const res = await server.call(method, path, { key: reader, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'write' });
    }
  });
});

describe('rebuilding the segments read model', () => {
  it('a requested rebuild replays the log into the same rows', async () => {
    // (after the tests above: segments created, replaced and deleted in many accounts)
    const { key } = await readyAccount(server);
    const s = await createSegment(key, { name: 'Rebuilt', description: 'd', rules: any(rule('tag', 'has', 'a'), all(rule('contact.country', 'in', ['FR']))) });
    await ok(key, 'PUT', `/v1/segments/${s.id}`, { name: 'Rebuilt again', rules: all(rule('tag', 'has', 'b')) });
    const gone = await createSegment(key, { name: 'Gone', rules: all(rule('tag', 'has', 'c')) });
    await server.call('DELETE', `/v1/segments/${gone.id}`, { key });

    const snapshot = async () => (await server.engage.pool.query<{ r: string }>('SELECT row_to_json(t)::text AS r FROM segments t ORDER BY id')).rows.map((x) => x.r);
    await server.caughtUp(['segments']);
    const before = await snapshot();
    expect(before.length).toBeGreaterThan(10);
    const listing = await ok(key, 'GET', '/v1/segments');

    await rebuildAndWait(server, segmentsProjection);
    expect(await snapshot()).toEqual(before);
    expect(await ok(key, 'GET', '/v1/segments')).toEqual(listing);
    expect(listing.data).toEqual([expect.objectContaining({ id: s.id, name: 'Rebuilt again', description: null })]);
  });
});

describe('segmentContactIds: keyset pages of a segment’s contact ids (what campaigns walk)', () => {
  it('walks every matching contact exactly once, in id order, whatever the page size and however sparse the matches', async () => {
    const { key, accountId } = await readyAccount(server);
    const made: { id: string; tags: string[] }[] = [];
    for (let i = 0; i < 40; i++) {
      const tags = [i % 2 ? 'odd' : 'even', ...(i % 13 === 5 ? ['rare'] : [])];
      made.push({ id: (await createContact(key, { external_id: `walk-${i}`, tags })).id, tags });
    }
    const walk = async (rules: Rules, limit: number, firstWindow: number) => {
      const seen: string[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < 100; pages++) {
        const page = await segmentContactIds(server.engage.pool, accountId, rules as never, { limit, firstWindow, ...(after ? { after } : {}) });
        expect(page.length).toBeLessThanOrEqual(limit);
        seen.push(...page);
        if (page.length < limit) return seen;
        after = page[page.length - 1];
      }
      throw new Error('more than 100 pages');
    };
    for (const tag of ['odd', 'rare', 'none']) {
      const expected = made.filter((c) => c.tags.includes(tag)).map((c) => c.id);
      for (const [limit, firstWindow] of [[1, 1], [2, 3], [3, 1000], [7, 2], [50, 4]]) {
        expect(await walk(all(rule('tag', 'has', tag)), limit, firstWindow), `${tag}, limit ${limit}, window ${firstWindow}`).toEqual(expected);
      }
    }
  });
});

describe('the OpenAPI document', () => {
  it('documents every segments route, the shape of a rule set included', async () => {
    const doc = (await server.call('GET', '/v1/openapi.json')).body;
    expect(Object.keys(doc.paths['/v1/segments']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v1/segments/{id}']).sort()).toEqual(['delete', 'get', 'put']);
    for (const path of ['/v1/segments/{id}/contacts', '/v1/segments/schema']) expect(Object.keys(doc.paths[path])).toEqual(['get']);
    expect(Object.keys(doc.paths['/v1/segments/preview'])).toEqual(['post']);
    // a rule set holds rule sets: the groups inside refer to a named schema, which refers to itself
    const schema = doc.paths['/v1/segments'].post.requestBody.content['application/json'].schema;
    const ref = /"#\/components\/schemas\/(SegmentRuleSet\w*)"/.exec(JSON.stringify(schema))?.[1];
    expect(ref, 'the body refers to the named rule set').toBeDefined();
    expect(JSON.stringify(doc.components.schemas[ref!])).toContain(`"$ref":"#/components/schemas/${ref}"`);
    const body = JSON.stringify([schema, doc.components.schemas[ref!]]);
    for (const word of ['"name"', '"rules"', '"match"', '"all"', '"any"', '"field"', '"operator"', '"within_days"']) expect(body).toContain(word);
  });
});
