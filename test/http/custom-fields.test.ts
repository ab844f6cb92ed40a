// Custom field definitions (/v1/contacts/fields) and the validation of custom values on contacts.
// README "API conventions" (contacts, custom fields): {key, label, type:
// text|number|boolean|date|select, options?}; deleting a definition keeps the data on contacts.
import { beforeAll, describe, expect, it } from 'vitest';
import { testServerForSuite } from '../support/harness.ts';

const FIELD_ID_RE = /^fld_[0-9A-HJKMNP-TV-Z]{26}$/;


const issuePaths = (body: { issues?: { path: string }[] }) => (body.issues ?? []).map((i) => i.path);

async function define(key: string, body: Record<string, unknown>) {
  const res = await server.call('POST', '/v1/contacts/fields', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function fields(key: string) {
  const res = await server.call('GET', '/v1/contacts/fields', { key });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; key: string; label: string; type: string; options?: string[] }[];
}

const server = testServerForSuite();

describe('defining custom fields', () => {
  it('defines text, number, boolean, date and select fields and lists them', async () => {
    const { key } = await server.newAccount();
    const text = await define(key, { key: 'plan', label: 'Plan name', type: 'text' });
    const number = await define(key, { key: 'score', type: 'number' });
    const bool = await define(key, { key: 'beta_user', type: 'boolean' });
    const date = await define(key, { key: 'renewal_date', type: 'date' });
    const select = await define(key, { key: 'size', type: 'select', options: ['s', 'm', 'l'] });
    expect(text).toMatchObject({ id: expect.stringMatching(FIELD_ID_RE), key: 'plan', label: 'Plan name', type: 'text' });
    expect(number).toMatchObject({ key: 'score', label: 'score', type: 'number' }); // label defaults to the key
    expect(bool.type).toBe('boolean');
    expect(date.type).toBe('date');
    expect(select).toMatchObject({ type: 'select', options: ['s', 'm', 'l'] });
    expect(text).not.toHaveProperty('options');

    const listed = await fields(key);
    expect(listed.map((f) => f.key)).toEqual(['plan', 'score', 'beta_user', 'renewal_date', 'size']);
    expect(listed.find((f) => f.key === 'size')!.options).toEqual(['s', 'm', 'l']);
    expect(listed.find((f) => f.key === 'plan')).toMatchObject({ id: text.id, label: 'Plan name', type: 'text' });
  });

  it('keeps definitions per account', async () => {
    const a = await server.newAccount();
    const b = await server.newAccount();
    await define(a.key, { key: 'plan', type: 'text' });
    expect(await fields(b.key)).toEqual([]);
    // the same key is free in another account
    await define(b.key, { key: 'plan', type: 'number' });
    expect((await fields(a.key))[0].type).toBe('text');
    expect((await fields(b.key))[0].type).toBe('number');
  });

  it('answers a duplicate key with 409 conflict and keeps the first definition', async () => {
    const { key } = await server.newAccount();
    const first = await define(key, { key: 'plan', type: 'text' });
    const dup = await server.call('POST', '/v1/contacts/fields', { key, body: { key: 'plan', type: 'number' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('conflict');
    expect(dup.body.message).toContain('plan');
    expect(await fields(key)).toEqual([expect.objectContaining({ id: first.id, type: 'text' })]);
  });

  it('rejects an invalid key with 400 naming key', async () => {
    const { key } = await server.newAccount();
    for (const bad of ['Plan', '1plan', 'has-dash', 'has space', '', '_lead', 'x'.repeat(65), 'plän', 'a.b', "a'; DROP TABLE x;--"]) {
      const res = await server.call('POST', '/v1/contacts/fields', { key, body: { key: bad, type: 'text' } });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(issuePaths(res.body)).toContain('key');
    }
    // the longest allowed key works
    await define(key, { key: `a${'b'.repeat(63)}`, type: 'text' });
    expect(await fields(key)).toHaveLength(1);
  });

  it('rejects a select without options, or with empty options, with 400 naming options', async () => {
    const { key } = await server.newAccount();
    for (const body of [{ key: 'size', type: 'select' }, { key: 'size', type: 'select', options: [] }, { key: 'size', type: 'select', options: [''] }]) {
      const res = await server.call('POST', '/v1/contacts/fields', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(issuePaths(res.body).some((p) => p.startsWith('options')), JSON.stringify(res.body)).toBe(true);
    }
    expect(await fields(key)).toEqual([]);
  });

  it('rejects options on a field that is not a select', async () => {
    const { key } = await server.newAccount();
    const res = await server.call('POST', '/v1/contacts/fields', { key, body: { key: 'plan', type: 'text', options: ['a'] } });
    expect(res.status).toBe(400);
    expect(issuePaths(res.body)).toContain('options');
  });

  it('rejects an unknown type, a missing type and unknown attributes with 400', async () => {
    const { key } = await server.newAccount();
    const cases: [Record<string, unknown>, string][] = [
      [{ key: 'plan', type: 'json' }, 'type'],
      [{ key: 'plan' }, 'type'],
      [{ type: 'text' }, 'key'],
      [{ key: 'plan', type: 'text', required: true }, 'required'],
      [{ key: 'plan', type: 'text', id: 'fld_mine' }, 'id'],
    ];
    for (const [body, path] of cases) {
      const res = await server.call('POST', '/v1/contacts/fields', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(issuePaths(res.body)).toContain(path);
    }
    expect(await fields(key)).toEqual([]);
  });
});

describe('custom values on contacts', () => {
  let key: string;
  beforeAll(async () => {
    key = (await server.newAccount()).key;
    await define(key, { key: 'plan', type: 'text' });
    await define(key, { key: 'score', type: 'number' });
    await define(key, { key: 'beta', type: 'boolean' });
    await define(key, { key: 'renewal', type: 'date' });
    await define(key, { key: 'size', type: 'select', options: ['s', 'm', 'l'] });
  });

  it('stores values of every type as given', async () => {
    const values = { plan: 'pro', score: 42.5, beta: false, renewal: '2027-01-31', size: 'm' };
    const res = await server.call('POST', '/v1/contacts', { key, body: { email: 'all-types@example.com', custom_fields: values } });
    expect(res.status).toBe(201);
    expect(res.body.custom_fields).toEqual(values);
    expect((await server.call('GET', `/v1/contacts/${res.body.id}`, { key })).body.custom_fields).toEqual(values);
    // a date-time is a date too
    const dt = await server.call('POST', '/v1/contacts', { key, body: { external_id: 'dt', custom_fields: { renewal: '2027-01-31T10:00:00Z' } } });
    expect(dt.status).toBe(201);
  });

  const wrong: [string, unknown][] = [
    ['plan', 42],
    ['plan', 'x'.repeat(10_001)],
    ['score', 'ten'],
    ['score', true],
    ['score', '42'],
    ['beta', 'yes'],
    ['beta', 1],
    ['renewal', '31/01/2027'],
    ['renewal', '2027-13-45'],
    ['renewal', 20270131],
    ['size', 'xl'],
    ['size', 'M'],
    ['plan', { nested: true }],
    ['plan', ['a']],
  ];

  it('rejects a value of the wrong type on create with 400 naming custom_fields.<key>', async () => {
    for (const [field, value] of wrong) {
      const res = await server.call('POST', '/v1/contacts', { key, body: { external_id: `bad-${field}`, custom_fields: { [field]: value } } });
      expect(res.status, `${field}=${JSON.stringify(value)}`).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(issuePaths(res.body)).toContain(`custom_fields.${field}`);
      expect(res.body.message).toContain(`custom_fields.${field}`);
    }
    expect((await server.call('GET', '/v1/contacts?q=bad-', { key })).body.data).toEqual([]);
  });

  it('rejects a value of the wrong type on PATCH with 400 naming custom_fields.<key>, and keeps the old value', async () => {
    const c = await server.call('POST', '/v1/contacts', { key, body: { email: 'patch-types@example.com', custom_fields: { score: 1, size: 's' } } });
    for (const [field, value] of wrong) {
      const res = await server.call('PATCH', `/v1/contacts/${c.body.id}`, { key, body: { custom_fields: { [field]: value } } });
      expect(res.status, `${field}=${JSON.stringify(value)}`).toBe(400);
      expect(issuePaths(res.body)).toContain(`custom_fields.${field}`);
    }
    expect((await server.call('GET', `/v1/contacts/${c.body.id}`, { key })).body.custom_fields).toEqual({ score: 1, size: 's' });
  });

  it('names every bad value at once', async () => {
    const res = await server.call('POST', '/v1/contacts', { key, body: { external_id: 'many', custom_fields: { score: 'x', beta: 'y', plan: 'fine' } } });
    expect(res.status).toBe(400);
    expect(issuePaths(res.body)).toEqual(expect.arrayContaining(['custom_fields.score', 'custom_fields.beta']));
    expect(issuePaths(res.body)).not.toContain('custom_fields.plan');
  });

  it('rejects a key with no definition with 400 naming it', async () => {
    const res = await server.call('POST', '/v1/contacts', { key, body: { external_id: 'undef', custom_fields: { undefined_thing: 'x' } } });
    expect(res.status).toBe(400);
    expect(issuePaths(res.body)).toContain('custom_fields.undefined_thing');
  });

  it('rejects custom_fields that is not an object', async () => {
    for (const custom_fields of [[], 'plan=pro', 5]) {
      const res = await server.call('POST', '/v1/contacts', { key, body: { external_id: 'nonobj', custom_fields } });
      expect(res.status, JSON.stringify(custom_fields)).toBe(400);
      expect(issuePaths(res.body)).toContain('custom_fields');
    }
  });

  it("does not accept another account's definitions", async () => {
    const other = await server.newAccount();
    const res = await server.call('POST', '/v1/contacts', { key: other.key, body: { external_id: 'x', custom_fields: { plan: 'pro' } } });
    expect(res.status).toBe(400);
    expect(issuePaths(res.body)).toContain('custom_fields.plan');
  });
});

describe('deleting a definition', () => {
  it('keeps the values already on contacts, while new writes of that key are rejected', async () => {
    const { key } = await server.newAccount();
    const plan = await define(key, { key: 'plan', type: 'text' });
    await define(key, { key: 'score', type: 'number' });
    const c = await server.call('POST', '/v1/contacts', { key, body: { email: 'kept@example.com', custom_fields: { plan: 'pro', score: 3 } } });
    expect(c.status).toBe(201);

    const del = await server.call('DELETE', `/v1/contacts/fields/${plan.id}`, { key });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: plan.id, deleted: true });
    expect((await fields(key)).map((f) => f.key)).toEqual(['score']);

    // the stored value is still there, on GET and in the list
    expect((await server.call('GET', `/v1/contacts/${c.body.id}`, { key })).body.custom_fields).toEqual({ plan: 'pro', score: 3 });
    expect((await server.call('GET', '/v1/contacts?email=kept@example.com', { key })).body.data[0].custom_fields).toEqual({ plan: 'pro', score: 3 });
    // and survives an unrelated PATCH
    const patched = await server.call('PATCH', `/v1/contacts/${c.body.id}`, { key, body: { first_name: 'Kept', custom_fields: { score: 4 } } });
    expect(patched.status).toBe(200);
    expect(patched.body.custom_fields).toEqual({ plan: 'pro', score: 4 });

    // new writes of the deleted key are rejected on create and on PATCH
    const create = await server.call('POST', '/v1/contacts', { key, body: { email: 'new@example.com', custom_fields: { plan: 'basic' } } });
    expect(create.status).toBe(400);
    expect(issuePaths(create.body)).toContain('custom_fields.plan');
    const write = await server.call('PATCH', `/v1/contacts/${c.body.id}`, { key, body: { custom_fields: { plan: 'basic' } } });
    expect(write.status).toBe(400);
    expect(issuePaths(write.body)).toContain('custom_fields.plan');
    expect((await server.call('GET', `/v1/contacts/${c.body.id}`, { key })).body.custom_fields.plan).toBe('pro');

    // removing the orphaned value with null is allowed
    const removed = await server.call('PATCH', `/v1/contacts/${c.body.id}`, { key, body: { custom_fields: { plan: null } } });
    expect(removed.status).toBe(200);
    expect(removed.body.custom_fields).toEqual({ score: 4 });
  });

  it('frees the key for a new definition, which then governs new writes', async () => {
    const { key } = await server.newAccount();
    const old = await define(key, { key: 'plan', type: 'text' });
    await server.call('DELETE', `/v1/contacts/fields/${old.id}`, { key });
    const again = await define(key, { key: 'plan', type: 'number' });
    expect(again.id).not.toBe(old.id);
    expect((await server.call('POST', '/v1/contacts', { key, body: { external_id: 'n', custom_fields: { plan: 7 } } })).status).toBe(201);
    expect((await server.call('POST', '/v1/contacts', { key, body: { external_id: 't', custom_fields: { plan: 'pro' } } })).status).toBe(400);
  });

  it("answers 404 for an unknown id, a deleted one and another account's, and deletes nothing", async () => {
    const a = await server.newAccount();
    const b = await server.newAccount();
    const mine = await define(a.key, { key: 'plan', type: 'text' });
    const theirs = await define(b.key, { key: 'plan', type: 'text' });
    for (const id of ['fld_01ARZ3NDEKTSV4RRFFQ69G5FAV', theirs.id, 'nope']) {
      const res = await server.call('DELETE', `/v1/contacts/fields/${id}`, { key: a.key });
      expect(res.status, id).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
    expect(await fields(b.key)).toEqual([expect.objectContaining({ id: theirs.id })]);
    await server.call('DELETE', `/v1/contacts/fields/${mine.id}`, { key: a.key });
    expect((await server.call('DELETE', `/v1/contacts/fields/${mine.id}`, { key: a.key })).status).toBe(404);
  });
});
