// Data that leaves the service needs the read scope for it (README "API conventions", issue 25
// finding 3): a write-only key may not aim the account's events at a URL of its choosing (create or
// change an endpoint, replay the log, retry a delivery), nor a settings key set the inbound URL
// without read. The refusal comes before anything is stored and names every missing capability.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/service.ts';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';
import { until } from '../support/waits.ts';

const server = testServerForSuite({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '1h' });
let receiver: Receiver;
let owner: TestAccount;
let writeOnly: string;
let readWrite: string;
let settingsOnly: string;
let settingsRead: string;
let endpoint: { id: string; url: string };
let deliveryId: string;

async function issueKey(scopes: string[]) {
  const res = await server.call('POST', '/v1/account/api-keys', { key: owner.key, body: { scopes } });
  expect(res.status).toBe(201);
  return res.body.key as string;
}

const refusedForRead = (res: { status: number; body: Record<string, unknown> }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body).toEqual({ error: 'insufficient_scope', message: expect.any(String), required_scope: 'read', missing_scopes: ['read'] });
};

beforeAll(async () => {
  // the receiver fails every delivery, so there is always one to retry
  receiver = await startReceiver(() => 500);
  owner = await server.newAccount('Egress');
  [writeOnly, readWrite, settingsOnly, settingsRead] = await Promise.all([issueKey(['write']), issueKey(['read', 'write']), issueKey(['settings']), issueKey(['settings', 'read'])]);
  const created = await server.call('POST', '/v1/webhook-endpoints', { key: owner.key, body: { url: receiver.url, events: ['contact.created'] } });
  expect(created.status).toBe(201);
  endpoint = created.body;
  expect((await server.call('POST', '/v1/contacts', { key: owner.key, body: { email: 'ann@example.com', first_name: 'Ann' } })).status).toBe(201);
  const deliveries = await until(
    () => server.call('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`, { key: owner.key }),
    (r) => r.body.data?.some((d: { attempts: number }) => d.attempts >= 1),
    30_000,
  );
  deliveryId = deliveries.body.data[0].id;
});
afterAll(async () => {
  await receiver?.close();
});

const endpoints = async () => (await server.call('GET', '/v1/webhook-endpoints', { key: owner.key })).body.data as { id: string; url: string; events: string[] }[];
const replays = async () => (await server.call('GET', `/v1/webhook-endpoints/${endpoint.id}/replays`, { key: owner.key })).body.data as unknown[];

describe('a write-only key', () => {
  it('may not create a webhook endpoint: 403 insufficient_scope with missing_scopes ["read"], and no endpoint exists', async () => {
    refusedForRead(await server.call('POST', '/v1/webhook-endpoints', { key: writeOnly, body: { url: `${receiver.url}?stolen`, events: ['contact.created'] } }));
    expect((await endpoints()).map((e) => e.id)).toEqual([endpoint.id]);
  });

  it('may not change an endpoint (url, events or status): 403, and the endpoint is unchanged', async () => {
    for (const body of [{ url: `${receiver.url}?moved` }, { events: ['contact.created', 'message.received'] }, { status: 'active' }]) {
      refusedForRead(await server.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { key: writeOnly, body }));
    }
    expect(await endpoints()).toEqual([expect.objectContaining({ id: endpoint.id, url: receiver.url, events: ['contact.created'] })]);
  });

  it('may not replay the log to an endpoint: 403, and no replay job exists', async () => {
    refusedForRead(await server.call('POST', `/v1/webhook-endpoints/${endpoint.id}/replay`, { key: writeOnly, body: { from: '0/0' } }));
    expect(await replays()).toEqual([]);
  });

  it('may not retry a delivery: 403, and the delivery keeps its attempts', async () => {
    const before = (await server.call('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`, { key: owner.key })).body.data[0];
    refusedForRead(await server.call('POST', `/v1/webhook-endpoints/${endpoint.id}/deliveries/${deliveryId}/retry`, { key: writeOnly, body: {} }));
    const after = (await server.call('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`, { key: owner.key })).body.data[0];
    expect(after).toMatchObject({ id: deliveryId, attempts: before.attempts, next_attempt_at: before.next_attempt_at });
  });

  it('may not export contacts (already a read)', async () => {
    refusedForRead(await server.call('GET', '/v1/contacts/export', { key: writeOnly }));
  });

  it('may still ping an endpoint (no account data) and delete one', async () => {
    expect((await server.call('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { key: writeOnly, body: {} })).status).toBe(200);
    const spare = await server.call('POST', '/v1/webhook-endpoints', { key: owner.key, body: { url: `${receiver.url}?spare` } });
    expect((await server.call('DELETE', `/v1/webhook-endpoints/${spare.body.id}`, { key: writeOnly })).status).toBe(200);
  });
});

describe('sends to contacts the service picks, with a webhook_url (their addresses in every status webhook)', () => {
  it('send-by-tag with a webhook_url needs read: 403 for a write-only key, and no message is accepted', async () => {
    expect((await server.call('POST', '/v1/contacts', { key: owner.key, body: { phone: '+14155550177', tags: ['vip'] } })).status).toBe(201);
    const body = { tag: 'vip', channel: 'sms', message: 'Hello', transactional: true, webhook_url: `${receiver.url}?by-tag` };
    refusedForRead(await server.call('POST', '/v1/messages/send-by-tag', { key: writeOnly, body }));
    expect((await server.call('GET', '/v1/messages/history', { key: owner.key })).body.data).toEqual([]);
    const { webhook_url: _, ...withoutHook } = body;
    expect((await server.call('POST', '/v1/messages/send-by-tag', { key: writeOnly, body: withoutHook })).status).toBe(202);
  });

  it('a campaign with a webhook_url needs read: 403 for a write-only key, and no campaign exists', async () => {
    const list = await server.call('POST', '/v1/lists', { key: owner.key, body: { name: 'Everyone' } });
    expect(list.status).toBe(201);
    const body = { name: 'Sale', audience: { list_id: list.body.id }, channel: 'sms', message: 'Sale today', webhook_url: `${receiver.url}?campaign` };
    refusedForRead(await server.call('POST', '/v1/campaigns', { key: writeOnly, body }));
    expect((await server.call('GET', '/v1/campaigns', { key: owner.key })).body.data).toEqual([]);
    expect((await server.call('POST', '/v1/campaigns', { key: readWrite, body })).status).toBe(201);
  });

  it('a single send may name its own webhook_url with write alone (its webhooks carry only what the caller sent)', async () => {
    const res = await server.call('POST', '/v1/messages/send', { key: writeOnly, body: { to: '+14155550178', channel: 'sms', message: 'Hi', transactional: true, webhook_url: `${receiver.url}?own` } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
  });
});

describe('the inbound webhook URL (every message.received)', () => {
  it('needs read besides settings: a settings-only key gets 403 with missing_scopes ["read"] and the URL stays unset', async () => {
    refusedForRead(await server.call('PUT', '/v1/account/inbound', { key: settingsOnly, body: { webhook_url: `${receiver.url}?inbound` } }));
    expect((await server.call('GET', '/v1/account/inbound', { key: owner.key })).body.webhook_url).toBeNull();
    const res = await server.call('PUT', '/v1/account/inbound', { key: writeOnly, body: { webhook_url: `${receiver.url}?inbound` } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'settings', missing_scopes: ['settings', 'read'] });
    const ok = await server.call('PUT', '/v1/account/inbound', { key: settingsRead, body: { webhook_url: `${receiver.url}?inbound` } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.webhook_url).toBe(`${receiver.url}?inbound`);
  });
});

describe('a read+write key', () => {
  it('creates and changes an endpoint, replays to it and retries a delivery', async () => {
    const created = await server.call('POST', '/v1/webhook-endpoints', { key: readWrite, body: { url: `${receiver.url}?rw`, events: ['contact.created'] } });
    expect(created.status).toBe(201);
    expect((await server.call('PATCH', `/v1/webhook-endpoints/${created.body.id}`, { key: readWrite, body: { status: 'disabled' } })).status).toBe(200);
    expect((await server.call('PATCH', `/v1/webhook-endpoints/${created.body.id}`, { key: readWrite, body: { status: 'active' } })).status).toBe(200);
    const replay = await server.call('POST', `/v1/webhook-endpoints/${created.body.id}/replay`, { key: readWrite, body: { from: '0/0' } });
    expect(replay.status, JSON.stringify(replay.body)).toBe(202);
    const retried = await server.call('POST', `/v1/webhook-endpoints/${endpoint.id}/deliveries/${deliveryId}/retry`, { key: readWrite, body: {} });
    expect(retried.status, JSON.stringify(retried.body)).toBe(202);
  });
});

describe('dashboard roles go through the same check', () => {
  it('a viewer (read only) creating an endpoint gets 403 forbidden naming write in required_scope and missing_scopes', async () => {
    const email = `viewer-${Date.now()}@example.com`;
    const added = await addUser(server.engage, owner.accountId, { email, password: 'correct horse battery', role: 'viewer' }, { actor: 'test' });
    await server.engage.runner.waitFor(['auth'], added.position, 30_000);
    const login = await server.call('POST', '/v1/auth/login', { body: { email, password: 'correct horse battery' } });
    expect(login.status).toBe(200);
    const res = await server.call('POST', '/v1/webhook-endpoints', { token: login.body.token, body: { url: `${receiver.url}?viewer` } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'forbidden', required_scope: 'write', missing_scopes: ['write'] });
  });
});
