// A message's sender checked at send (README "Senders at send time"): on sms, by the recipient's
// country rules, a sender that must be registered there (or is not delivered there at all) must be
// one of the account's approved sms senders for that country, and a number among them proven the
// account's; voice senders must be proven (a code entered back) and whatsapp ones approved after
// review; another account's approval or proof never counts; bulk items are refused one by one.
import { beforeAll, describe, expect, it } from 'vitest';
import { reviewSender } from '../../src/senders/service.ts';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { requestCode } from '../support/senders.ts';

const server = testServerForSuite();
let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  [a, b] = await Promise.all([server.newAccount('Acme'), server.newAccount('Other')]);
});

const send = (account: TestAccount, body: Record<string, unknown>) => server.call('POST', '/v1/messages/send', { key: account.key, body: { message: 'Your code is 1234', ...body } });
async function register(account: TestAccount, body: { sender: string; channel: string; country: string }, approve = true) {
  const res = await server.call('POST', '/v1/senders', { key: account.key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  if (approve && res.body.status !== 'approved') await reviewSender(server.engage, res.body.id, { approve: true }, { actor: 'test-operator' });
  await server.caughtUp(['senders']);
  return res.body.id as string;
}
const refusedOnSender = (res: { status: number; body: any }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(['sender']);
  return res.body.issues[0].message as string;
};

describe('sms', () => {
  it('a US long code must be an approved registration of the account (10DLC): unregistered and pending are refused', async () => {
    const body = { channel: 'sms', to: '+14155550111', sender: '+14155559001' };
    expect(refusedOnSender(await send(a, body))).toMatch(/not an approved sms sender of this account for US.*long code sender must be registered in US/);
    const id = await register(a, { sender: '+14155559001', channel: 'sms', country: 'US' }, false);
    refusedOnSender(await send(a, body));
    await reviewSender(server.engage, id, { approve: true }, { actor: 'test-operator' });
    await server.caughtUp(['senders']);
    // approved, but a number: it must also be proven the account's
    expect(refusedOnSender(await send(a, body))).toMatch(/not a verified sms sender of this account for US.*prove the number/);
    const code = await requestCode(server, a.key, id, '+14155559001');
    expect((await server.call('POST', `/v1/senders/${id}/verify`, { key: a.key, body: { code } })).status).toBe(200);
    expect((await send(a, body)).status).toBe(202);
    // the approval and the proof are a's alone
    refusedOnSender(await send(b, body));
  });

  it('an alphanumeric ID is refused where carriers do not deliver it, and needs its registration where the country requires one', async () => {
    expect(refusedOnSender(await send(a, { channel: 'sms', to: '+14155550112', sender: 'ACME' }))).toMatch(/alphanumeric sender IDs are not supported in US/);
    // Singapore: alphanumeric IDs must be registered with the SGNIC registry
    const sg = { channel: 'sms', to: '+6591234567', sender: 'ACME' };
    refusedOnSender(await send(a, sg));
    await register(a, { sender: 'ACME', channel: 'sms', country: 'SG' });
    expect((await send(a, sg)).status).toBe(202);
    // carriers treat IDs without case: the registration of ACME covers Acme
    expect((await send(a, { ...sg, sender: 'Acme' })).status).toBe(202);
  });

  it('a sender that needs no registration in the recipient country goes through unregistered', async () => {
    expect((await send(a, { channel: 'sms', to: '+447400123456', sender: '+447400123999' })).status).toBe(202);
    expect((await send(a, { channel: 'sms', to: '+447400123456', sender: 'ACME' })).status).toBe(202);
    // and a message without a sender goes out from the service's default sender, unchecked
    expect((await send(a, { channel: 'sms', to: '+14155550113' })).status).toBe(202);
  });

  it('a bulk refuses the items whose sender is not allowed and accepts the rest', async () => {
    const res = await server.call('POST', '/v1/messages/bulk', {
      key: b.key,
      body: { messages: [
        { channel: 'sms', to: '+14155550114', message: 'x', sender: '+14155559002' },
        { channel: 'sms', to: '+447400123457', message: 'x', sender: '+447400123998' },
        { channel: 'sms', to: '+14155550115', message: 'x', sender: '+14155559002' },
      ] },
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ accepted: 1, failed: 2 });
    expect(res.body.results.map((r: { error?: string }) => r.error ?? 'ok')).toEqual(['validation_error', 'ok', 'validation_error']);
    expect(res.body.results[0].message).toMatch(/^sender: \+14155559002 is not an approved sms sender/);
  });
});

describe('voice and whatsapp', () => {
  it('a whatsapp sender must be approved after review (its proof)', async () => {
    refusedOnSender(await send(a, { channel: 'whatsapp', to: '+14155550116', sender: '+14155559003' }));
    await register(a, { sender: '+14155559003', channel: 'whatsapp', country: 'US' });
    expect((await send(a, { channel: 'whatsapp', to: '+14155550116', sender: '+14155559003' })).status).toBe(202);
    // an approval for whatsapp is not one for voice
    expect(refusedOnSender(await send(a, { channel: 'voice', to: '+14155550116', sender: '+14155559003' }))).toMatch(/not a verified voice sender/);
  });

  it('a voice sender (caller ID) is approved at once, yet refused until the number is proven with the code sent to it', async () => {
    const number = '+14155559005';
    const id = await register(a, { sender: number, channel: 'voice', country: 'US' });
    const body = { channel: 'voice', to: '+14155550117', sender: number };
    expect(refusedOnSender(await send(a, body))).toMatch(/not a verified voice sender of this account.*POST \/v1\/senders\/:id\/verification/);
    const code = await requestCode(server, a.key, id, number, 'voice');
    expect((await server.call('POST', `/v1/senders/${id}/verify`, { key: a.key, body: { code } })).status).toBe(200);
    await server.caughtUp(['senders']);
    expect((await send(a, body)).status).toBe(202);
    refusedOnSender(await send(b, body));
  });
});

describe('campaigns', () => {
  it("check the template's sender where it does not depend on the recipient: an unapproved whatsapp sender is a 400", async () => {
    const list = await server.call('POST', '/v1/lists', { key: b.key, body: { name: 'VIPs' } });
    expect(list.status).toBe(201);
    const body = { name: 'Launch', audience: { list_id: list.body.id }, channel: 'whatsapp', message: 'We are live', sender: '+14155559004' };
    const refused = await server.call('POST', '/v1/campaigns', { key: b.key, body });
    expect(refusedOnSender(refused)).toMatch(/not a verified whatsapp sender/);
    await register(b, { sender: '+14155559004', channel: 'whatsapp', country: 'US' });
    expect((await server.call('POST', '/v1/campaigns', { key: b.key, body })).status).toBe(201);
  });
});
