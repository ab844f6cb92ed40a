// Proof of ownership of phone-number senders (issue 25 finding 2; README "Senders and sender rules",
// "Proving a number"): a number routes an account's inbound replies, and serves as its voice caller
// ID, only once the account has entered back a code sent to that number through the service's own
// carrier — here the sandbox, whose handsets the tests read as the phone's owner would. The attack of
// the finding, the code's limits, its invisibility to the account, channel-matched routing and one
// account per number.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendersProjection } from '../../projections/senders.ts';
import { reviewSender } from '../../src/senders/service.ts';
import type { TestAccount } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { type ProviderApis, startProviderApis } from '../support/provider-apis.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';
import { codeIn, handset, nextCodeAt, registerVerifiedSender, requestCode } from '../support/senders.ts';
import { eventually } from '../support/waits.ts';
import { postCarrier, postWhatsApp, SECRETS, whatsappPayload } from '../webhooks-inbound/helpers.ts';

const SERVICE_NUMBER = '+447400000001';
// the tests move time on (a code's expiry, the resend limit) without waiting for it
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
let server: TestServer;
let a: TestAccount;
let b: TestAccount;
let bHook: Receiver;
let apis: ProviderApis;
let sid = 0;
const TWILIO = { sid: `AC${'0b'.repeat(16)}`, token: 'e'.repeat(32) };

beforeAll(async () => {
  apis = await startProviderApis({ twilio: TWILIO, sendgridKey: 'SG.unused', whatsappToken: 'unused' });
  server = await startTestServer({ ...SECRETS, WEBHOOK_ALLOW_PRIVATE: 'true', DEFAULT_SMS_SENDER: SERVICE_NUMBER, TWILIO_API_BASE: apis.url }, undefined, clock);
  [a, b] = await Promise.all([server.newAccount('Acme'), server.newAccount('Mallory')]);
  const help = await server.call('PUT', '/v1/account/inbound', { key: a.key, body: { help_text: 'Acme support: call 555-0100.' } });
  expect(help.status).toBe(200);
  bHook = await startReceiver();
  const ep = await server.call('POST', '/v1/webhook-endpoints', { key: b.key, body: { url: bHook.url } });
  expect(ep.status, JSON.stringify(ep.body)).toBe(201);
});
afterAll(async () => {
  await bHook?.close();
  await server?.close();
  await apis?.close();
});

const inboundSms = (from: string, to: string, body: string) =>
  postCarrier(server, { MessageSid: `SM${String(++sid).padStart(32, '0')}`, AccountSid: 'AC123', From: from, To: to, Body: body, NumMedia: '0' });
const send = (account: TestAccount, body: Record<string, unknown>) => server.call('POST', '/v1/messages/send', { key: account.key, body: { message: 'Hello from us', ...body } });
const conversations = async (account: TestAccount) => (await server.call('GET', '/v1/conversations?limit=500', { key: account.key })).body.data as any[];
const history = async (account: TestAccount) => (await server.call('GET', '/v1/messages/history?limit=500', { key: account.key })).body.data as any[];
const sendersOf = async (account: TestAccount) => (await server.call('GET', '/v1/senders?limit=500', { key: account.key })).body.data as any[];
const suppressed = async (account: TestAccount, phone: string) =>
  ((await server.call('GET', `/v1/account/unsubscribes/api/list?address=${encodeURIComponent(phone)}`, { key: account.key })).body.data as any[]).length > 0;
async function register(account: TestAccount, body: Record<string, unknown>) {
  const res = await server.call('POST', '/v1/senders', { key: account.key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
const refusedOnSender = (res: { status: number; body: any }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(['sender']);
  return res.body.issues[0].message as string;
};
async function conversationAt(account: TestAccount, phone: string) {
  return eventually(`a conversation with ${phone}`, async () => {
    const contacts = (await server.call('GET', '/v1/contacts?limit=500', { key: account.key })).body.data as any[];
    const contact = contacts.find((c) => c.phone === phone);
    return contact ? (await conversations(account)).find((c) => c.contact_id === contact.id) : undefined;
  });
}
const thread = async (account: TestAccount, id: string) => (await server.call('GET', `/v1/conversations/${id}/messages`, { key: account.key })).body.data as any[];

describe('the attack of the finding', () => {
  it("an unproven registration routes nothing: B's voice sender of a number A writes from takes none of its replies", async () => {
    const number = '+447700900444';
    const customer = '+447400555001';
    expect((await send(a, { channel: 'sms', to: customer, sender: number })).status).toBe(202);
    const hijack = await register(b, { sender: number, channel: 'voice', country: 'US' });
    expect(hijack).toMatchObject({ status: 'approved', verification: { status: 'unverified' } });
    await server.caughtUp(['senders', 'reply_routes']);
    expect((await inboundSms(customer, number, 'Is my order on its way?')).status).toBe(200);
    await conversationAt(a, customer);
    await server.caughtUp(['conversations']);
    expect(await conversations(b)).toEqual([]);
  });

  it("B registers A's proven number as a voice sender: B gets none of A's replies, its STOP is A's, HELP is answered for A only, and B cannot call or text from it", async () => {
    const number = '+447700900555';
    const customer = '+447400555002';
    await registerVerifiedSender(server, a.key, { sender: number, channel: 'sms', country: 'GB' });
    expect((await send(a, { channel: 'sms', to: customer, sender: number })).status).toBe(202);

    const hijack = await register(b, { sender: number, channel: 'voice', country: 'US' });
    expect(hijack.verification.status).toBe('unverified');
    // not as caller ID, not as an sms sender (even where the country needs no registration)
    expect(refusedOnSender(await send(b, { channel: 'voice', to: customer, sender: number }))).toMatch(/not a verified voice sender of this account/);
    expect(refusedOnSender(await send(b, { channel: 'sms', to: customer, sender: number }))).toMatch(/proven by another account/);
    await server.caughtUp(['senders', 'reply_routes']);

    await inboundSms(customer, number, 'Where is my parcel?');
    const conversation = await conversationAt(a, customer);
    await inboundSms(customer, number, 'STOP');
    await eventually('STOP applied at A', async () => ((await suppressed(a, customer)) ? true : undefined));
    await inboundSms(customer, number, 'HELP');
    const answer = await eventually('the HELP answer at A', async () => (await thread(a, conversation.id)).find((e) => e.automatic === 'help' && e.body !== null));
    expect(answer).toMatchObject({ from: number, to: customer, body: 'Acme support: call 555-0100.' });
    await server.caughtUp(['conversations', 'suppressions', 'messages']);
    expect(await conversations(b)).toEqual([]);
    expect(await suppressed(b, customer)).toBe(false);
    expect(await history(b)).toEqual([]);
  });
});

describe('proving a number', () => {
  const number = '+447700900666';
  let senderId: string;

  it('B cannot prove a number without its code: a wrong code counts down 5 attempts, then the code is spent (409)', async () => {
    senderId = (await register(b, { sender: number, channel: 'voice', country: 'US' })).id;
    const code = await requestCode(server, b.key, senderId, number, 'voice');
    // the code went out by voice call from the service's own number, spoken digit by digit
    expect(handset(server, number).at(-1)).toMatch(/^Your engage verification code is \d \d \d \d \d \d\./);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let left = 4; left >= 0; left--) {
      const res = await server.call('POST', `/v1/senders/${senderId}/verify`, { key: b.key, body: { code: wrong } });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toMatchObject({ error: 'validation_error', attempts_left: left, issues: [{ path: 'code', message: expect.any(String) }] });
    }
    const spent = await server.call('POST', `/v1/senders/${senderId}/verify`, { key: b.key, body: { code } });
    expect(spent.status).toBe(409);
    expect(spent.body).toMatchObject({ error: 'conflict', message: expect.stringMatching(/new code/) });
    const listed = (await sendersOf(b)).find((s) => s.id === senderId);
    expect(listed.verification).toMatchObject({ status: 'locked', attempts_left: 0 });
  });

  it('a new code is rate-limited (429 with retry_after); an expired code is refused (409); the right one in time proves it', async () => {
    const soon = await server.call('POST', `/v1/senders/${senderId}/verification`, { key: b.key, body: { method: 'sms' } });
    expect(soon.status).toBe(429);
    expect(soon.body).toMatchObject({ error: 'rate_limit_exceeded', limit: 1, window: '1 minute', retry_after: expect.any(Number) });
    offsetMs += 61_000;
    const expiring = await requestCode(server, b.key, senderId, number, 'sms');
    expect(handset(server, number).at(-1)).toMatch(/^Your engage verification code is \d{6}\./);
    offsetMs += 11 * 60_000;
    const late = await server.call('POST', `/v1/senders/${senderId}/verify`, { key: b.key, body: { code: expiring } });
    expect(late.status).toBe(409);
    expect(late.body.message).toMatch(/expired/);
    const code = await requestCode(server, b.key, senderId, number, 'sms');
    const ok = await server.call('POST', `/v1/senders/${senderId}/verify`, { key: b.key, body: { code } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ id: senderId, verification: { status: 'verified', method: 'sms', verified_at: expect.any(String) } });
    const again = await server.call('POST', `/v1/senders/${senderId}/verify`, { key: b.key, body: { code } });
    expect(again.status).toBe(409);
  });

  it('the account never sees a code: not in its messages, its senders, its webhooks or the sender’s events', async () => {
    const codes = handset(server, number).map(codeIn).filter((c): c is string => c !== undefined);
    expect(codes.length).toBeGreaterThanOrEqual(3);
    await server.caughtUp(['messages', 'senders', 'webhook_outbox']);
    const seen = JSON.stringify([await history(b), await sendersOf(b), bHook.hits.map((h) => h.body)]);
    const { rows } = await server.engage.pool.query<{ data: string }>(`SELECT data::text FROM es_events WHERE stream_id = $1`, [`sender-${senderId}`]);
    expect(rows.length).toBeGreaterThan(5);
    for (const code of codes) {
      expect(seen).not.toContain(code);
      for (const r of rows) expect(r.data).not.toContain(code);
    }
    expect(await history(b)).toEqual([]);
    // the code went from the service's own number, never through the account's pipeline
    const messages = await server.engage.pool.query(`SELECT 1 FROM messages WHERE account_id = $1`, [b.accountId]);
    expect(messages.rows).toEqual([]);
  });

  it("the code goes through the service's own provider, never the account's integration (which would show it to the account)", async () => {
    const integration = await server.call('POST', '/v1/integrations', {
      key: b.key,
      body: { provider: 'twilio', name: 'own numbers', credentials: { account_sid: TWILIO.sid, auth_token: TWILIO.token, from: '+14155550100' } },
    });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
    await server.caughtUp(['integrations']);
    // b's own sms go through its Twilio account
    expect((await send(b, { channel: 'sms', to: '+447400555010', transactional: true })).status).toBe(202);
    await eventually("b's message at its Twilio account", async () => apis.taken.find((t) => t.form?.get('To') === '+447400555010'));
    const number = '+447700900999';
    const id = (await register(b, { sender: number, channel: 'sms', country: 'GB' })).id;
    const code = await requestCode(server, b.key, id, number, 'sms');
    expect(apis.taken.filter((t) => t.form?.get('To') === number)).toEqual([]);
    expect(JSON.stringify(apis.taken.map((t) => t.form?.toString()))).not.toContain(code);
    await server.call('DELETE', `/v1/integrations/${integration.body.id}`, { key: b.key });
  });

  it('bad input is a 400 naming the field; another account’s sender is 404; what cannot receive a code is 409', async () => {
    const cases: [string, unknown, string][] = [
      ['verify', { code: '12ab56' }, 'code'],
      ['verify', { code: '1234567' }, 'code'],
      ['verify', {}, 'code'],
      ['verification', { method: 'fax' }, 'method'],
      ['verification', { method: 'sms', extra: 1 }, ''],
    ];
    for (const [what, body, path] of cases) {
      const res = await server.call('POST', `/v1/senders/${senderId}/${what}`, { key: b.key, body });
      expect(res.status, `${what} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.error).toBe('validation_error');
      if (path) expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    for (const id of [senderId, 'snd_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'nope']) {
      expect((await server.call('POST', `/v1/senders/${id}/verification`, { key: a.key, body: { method: 'sms' } })).status, id).toBe(404);
      expect((await server.call('POST', `/v1/senders/${id}/verify`, { key: a.key, body: { code: '123456' } })).status, id).toBe(404);
    }
    const brand = await register(a, { sender: 'ACME', channel: 'sms', country: 'GB' });
    expect(brand.verification.status).toBe('not_applicable');
    const res = await server.call('POST', `/v1/senders/${brand.id}/verification`, { key: a.key, body: { method: 'sms' } });
    expect(res.status).toBe(409);
    // the service's own number is nobody's to prove: its code would come back to the service
    const ours = await register(b, { sender: SERVICE_NUMBER, channel: 'sms', country: 'GB' });
    const refused = await server.call('POST', `/v1/senders/${ours.id}/verification`, { key: b.key, body: { method: 'sms' } });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/service/);
  });
});

describe('routing by proven senders', () => {
  it('matches the channel: a number proven as a voice sender routes no sms; a whatsapp sender approved after review routes whatsapp', async () => {
    const number = '+447700900777';
    const customer = '+447400555003';
    await registerVerifiedSender(server, a.key, { sender: number, channel: 'voice', country: 'GB' }, 'voice');
    await server.caughtUp(['senders']);
    await inboundSms(customer, number, 'Hi there');
    await server.caughtUp(['contacts', 'conversations']);
    const contacts = (await server.call('GET', '/v1/contacts?limit=500', { key: a.key })).body.data as any[];
    expect(contacts.some((c) => c.phone === customer)).toBe(false);

    const wa = await register(a, { sender: number, channel: 'whatsapp', country: 'GB' });
    expect(wa.verification.status).toBe('unverified');
    await reviewSender(server.engage, wa.id, { approve: true }, { actor: 'test-operator' });
    await server.caughtUp(['senders']);
    expect((await sendersOf(a)).find((s) => s.id === wa.id).verification).toMatchObject({ status: 'verified', method: 'operator_review' });
    const res = await postWhatsApp(server, JSON.stringify(whatsappPayload({
      metadata: { display_phone_number: number.slice(1), phone_number_id: '106540352242999' },
      messages: [{ from: customer.slice(1), id: 'wamid.routing000000000000000001', timestamp: '1764000000', type: 'text', text: { body: 'On whatsapp now' } }],
    })));
    expect(res.status).toBe(200);
    const conversation = await conversationAt(a, customer);
    expect(conversation.channel).toBe('whatsapp');
  });

  it('one number, one account: the newest proof holds it; the previous holder’s sender shows it lost, and may not send from it', async () => {
    const number = '+447700900888';
    const customer = '+447400555004';
    const first = await registerVerifiedSender(server, a.key, { sender: number, channel: 'sms', country: 'GB' });
    // the number changes hands: its new owner proves it
    await registerVerifiedSender(server, b.key, { sender: number, channel: 'sms', country: 'GB' });
    await server.caughtUp(['senders']);
    expect((await sendersOf(a)).find((s) => s.id === first.id).verification).toMatchObject({ status: 'lost', verified_at: null });
    expect(refusedOnSender(await send(a, { channel: 'sms', to: customer, sender: number }))).toMatch(/proven by another account/);
    await inboundSms(customer, number, 'Hello new owner');
    await conversationAt(b, customer);
    await server.caughtUp(['conversations']);
    const contactsOfA = (await server.call('GET', '/v1/contacts?limit=500', { key: a.key })).body.data as any[];
    expect(contactsOfA.some((c) => c.phone === customer)).toBe(false);
  });
});

describe('the senders read model', () => {
  it('rebuilds from its events into the same rows, verification states included', async () => {
    await server.caughtUp(['senders']);
    const snapshot = async () => (await server.engage.pool.query<{ r: string }>('SELECT row_to_json(t)::text AS r FROM senders t ORDER BY id')).rows.map((x) => x.r);
    const before = await snapshot();
    for (const status of ['verified', 'lost', 'not_applicable', 'unverified']) expect(before.join('\n'), status).toContain(`"verification":"${status}"`);
    await rebuildAndWait(server, sendersProjection);
    expect(await snapshot()).toEqual(before);
  });
});
