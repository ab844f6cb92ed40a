// The audit trail over HTTP (issue 16): GET …/:id/history of contacts, lists, segments, webhook
// endpoints, API keys and email domains gives every change in order with time, type, actor, request
// id and the fields changed; personal data only while not erased, secrets never; the account
// boundary holds (another account's id is a 404, as a missing one).
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { startReceiver } from '../support/receivers.ts';

const server = testServerForSuite({ WEBHOOK_ALLOW_PRIVATE: 'true' });
let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  [a, b] = await Promise.all([server.newAccount('Acme'), server.newAccount('Other')]);
});

const history = async (key: string, path: string) => {
  const res = await server.call('GET', path, { key });
  return res;
};

describe('contact history', () => {
  it('lists create and update in order with actor, request id and the fields changed', async () => {
    const created = await server.call('POST', '/v1/contacts', { key: a.key, body: { email: 'ada@example.com', first_name: 'Ada' }, headers: { 'X-Request-Id': 'req-create-1' } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const updated = await server.call('PATCH', `/v1/contacts/${id}`, { key: a.key, body: { last_name: 'Lovelace', tags: ['vip'] }, headers: { 'X-Request-Id': 'req-update-1' } });
    expect(updated.status).toBe(200);

    const res = await history(a.key, `/v1/contacts/${id}/history`);
    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.data.map((e: { type: string }) => e.type)).toEqual(['ContactCreated', 'ContactUpdated']);
    const [first, second] = res.body.data;
    expect(first).toMatchObject({ revision: 0, request_id: 'req-create-1', actor: expect.stringMatching(/^key_/), at: expect.stringMatching(/Z$/) });
    expect(first.changes.fields).toMatchObject({ email: 'ada@example.com', first_name: 'Ada' });
    expect(first.changes).not.toHaveProperty('account_id');
    expect(second).toMatchObject({ revision: 1, request_id: 'req-update-1' });
    expect(second.changes.changes).toMatchObject({ last_name: 'Lovelace', tags: ['vip'] });
    expect(Date.parse(second.at)).toBeGreaterThanOrEqual(Date.parse(first.at));
  });

  it('is the same 404 for another account and for an id that never existed', async () => {
    const id = (await server.call('POST', '/v1/contacts', { key: a.key, body: { email: 'grace@example.com' } })).body.id as string;
    const foreign = await history(b.key, `/v1/contacts/${id}/history`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('not_found');
    const missing = await history(a.key, `/v1/contacts/ct_01JZZZZZZZZZZZZZZZZZZZZZZZ/history`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ ...foreign.body });
  });

  it('shows personal data only while it is not erased, and keeps the history of a deleted contact', async () => {
    const id = (await server.call('POST', '/v1/contacts', { key: a.key, body: { email: 'erase.me@example.com', first_name: 'Eve' } })).body.id as string;
    expect((await server.call('POST', `/v1/contacts/${id}/erase`, { key: a.key, body: {} })).status).toBe(200);
    const res = await history(a.key, `/v1/contacts/${id}/history`);
    expect(res.status).toBe(200);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain('erase.me@example.com');
    expect(text).not.toContain('Eve');
    expect(res.body.data[0].changes.fields.email).toBe('[erased]');
    expect(res.body.data.map((e: { type: string }) => e.type)).toContain('ContactErased');

    const kept = (await server.call('POST', '/v1/contacts', { key: a.key, body: { email: 'gone@example.com' } })).body.id as string;
    expect((await server.call('DELETE', `/v1/contacts/${kept}`, { key: a.key })).status).toBeLessThan(300);
    const deleted = await history(a.key, `/v1/contacts/${kept}/history`);
    expect(deleted.body.data.map((e: { type: string }) => e.type)).toEqual(['ContactCreated', 'ContactDeleted']);
    expect(deleted.body.data[0].changes.fields.email).toBe('gone@example.com');
  });

  it('pages with limit and cursor; a cursor it did not give out is a 400', async () => {
    const id = (await server.call('POST', '/v1/contacts', { key: a.key, body: { email: 'pages@example.com' } })).body.id as string;
    for (const name of ['One', 'Two', 'Three']) await server.call('PATCH', `/v1/contacts/${id}`, { key: a.key, body: { first_name: name } });
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { data: { revision: number }[]; next_cursor: string | null } } = await history(a.key, `/v1/contacts/${id}/history?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((e) => e.revision));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([0, 1, 2, 3]);
    const bad = await history(a.key, `/v1/contacts/${id}/history?cursor=abc`);
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((i: { path: string }) => i.path)).toEqual(['cursor']);
    expect((await history(a.key, `/v1/contacts/${id}/history?limit=0`)).status).toBe(400);
  });
});

describe('other resources', () => {
  it('lists and segments', async () => {
    const list = (await server.call('POST', '/v1/lists', { key: a.key, body: { name: 'Newsletter' } })).body.id as string;
    await server.call('PATCH', `/v1/lists/${list}`, { key: a.key, body: { name: 'Weekly newsletter' } });
    const lh = await history(a.key, `/v1/lists/${list}/history`);
    expect(lh.status).toBe(200);
    expect(lh.body.data.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(lh.body.data.at(-1).changes)).toContain('Weekly newsletter');
    expect((await history(b.key, `/v1/lists/${list}/history`)).status).toBe(404);

    const seg = await server.call('POST', '/v1/segments', { key: a.key, body: { name: 'VIPs', rules: { match: 'all', rules: [{ field: 'tag', operator: 'has', value: 'vip' }] } } });
    expect(seg.status).toBe(201);
    const sh = await history(a.key, `/v1/segments/${seg.body.id}/history`);
    expect(sh.status).toBe(200);
    expect(sh.body.data[0].type).toBe('SegmentCreated');
    expect(JSON.stringify(sh.body.data[0].changes)).toContain('VIPs');
    expect((await history(b.key, `/v1/segments/${seg.body.id}/history`)).status).toBe(404);
  });

  it('webhook endpoints: the signing secret never shows', async () => {
    const receiver = await startReceiver();
    onTestFinished(() => receiver.close());
    const ep = await server.call('POST', '/v1/webhook-endpoints', { key: a.key, body: { url: receiver.url, events: ['contact.created'] } });
    expect(ep.status, JSON.stringify(ep.body)).toBe(201);
    await server.call('PATCH', `/v1/webhook-endpoints/${ep.body.id}`, { key: a.key, body: { status: 'disabled' } });
    const res = await history(a.key, `/v1/webhook-endpoints/${ep.body.id}/history`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: { type: string }) => e.type)).toEqual(['WebhookEndpointCreated', 'WebhookEndpointUpdated']);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(ep.body.secret);
    expect(text).not.toContain('sealed:v1:');
    expect((await history(b.key, `/v1/webhook-endpoints/${ep.body.id}/history`)).status).toBe(404);
  });

  it('API keys: the key’s own events from the account stream, needing the settings scope', async () => {
    const issued = await server.call('POST', '/v1/account/api-keys', { key: a.key, body: { name: 'ci', scopes: ['read'] } });
    expect(issued.status).toBe(201);
    const rotated = await server.call('POST', `/v1/account/api-keys/${issued.body.id}/rotate`, { key: a.key });
    expect(rotated.status).toBe(201);
    const res = await history(a.key, `/v1/account/api-keys/${issued.body.id}/history`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: { type: string }) => e.type)).toEqual(['ApiKeyIssued', 'ApiKeyExpirySet']);
    expect(res.body.data[0].changes).toMatchObject({ key_id: issued.body.id, name: 'ci', scopes: ['read'] });
    expect(JSON.stringify(res.body)).not.toContain(issued.body.key);
    // the read-only key may not read key history (settings), another account's key is a 404
    const denied = await history(issued.body.key, `/v1/account/api-keys/${issued.body.id}/history`);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'settings' });
    expect((await history(b.key, `/v1/account/api-keys/${issued.body.id}/history`)).status).toBe(404);
    expect((await history(a.key, `/v1/account/api-keys/key_01JZZZZZZZZZZZZZZZZZZZZZZZ/history`)).status).toBe(404);
  });

  it('email domains: the DKIM private key never shows', async () => {
    const dom = await server.call('POST', '/v1/account/email-domains', { key: a.key, body: { domain: 'history.example' } });
    expect(dom.status).toBe(201);
    const res = await history(a.key, `/v1/account/email-domains/${dom.body.id}/history`);
    expect(res.status).toBe(200);
    expect(res.body.data[0].type).toBe('EmailDomainAdded');
    const text = JSON.stringify(res.body);
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain('sealed:v1:');
    expect(text).toContain('history.example');
    expect((await history(b.key, `/v1/account/email-domains/${dom.body.id}/history`)).status).toBe(404);
  });
});
