// Inbound sms and whatsapp (issue 13): a contact's reply reaches the account holding the number as a
// proven sender, else the one that last wrote to it from that number, is threaded into one conversation per contact and channel (the contact created
// when unknown), emits message.received to endpoints and the account's inbound webhook URL, and
// STOP / START / HELP do what README "Inbound messages and conversations" says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERSONAL_DATA_RULES } from '../../src/personal-data/rules.ts';
import { PersonalDataStore } from '../../src/personal-data/store.ts';
import { acceptedData, newMessageStream } from '../../src/messages/service.ts';
import { validateSend } from '../../src/messages/validation.ts';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { registerVerifiedSender } from '../support/senders.ts';
import { independentServiceSignature, type Receiver, startReceiver } from '../support/receivers.ts';
import { eventually, until } from '../support/waits.ts';
import { postCarrier, postWhatsApp, SECRETS, whatsappPayload } from '../webhooks-inbound/helpers.ts';

const OUR_SMS_NUMBER = '+447400123111';
const OUR_WHATSAPP_NUMBER = '+15550783881';
const server = testServerForSuite({ ...SECRETS, WEBHOOK_ALLOW_PRIVATE: 'true', DEFAULT_WHATSAPP_SENDER: OUR_WHATSAPP_NUMBER });

let a: TestAccount;
let b: TestAccount;
let endpointHook: Receiver;
let inboundHook: Receiver;
let accountSecret: string;
let sid = 0;

const inboundSms = (from: string, body: string, messageSid = `SM${String(++sid).padStart(32, '0')}`) =>
  postCarrier(server, { MessageSid: messageSid, AccountSid: 'AC123', From: from, To: OUR_SMS_NUMBER, Body: body, NumMedia: '0' });

async function sendSms(account: TestAccount, to: string, extra: Record<string, unknown> = {}) {
  const res = await server.call('POST', '/v1/messages/send', { key: account.key, body: { channel: 'sms', to, message: 'Your order shipped', sender: OUR_SMS_NUMBER, ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
}

const conversationsOf = async (account: TestAccount, query = '') => (await server.call('GET', `/v1/conversations${query}`, { key: account.key })).body;
const threadOf = async (account: TestAccount, id: string) => (await server.call('GET', `/v1/conversations/${id}/messages`, { key: account.key })).body.data as any[];

async function conversationWith(account: TestAccount, phone: string, channel = 'sms') {
  return eventually(`the ${channel} conversation with ${phone}`, async () => {
    const contacts = (await server.call('GET', `/v1/contacts?limit=500`, { key: account.key })).body.data as any[];
    const contact = contacts.find((c) => c.phone === phone);
    if (!contact) return undefined;
    const list = (await conversationsOf(account, `?channel=${channel}`)).data as any[];
    return list.find((c) => c.contact_id === contact.id);
  });
}

const finalStatus = (account: TestAccount, id: string) =>
  until(() => server.call('GET', `/v1/messages/${id}`, { key: account.key }), (r) => ['delivered', 'failed'].includes(r.body?.status)).then((r) => r.body);

beforeAll(async () => {
  [a, b] = await Promise.all([server.newAccount('Acme'), server.newAccount('Other')]);
  endpointHook = await startReceiver();
  inboundHook = await startReceiver();
  const ep = await server.call('POST', '/v1/webhook-endpoints', { key: a.key, body: { url: endpointHook.url, events: ['message.received', 'contact.unsubscribed'] } });
  expect(ep.status).toBe(201);
  const set = await server.call('PUT', '/v1/account/inbound', { key: a.key, body: { webhook_url: inboundHook.url, help_text: 'Acme support: call 555-0100. Reply STOP to opt out.' } });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  expect(set.body).toMatchObject({ webhook_url: inboundHook.url, help_text: 'Acme support: call 555-0100. Reply STOP to opt out.' });
  accountSecret = (await server.call('GET', '/v1/account/webhook-secret', { key: a.key })).body.secret;
});

afterAll(async () => {
  await endpointHook?.close();
  await inboundHook?.close();
});

describe('an inbound sms', () => {
  const customer = '+447400123101';
  let conversationId: string;

  it('is threaded into the conversation of the account that last wrote to the number, with the contact created', async () => {
    await sendSms(a, customer);
    await server.caughtUp(['reply_routes']);
    const res = await inboundSms(customer, 'Where is my parcel?', 'SM_first_0000000000000000000000001');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ received: 1 });
    const conversation = await conversationWith(a, customer);
    conversationId = conversation.id;
    expect(conversation).toMatchObject({ channel: 'sms', status: 'open', read: false, unread_count: 1, assignee: null });
    expect(conversation.id).toMatch(/^conv_/);
    const thread = await threadOf(a, conversation.id);
    expect(thread).toHaveLength(1);
    expect(thread[0]).toMatchObject({ direction: 'inbound', from: customer, to: OUR_SMS_NUMBER, body: 'Where is my parcel?', provider: 'carrier' });
    expect(thread[0].id).toMatch(/^inb_/);
  });

  it("is stored with the contact's number and words sealed under the contact's key", async () => {
    const { rows } = await server.engage.pool.query<{ data: string }>(
      `SELECT data::text FROM es_events WHERE stream_id = $1 AND type = 'InboundMessageReceived'`,
      [`conversation-${conversationId}`],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].data).not.toContain('Where is my parcel?');
    expect(rows[0].data).not.toContain(customer);
    expect(JSON.parse(rows[0].data)).toMatchObject({ id: conversationId, to: OUR_SMS_NUMBER, personal_data: { key: expect.stringMatching(/^dk_/) } });
  });

  it('emits message.received to the endpoints and to the inbound webhook URL, signed with the account secret', async () => {
    const toEndpoint = await eventually('message.received at the endpoint', async () => endpointHook.where('x-service-event', 'message.received')[0]);
    expect(toEndpoint.json).toMatchObject({ type: 'message.received', account_id: a.accountId, data: { conversation_id: conversationId, channel: 'sms', from: customer, body: 'Where is my parcel?' } });
    const toInbound = await eventually('message.received at the inbound URL', async () => inboundHook.hits[0]);
    expect(toInbound.json).toMatchObject({ type: 'message.received', data: { conversation_id: conversationId, from: customer, to: OUR_SMS_NUMBER, body: 'Where is my parcel?' } });
    const ts = toInbound.headers['x-service-timestamp'] as string;
    expect(toInbound.headers['x-service-signature']).toBe(independentServiceSignature(accountSecret, ts, toInbound.body));
    expect(toInbound.json.id).toBe(toEndpoint.json.id);
  });

  it("a provider's repeat of the callback adds nothing", async () => {
    const res = await inboundSms(customer, 'Where is my parcel?', 'SM_first_0000000000000000000000001');
    expect(res.status).toBe(200);
    await server.caughtUp(['conversations', 'webhook_outbox']);
    expect(await threadOf(a, conversationId)).toHaveLength(1);
    expect(inboundHook.hits).toHaveLength(1);
  });

  it('a second message joins the same conversation, and another account sees none of it', async () => {
    await inboundSms(customer, 'Hello?');
    await eventually('the second message', async () => ((await threadOf(a, conversationId)).length === 2 ? true : undefined));
    expect((await conversationsOf(a)).data.filter((c: any) => c.id === conversationId)[0]).toMatchObject({ unread_count: 2, message_count: 2 });
    expect((await conversationsOf(b)).data).toEqual([]);
    expect((await server.call('GET', `/v1/conversations/${conversationId}/messages`, { key: b.key })).status).toBe(404);
    expect((await server.call('POST', `/v1/conversations/${conversationId}/reply`, { key: b.key, body: { message: 'hi' } })).status).toBe(404);
  });

  it('a reply goes back from the number the contact wrote to, in the thread', async () => {
    const res = await server.call('POST', `/v1/conversations/${conversationId}/reply`, { key: a.key, body: { message: 'It arrives tomorrow.' } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ channel: 'sms', to: customer, conversation_id: conversationId });
    const message = (await server.call('GET', `/v1/messages/${res.body.id}`, { key: a.key })).body;
    expect(message).toMatchObject({ channel: 'sms', to: customer, sender: OUR_SMS_NUMBER, message: 'It arrives tomorrow.' });
    const thread = await threadOf(a, conversationId);
    expect(thread.map((e) => [e.direction, e.body])).toEqual([
      ['inbound', 'Where is my parcel?'],
      ['inbound', 'Hello?'],
      ['outbound', 'It arrives tomorrow.'],
    ]);
    expect(thread[2]).toMatchObject({ id: res.body.id, from: OUR_SMS_NUMBER, to: customer });
    // answering reads the thread
    expect((await conversationsOf(a)).data.find((c: any) => c.id === conversationId)).toMatchObject({ read: true, unread_count: 0 });
    expect((await finalStatus(a, res.body.id)).status).toBe('delivered');
  });

  it('email-only fields in an sms reply are a 400 naming them', async () => {
    const res = await server.call('POST', `/v1/conversations/${conversationId}/reply`, { key: a.key, body: { message: 'x', subject: 'no' } });
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([{ path: 'subject', message: expect.stringContaining('email') }]);
  });

  it('a message from a number no account wrote to from that number is acknowledged and dropped', async () => {
    const res = await inboundSms('+447400123999', 'Who is this?');
    expect(res.status).toBe(200);
    await server.caughtUp(['contacts', 'conversations']);
    for (const account of [a, b]) {
      const contacts = (await server.call('GET', '/v1/contacts?limit=500', { key: account.key })).body.data as any[];
      expect(contacts.some((c) => c.phone === '+447400123999')).toBe(false);
    }
  });
});

describe('reply routing of messages accepted before MessageAccepted kept its address hash in clear', () => {
  it('still finds the account: the route opens the old event and hashes its recipient', async () => {
    const customer = '+447400123404';
    // a store that seals as the code before did: no address_hash beside the sealed recipient
    const older = new PersonalDataStore((server.engage.store as PersonalDataStore).inner, server.engage.pool, {
      ...PERSONAL_DATA_RULES,
      MessageAccepted: { ...PERSONAL_DATA_RULES.MessageAccepted!, clearHashOf: undefined },
    });
    const send = validateSend({ channel: 'sms', to: customer, message: 'Old message', sender: OUR_SMS_NUMBER }, new Date());
    if (!send.ok) throw new Error('invalid send');
    const data = acceptedData(a.accountId, send.value, new Date());
    await older.appendMany([newMessageStream(data, { actor: 'test' })]);
    const { rows } = await server.engage.pool.query<{ data: string }>(`SELECT data::text FROM es_events WHERE stream_id = $1`, [`message-${data.id}`]);
    expect(JSON.parse(rows[0].data).address_hash).toBeUndefined();
    expect(rows[0].data).not.toContain(customer);
    await server.caughtUp(['reply_routes']);
    await inboundSms(customer, 'Replying to an old one');
    const conversation = await conversationWith(a, customer);
    expect((await threadOf(a, conversation.id))[0]).toMatchObject({ body: 'Replying to an old one' });
  });

  it('a message accepted now keeps the keyed hash of its recipient in clear, and the recipient sealed', async () => {
    const id = await sendSms(a, '+447400123505');
    // (the accept itself: the stream has more events by now, and rows come in no set order without ORDER BY)
    const { rows } = await server.engage.pool.query<{ data: string }>(`SELECT data::text FROM es_events WHERE stream_id = $1 AND type = 'MessageAccepted'`, [`message-${id}`]);
    expect(rows).toHaveLength(1);
    const data = JSON.parse(rows[0].data);
    expect(data.address_hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rows[0].data).not.toContain('+447400123505');
  });
});

describe('a number an account registered as its sender and proved its own', () => {
  it("routes replies to that account first, even when another account wrote to the contact last", async () => {
    const registeredNumber = '+447400123707';
    const customer = '+447400123808';
    // account a is the last to write to the customer from that number (before b proved it), but b holds it
    await sendSms(a, customer, { sender: registeredNumber });
    await registerVerifiedSender(server, b.key, { sender: registeredNumber, channel: 'sms', country: 'GB' });
    await server.caughtUp(['reply_routes', 'senders']);
    const res = await postCarrier(server, { MessageSid: 'SM_registered_000000000000000000001', From: customer, To: registeredNumber, Body: 'Who registered you?' });
    expect(res.status).toBe(200);
    await eventually('the conversation at b', async () => ((await conversationsOf(b)).data?.length > 0 ? true : undefined), 20_000, 250);
    await server.caughtUp(['conversations']);
    const atA = (await conversationsOf(a)).data as any[];
    const contactsOfA = (await server.call('GET', '/v1/contacts?limit=500', { key: a.key })).body.data as any[];
    const customerAtA = contactsOfA.find((c) => c.phone === customer);
    expect(atA.filter((c) => c.contact_id === customerAtA?.id)).toEqual([]);
  });
});

describe('STOP, START and HELP', () => {
  const customer = '+447400123202';
  let conversationId: string;

  beforeAll(async () => {
    await sendSms(a, customer);
    await server.caughtUp(['reply_routes']);
  });

  it('STOP (any case, any synonym) suppresses the number with reason stop and emits contact.unsubscribed', async () => {
    const res = await inboundSms(customer, '  unsubscribe ');
    expect(res.status).toBe(200);
    conversationId = (await conversationWith(a, customer)).id;
    expect((await threadOf(a, conversationId))[0]).toMatchObject({ body: '  unsubscribe ', keyword: 'stop' });
    const event = await eventually('contact.unsubscribed', async () => endpointHook.where('x-service-event', 'contact.unsubscribed').find((h) => h.json.data.address === customer));
    expect(event.json.data).toMatchObject({ reason: 'stop' });
    // even a transactional message is not sent to a number that said STOP
    const blocked = await finalStatus(a, await sendSms(a, customer, { transactional: true }));
    expect(blocked).toMatchObject({ status: 'failed', reason: 'suppressed' });
  });

  it('START lifts it', async () => {
    await inboundSms(customer, 'Start');
    await eventually('START in the thread', async () => ((await threadOf(a, conversationId)).some((e) => e.keyword === 'start') ? true : undefined));
    await server.caughtUp(['suppressions']);
    expect((await finalStatus(a, await sendSms(a, customer))).status).toBe('delivered');
  });

  it("HELP is answered with the account's help text, from the number written to, and shows in the thread", async () => {
    await inboundSms(customer, 'help');
    // (a callback does not wait for the read models: the answer's content shows once history has the message)
    const answer = await eventually('the answer to HELP', async () => (await threadOf(a, conversationId)).find((e) => e.direction === 'outbound' && e.automatic === 'help' && e.body !== null));
    expect(answer).toMatchObject({ body: 'Acme support: call 555-0100. Reply STOP to opt out.', from: OUR_SMS_NUMBER, to: customer });
    expect((await finalStatus(a, answer.id)).status).toBe('delivered');
  });

  it('HELP from a number that said STOP is still answered, and nothing else reaches it', async () => {
    const stopped = '+447400123606';
    await sendSms(a, stopped);
    await server.caughtUp(['reply_routes']);
    await inboundSms(stopped, 'STOP');
    const id = (await conversationWith(a, stopped)).id;
    await server.caughtUp(['suppressions']);
    await inboundSms(stopped, 'HELP');
    const answer = await eventually('the answer to HELP', async () => (await threadOf(a, id)).find((e) => e.automatic === 'help' && e.body !== null));
    expect((await finalStatus(a, answer.id)).status).toBe('delivered');
    expect(await finalStatus(a, await sendSms(a, stopped, { transactional: true }))).toMatchObject({ status: 'failed', reason: 'suppressed' });
  });

  it("a send may not use the HELP answer's reserved category", async () => {
    const res = await server.call('POST', '/v1/messages/send', { key: a.key, body: { channel: 'sms', to: customer, message: 'x', category: 'keyword_reply' } });
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([{ path: 'category', message: expect.stringMatching(/reserved/) }]);
  });

  it('a sentence that contains a keyword is just a message', async () => {
    await inboundSms(customer, 'please stop sending me these');
    const entry = await eventually('the message', async () => (await threadOf(a, conversationId)).find((e) => e.body === 'please stop sending me these'));
    expect(entry.keyword).toBeUndefined();
    await server.caughtUp(['suppressions']);
    expect((await finalStatus(a, await sendSms(a, customer, { transactional: true }))).status).toBe('delivered');
  });
});

describe('an inbound whatsapp message', () => {
  it("reaches the account that wrote from the channel's default number, and a reply goes back on whatsapp", async () => {
    const customer = '+14155550303';
    const sent = await server.call('POST', '/v1/messages/send', { key: a.key, body: { channel: 'whatsapp', to: customer, message: 'Your table is ready' } });
    expect(sent.status).toBe(202);
    await server.caughtUp(['reply_routes']);
    const res = await postWhatsApp(server, JSON.stringify(whatsappPayload({
      contacts: [{ profile: { name: 'Kerry' }, wa_id: '14155550303' }],
      messages: [{ from: '14155550303', id: 'wamid.HBgLMTQxNTU1NTAzMDMVAgASGBQzQTdGMDQ4', timestamp: '1764000000', type: 'text', text: { body: 'Can we come at 8?' } }],
    })));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ received: 1 });
    const conversation = await conversationWith(a, customer, 'whatsapp');
    const [entry] = await threadOf(a, conversation.id);
    expect(entry).toMatchObject({ direction: 'inbound', from: customer, to: OUR_WHATSAPP_NUMBER, body: 'Can we come at 8?', provider: 'whatsapp', created_at: '2025-11-24T16:00:00.000Z' });
    const reply = await server.call('POST', `/v1/conversations/${conversation.id}/reply`, { key: a.key, body: { message: 'See you at 8' } });
    expect(reply.status).toBe(202);
    expect((await server.call('GET', `/v1/messages/${reply.body.id}`, { key: a.key })).body).toMatchObject({ channel: 'whatsapp', to: customer, sender: OUR_WHATSAPP_NUMBER });
  });
});
