// Hostile and malformed input over HTTP, and the API's general conventions: malformed JSON, wrong
// types, unknown fields, oversized bodies, SQL metacharacters, unicode (emoji, RTL, NUL, unpaired
// surrogates) in every contact field and in query strings, unknown routes, X-Request-Id, the error
// body shape, and the OpenAPI document / docs page. Nothing here may answer 5xx.
import { beforeAll, describe, expect, it } from 'vitest';
import { testServerForSuite } from '../support/harness.ts';
import { expectUnsupportedMediaType } from '../support/http.ts';


let key: string;

const issuePaths = (body: { issues?: { path: string }[] }) => (body.issues ?? []).map((i) => i.path);

async function contactCount(k = key) {
  const res = await server.call('GET', '/v1/contacts?limit=500', { key: k });
  return res.body.data.length as number;
}

const server = testServerForSuite();
beforeAll(async () => {
  key = (await server.newAccount()).key;
});

describe('malformed requests', () => {
  it('answers malformed JSON with 400 validation_error', async () => {
    for (const raw of ['{', '{"email": }', "{'email': 'a@example.com'}", '{"email":"a@example.com",}', 'nul', '\u0000']) {
      const res = await server.call('POST', '/v1/contacts', { key, raw });
      expect(res.status, JSON.stringify(raw)).toBe(400);
      expect(res.body.error).toBe('validation_error');
    }
  });

  it('answers an empty JSON body with 400', async () => {
    const res = await server.call('POST', '/v1/contacts', { key, raw: '' , headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_error');
  });

  it('answers a JSON body that is not an object with 400', async () => {
    for (const raw of ['[]', '"a@example.com"', '42', 'null', 'true']) {
      const res = await server.call('POST', '/v1/contacts', { key, raw });
      expect(res.status, raw).toBe(400);
      expect(res.body.error).toBe('validation_error');
    }
  });

  it('answers a body that is not JSON with a 415 unsupported_media_type naming the content type', async () => {
    const res = await server.call('POST', '/v1/contacts', { key, raw: 'email=a@example.com', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectUnsupportedMediaType(res);
    expect(res.body.message).toContain('application/x-www-form-urlencoded');
    expect(await contactCount()).toBe(0);
  });

  it('answers wrong types with 400 naming each field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 123 }, 'email'],
      [{ email: ['a@example.com'] }, 'email'],
      [{ phone: 16502530000 }, 'phone'],
      [{ external_id: 'x', first_name: {} }, 'first_name'],
      [{ external_id: 'x', last_name: true }, 'last_name'],
      [{ external_id: 'x', tags: 'vip' }, 'tags'],
      [{ external_id: 'x', tags: [1, 2] }, 'tags.0'],
      [{ external_id: 'x', country: 44 }, 'country'],
      [{ external_id: 'x', timezone: 0 }, 'timezone'],
      [{ external_id: 'x', language: null, custom_fields: 'x' }, 'custom_fields'],
      [{ external_id: 42 }, 'external_id'],
    ];
    for (const [body, path] of cases) {
      const res = await server.call('POST', '/v1/contacts', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(issuePaths(res.body), JSON.stringify(body)).toContain(path);
      expect(res.body.issues.every((i: { message: unknown }) => typeof i.message === 'string')).toBe(true);
    }
    expect(await contactCount()).toBe(0);
  });

  it('rejects unknown fields with 400 naming them (typos, mass assignment)', async () => {
    const res = await server.call('POST', '/v1/contacts', {
      key,
      body: { email: 'typo@example.com', frist_name: 'Ann', account_id: 'acct_01ARZ3NDEKTSV4RRFFQ69G5FAV', id: 'ct_mine', created_at: '2000-01-01T00:00:00.000Z' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_error');
    expect(issuePaths(res.body)).toEqual(expect.arrayContaining(['frist_name', 'account_id', 'id', 'created_at']));
    expect(res.body.message).toContain('frist_name');
    expect(await contactCount()).toBe(0);
  });

  it('rejects unknown fields on PATCH, and unknown query parameters', async () => {
    const c = await server.call('POST', '/v1/contacts', { key, body: { external_id: 'unknown-fields' } });
    const patch = await server.call('PATCH', `/v1/contacts/${c.body.id}`, { key, body: { nickname: 'x' } });
    expect(patch.status).toBe(400);
    expect(issuePaths(patch.body)).toContain('nickname');
    const query = await server.call('GET', '/v1/contacts?emial=a@example.com', { key });
    expect(query.status).toBe(400);
    expect(issuePaths(query.body)).toContain('emial');
    await server.call('DELETE', `/v1/contacts/${c.body.id}`, { key });
  });

  it('answers a deeply nested body with 400, never a stack overflow', async () => {
    const depth = 200_000;
    const raw = `{"external_id":"deep","custom_fields":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    const plain = await server.call('POST', '/v1/contacts', { key, raw });
    expect(plain.status).toBe(400);
    const withKey = await server.call('POST', '/v1/contacts', { key, raw, headers: { 'idempotency-key': 'deep-body' } });
    expect(withKey.status).toBe(400);
    expect(await contactCount()).toBe(0);
  });

  it('answers a JSON body over 10 MiB with 413 payload_too_large', async () => {
    const filler = 'x'.repeat(10 * 1024 * 1024);
    const res = await server.call('POST', '/v1/contacts', { key, raw: JSON.stringify({ external_id: 'big', first_name: filler }) });
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('payload_too_large');
    expect(await contactCount()).toBe(0);
  });

  it('reads a large body under 10 MiB and validates it (400, not 413)', async () => {
    const res = await server.call('POST', '/v1/contacts', { key, body: { external_id: 'big', first_name: 'x'.repeat(9 * 1024 * 1024) } });
    expect(res.status).toBe(400);
    expect(issuePaths(res.body)).toContain('first_name');
  });
});

describe('hostile strings in contact fields', () => {
  it('stores SQL metacharacters verbatim and searches them literally', async () => {
    const k = (await server.newAccount()).key;
    const body = {
      email: "o'brien+test@example.com",
      first_name: "Robert'); DROP TABLE contacts;--",
      last_name: '%_\\ " ` ; -- /* */',
      external_id: "' OR '1'='1",
      tags: ["a'b", '"quoted"', '\\', '%', 'x; DELETE FROM contacts'],
      language: 'en',
      timezone: 'America/New_York',
    };
    const created = await server.call('POST', '/v1/contacts', { key: k, body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...body, tags: body.tags });
    const got = await server.call('GET', `/v1/contacts/${created.body.id}`, { key: k });
    expect(got.body).toEqual(created.body);
    // the tables are intact and the search is literal
    const other = await server.call('POST', '/v1/contacts', { key: k, body: { external_id: 'plain' } });
    expect(other.status).toBe(201);
    for (const q of ["' OR 1=1 --", "'; DROP TABLE contacts;--"]) {
      const res = await server.call('GET', `/v1/contacts?q=${encodeURIComponent(q)}`, { key: k });
      expect(res.status).toBe(200);
      expect(res.body.data.map((c: { id: string }) => c.id)).not.toContain(other.body.id);
    }
    const hit = await server.call('GET', `/v1/contacts?q=${encodeURIComponent("Robert');")}`, { key: k });
    expect(hit.body.data.map((c: { id: string }) => c.id)).toEqual([created.body.id]);
    const tag = await server.call('GET', `/v1/contacts?tag=${encodeURIComponent("a'b")}`, { key: k });
    expect(tag.body.data.map((c: { id: string }) => c.id)).toEqual([created.body.id]);
    const email = await server.call('GET', `/v1/contacts?email=${encodeURIComponent("O'Brien+test@example.com")}`, { key: k });
    expect(email.body.data.map((c: { id: string }) => c.id)).toEqual([created.body.id]);
    expect(await contactCount(k)).toBe(2);
  });

  it('stores emoji, RTL text, combining marks and CJK exactly, and finds them with q', async () => {
    const k = (await server.newAccount()).key;
    const body = {
      external_id: 'ext-🦄-١٢٣',
      first_name: '🦄 Zoë 👩🏽‍💻',
      last_name: '\u200fשלום עליכם\u200f',
      tags: ['日本語', 'مرحبا', 'e\u0301'],
    };
    const created = await server.call('POST', '/v1/contacts', { key: k, body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject(body);
    const got = await server.call('GET', `/v1/contacts/${created.body.id}`, { key: k });
    expect(got.body).toMatchObject(body);
    for (const q of ['🦄', 'שלום', 'Zoë', '👩🏽‍💻']) {
      const res = await server.call('GET', `/v1/contacts?q=${encodeURIComponent(q)}`, { key: k });
      expect(res.body.data.map((c: { id: string }) => c.id), q).toEqual([created.body.id]);
    }
    const tag = await server.call('GET', `/v1/contacts?tag=${encodeURIComponent('日本語')}`, { key: k });
    expect(tag.body.data).toHaveLength(1);
  });

  it('answers unicode that is not a valid email or phone with 400, and normalises non-ASCII digits in a phone', async () => {
    for (const body of [{ email: '🦄@example.com' }, { email: 'ünïcode@exämple.com' }, { phone: '☎️' }, { phone: '+1 ６５０ 🦄' }]) {
      const res = await server.call('POST', '/v1/contacts', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(issuePaths(res.body)).toContain(Object.keys(body)[0]);
    }
    // Arabic-Indic digits are digits: stored as E.164
    const arabic = await server.call('POST', '/v1/contacts', { key, body: { phone: '+١٦٥٠٢٥٣٠٠٠٠' } });
    expect(arabic.status).toBe(201);
    expect(arabic.body.phone).toBe('+16502530000');
    await server.call('DELETE', `/v1/contacts/${arabic.body.id}`, { key });
  });

  const fieldsWithNul: Record<string, unknown>[] = [
    { email: 'nul\u0000@example.com' },
    { phone: '+1650253\u00000000' },
    { external_id: 'ext\u0000id' },
    { external_id: 'x', first_name: 'Ann\u0000' },
    { external_id: 'x', last_name: '\u0000' },
    { external_id: 'x', country: 'G\u0000B' },
    { external_id: 'x', language: 'en\u0000' },
    { external_id: 'x', timezone: 'Europe/Paris\u0000' },
    { external_id: 'x', tags: ['ok', 'n\u0000ul'] },
  ];

  it('answers a NUL character in any contact field with 400 validation_error (Postgres text cannot hold NUL)', async () => {
    for (const body of fieldsWithNul) {
      const res = await server.call('POST', '/v1/contacts', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('validation_error');
    }
    expect(await contactCount()).toBe(0);
  });

  it('answers a NUL character in a PATCH with 400 and keeps the contact as it was', async () => {
    const c = await server.call('POST', '/v1/contacts', { key, body: { external_id: 'nul-patch', first_name: 'Clean' } });
    for (const body of fieldsWithNul) {
      const res = await server.call('PATCH', `/v1/contacts/${c.body.id}`, { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await server.call('GET', `/v1/contacts/${c.body.id}`, { key })).body).toEqual(c.body);
    await server.call('DELETE', `/v1/contacts/${c.body.id}`, { key });
  });

  it('answers a NUL in a custom field value or key with 400', async () => {
    const k = (await server.newAccount()).key;
    expect((await server.call('POST', '/v1/contacts/fields', { key: k, body: { key: 'note', type: 'text' } })).status).toBe(201);
    expect((await server.call('POST', '/v1/contacts/fields', { key: k, body: { key: 'size', type: 'select', options: ['a\u0000'] } })).status).toBe(400);
    expect((await server.call('POST', '/v1/contacts/fields', { key: k, body: { key: 'n\u0000', type: 'text' } })).status).toBe(400);
    expect((await server.call('POST', '/v1/contacts/fields', { key: k, body: { key: 'label', label: 'L\u0000', type: 'text' } })).status).toBe(400);
    const value = await server.call('POST', '/v1/contacts', { key: k, body: { external_id: 'x', custom_fields: { note: 'a\u0000b' } } });
    expect(value.status).toBe(400);
    const badKey = await server.call('POST', '/v1/contacts', { key: k, body: { external_id: 'x', custom_fields: { 'no\u0000te': 'a' } } });
    expect(badKey.status).toBe(400);
    expect(await contactCount(k)).toBe(0);
    // the same request without the NUL succeeds, so the 400 above is about the NUL alone
    expect((await server.call('POST', '/v1/contacts', { key: k, body: { external_id: 'x', custom_fields: { note: 'ab' } } })).status).toBe(201);
  });

  it('answers an unpaired UTF-16 surrogate (not valid unicode text) with 400', async () => {
    for (const raw of ['{"external_id":"x","first_name":"\\ud800"}', '{"external_id":"\\udfff"}', '{"external_id":"x","tags":["\\ud83d"]}']) {
      const res = await server.call('POST', '/v1/contacts', { key, raw });
      expect(res.status, raw).toBe(400);
      expect(res.body.error).toBe('validation_error');
    }
    // a correctly paired surrogate (an emoji written as escapes) is fine
    const ok = await server.call('POST', '/v1/contacts', { key, raw: '{"external_id":"pair","first_name":"\\ud83e\\udd84"}' });
    expect(ok.status).toBe(201);
    expect(ok.body.first_name).toBe('🦄');
    await server.call('DELETE', `/v1/contacts/${ok.body.id}`, { key });
  });

  it('answers NUL and other odd bytes in login fields with a 4xx', async () => {
    for (const body of [{ email: 'a\u0000@example.com', password: 'x' }, { email: 'a@example.com', password: 'p\u0000' }]) {
      const res = await server.call('POST', '/v1/auth/login', { body });
      expect([400, 401]).toContain(res.status);
    }
  });
});

describe('hostile query strings and paths', () => {
  it('answers NUL, broken percent-encoding and odd unicode in every list filter with 4xx or a correct answer', async () => {
    const queries = [
      'q=%00', 'q=a%00b', 'tag=%00', 'email=a%00@example.com', 'phone=%00', 'cursor=%00', 'limit=%00',
      'q=%', 'q=%zz', 'q=%ff%fe', 'tag=%C0%80', 'q=%ED%A0%80', 'q=%F0%9F%A6%84',
      'q=' + encodeURIComponent("'; SELECT pg_sleep(0);--"), 'tag=' + encodeURIComponent('{a,b}'), 'tag=%22%5C',
      'q=' + 'x'.repeat(201), 'q[]=a', 'q=a&q=b', 'limit=1e3', 'limit=0x10',
    ];
    for (const q of queries) {
      const res = await server.call('GET', `/v1/contacts?${q}`, { key });
      expect([200, 400], q).toContain(res.status);
    }
  });

  it('answers a NUL in query filters with 400 validation_error specifically', async () => {
    for (const q of ['q=%00', 'q=a%00b', 'tag=%00x']) {
      const res = await server.call('GET', `/v1/contacts?${q}`, { key });
      expect(res.status, q).toBe(400);
      expect(res.body.error).toBe('validation_error');
    }
  });

  it('answers a cursor that decodes to hostile content with 400', async () => {
    for (const payload of [{ id: 'ct_\u0000' }, { id: "' OR 1=1 --" }, { id: 42 }, []]) {
      const cursor = Buffer.from(JSON.stringify(payload)).toString('base64url');
      const res = await server.call('GET', `/v1/contacts?cursor=${cursor}`, { key });
      expect([200, 400], JSON.stringify(payload)).toContain(res.status);
    }
    const nul = await server.call('GET', `/v1/contacts?cursor=${Buffer.from(JSON.stringify({ id: 'ct_\u0000' })).toString('base64url')}`, { key });
    expect(nul.status).toBe(400);
  });

  it('answers hostile contact ids in the path with 404 (or 400), never 500', async () => {
    for (const id of ['%00', 'a%00b', '%ff', '..%2F..%2Fetc%2Fpasswd', encodeURIComponent("' OR '1'='1"), '%F0%9F%A6%84', 'x'.repeat(65), '%ED%A0%80']) {
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const res = await server.call(method, `/v1/contacts/${id}`, { key, body: method === 'PATCH' ? { first_name: 'x' } : undefined });
        expect([400, 404], `${method} ${id}`).toContain(res.status);
      }
      const field = await server.call('DELETE', `/v1/contacts/fields/${id}`, { key });
      expect([400, 404], `DELETE field ${id}`).toContain(field.status);
    }
  });
});

describe('routes, request ids and error bodies', () => {
  it('answers an unknown route with 404 not_found', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nope'],
      ['GET', '/nope'],
      ['POST', '/v1/contacts/search'],
      ['PUT', '/v1/contacts'],
      ['GET', '/v2/contacts'],
    ]) {
      const res = await server.call(method, path, { key });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
    // unauthenticated too, and without leaking anything
    const anon = await server.call('GET', '/v1/does-not-exist');
    expect(anon.status).toBe(404);
    expect(anon.body.error).toBe('not_found');
  });

  it('echoes a given X-Request-Id', async () => {
    const res = await server.call('GET', '/v1/contacts', { key, headers: { 'x-request-id': 'req-abc.123:XYZ' } });
    expect(res.headers.get('x-request-id')).toBe('req-abc.123:XYZ');
    const err = await server.call('GET', '/v1/contacts', { headers: { 'x-request-id': 'req-on-error' } });
    expect(err.status).toBe(401);
    expect(err.headers.get('x-request-id')).toBe('req-on-error');
    const missing = await server.call('GET', '/v1/nope', { headers: { 'x-request-id': 'req-on-404' } });
    expect(missing.headers.get('x-request-id')).toBe('req-on-404');
  });

  it('generates a distinct X-Request-Id when none (or an unusable one) is given', async () => {
    const a = await server.call('GET', '/v1/contacts', { key });
    const b = await server.call('GET', '/v1/contacts', { key });
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(b.headers.get('x-request-id')).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
    for (const bad of ['has space', 'x'.repeat(129), '<script>', 'a,b']) {
      const res = await server.call('GET', '/v1/contacts', { key, headers: { 'x-request-id': bad } });
      expect(res.headers.get('x-request-id'), bad).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    }
  });

  it('answers every kind of 4xx with the flat {error, message} body', async () => {
    const c = await server.call('POST', '/v1/contacts', { key, body: { email: 'shape@example.com' } });
    const samples = await Promise.all([
      server.call('GET', '/v1/contacts'), // 401
      server.call('GET', '/v1/contacts', { key: 'ek_live_wrong' }), // 401
      server.call('POST', '/v1/contacts', { key, raw: '{' }), // 400
      server.call('POST', '/v1/contacts', { key, body: { email: 'shape@example.com' } }), // 409
      server.call('GET', '/v1/contacts/ct_01ARZ3NDEKTSV4RRFFQ69G5FAV', { key }), // 404
      server.call('GET', '/v1/unknown', { key }), // 404
      server.call('GET', '/v1/contacts?limit=0', { key }), // 400
    ]);
    expect(samples.map((s) => s.status)).toEqual([401, 401, 400, 409, 404, 404, 400]);
    for (const s of samples) {
      expect(s.headers.get('content-type')).toMatch(/^application\/json/);
      expect(s.body).toEqual(expect.objectContaining({ error: expect.stringMatching(/^[a-z_]+$/), message: expect.any(String) }));
      expect(JSON.stringify(s.body)).not.toMatch(/\bat .*\.ts:\d+/); // no stack traces
    }
    await server.call('DELETE', `/v1/contacts/${c.body.id}`, { key });
  });
});

describe('API documents', () => {
  it('serves an OpenAPI 3.1 document listing the contacts paths, without credentials', async () => {
    const res = await server.call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(Object.keys(doc.paths['/v1/contacts']).sort()).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(doc.paths['/v1/contacts/{id}']).sort()).toEqual(expect.arrayContaining(['delete', 'get', 'patch']));
    expect(Object.keys(doc.paths['/v1/contacts/fields']).sort()).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(doc.paths['/v1/contacts/fields/{id}'])).toContain('delete');
    // the request body schema is the validator's: strict, with the standard fields
    const schema = doc.paths['/v1/contacts'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['email', 'phone', 'first_name', 'tags', 'custom_fields']));
    expect(schema.additionalProperties).toBe(false);
    const listParams = doc.paths['/v1/contacts'].get.parameters.map((p: { name: string }) => p.name);
    expect(listParams).toEqual(expect.arrayContaining(['limit', 'cursor', 'email', 'phone', 'tag', 'q']));
    expect(doc.paths['/v1/contacts/{id}'].get.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/v1/contacts'].get.security).toEqual(expect.arrayContaining([{ apiKey: [] }, { bearer: [] }]));
  });

  it('serves the interactive docs as HTML at /docs', async () => {
    const res = await fetch(`${server.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toMatch(/<html/i);
    expect(html.toLowerCase()).toContain('swagger');
  });
});
