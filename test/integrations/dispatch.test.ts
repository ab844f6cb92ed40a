// Integrations carry their account's messages: with one for a channel, the dispatcher sends that
// channel through the account's own provider account (Twilio, SendGrid, WhatsApp Cloud, its own
// SMTP server), spoken to over that provider's wire protocol (local doubles); refusals and bad
// credentials become outcomes like any provider's; other accounts keep the service's providers, and
// removing the integration brings the account back to them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { startProviderApis, type ProviderApis } from '../support/provider-apis.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.ts';
import { until } from '../support/waits.ts';

const TWILIO = { sid: `AC${'1f'.repeat(16)}`, token: 'e'.repeat(32) };
const SENDGRID_KEY = `SG.${'k'.repeat(22)}.${'s'.repeat(43)}`;
const WHATSAPP_TOKEN = `EAAG${'x'.repeat(40)}`;

let apis: ProviderApis;
let smtp: SmtpReceiver;
let server: TestServer;
let a: TestAccount;
let b: TestAccount;

beforeAll(async () => {
  apis = await startProviderApis({ twilio: TWILIO, sendgridKey: SENDGRID_KEY, whatsappToken: WHATSAPP_TOKEN });
  smtp = await startSmtpReceiver();
  server = await startTestServer({
    TWILIO_API_BASE: apis.url,
    SENDGRID_API_BASE: apis.url,
    WHATSAPP_API_BASE: apis.url,
    DISPATCH_RETRY_BASE_MS: '50',
    DISPATCH_MAX_ATTEMPTS: '2',
    EMAIL_FROM: 'Platform <no-reply@platform.test>',
    // the account's own SMTP server is the local receiver, on loopback (README "Integrations")
    OUTBOUND_ALLOW_PRIVATE: 'true',
  });
  [a, b] = await Promise.all([server.newAccount('Acme'), server.newAccount('Beta')]);
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
  await apis?.close();
});

const integrate = async (account: TestAccount, body: Record<string, unknown>) => {
  const res = await server.call('POST', '/v1/integrations', { key: account.key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await server.caughtUp(['integrations']);
  return res.body.id as string;
};
const send = async (account: TestAccount, body: Record<string, unknown>) => {
  const res = await server.call('POST', '/v1/messages/send', { key: account.key, body: { transactional: true, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
};
const settled = (account: TestAccount, id: string) =>
  until(async () => (await server.call('GET', `/v1/messages/${id}`, { key: account.key })).body, (m) => m.status !== 'queued', 30_000, 100);

describe('an account with integrations', () => {
  beforeAll(async () => {
    await integrate(a, { provider: 'twilio', credentials: { account_sid: TWILIO.sid, auth_token: TWILIO.token, from: '+447400123000' } });
    await integrate(a, { provider: 'sendgrid', credentials: { api_key: SENDGRID_KEY } });
    await integrate(a, { provider: 'whatsapp_cloud', credentials: { phone_number_id: '106540352242922', access_token: WHATSAPP_TOKEN } });
  });

  it("sends sms through its Twilio account, from the integration's number", async () => {
    const id = await send(a, { channel: 'sms', to: '+447400123001', message: 'Your code is 1234' });
    const m = await settled(a, id);
    expect(m).toMatchObject({ status: 'sent', provider: 'twilio', provider_message_id: expect.stringMatching(/^SM[0-9a-f]{32}$/) });
    const req = apis.taken.find((t) => t.provider === 'twilio' && t.form?.get('To') === '+447400123001')!;
    expect(req.path).toBe(`/2010-04-01/Accounts/${TWILIO.sid}/Messages.json`);
    expect(Object.fromEntries(req.form!)).toEqual({ To: '+447400123001', From: '+447400123000', Body: 'Your code is 1234' });
  });

  it("fails a message Twilio refuses, with Twilio's words and code", async () => {
    apis.refuse.add('+447400123002');
    const m = await settled(a, await send(a, { channel: 'sms', to: '+447400123002', message: 'x' }));
    expect(m.status).toBe('failed');
    expect(m.reason).toContain("The 'To' number +447400123002 is not a valid phone number");
  });

  it('sends email through SendGrid with our message id for its event webhook', async () => {
    const id = await send(a, { channel: 'email', to: 'reader@inbox.test', subject: 'Receipt', message: 'Thanks', htmlmessage: '<p>Thanks</p>', from_name: 'Acme' });
    const m = await settled(a, id);
    expect(m).toMatchObject({ status: 'sent', provider: 'sendgrid' });
    const req = apis.taken.find((t) => t.provider === 'sendgrid' && t.json.custom_args?.engage_message_id === id)!;
    expect(req.json).toMatchObject({
      personalizations: [{ to: [{ email: 'reader@inbox.test' }] }],
      from: { email: 'no-reply@platform.test', name: 'Acme' },
      subject: 'Receipt',
      content: [{ type: 'text/plain', value: 'Thanks' }, { type: 'text/html', value: expect.stringContaining('Thanks') }],
    });
  });

  it('sends whatsapp through its WhatsApp Business number', async () => {
    const id = await send(a, { channel: 'whatsapp', to: '+14155550177', message: 'Your table is ready' });
    const m = await settled(a, id);
    expect(m).toMatchObject({ status: 'sent', provider: 'whatsapp_cloud', provider_message_id: expect.stringMatching(/^wamid\./) });
    const req = apis.taken.find((t) => t.provider === 'whatsapp' && t.json.to === '14155550177')!;
    expect(req.path).toBe('/v21.0/106540352242922/messages');
    expect(req.json).toMatchObject({ messaging_product: 'whatsapp', type: 'text', text: { body: 'Your table is ready' } });
  });

  it('another account keeps the service providers (the sandbox here)', async () => {
    const m = await settled(b, await send(b, { channel: 'sms', to: '+447400123003', message: 'x' }));
    expect(m.provider).toBe('sandbox');
    expect(apis.taken.some((t) => t.form?.get('To') === '+447400123003')).toBe(false);
  });
});

describe('its own SMTP server, bad credentials and removal', () => {
  it("relays the account's email over its SMTP server", async () => {
    const id = await integrate(b, { provider: 'smtp', credentials: { url: smtp.url, from: 'hello@beta.test' } });
    // b sent through the sandbox a moment ago: the dispatcher takes up the new integration within the
    // few seconds it remembers an account's integrations
    const msg = await until(
      async () => {
        const id = await send(b, { channel: 'email', to: 'reader@inbox.test', subject: 'Hi', message: 'From Beta' });
        return { id, provider: (await settled(b, id)).provider };
      },
      (r) => r.provider === 'smtp',
      30_000,
      1000,
    ).then((r) => r.id);
    const mail = await until(() => smtp.find(msg), (m) => m !== undefined);
    expect(mail!.mail.from?.value[0].address).toBe('hello@beta.test');
    await server.call('DELETE', `/v1/integrations/${id}`, { key: b.key });
    // within the few seconds the dispatcher remembers an account's integrations, it is back on the sandbox
    await until(async () => (await settled(b, await send(b, { channel: 'email', to: 'reader@inbox.test', message: 'x' }))).provider, (p) => p === 'sandbox', 30_000, 1000);
  });

  it('credentials the provider refuses (401) are retried, then fail as provider_unavailable', async () => {
    const c = await server.newAccount('Gamma');
    await integrate(c, { provider: 'twilio', credentials: { account_sid: TWILIO.sid, auth_token: '0'.repeat(32), from: '+447400123000' } });
    const m = await settled(c, await send(c, { channel: 'sms', to: '+447400123004', message: 'x' }));
    expect(m.status).toBe('failed');
    expect(m.reason).toMatch(/^provider_unavailable: .*401/);
    expect(m.attempts).toBe(2);
  });
});
