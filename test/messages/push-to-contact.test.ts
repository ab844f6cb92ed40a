// A push addressed to a contact id reaches every device the contact registered (one provider call per
// device, through the sandbox); a device whose token its provider refuses as gone is removed from the
// contact by an event, whether the push named the contact or the token, at send or by a later report;
// a contact with no device, or another account's contact, ends the message failed `no_devices`
// (README "Push devices").
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { contactStream } from '../../commands/contact.ts';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { eventually } from '../support/waits.ts';

/** The sandbox's documented push token refused at send (README "Sandbox"). */
const REFUSED_TOKEN = 'sandbox-invalid-token';
/** The sandbox's documented push token taken, then reported `unregistered` (README "Sandbox"). */
const REPORTED_GONE_TOKEN = 'sandbox-unregistered-token';

describe('a push to a contact', () => {
  let key: string;
  let otherKey: string;
  const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false' });
  beforeAll(async () => {
    [{ key }, { key: otherKey }] = await Promise.all([readyAccount(server), readyAccount(server)]);
  });

  const calls = () => server.workers.messaging!.providers.sandbox.calls;
  const token = () => `fcm:${randomBytes(20).toString('base64url')}`;

  async function contactWithDevices(apiKey: string, tokens: string[]): Promise<string> {
    const created = await server.call('POST', '/v1/contacts', { key: apiKey, body: { email: `p.${randomBytes(4).toString('hex')}@example.com` } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    for (const t of tokens) {
      const res = await server.call('POST', `/v1/contacts/${created.body.id}/devices`, { key: apiKey, body: { token: t, platform: 'android' } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    return created.body.id;
  }

  async function push(apiKey: string, to: string): Promise<string> {
    const res = await server.call('POST', '/v1/messages/send', { key: apiKey, body: { channel: 'push', to, message: 'your order shipped', transactional: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.id;
  }

  const settled = (apiKey: string, id: string) =>
    eventually(`${id} to settle`, async () => {
      const r = await server.call('GET', `/v1/messages/${id}`, { key: apiKey });
      return ['sent', 'delivered', 'failed'].includes(r.body.status) ? r.body : undefined;
    });

  const tokensOf = async (apiKey: string, contactId: string) =>
    ((await server.call('GET', `/v1/contacts/${contactId}/devices`, { key: apiKey })).body.data as { token: string }[]).map((d) => d.token).sort();

  const removals = async (contactId: string) =>
    (await server.engage.store.readStream(contactStream(contactId))).filter((e) => e.type === 'ContactDeviceRemoved').map((e) => e.data as { reason: string });

  it('goes to each of its devices, and a device whose token is refused is removed (the message is still sent)', async () => {
    const [a, b] = [token(), token()];
    const contactId = await contactWithDevices(key, [a, b, REFUSED_TOKEN]);
    const id = await push(key, contactId);
    const row = await settled(key, id);
    expect(row.status).not.toBe('failed');
    // one provider call per device
    expect(calls().get(id)).toBe(3);
    expect(await eventually('the refused device to be removed', async () => ((await tokensOf(key, contactId)).length === 2 ? true : undefined))).toBe(true);
    expect(await tokensOf(key, contactId)).toEqual([a, b].sort());
    expect(await removals(contactId)).toEqual([expect.objectContaining({ reason: 'unregistered' })]);
  });

  it('fails `no_devices` for a contact without devices, and for another account’s contact', async () => {
    const bare = await contactWithDevices(key, []);
    const theirs = await contactWithDevices(otherKey, [token()]);
    for (const to of [bare, theirs]) {
      const id = await push(key, to);
      const row = await settled(key, id);
      expect(row.status, to).toBe('failed');
      expect(row.reason, to).toMatch(/^no_devices/);
      expect(calls().get(id) ?? 0, to).toBe(0);
    }
    // the other account's device is untouched
    expect(await tokensOf(otherKey, theirs)).toHaveLength(1);
  });

  it('fails when every device refuses, and removes each', async () => {
    const contactId = await contactWithDevices(key, [REFUSED_TOKEN]);
    const id = await push(key, contactId);
    const row = await settled(key, id);
    expect(row.status).toBe('failed');
    await eventually('the device to be removed', async () => ((await tokensOf(key, contactId)).length === 0 ? true : undefined));
    expect(await removals(contactId)).toEqual([expect.objectContaining({ reason: 'unregistered' })]);
  });

  it('a later report that a token is unregistered removes the device holding it (a push to the token)', async () => {
    const kept = token();
    const contactId = await contactWithDevices(key, [kept, REPORTED_GONE_TOKEN]);
    const id = await push(key, REPORTED_GONE_TOKEN);
    // taken at send, then failed by the report
    const row = await eventually('the report to fail the message', async () => {
      const r = (await server.call('GET', `/v1/messages/${id}`, { key })).body;
      return r.status === 'failed' ? r : undefined;
    });
    expect(row).toMatchObject({ reason: 'unregistered', sent_at: expect.any(String) });
    await eventually('the device to be removed', async () => ((await tokensOf(key, contactId)).length === 1 ? true : undefined));
    expect(await tokensOf(key, contactId)).toEqual([kept]);
    expect(await removals(contactId)).toEqual([expect.objectContaining({ reason: 'unregistered' })]);
  });

  it('a later report that a token is unregistered removes that device of the contact a push named (the report says which device)', async () => {
    const kept = token();
    const contactId = await contactWithDevices(key, [kept, REPORTED_GONE_TOKEN]);
    // another contact with the reported token... of another account: a report about this push touches this contact only
    const theirs = await contactWithDevices(otherKey, [REPORTED_GONE_TOKEN]);
    const id = await push(key, contactId);
    expect((await settled(key, id)).status).not.toBe('queued');
    expect(calls().get(id)).toBe(2);
    await eventually('the reported device to be removed', async () => ((await tokensOf(key, contactId)).length === 1 ? true : undefined));
    expect(await tokensOf(key, contactId)).toEqual([kept]);
    expect(await removals(contactId)).toEqual([expect.objectContaining({ reason: 'unregistered' })]);
    expect(await tokensOf(otherKey, theirs)).toEqual([REPORTED_GONE_TOKEN]);
  });

  it('a push sent to a refused token removes the device holding it', async () => {
    const contactId = await contactWithDevices(key, [token(), REFUSED_TOKEN]);
    const id = await push(key, REFUSED_TOKEN);
    const row = await settled(key, id);
    expect(row.status).toBe('failed');
    await eventually('the device to be removed', async () => ((await tokensOf(key, contactId)).length === 1 ? true : undefined));
    expect(await removals(contactId)).toEqual([expect.objectContaining({ reason: 'unregistered' })]);
  });
});
