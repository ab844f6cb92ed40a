// A push to a contact through the account's own push provider, end to end over HTTP (README "Push
// devices", "Push: FCM and APNs"): devices registered with POST /v1/contacts/:id/devices, a push sent
// with the contact id as `to` reaches the local double of FCM or APNs (test/support/push-apis.ts)
// once per device token with the message's text, and the message is sent; a device the provider
// then answers as unregistered (FCM's UNREGISTERED, APNs' 410) is removed from the contact by a
// ContactDeviceRemoved, reason `unregistered`, while the message is still sent to the other.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { contactStream } from '../../commands/contact.ts';
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
import { eventually, until } from '../support/waits.ts';

const firebase = testServiceAccount('engage-contact-push');
const apple = testApnsKey('com.acme.devices');
const suite = pushSuite(firebase, apple);

async function ok(account: TestAccount, method: string, path: string, body?: unknown, status = 200) {
  const res = await suite.server.call(method, path, { key: account.key, body });
  expect(res.status, `${method} ${path} → ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

/** An account whose pushes go through its own integration of `provider`. */
async function accountWith(provider: 'fcm' | 'apns'): Promise<TestAccount> {
  const account = await suite.server.newAccount(`Push via ${provider}`);
  const credentials = provider === 'fcm' ? { service_account: firebase.serviceAccount } : apple.credentials;
  await ok(account, 'POST', '/v1/integrations', { provider, credentials }, 201);
  await suite.server.caughtUp(['integrations']);
  return account;
}

/** A new contact with a device for each token; its id and the devices' ids by token. */
async function contactWithDevices(account: TestAccount, tokens: string[], platform: 'android' | 'ios') {
  const contact = await ok(account, 'POST', '/v1/contacts', { email: `devices-${randomBytes(4).toString('hex')}@example.com` }, 201);
  const devices = new Map<string, string>();
  for (const token of tokens) devices.set(token, (await ok(account, 'POST', `/v1/contacts/${contact.id}/devices`, { token, platform }, 201)).id);
  return { contactId: contact.id as string, devices };
}

async function pushTo(account: TestAccount, to: string, message: string) {
  const id = (await ok(account, 'POST', '/v1/messages/send', { channel: 'push', to, message, transactional: true }, 202)).id as string;
  return until(async () => (await suite.server.call('GET', `/v1/messages/${id}`, { key: account.key })).body, (m) => m.status !== 'queued', 30_000, 100);
}

const listedTokens = async (account: TestAccount, contactId: string) => ((await ok(account, 'GET', `/v1/contacts/${contactId}/devices`)).data as { token: string }[]).map((d) => d.token).sort();

const removals = async (contactId: string) =>
  (await suite.server.engage.store.readStream(contactStream(contactId))).filter((e) => e.type === 'ContactDeviceRemoved').map((e) => e.data as { device_id: string; reason: string });

/** One provider's side of the test: what its double took for a message, by device token, and its "unregistered" answer. */
interface Provider {
  name: 'fcm' | 'apns';
  platform: 'android' | 'ios';
  deviceToken: () => string;
  /** the body text each token was sent for our message id */
  received: (messageId: string) => { token: string; text: string }[];
  /** the provider answers the token's next send as unregistered */
  unregister: (token: string) => void;
}

const providers: Provider[] = [
  {
    name: 'fcm',
    platform: 'android',
    deviceToken: fcmDeviceToken,
    received: (id) => suite.fcm.sent.filter((s) => s.json.message.data.engage_message_id === id).map((s) => ({ token: s.token, text: s.json.message.notification.body })),
    unregister: (token) => suite.fcm.script.add(token, FCM_ANSWERS.unregistered()),
  },
  {
    name: 'apns',
    platform: 'ios',
    deviceToken: apnsDeviceToken,
    received: (id) => suite.apns.sent.filter((s) => s.json.engage_message_id === id).map((s) => ({ token: s.token, text: s.json.aps.alert.body })),
    unregister: (token) => suite.apns.script.add(token, APNS_ANSWERS.unregistered()),
  },
];

describe.each(providers)('a push to a contact through $name', (provider) => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await accountWith(provider.name);
  });

  it('reaches each of its devices with the message, and a device the provider calls unregistered is removed', async () => {
    const [kept, gone] = [provider.deviceToken(), provider.deviceToken()];
    const { contactId, devices } = await contactWithDevices(account, [kept, gone], provider.platform);

    const first = await pushTo(account, contactId, 'Your order shipped');
    expect(first).toMatchObject({ status: 'sent', provider: provider.name, to: contactId });
    // one request per device token, each with the message's text (in any order: both sides sorted alike,
    // by code unit; localeCompare against sort() disagreed on random tokens of mixed case)
    const byToken = (x: { token: string }, y: { token: string }) => (x.token < y.token ? -1 : x.token > y.token ? 1 : 0);
    expect(provider.received(first.id).sort(byToken)).toEqual([kept, gone].map((token) => ({ token, text: 'Your order shipped' })).sort(byToken));

    // the provider no longer knows one of them: the push still reaches the other, and that device goes
    provider.unregister(gone);
    const second = await pushTo(account, contactId, 'Your order arrived');
    expect(second).toMatchObject({ status: 'sent', provider: provider.name });
    expect(provider.received(second.id).map((r) => r.token).sort()).toEqual([kept, gone].sort());
    await eventually('the unregistered device to be removed', async () => ((await listedTokens(account, contactId)).length === 1 ? true : undefined));
    expect(await listedTokens(account, contactId)).toEqual([kept]);
    expect(await removals(contactId)).toEqual([expect.objectContaining({ device_id: devices.get(gone), reason: 'unregistered' })]);

    // the next push goes to the device it has left only
    const third = await pushTo(account, contactId, 'Rate your order');
    expect(third.status).toBe('sent');
    expect(provider.received(third.id)).toEqual([{ token: kept, text: 'Rate your order' }]);
  });
});
