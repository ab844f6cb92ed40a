// Contacts over HTTP (README "API conventions": contacts, errors, ids, lists): create with
// normalisation, per-account uniqueness of email and phone, PATCH semantics, deletion, tenant
// isolation, list filters, cursor pagination and the /v1/contacts/fields routing rule.
import { beforeAll, describe, expect, it } from 'vitest';
import { testServerForSuite } from '../support/harness.ts';

const CONTACT_ID_RE = /^ct_[0-9A-HJKMNP-TV-Z]{26}$/;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MISSING_ID = 'ct_01ARZ3NDEKTSV4RRFFQ69G5FAV';


async function create(key: string, body: Record<string, unknown>) {
  const res = await server.call('POST', '/v1/contacts', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function list(key: string, query = '') {
  const res = await server.call('GET', `/v1/contacts${query ? `?${query}` : ''}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { data: any[]; next_cursor: string | null };
}

const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
const issuePaths = (body: { issues?: { path: string }[] }) => (body.issues ?? []).map((i) => i.path);

async function defineField(key: string, body: Record<string, unknown>) {
  const res = await server.call('POST', '/v1/contacts/fields', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const server = testServerForSuite();

describe('POST /v1/contacts', () => {
  it('creates a contact (201) with every standard field, normalised', async () => {
    const { key } = await server.newAccount();
    const before = Date.now();
    const c = await create(key, {
      email: '  Ann.Lee@Example.COM ',
      phone: '+1 (650) 253-0000',
      first_name: ' Ann ',
      last_name: 'Lee',
      country: 'gb',
      language: 'en-us',
      timezone: 'Europe/London',
      external_id: 'crm-1',
      tags: ['vip', 'new', 'vip'],
    });
    expect(c).toEqual({
      id: expect.stringMatching(CONTACT_ID_RE),
      email: 'ann.lee@example.com',
      phone: '+16502530000',
      first_name: 'Ann',
      last_name: 'Lee',
      country: 'GB',
      language: 'en-US',
      timezone: 'Europe/London',
      external_id: 'crm-1',
      tags: ['vip', 'new'],
      custom_fields: {},
      created_at: expect.stringMatching(RFC3339_UTC),
      updated_at: expect.stringMatching(RFC3339_UTC),
    });
    expect(Date.parse(c.created_at)).toBeGreaterThanOrEqual(before - 1000);
    // GET returns exactly what POST returned
    const got = await server.call('GET', `/v1/contacts/${c.id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(c);
  });

  it('fills the fields not given with null (and tags with [])', async () => {
    const { key } = await server.newAccount();
    const c = await create(key, { external_id: 'only-this' });
    expect(c).toMatchObject({ email: null, phone: null, first_name: null, country: null, tags: [], custom_fields: {} });
  });

  it('normalises phone numbers in any international format to E.164', async () => {
    const { key } = await server.newAccount();
    for (const [input, e164] of [
      ['+44 20 7946 0958', '+442079460958'],
      ['+33 1 42 68 53 00', '+33142685300'],
      ['+1 415 555 0123', '+14155550123'],
    ]) {
      expect((await create(key, { phone: input })).phone).toBe(e164);
    }
  });

  it('needs at least one of email, phone or external_id', async () => {
    const { key } = await server.newAccount();
    const res = await server.call('POST', '/v1/contacts', { key, body: { first_name: 'Nobody' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_error');
    expect((await list(key)).data).toHaveLength(0);
  });

  it('rejects invalid standard values with 400 naming the field', async () => {
    const { key } = await server.newAccount();
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'not-an-email' }, 'email'],
      [{ email: 'a@b@example.com' }, 'email'],
      [{ phone: '650-253-0000' }, 'phone'],
      [{ phone: '+1 000' }, 'phone'],
      [{ email: 'c@example.com', country: 'XX' }, 'country'],
      [{ email: 'c@example.com', country: 'GBR' }, 'country'],
      [{ email: 'c@example.com', timezone: 'Mars/Olympus_Mons' }, 'timezone'],
      [{ email: 'c@example.com', language: 'not a language!' }, 'language'],
      [{ email: 'c@example.com', tags: [''] }, 'tags.0'],
      [{ email: 'c@example.com', first_name: 'x'.repeat(201) }, 'first_name'],
      [{ email: `${'x'.repeat(250)}@example.com` }, 'email'],
    ];
    for (const [body, path] of cases) {
      const res = await server.call('POST', '/v1/contacts', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(issuePaths(res.body), JSON.stringify(body)).toContain(path);
    }
    expect((await list(key)).data).toHaveLength(0);
  });

  it('answers a duplicate email in the same account with 409 naming the field, whatever its case', async () => {
    const { key } = await server.newAccount();
    const first = await create(key, { email: 'dup@example.com' });
    const res = await server.call('POST', '/v1/contacts', { key, body: { email: ' DUP@Example.com', first_name: 'Second' } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'conflict', field: 'email', contact_id: first.id });
    expect(res.body.message).toContain('email');
    expect(ids((await list(key)).data)).toEqual([first.id]);
  });

  it('answers a duplicate phone in the same account with 409 naming the field, whatever its format', async () => {
    const { key } = await server.newAccount();
    const first = await create(key, { phone: '+16502530000' });
    const res = await server.call('POST', '/v1/contacts', { key, body: { phone: '+1 (650) 253-0000' } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'conflict', field: 'phone' });
    expect(res.body.message).toContain('phone');
    // a new email with the taken phone is refused as a whole: the new email stays free
    const mixed = await server.call('POST', '/v1/contacts', { key, body: { email: 'fresh@example.com', phone: '+16502530000' } });
    expect(mixed.status).toBe(409);
    expect(mixed.body).toMatchObject({ field: 'phone', contact_id: first.id });
    expect(mixed.body.field).toBe('phone');
    expect(ids((await list(key)).data)).toEqual([first.id]);
    // (the email and the phone are claimed together: the email's claim was given back)
    expect((await server.call('POST', '/v1/contacts', { key, body: { email: 'fresh@example.com' } })).status).toBe(201);
    // both taken, by two contacts: the email is named (the first unique field), with its holder
    const both = await server.call('POST', '/v1/contacts', { key, body: { email: 'fresh@example.com', phone: '+16502530000' } });
    expect(both.status).toBe(409);
    expect(both.body).toMatchObject({ field: 'email' });
    expect(both.body.contact_id).not.toBe(first.id);
  });

  it('allows the same email and phone in another account', async () => {
    const a = await server.newAccount();
    const b = await server.newAccount();
    const inA = await create(a.key, { email: 'same@example.com', phone: '+442079460958' });
    const inB = await create(b.key, { email: 'same@example.com', phone: '+442079460958' });
    expect(inB.id).not.toBe(inA.id);
    expect(ids((await list(a.key)).data)).toEqual([inA.id]);
    expect(ids((await list(b.key)).data)).toEqual([inB.id]);
  });

  it('keeps contacts with no email or phone apart (only present values are unique)', async () => {
    const { key } = await server.newAccount();
    await create(key, { external_id: 'e1' });
    await create(key, { external_id: 'e2', email: null, phone: null });
    expect((await list(key)).data).toHaveLength(2);
  });

  it('creates exactly one contact when two requests race for the same email', async () => {
    const { key } = await server.newAccount();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => server.call('POST', '/v1/contacts', { key, body: { email: 'race@example.com', first_name: `R${i}` } })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(5);
    expect((await list(key, 'email=race@example.com')).data).toHaveLength(1);
  });
});

describe('PATCH /v1/contacts/:id', () => {
  it('lets only one of several concurrent PATCHes take the same email', async () => {
    const { key } = await server.newAccount();
    const contacts = [];
    for (let i = 0; i < 5; i++) contacts.push(await create(key, { external_id: `racer-${i}` }));
    const results = await Promise.all(contacts.map((c) => server.call('PATCH', `/v1/contacts/${c.id}`, { key, body: { email: 'prize@example.com' } })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(4);
    expect((await list(key, 'email=prize@example.com')).data).toHaveLength(1);
  });

  it('changes only the fields given', async () => {
    const { key } = await server.newAccount();
    const c = await create(key, { email: 'p@example.com', first_name: 'Pat', last_name: 'Old', tags: ['a'] });
    const res = await server.call('PATCH', `/v1/contacts/${c.id}`, { key, body: { last_name: 'New', country: 'fr' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: c.id, email: 'p@example.com', first_name: 'Pat', last_name: 'New', country: 'FR', tags: ['a'] });
    expect(res.body.created_at).toBe(c.created_at);
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(c.updated_at));
    expect((await server.call('GET', `/v1/contacts/${c.id}`, { key })).body).toEqual(res.body);
  });

  it('clears a standard field with null and replaces tags', async () => {
    const { key } = await server.newAccount();
    const c = await create(key, { email: 'n@example.com', first_name: 'Nel', tags: ['a', 'b'] });
    const res = await server.call('PATCH', `/v1/contacts/${c.id}`, { key, body: { first_name: null, tags: ['c'] } });
    expect(res.body).toMatchObject({ first_name: null, tags: ['c'] });
    expect((await server.call('GET', `/v1/contacts/${c.id}`, { key })).body).toMatchObject({ first_name: null, tags: ['c'] });
  });

  it('normalises patched values like created ones', async () => {
    const { key } = await server.newAccount();
    const c = await create(key, { external_id: 'norm' });
    const res = await server.call('PATCH', `/v1/contacts/${c.id}`, { key, body: { email: 'MiXeD@Example.ORG', phone: '+33 1 42 68 53 00', country: 'de' } });
    expect(res.body).toMatchObject({ email: 'mixed@example.org', phone: '+33142685300', country: 'DE' });
  });

  it('merges custom_fields, and null removes a value', async () => {
    const { key } = await server.newAccount();
    await defineField(key, { key: 'plan', type: 'text' });
    await defineField(key, { key: 'score', type: 'number' });
    await defineField(key, { key: 'beta', type: 'boolean' });
    const c = await create(key, { email: 'cf@example.com', custom_fields: { plan: 'pro', score: 1 } });
    expect(c.custom_fields).toEqual({ plan: 'pro', score: 1 });

    const merged = await server.call('PATCH', `/v1/contacts/${c.id}`, { key, body: { custom_fields: { score: 2, beta: true } } });
    expect(merged.status).toBe(200);
    expect(merged.body.custom_fields).toEqual({ plan: 'pro', score: 2, beta: true });

    const removed = await server.call('PATCH', `/v1/contacts/${c.id}`, { key, body: { custom_fields: { plan: null } } });
    expect(removed.body.custom_fields).toEqual({ score: 2, beta: true });
    expect((await server.call('GET', `/v1/contacts/${c.id}`, { key })).body.custom_fields).toEqual({ score: 2, beta: true });
    // and the list shows the same values
    expect((await list(key)).data[0].custom_fields).toEqual({ score: 2, beta: true });
  });

  it('answers an email already held by another contact with 409 and changes nothing', async () => {
    const { key } = await server.newAccount();
    const a = await create(key, { email: 'a@example.com', first_name: 'A' });
    const b = await create(key, { email: 'b@example.com', first_name: 'B' });
    const res = await server.call('PATCH', `/v1/contacts/${b.id}`, { key, body: { email: 'A@example.com', first_name: 'Changed' } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'conflict', field: 'email' });
    expect((await server.call('GET', `/v1/contacts/${b.id}`, { key })).body).toEqual(b);
    expect((await server.call('GET', `/v1/contacts/${a.id}`, { key })).body).toEqual(a);
    // b still holds its own email: nobody else may take it
    expect((await server.call('POST', '/v1/contacts', { key, body: { email: 'b@example.com' } })).status).toBe(409);
  });

  it('answers a phone already held by another contact with 409', async () => {
    const { key } = await server.newAccount();
    await create(key, { phone: '+14155550123' });
    const b = await create(key, { phone: '+16502530001' });
    const res = await server.call('PATCH', `/v1/contacts/${b.id}`, { key, body: { phone: '+1 415 555 0123' } });
    expect(res.status).toBe(409);
    expect(res.body.field).toBe('phone');
    expect((await server.call('GET', `/v1/contacts/${b.id}`, { key })).body.phone).toBe('+16502530001');
  });

  it('lets a contact keep (re-send) its own email and phone', async () => {
    const { key } = await server.newAccount();
    const c = await create(key, { email: 'own@example.com', phone: '+16502530000' });
    const res = await server.call('PATCH', `/v1/contacts/${c.id}`, { key, body: { email: 'OWN@example.com', phone: '+1 650 253 0000', first_name: 'Same' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: 'own@example.com', phone: '+16502530000', first_name: 'Same' });
  });

  it('frees the old email and phone after a change', async () => {
    const { key } = await server.newAccount();
    const c = await create(key, { email: 'old@example.com', phone: '+442079460958' });
    await server.call('PATCH', `/v1/contacts/${c.id}`, { key, body: { email: 'new@example.com', phone: '+442079460959' } });
    const reuse = await create(key, { email: 'old@example.com', phone: '+442079460958' });
    expect(reuse.id).not.toBe(c.id);
    // and the new values are held
    expect((await server.call('POST', '/v1/contacts', { key, body: { email: 'new@example.com' } })).status).toBe(409);
  });

  it('frees an email set to null', async () => {
    const { key } = await server.newAccount();
    const c = await create(key, { email: 'gone@example.com', external_id: 'keep-me' });
    expect((await server.call('PATCH', `/v1/contacts/${c.id}`, { key, body: { email: null } })).body.email).toBeNull();
    expect((await create(key, { email: 'gone@example.com' })).id).not.toBe(c.id);
  });

  it('rejects invalid values and unknown fields with 400 and changes nothing', async () => {
    const { key } = await server.newAccount();
    const c = await create(key, { email: 'v@example.com' });
    for (const body of [{ email: 'nope' }, { country: 'ZZ' }, { id: 'ct_other' }, { created_at: '2020-01-01T00:00:00.000Z' }, { tags: 'vip' }]) {
      const res = await server.call('PATCH', `/v1/contacts/${c.id}`, { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await server.call('GET', `/v1/contacts/${c.id}`, { key })).body).toEqual(c);
  });

  it('answers 404 for a missing id and takes no claim for it', async () => {
    const { key } = await server.newAccount();
    const res = await server.call('PATCH', `/v1/contacts/${MISSING_ID}`, { key, body: { email: 'claim@example.com' } });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
    expect((await server.call('POST', '/v1/contacts', { key, body: { email: 'claim@example.com' } })).status).toBe(201);
  });
});

describe('DELETE /v1/contacts/:id', () => {
  it('deletes: GET, PATCH and a second DELETE then answer 404, and the list no longer shows it', async () => {
    const { key } = await server.newAccount();
    const keep = await create(key, { email: 'keep@example.com' });
    const c = await create(key, { email: 'del@example.com' });
    const del = await server.call('DELETE', `/v1/contacts/${c.id}`, { key });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: c.id, deleted: true });
    const get = await server.call('GET', `/v1/contacts/${c.id}`, { key });
    expect(get.status).toBe(404);
    expect(get.body.error).toBe('not_found');
    expect((await server.call('PATCH', `/v1/contacts/${c.id}`, { key, body: { first_name: 'Zombie' } })).status).toBe(404);
    expect((await server.call('DELETE', `/v1/contacts/${c.id}`, { key })).status).toBe(404);
    expect(ids((await list(key)).data)).toEqual([keep.id]);
  });

  it('frees the email and phone of the deleted contact', async () => {
    const { key } = await server.newAccount();
    const c = await create(key, { email: 'reuse@example.com', phone: '+4930901820' });
    await server.call('DELETE', `/v1/contacts/${c.id}`, { key });
    const again = await create(key, { email: 'reuse@example.com', phone: '+49 30 901820' });
    expect(again.id).not.toBe(c.id);
    expect(ids((await list(key, 'email=reuse@example.com')).data)).toEqual([again.id]);
  });
});

describe("another account's contact", () => {
  it('answers 404 on GET, PATCH and DELETE exactly like a missing one, and stays untouched', async () => {
    const owner = await server.newAccount();
    const stranger = await server.newAccount();
    const c = await create(owner.key, { email: 'private@example.com', first_name: 'Private' });
    for (const [method, body] of [['GET', undefined], ['PATCH', { first_name: 'Hacked' }], ['DELETE', undefined]] as const) {
      const foreign = await server.call(method, `/v1/contacts/${c.id}`, { key: stranger.key, body });
      const missing = await server.call(method, `/v1/contacts/${MISSING_ID}`, { key: stranger.key, body });
      expect(foreign.status, method).toBe(404);
      expect(foreign.body, method).toEqual(missing.body);
      expect(foreign.body.error).toBe('not_found');
      expect(JSON.stringify(foreign.body)).not.toContain(c.id);
    }
    expect((await server.call('GET', `/v1/contacts/${c.id}`, { key: owner.key })).body).toEqual(c);
    expect((await list(stranger.key)).data).toEqual([]);
    expect((await list(stranger.key, 'email=private@example.com')).data).toEqual([]);
  });

  it('answers a malformed id with the same 404', async () => {
    const { key } = await server.newAccount();
    const missing = await server.call('GET', `/v1/contacts/${MISSING_ID}`, { key });
    for (const id of ['nope', 'ct_', '12345', encodeURIComponent("ct_' OR '1'='1")]) {
      const res = await server.call('GET', `/v1/contacts/${id}`, { key });
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual(missing.body);
    }
  });
});

describe('GET /v1/contacts filters', () => {
  let key: string;
  const c: Record<string, any> = {};
  beforeAll(async () => {
    key = (await server.newAccount()).key;
    c.ann = await create(key, { email: 'ann@example.com', phone: '+16502530000', first_name: 'Ann', last_name: 'Archer', tags: ['vip', 'eu'] });
    c.bob = await create(key, { email: 'bob@example.org', first_name: 'Bob', last_name: 'Baker', tags: ['eu'], external_id: 'CRM-42' });
    c.cyd = await create(key, { email: 'cyd@example.com', phone: '+442079460958', first_name: 'Cyd', last_name: 'Annandale' });
    c.pct = await create(key, { external_id: '100%_real', first_name: 'Percy' });
  });

  it('lists newest first as {data, next_cursor}', async () => {
    const res = await list(key);
    expect(ids(res.data)).toEqual([c.pct.id, c.cyd.id, c.bob.id, c.ann.id]);
    expect(res.next_cursor).toBeNull();
  });

  it('filters by email, normalised like the stored value', async () => {
    expect(ids((await list(key, 'email=ANN@Example.com')).data)).toEqual([c.ann.id]);
    expect((await list(key, 'email=nobody@example.com')).data).toEqual([]);
  });

  it('filters by phone in any format', async () => {
    expect(ids((await list(key, `phone=${encodeURIComponent('+1 (650) 253-0000')}`)).data)).toEqual([c.ann.id]);
    expect(ids((await list(key, `phone=${encodeURIComponent('+442079460958')}`)).data)).toEqual([c.cyd.id]);
  });

  it('filters by tag', async () => {
    expect(ids((await list(key, 'tag=eu')).data)).toEqual([c.bob.id, c.ann.id]);
    expect(ids((await list(key, 'tag=vip')).data)).toEqual([c.ann.id]);
    expect((await list(key, 'tag=none')).data).toEqual([]);
  });

  it('searches names, email, phone and external id with q, case-insensitively', async () => {
    expect(ids((await list(key, 'q=ann')).data)).toEqual([c.cyd.id, c.ann.id]); // Ann; Annandale
    expect(ids((await list(key, 'q=BAKER')).data)).toEqual([c.bob.id]);
    expect(ids((await list(key, 'q=example.org')).data)).toEqual([c.bob.id]);
    expect(ids((await list(key, 'q=crm-42')).data)).toEqual([c.bob.id]);
    expect(ids((await list(key, `q=${encodeURIComponent('Ann Archer')}`)).data)).toEqual([c.ann.id]);
    expect(ids((await list(key, 'q=7946')).data)).toEqual([c.cyd.id]);
  });

  it('treats LIKE wildcards in q literally', async () => {
    expect(ids((await list(key, `q=${encodeURIComponent('%')}`)).data)).toEqual([c.pct.id]);
    expect(ids((await list(key, `q=${encodeURIComponent('%_')}`)).data)).toEqual([c.pct.id]);
    expect((await list(key, `q=${encodeURIComponent('_')}`)).data.map((x) => x.id)).toEqual([c.pct.id]);
  });

  it('combines filters with AND', async () => {
    expect(ids((await list(key, 'tag=eu&q=bob')).data)).toEqual([c.bob.id]);
    expect((await list(key, 'tag=vip&q=bob')).data).toEqual([]);
  });

  it('rejects invalid filter values and unknown parameters with 400', async () => {
    for (const q of ['email=not-an-email', 'phone=123', 'tag=', 'q=', 'limit=abc', 'sort=name', 'account_id=acct_x']) {
      const res = await server.call('GET', `/v1/contacts?${q}`, { key });
      expect(res.status, q).toBe(400);
      expect(res.body.error).toBe('validation_error');
    }
  });
});

describe('GET /v1/contacts cursor pagination', () => {
  let key: string;
  const all: string[] = [];
  beforeAll(async () => {
    key = (await server.newAccount()).key;
    for (let i = 0; i < 5; i++) all.push((await create(key, { email: `page${i}@example.com` })).id);
  });

  it('walks all 5 contacts with limit=2 in pages of 2, 2 and 1, without duplicates', async () => {
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const res: { data: { id: string }[]; next_cursor: string | null } = await list(key, `limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      pages.push(ids(res.data));
      cursor = res.next_cursor;
    } while (cursor && pages.length < 10);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    const seen = pages.flat();
    expect(new Set(seen).size).toBe(5);
    expect(seen).toEqual([...all].reverse());
  });

  it('ends with next_cursor null when the last page is exactly full, and on a short last page', async () => {
    const first = await list(key, 'limit=5');
    expect(ids(first.data)).toEqual([...all].reverse());
    expect(first.next_cursor).toBeNull();
    const four = await list(key, 'limit=4');
    expect(four.next_cursor).not.toBeNull();
    const rest = await list(key, `limit=4&cursor=${encodeURIComponent(four.next_cursor!)}`);
    expect(ids(rest.data)).toEqual([all[0]]);
    expect(rest.next_cursor).toBeNull();
  });

  it('keeps a cursor stable when contacts are added meanwhile (new ones do not reappear on later pages)', async () => {
    const p1 = await list(key, 'limit=2');
    const added = await create(key, { email: 'late@example.com' });
    const p2 = await list(key, `limit=2&cursor=${encodeURIComponent(p1.next_cursor!)}`);
    expect(ids(p2.data)).not.toContain(added.id);
    expect(ids(p2.data)).not.toContain(p1.data[0].id);
    await server.call('DELETE', `/v1/contacts/${added.id}`, { key });
  });

  it('defaults to 50 and accepts 500', async () => {
    expect((await list(key)).data).toHaveLength(5);
    expect((await list(key, 'limit=500')).data).toHaveLength(5);
    expect((await list(key, 'limit=1')).data).toHaveLength(1);
  });

  it('rejects limit=0, limit=501, negative and fractional limits with 400 naming limit', async () => {
    for (const l of ['0', '501', '-1', '2.5']) {
      const res = await server.call('GET', `/v1/contacts?limit=${l}`, { key });
      expect(res.status, l).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(issuePaths(res.body)).toContain('limit');
    }
  });

  it('rejects a cursor it did not issue with 400 naming cursor', async () => {
    const forged = Buffer.from(JSON.stringify({ nope: 1 })).toString('base64url');
    for (const cursor of ['garbage', '!!!', '%7B%7D', forged, 'x'.repeat(600)]) {
      const res = await server.call('GET', `/v1/contacts?cursor=${cursor}`, { key });
      expect(res.status, cursor).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(issuePaths(res.body)).toContain('cursor');
    }
  });

  it("does not let another account's cursor reveal anything", async () => {
    const p1 = await list(key, 'limit=2');
    const other = await server.newAccount();
    const res = await server.call('GET', `/v1/contacts?limit=2&cursor=${encodeURIComponent(p1.next_cursor!)}`, { key: other.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });
});

describe('routing rule: /v1/contacts/fields is its own route', () => {
  it('GET /v1/contacts/fields is the field definitions list, not a contact lookup', async () => {
    const { key } = await server.newAccount();
    const empty = await server.call('GET', '/v1/contacts/fields', { key });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ data: [], next_cursor: null });
    const def = await defineField(key, { key: 'plan', type: 'text' });
    const listed = await server.call('GET', '/v1/contacts/fields', { key });
    expect(listed.body.data.map((f: { id: string }) => f.id)).toEqual([def.id]);
    // with a trailing slash too
    expect((await server.call('GET', '/v1/contacts/fields/', { key })).body.data).toHaveLength(1);
  });

  it('POST /v1/contacts/fields defines a field rather than anything contact-shaped', async () => {
    const { key } = await server.newAccount();
    const res = await server.call('POST', '/v1/contacts/fields', { key, body: { key: 'tier', type: 'text' } });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^fld_/);
    expect((await list(key)).data).toEqual([]);
  });
});
