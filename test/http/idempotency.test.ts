// Idempotency-Key on POST (README "API conventions"): the same key and body replay the first
// response; the same key with a different body is a 409; keys are scoped to the account.
import { describe, expect, it } from 'vitest';
import { testServerForSuite } from '../support/harness.ts';


async function contactsWith(key: string, query: string) {
  const res = await server.call('GET', `/v1/contacts?${query}`, { key });
  expect(res.status).toBe(200);
  return res.body.data as { id: string }[];
}

const server = testServerForSuite();

describe('Idempotency-Key on POST /v1/contacts', () => {
  it('replays the first response for the same key and body, and creates only one contact', async () => {
    const { key } = await server.newAccount();
    const body = { email: 'idem@example.com', first_name: 'Idem', tags: ['a'] };
    const first = await server.call('POST', '/v1/contacts', { key, body, headers: { 'idempotency-key': 'create-idem-1' } });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const again = await server.call('POST', '/v1/contacts', { key, body, headers: { 'idempotency-key': 'create-idem-1' } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.body.id).toBe(first.body.id);

    const third = await server.call('POST', '/v1/contacts', { key, body, headers: { 'idempotency-key': 'create-idem-1' } });
    expect(third.body.id).toBe(first.body.id);
    expect(await contactsWith(key, 'email=idem@example.com')).toHaveLength(1);
    expect(await contactsWith(key, 'limit=500')).toHaveLength(1);
  });

  it('creates two contacts for two posts without a key (the baseline the key protects against)', async () => {
    const { key } = await server.newAccount();
    const body = { external_id: 'no-key-twice' };
    const a = await server.call('POST', '/v1/contacts', { key, body });
    const b = await server.call('POST', '/v1/contacts', { key, body });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
  });

  it('creates one contact per distinct key', async () => {
    const { key } = await server.newAccount();
    const body = { external_id: 'two-keys' };
    const a = await server.call('POST', '/v1/contacts', { key, body, headers: { 'idempotency-key': 'k-1' } });
    const b = await server.call('POST', '/v1/contacts', { key, body, headers: { 'idempotency-key': 'k-2' } });
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(await contactsWith(key, 'q=two-keys')).toHaveLength(2);
  });

  it('answers the same key with a different body with 409 conflict and creates nothing more', async () => {
    const { key } = await server.newAccount();
    const first = await server.call('POST', '/v1/contacts', { key, body: { email: 'one@example.com' }, headers: { 'idempotency-key': 'reused' } });
    expect(first.status).toBe(201);
    const other = await server.call('POST', '/v1/contacts', { key, body: { email: 'two@example.com' }, headers: { 'idempotency-key': 'reused' } });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('conflict');
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(await contactsWith(key, 'email=two@example.com')).toHaveLength(0);
    expect(await contactsWith(key, 'limit=500')).toHaveLength(1);
    // the original still replays afterwards
    const replay = await server.call('POST', '/v1/contacts', { key, body: { email: 'one@example.com' }, headers: { 'idempotency-key': 'reused' } });
    expect(replay.body.id).toBe(first.body.id);
  });

  it('treats the same key on another endpoint as a different request: 409', async () => {
    const { key } = await server.newAccount();
    await server.call('POST', '/v1/contacts', { key, body: { external_id: 'x' }, headers: { 'idempotency-key': 'cross-route' } });
    const field = await server.call('POST', '/v1/contacts/fields', { key, body: { key: 'plan', type: 'text' }, headers: { 'idempotency-key': 'cross-route' } });
    expect(field.status).toBe(409);
    expect(field.body.error).toBe('conflict');
    expect((await server.call('GET', '/v1/contacts/fields', { key })).body.data).toEqual([]);
  });

  it('scopes keys per account: the same key and body in another account create its own contact', async () => {
    const a = await server.newAccount();
    const b = await server.newAccount();
    const body = { email: 'shared@example.com' };
    const inA = await server.call('POST', '/v1/contacts', { key: a.key, body, headers: { 'idempotency-key': 'same-everywhere' } });
    const inB = await server.call('POST', '/v1/contacts', { key: b.key, body, headers: { 'idempotency-key': 'same-everywhere' } });
    expect(inA.status).toBe(201);
    expect(inB.status).toBe(201);
    expect(inB.headers.get('idempotent-replayed')).toBeNull();
    expect(inB.body.id).not.toBe(inA.body.id);
    expect((await server.call('GET', `/v1/contacts/${inB.body.id}`, { key: b.key })).status).toBe(200);
    expect((await server.call('GET', `/v1/contacts/${inA.body.id}`, { key: b.key })).status).toBe(404);
    // and account B's entry does not disturb A's replay
    const replayA = await server.call('POST', '/v1/contacts', { key: a.key, body, headers: { 'idempotency-key': 'same-everywhere' } });
    expect(replayA.body.id).toBe(inA.body.id);
  });

  it('replays a 4xx first response as well, without running the request again', async () => {
    const { key } = await server.newAccount();
    await server.call('POST', '/v1/contacts', { key, body: { email: 'taken@example.com' } });
    const dup = await server.call('POST', '/v1/contacts', { key, body: { email: 'taken@example.com' }, headers: { 'idempotency-key': 'dup' } });
    expect(dup.status).toBe(409);
    const again = await server.call('POST', '/v1/contacts', { key, body: { email: 'taken@example.com' }, headers: { 'idempotency-key': 'dup' } });
    expect(again.status).toBe(409);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(dup.body);
  });

  it('creates exactly one contact when the same key arrives several times at once', async () => {
    const { key } = await server.newAccount();
    const body = { external_id: 'concurrent' };
    const results = await Promise.all(
      Array.from({ length: 8 }, () => server.call('POST', '/v1/contacts', { key, body, headers: { 'idempotency-key': 'at-once' } })),
    );
    // each is the first response, its replay, or a 409 while the first is still running
    for (const r of results) expect([201, 409]).toContain(r.status);
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    expect(await contactsWith(key, 'limit=500')).toHaveLength(1);
  });

  it('rejects an Idempotency-Key longer than 255 characters with 400', async () => {
    const { key } = await server.newAccount();
    const res = await server.call('POST', '/v1/contacts', { key, body: { external_id: 'long' }, headers: { 'idempotency-key': 'k'.repeat(256) } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_error');
    expect(await contactsWith(key, 'limit=500')).toHaveLength(0);
    const ok = await server.call('POST', '/v1/contacts', { key, body: { external_id: 'long' }, headers: { 'idempotency-key': 'k'.repeat(255) } });
    expect(ok.status).toBe(201);
  });

  it('does not let an unauthenticated request use or poison a key', async () => {
    const { key } = await server.newAccount();
    const anon = await server.call('POST', '/v1/contacts', { body: { email: 'anon@example.com' }, headers: { 'idempotency-key': 'anon' } });
    expect(anon.status).toBe(401);
    const real = await server.call('POST', '/v1/contacts', { key, body: { email: 'anon@example.com' }, headers: { 'idempotency-key': 'anon' } });
    expect(real.status).toBe(201);
    expect(real.headers.get('idempotent-replayed')).toBeNull();
  });
});
