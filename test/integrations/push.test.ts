// Push integrations (README "Integrations"): an account's own Firebase project (fcm) and Apple key
// (apns), their credentials checked by shape and never shown, and the account's push messages sent
// through them to local doubles of Google's and Apple's APIs (test/support/push-apis.ts): sent (push
// providers send no delivery reports), failed for a token the provider no longer knows, deferred as
// long as a 429's Retry-After asks; with both, each token goes to its own provider.
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import {
  APNS_ANSWERS,
  apnsDeviceToken,
  FCM_ANSWERS,
  fcmDeviceToken,
  pushSuite,
  testApnsKey,
  testServiceAccount,
} from '../support/push-apis.ts';
import { until } from '../support/waits.ts';

const firebase = testServiceAccount('engage-push-4711');
const apple = testApnsKey('com.acme.shop');
const suite = pushSuite(firebase, apple);
let a: TestAccount;

beforeAll(async () => {
  a = await suite.server.newAccount('Acme');
});

const create = (account: TestAccount, body: Record<string, unknown>) => suite.server.call('POST', '/v1/integrations', { key: account.key, body });
const integrate = async (account: TestAccount, body: Record<string, unknown>) => {
  const res = await create(account, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await suite.server.caughtUp(['integrations']);
  return res.body;
};
const paths = (res: { body: { issues?: { path: string }[] } }) => res.body.issues?.map((i) => i.path);
const keyBody = (pem: string) => pem.split('\n')[1];
const send = async (account: TestAccount, to: string, message = 'Your order shipped') => {
  const res = await suite.server.call('POST', '/v1/messages/send', { key: account.key, body: { transactional: true, channel: 'push', to, message } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
};
const settled = (account: TestAccount, id: string) =>
  until(async () => (await suite.server.call('GET', `/v1/messages/${id}`, { key: account.key })).body, (m) => m.status !== 'queued', 30_000, 100);

describe('creating push integrations', () => {
  it('fcm takes the service account key file as an object or as its text; the hint names the project and the masked account, never the key', async () => {
    const created = await create(a, { provider: 'fcm', name: 'Android app', credentials: { service_account: firebase.serviceAccount } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      provider: 'fcm',
      channel: 'push',
      name: 'Android app',
      credentials: { hint: 'project engage-push-4711, fi…2z@engage-push-4711.iam.gserviceaccount.com' },
    });
    const asText = await create(a, { provider: 'fcm', credentials: { service_account: JSON.stringify(firebase.serviceAccount) } });
    expect(asText.status).toBe(201);
    expect(asText.body.credentials).toEqual(created.body.credentials);
    const { rows } = await suite.server.engage.pool.query<{ data: string }>('SELECT data::text FROM es_events WHERE stream_id = $1', [`integration-${created.body.id}`]);
    expect(rows[0].data).not.toContain(keyBody(firebase.serviceAccount.private_key));
    expect(rows[0].data).toContain('sealed:v1:');
    const listed = JSON.stringify((await suite.server.call('GET', '/v1/integrations', { key: a.key })).body);
    expect(listed).not.toContain(keyBody(firebase.serviceAccount.private_key));
    expect(listed).not.toContain('firebase-adminsdk');
    for (const id of [created.body.id, asText.body.id]) expect((await suite.server.call('DELETE', `/v1/integrations/${id}`, { key: a.key })).status).toBe(200);
  });

  it('fcm: a bad key file is a 400 naming the field, and never repeats the key', async () => {
    const sa = firebase.serviceAccount;
    const { private_key: _key, ...withoutKey } = sa;
    expect(paths(await create(a, { provider: 'fcm', credentials: { service_account: withoutKey } }))).toEqual(['credentials.service_account.private_key']);
    expect(paths(await create(a, { provider: 'fcm', credentials: { service_account: { ...sa, type: 'authorized_user' } } }))).toEqual(['credentials.service_account.type']);
    expect(paths(await create(a, { provider: 'fcm', credentials: { service_account: '{"type": "service_account",' } }))).toEqual(['credentials.service_account']);
    const ecKey = await create(a, { provider: 'fcm', credentials: { service_account: { ...sa, private_key: apple.credentials.key_p8 } } });
    expect(ecKey.status).toBe(400);
    expect(paths(ecKey)).toEqual(['credentials.service_account.private_key']);
    expect(JSON.stringify(ecKey.body)).not.toContain(keyBody(apple.credentials.key_p8));
    expect(paths(await create(a, { provider: 'fcm', credentials: { service_account: sa, project: 'x' } }))).toEqual(['credentials.project']);
  });

  it('apns takes the .p8 key, its key id, the team id and the bundle id; the hint shows all but the key', async () => {
    const created = await create(a, { provider: 'apns', credentials: { ...apple.credentials, environment: 'sandbox' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ provider: 'apns', channel: 'push', credentials: { hint: 'team TEAM123456, key ABC123DEFG, com.acme.shop' } });
    expect(JSON.stringify((await suite.server.call('GET', '/v1/integrations', { key: a.key })).body)).not.toContain(keyBody(apple.credentials.key_p8));
    expect((await suite.server.call('DELETE', `/v1/integrations/${created.body.id}`, { key: a.key })).status).toBe(200);
  });

  it('apns: bad credentials are a 400 naming each field', async () => {
    const bad = await create(a, {
      provider: 'apns',
      credentials: { key_p8: firebase.serviceAccount.private_key, key_id: 'abc', team_id: 'TEAM123456', topic: 'shop', environment: 'staging' },
    });
    expect(bad.status).toBe(400);
    expect(paths(bad)).toEqual(['credentials.key_p8', 'credentials.key_id', 'credentials.topic', 'credentials.environment']);
    expect(JSON.stringify(bad.body)).not.toContain(keyBody(firebase.serviceAccount.private_key));
    const { topic: _topic, ...noTopic } = apple.credentials;
    expect(paths(await create(a, { provider: 'apns', credentials: noTopic }))).toEqual(['credentials.topic']);
  });
});

describe("an account's push through FCM", () => {
  let b: TestAccount;
  beforeAll(async () => {
    b = await suite.server.newAccount('Beta');
    await integrate(b, { provider: 'fcm', credentials: { service_account: firebase.serviceAccount } });
  });

  it('sends through its Firebase project and ends sent (FCM reports no delivery)', async () => {
    const token = fcmDeviceToken();
    const id = await send(b, token);
    const m = await settled(b, id);
    expect(m).toMatchObject({ status: 'sent', provider: 'fcm', provider_message_id: expect.stringMatching(/^projects\/engage-push-4711\/messages\//) });
    expect(suite.fcm.sent.find((s) => s.token === token)!.json).toEqual({ message: { token, notification: { body: 'Your order shipped' }, data: { engage_message_id: id } } });
    // still sent a moment later: no report follows
    await new Promise((r) => setTimeout(r, 500));
    expect((await suite.server.call('GET', `/v1/messages/${id}`, { key: b.key })).body.status).toBe('sent');
  });

  it('a token FCM no longer knows fails the message as unregistered', async () => {
    const token = fcmDeviceToken();
    suite.fcm.script.add(token, FCM_ANSWERS.unregistered());
    const m = await settled(b, await send(b, token));
    expect(m).toMatchObject({ status: 'failed', provider: 'fcm', attempts: 1 });
    expect(m.reason).toMatch(/^unregistered: 404 UNREGISTERED/);
  });

  it("a 429 defers the message for its Retry-After, then it is sent", async () => {
    const token = fcmDeviceToken();
    suite.fcm.script.add(token, FCM_ANSWERS.quotaExceeded('2'));
    const m = await settled(b, await send(b, token));
    expect(m).toMatchObject({ status: 'sent', provider: 'fcm', attempts: 2 });
    const [first, second] = suite.fcm.sent.filter((s) => s.token === token);
    // 50 ms of doubling delay would have retried at once: the Retry-After of 2 s held it
    expect(second.at - first.at).toBeGreaterThanOrEqual(1900);
  });
});

describe('an account with both an APNs and an FCM integration', () => {
  let c: TestAccount;
  beforeAll(async () => {
    c = await suite.server.newAccount('Gamma');
    await integrate(c, { provider: 'fcm', credentials: { service_account: JSON.stringify(firebase.serviceAccount) } });
    await integrate(c, { provider: 'apns', credentials: apple.credentials });
  });

  it('sends a 64-hex-digit token through APNs and any other through FCM', async () => {
    const [iphone, android] = [apnsDeviceToken(), fcmDeviceToken()];
    const [toIphone, toAndroid] = await Promise.all([send(c, iphone, 'Hi iPhone'), send(c, android, 'Hi Android')]);
    const [mi, ma] = await Promise.all([settled(c, toIphone), settled(c, toAndroid)]);
    expect(mi).toMatchObject({ status: 'sent', provider: 'fcm+apns', provider_message_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/) });
    expect(ma).toMatchObject({ status: 'sent', provider: 'fcm+apns', provider_message_id: expect.stringMatching(/^projects\/engage-push-4711\/messages\//) });
    const sent = suite.apns.sent.find((s) => s.token === iphone)!;
    expect(sent.json).toEqual({ aps: { alert: { body: 'Hi iPhone' } }, engage_message_id: toIphone });
    expect(sent.headers['apns-id']).toBe(mi.provider_message_id);
    expect(suite.apns.sent.some((s) => s.token === android)).toBe(false);
    expect(suite.fcm.sent.some((s) => s.token === iphone)).toBe(false);
  });

  it('a device Apple calls unregistered fails the message; a 429 from Apple defers it', async () => {
    const [gone, busy] = [apnsDeviceToken(), apnsDeviceToken()];
    suite.apns.script.add(gone, APNS_ANSWERS.unregistered());
    suite.apns.script.add(busy, APNS_ANSWERS.tooManyRequests('1'));
    const [failed, later] = await Promise.all([settled(c, await send(c, gone)), settled(c, await send(c, busy))]);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, reason: 'unregistered: 410 Unregistered' });
    expect(later).toMatchObject({ status: 'sent', attempts: 2 });
    const [first, second] = suite.apns.sent.filter((s) => s.token === busy);
    expect(second.at - first.at).toBeGreaterThanOrEqual(900);
  });
});
