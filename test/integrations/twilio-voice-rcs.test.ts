// Voice and RCS through an account's own Twilio account (README "Voice and RCS: Twilio"): a voice
// message is a call (Calls.json) that reads the text out with TwiML <Say>, an rcs message goes
// through the integration's Messaging Service (Messages.json, no From), both spoken to over Twilio's
// wire protocol (a local double). Their callbacks come back to /v1/webhooks/carrier?integration=<id>
// signed with that account's auth token (README "Provider callbacks"): answered and completed calls
// are delivered (once), busy and no-answer ones failed; a wrong token is refused; one account's
// integration cannot speak of another account's messages.
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carrierSignature } from '../../src/http/routes/providers/carrier.ts';
import type { TestAccount } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { timeline, types } from '../support/messages.ts';
import { startProviderApis, type ProviderApis, type TakenRequest } from '../support/provider-apis.ts';
import { eventually, until } from '../support/waits.ts';

const TWILIO_A = { sid: `AC${'a1'.repeat(16)}`, token: 'a'.repeat(32) };
const TWILIO_B = { sid: `AC${'b2'.repeat(16)}`, token: 'b'.repeat(32) };
const SERVICE_A = `MG${'c3'.repeat(16)}`;
const NUMBER_A = '+14155550100';
const NUMBER_B = '+14155550200';
// with a path prefix: the callback URL keeps it, and the signature is checked over it
const PUBLIC = 'https://hooks.example.test/engage';

let apis: ProviderApis;
let server: TestServer;
let a: TestAccount;
let b: TestAccount;
const integrations: Record<string, string> = {};
let n = 0;
const phone = () => `+1628555${String(2000 + ++n).slice(-4)}`;

beforeAll(async () => {
  apis = await startProviderApis({ twilio: [TWILIO_A, TWILIO_B], sendgridKey: `SG.${'k'.repeat(22)}.${'s'.repeat(43)}`, whatsappToken: 'unused' });
  server = await startTestServer({ TWILIO_API_BASE: apis.url, PUBLIC_BASE_URL: PUBLIC, DISPATCH_RETRY_BASE_MS: '50', DISPATCH_MAX_ATTEMPTS: '2' });
  [a, b] = await Promise.all([server.newAccount('Acme'), server.newAccount('Beta')]);
  integrations.voiceA = await integrate(a, { provider: 'twilio_voice', credentials: { account_sid: TWILIO_A.sid, auth_token: TWILIO_A.token, from: NUMBER_A } });
  integrations.rcsA = await integrate(a, { provider: 'twilio_rcs', credentials: { account_sid: TWILIO_A.sid, auth_token: TWILIO_A.token, messaging_service_sid: SERVICE_A } });
  integrations.smsA = await integrate(a, { provider: 'twilio', credentials: { account_sid: TWILIO_A.sid, auth_token: TWILIO_A.token, from: NUMBER_A } });
  integrations.voiceB = await integrate(b, { provider: 'twilio_voice', credentials: { account_sid: TWILIO_B.sid, auth_token: TWILIO_B.token, from: NUMBER_B } });
});
afterAll(async () => {
  await server?.close();
  await apis?.close();
});

async function integrate(account: TestAccount, body: Record<string, unknown>): Promise<string> {
  const res = await server.call('POST', '/v1/integrations', { key: account.key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await server.caughtUp(['integrations']);
  return res.body.id as string;
}

async function send(account: TestAccount, body: Record<string, unknown>): Promise<string> {
  const res = await server.call('POST', '/v1/messages/send', { key: account.key, body: { transactional: true, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
}

const message = async (account: TestAccount, id: string) => (await server.call('GET', `/v1/messages/${id}`, { key: account.key })).body;
const settled = (account: TestAccount, id: string) => until(() => message(account, id), (m) => m.status !== undefined && m.status !== 'queued', 30_000, 100);
async function statusBecomes(account: TestAccount, id: string, status: string) {
  const m = await until(() => message(account, id), (m) => m.status === status, 30_000, 100);
  expect(m.status, JSON.stringify(m)).toBe(status);
  return m;
}

/** What the double took for one recipient. */
const takenFor = (to: string): TakenRequest => {
  const req = apis.taken.find((t) => t.form?.get('To') === to);
  expect(req, `a request to Twilio for ${to}`).toBeDefined();
  return req!;
};

/** A sent call or message through an integration, with the request Twilio took for it. */
async function sentThrough(account: TestAccount, body: { channel: string; to: string; message: string }) {
  const id = await send(account, body);
  const m = await settled(account, id);
  expect(m.status, JSON.stringify(m)).toBe('sent');
  return { id, sid: m.provider_message_id as string, request: takenFor(body.to) };
}

/**
 * Posts a status callback to the URL Twilio was given (its path under PUBLIC_BASE_URL), signed as
 * Twilio signs: over that URL and the parameters, with `token` (the account's auth token).
 */
function callback(callbackUrl: string, params: Record<string, string>, opts: { token: string; header?: string; signature?: string }) {
  const map = new Map(Object.entries(params).map(([k, v]) => [k, [v]]));
  const signature = opts.signature ?? carrierSignature(opts.token, callbackUrl, map);
  return server.call('POST', callbackUrl.slice(PUBLIC.length), {
    raw: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', [opts.header ?? 'x-twilio-signature']: signature },
  });
}

const callbackUrlOf = (integrationId: string) => `${PUBLIC}/v1/webhooks/carrier?integration=${integrationId}`;

/** The parameters of a call status callback, as Twilio sends them. */
const callStatus = (account: string, callSid: string, status: string, to: string, from: string, extra: Record<string, string> = {}) => ({
  AccountSid: account,
  ApiVersion: '2010-04-01',
  CallSid: callSid,
  CallStatus: status,
  CallbackSource: 'call-progress-events',
  Direction: 'outbound-api',
  From: from,
  SequenceNumber: '0',
  To: to,
  ...extra,
});

describe('creating Twilio voice and RCS integrations', () => {
  it('answers with hints that mask the account and service SIDs; GET never shows the token', async () => {
    const list = await server.call('GET', '/v1/integrations', { key: a.key });
    expect(list.status).toBe(200);
    const byId = new Map((list.body.data as any[]).map((i) => [i.id, i]));
    expect(byId.get(integrations.voiceA)).toMatchObject({ provider: 'twilio_voice', channel: 'voice', credentials: { hint: 'account AC…a1' } });
    expect(byId.get(integrations.rcsA)).toMatchObject({ provider: 'twilio_rcs', channel: 'rcs', credentials: { hint: 'account AC…a1, messaging service MG…c3' } });
    const text = JSON.stringify(list.body);
    for (const secret of [TWILIO_A.token, TWILIO_A.sid, SERVICE_A]) expect(text).not.toContain(secret);
  });

  it('refuses bad credentials with a 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ provider: 'twilio_rcs', credentials: { account_sid: TWILIO_A.sid, auth_token: TWILIO_A.token } }, 'credentials.messaging_service_sid'],
      [{ provider: 'twilio_rcs', credentials: { account_sid: TWILIO_A.sid, auth_token: TWILIO_A.token, messaging_service_sid: 'MG123' } }, 'credentials.messaging_service_sid'],
      [{ provider: 'twilio_voice', credentials: { account_sid: TWILIO_A.sid, auth_token: TWILIO_A.token, from: '0800 123' } }, 'credentials.from'],
      [{ provider: 'twilio_voice', credentials: { account_sid: TWILIO_A.sid, auth_token: 'secret' } }, 'credentials.auth_token'],
    ];
    for (const [body, path] of cases) {
      const res = await server.call('POST', '/v1/integrations', { key: b.key, body });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
      expect(JSON.stringify(res.body)).not.toContain(TWILIO_A.token);
    }
  });
});

describe('voice through twilio_voice', () => {
  it('places a call from the integration number that says the text, escaped, with status callbacks naming the integration', async () => {
    const to = phone();
    const text = 'Tom & "Jerry" <3';
    const { id, sid, request } = await sentThrough(a, { channel: 'voice', to, message: text });
    expect(sid).toMatch(/^CA[0-9a-f]{32}$/);
    expect((await message(a, id)).provider).toBe('twilio_voice');
    expect(request.path).toBe(`/2010-04-01/Accounts/${TWILIO_A.sid}/Calls.json`);
    expect(request.authorization).toBe(`Basic ${Buffer.from(`${TWILIO_A.sid}:${TWILIO_A.token}`).toString('base64')}`);
    const form = request.form!;
    expect(form.get('To')).toBe(to);
    expect(form.get('From')).toBe(NUMBER_A);
    expect(form.get('Twiml')).toBe('<Response><Say>Tom &amp; &quot;Jerry&quot; &lt;3</Say></Response>');
    // what Twilio reads out: the text as written
    expect(new XMLParser().parse(form.get('Twiml')!)).toEqual({ Response: { Say: text } });
    expect(form.get('StatusCallback')).toBe(callbackUrlOf(integrations.voiceA));
    expect(form.getAll('StatusCallbackEvent')).toEqual(['answered', 'completed']);
    expect(form.get('StatusCallbackMethod')).toBe('POST');
  });

  it("fails a call Twilio refuses, with Twilio's words", async () => {
    const to = phone();
    apis.refuse.add(to);
    const m = await settled(a, await send(a, { channel: 'voice', to, message: 'x' }));
    expect(m.status).toBe('failed');
    expect(m.reason).toContain(`Invalid 'To' Phone Number: ${to}`);
  });

  it('answered is delivered; ringing before and completed after change nothing more', async () => {
    const to = phone();
    const { id, sid } = await sentThrough(a, { channel: 'voice', to, message: 'Your code is 1234' });
    const url = callbackUrlOf(integrations.voiceA);
    for (const status of ['initiated', 'ringing']) {
      const res = await callback(url, callStatus(TWILIO_A.sid, sid, status, to, NUMBER_A), { token: TWILIO_A.token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    expect((await message(a, id)).status).toBe('sent');
    const answered = await callback(url, callStatus(TWILIO_A.sid, sid, 'in-progress', to, NUMBER_A), { token: TWILIO_A.token });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(answered.body).toEqual({ received: 1 });
    await statusBecomes(a, id, 'delivered');
    const completed = await callback(url, callStatus(TWILIO_A.sid, sid, 'completed', to, NUMBER_A, { CallDuration: '7', SequenceNumber: '1' }), { token: TWILIO_A.token });
    expect(completed.status).toBe(200);
    const events = await timeline(server, a.key, id);
    expect(types(events).filter((t) => t === 'MessageDelivered')).toHaveLength(1);
    expect(events.find((e) => e.type === 'MessageDelivered')).toMatchObject({ actor: 'provider:twilio_voice', details: { provider: 'twilio_voice', provider_data: { call_sid: sid, call_status: 'in-progress', integration: integrations.voiceA } } });
  });

  it('busy and no-answer fail the message with that reason', async () => {
    const url = callbackUrlOf(integrations.voiceA);
    for (const status of ['busy', 'no-answer']) {
      const to = phone();
      const { id, sid } = await sentThrough(a, { channel: 'voice', to, message: 'x' });
      const res = await callback(url, callStatus(TWILIO_A.sid, sid, status, to, NUMBER_A), { token: TWILIO_A.token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await statusBecomes(a, id, 'failed')).toMatchObject({ status: 'failed', reason: status });
    }
  });
});

describe("callbacks through an integration's URL", () => {
  it("are checked with that integration's auth token alone: a wrong token, or the carrier secret, is 401 and changes nothing", async () => {
    const to = phone();
    const { id, sid } = await sentThrough(a, { channel: 'voice', to, message: 'x' });
    const url = callbackUrlOf(integrations.voiceA);
    const params = callStatus(TWILIO_A.sid, sid, 'completed', to, NUMBER_A);
    const before = await timeline(server, a.key, id);
    const { rows } = await server.engage.pool.query<{ value: string }>("SELECT value FROM service_secrets WHERE name = 'webhook_carrier'");
    for (const token of [TWILIO_B.token, 'f'.repeat(32), rows[0]!.value]) {
      const res = await callback(url, params, { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'unauthorized', message: expect.stringContaining('X-Twilio-Signature does not match this request') });
      expect(res.body.message).toContain('auth token of the Twilio integration');
    }
    // signed over the URL without ?integration=: another URL
    const unsigned = await callback(url, params, { token: TWILIO_A.token, signature: carrierSignature(TWILIO_A.token, `${PUBLIC}/v1/webhooks/carrier`, new Map(Object.entries(params).map(([k, v]) => [k, [v]]))) });
    expect(unsigned.status).toBe(401);
    expect(await timeline(server, a.key, id)).toEqual(before);
    // the right token in our own header name works as well
    const right = await callback(url, params, { token: TWILIO_A.token, header: 'x-carrier-signature' });
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    await statusBecomes(a, id, 'delivered');
  });

  it('an unknown, removed or non-Twilio integration in the URL is 401 with a clear message', async () => {
    const other = await integrate(b, { provider: 'sendgrid', credentials: { api_key: `SG.${'k'.repeat(22)}.${'s'.repeat(43)}` } });
    const removed = await integrate(b, { provider: 'twilio', credentials: { account_sid: TWILIO_B.sid, auth_token: TWILIO_B.token } });
    expect((await server.call('DELETE', `/v1/integrations/${removed}`, { key: b.key })).status).toBe(200);
    await server.caughtUp(['integrations']);
    const params = callStatus(TWILIO_B.sid, `CA${'0'.repeat(32)}`, 'completed', '+14155550111', NUMBER_B);
    for (const integration of ['int_01ARZ3NDEKTSV4RRFFQ69G5FAV', removed, other, 'nonsense']) {
      const res = await callback(callbackUrlOf(integration), params, { token: TWILIO_B.token });
      expect(res.status, integration).toBe(401);
      expect(res.body).toEqual({ error: 'unauthorized', message: expect.stringContaining('names no live Twilio integration') });
    }
  });

  it("through account A's integration, a report naming account B's call changes nothing; through B's it is recorded", async () => {
    const to = phone();
    const { id, sid, request } = await sentThrough(b, { channel: 'voice', to, message: 'x' });
    expect(request.path).toBe(`/2010-04-01/Accounts/${TWILIO_B.sid}/Calls.json`);
    expect(request.form!.get('StatusCallback')).toBe(callbackUrlOf(integrations.voiceB));
    const before = await timeline(server, b.key, id);
    const viaA = await callback(callbackUrlOf(integrations.voiceA), callStatus(TWILIO_A.sid, sid, 'busy', to, NUMBER_B), { token: TWILIO_A.token });
    expect(viaA.status, JSON.stringify(viaA.body)).toBe(200);
    expect(viaA.body).toEqual({ received: 1 });
    expect(await timeline(server, b.key, id)).toEqual(before);
    expect((await message(b, id)).status).toBe('sent');
    const viaB = await callback(callbackUrlOf(integrations.voiceB), callStatus(TWILIO_B.sid, sid, 'completed', to, NUMBER_B), { token: TWILIO_B.token });
    expect(viaB.status).toBe(200);
    await statusBecomes(b, id, 'delivered');
  });

  it('an inbound message on the URL belongs to that account', async () => {
    const from = phone();
    const res = await callback(callbackUrlOf(integrations.smsA), { AccountSid: TWILIO_A.sid, MessageSid: `SM${'7'.repeat(32)}`, From: from, To: NUMBER_A, Body: 'Is my order on its way?', NumMedia: '0' }, { token: TWILIO_A.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await eventually('the conversation in account A', async () => {
      const contacts = (await server.call('GET', '/v1/contacts?limit=500', { key: a.key })).body.data as any[];
      const contact = contacts.find((c) => c.phone === from);
      if (!contact) return undefined;
      return ((await server.call('GET', '/v1/conversations?channel=sms', { key: a.key })).body.data as any[]).find((c) => c.contact_id === contact.id);
    });
    const bContacts = (await server.call('GET', '/v1/contacts?limit=500', { key: b.key })).body.data as any[];
    expect(bContacts.some((c) => c.phone === from)).toBe(false);
  });
});

describe('rcs through twilio_rcs, sms through twilio', () => {
  it('sends rcs through the Messaging Service, with no From, and takes its delivered callback', async () => {
    const to = phone();
    const { id, sid, request } = await sentThrough(a, { channel: 'rcs', to, message: 'Your parcel is out for delivery' });
    expect(sid).toMatch(/^SM[0-9a-f]{32}$/);
    expect((await message(a, id)).provider).toBe('twilio_rcs');
    expect(request.path).toBe(`/2010-04-01/Accounts/${TWILIO_A.sid}/Messages.json`);
    expect(Object.fromEntries(request.form!)).toEqual({
      To: to, MessagingServiceSid: SERVICE_A, Body: 'Your parcel is out for delivery', StatusCallback: callbackUrlOf(integrations.rcsA),
    });
    const params = { AccountSid: TWILIO_A.sid, ApiVersion: '2010-04-01', From: 'rcs:acme_agent', MessageSid: sid, MessageStatus: 'read', MessagingServiceSid: SERVICE_A, To: to };
    const res = await callback(callbackUrlOf(integrations.rcsA), params, { token: TWILIO_A.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await statusBecomes(a, id, 'delivered');
  });

  it("names the sms integration in an sms message's StatusCallback too", async () => {
    const to = phone();
    const { request } = await sentThrough(a, { channel: 'sms', to, message: 'hi' });
    expect(Object.fromEntries(request.form!)).toEqual({ To: to, From: NUMBER_A, Body: 'hi', StatusCallback: callbackUrlOf(integrations.smsA) });
  });
});
