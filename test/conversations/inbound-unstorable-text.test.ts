// Text Postgres cannot store (issue 25, findings 1 and 16): a NUL or an unpaired UTF-16 surrogate
// in an inbound email, carrier or WhatsApp message is cleaned where it comes in — NUL dropped, a lone
// surrogate replaced by U+FFFD — so the message is threaded with the cleaned text, the conversations
// read model keeps running for every account, and the sender is never asked to retry forever.
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.ts';
import { until } from '../support/waits.ts';
import { postCarrier, postWhatsApp, SECRETS, whatsappPayload } from '../webhooks-inbound/helpers.ts';

const DOMAIN = 'inbound.acme.test';
const OUR_SMS_NUMBER = '+447400123999';
const OUR_WHATSAPP_NUMBER = '+15550783881';
let server: TestServer;
let dns: TestDnsServer;
let a: TestAccount;
let b: TestAccount;

beforeAll(async () => {
  // nothing published: every sender domain here has no SPF, DKIM or DMARC record
  dns = await startDnsServer();
  server = await startTestServer({
    ...SECRETS, INBOUND_SMTP_PORT: '0', INBOUND_SMTP_HOST: '127.0.0.1', INBOUND_EMAIL_DOMAIN: DOMAIN, DNS_SERVERS: dns.address,
    DEFAULT_SMS_SENDER: OUR_SMS_NUMBER, DEFAULT_WHATSAPP_SENDER: OUR_WHATSAPP_NUMBER,
  });
  [a, b] = await Promise.all([server.newAccount('Acme'), server.newAccount('Other')]);
});

afterAll(async () => {
  await server?.close();
  await dns?.close();
});

const replyAddress = (account: TestAccount) => `${account.accountId.toLowerCase()}@${DOMAIN}`;

function sendRaw(to: string, raw: string) {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.workers.inboundSmtp!.port, secure: false, ignoreTLS: true });
  return transport.sendMail({ envelope: { from: 'sender@example.com', to: [to] }, raw }).finally(() => transport.close());
}

const conversationsHealth = async () => ((await server.call('GET', '/health')).body.projections as any[]).find((p) => p.name === 'conversations');

/**
 * The inbound entry `match` finds in the account's conversations on `channel`, once it is there —
 * or, as soon as the conversations read model has failed, the failure (so a test fails at once).
 */
async function threadedEntry(account: TestAccount, channel: string, match: (entry: any) => boolean) {
  const seen = await until(
    async () => {
      const health = await conversationsHealth();
      if (health?.status === 'failed') return { health };
      for (const c of (await server.call('GET', `/v1/conversations?channel=${channel}&limit=500`, { key: account.key })).body.data as any[]) {
        const entry = ((await server.call('GET', `/v1/conversations/${c.id}/messages`, { key: account.key })).body.data as any[]).find(match);
        if (entry) return { health, entry };
      }
      return { health };
    },
    (s) => s.health?.status === 'failed' || s.entry !== undefined,
  );
  expect(seen.health, JSON.stringify(seen.health)).toMatchObject({ status: 'running' });
  expect(seen.entry, 'the entry in the thread').toBeDefined();
  return seen.entry;
}

/** After the poison, the read model still runs and another account's inbound mail is threaded too. */
async function expectOthersStillThreaded(tag: string) {
  await sendRaw(replyAddress(b), [
    `From: someone.else@example.org`, `To: ${replyAddress(b)}`, `Subject: after ${tag}`, `Message-ID: <after-${tag}@example.org>`, '', `still here after ${tag}`, '',
  ].join('\r\n'));
  const entry = await threadedEntry(b, 'email', (e) => e.body === `still here after ${tag}`);
  expect(entry).toMatchObject({ subject: `after ${tag}` });
  expect(await conversationsHealth()).toMatchObject({ status: 'running' });
}

describe('an inbound email with NUL and unpaired surrogates in every field', () => {
  it('is accepted (250) and threaded with the text cleaned; the read model keeps running for every account', async () => {
    const loneHigh = Buffer.from([0xd8, 0x00, 0x00, 0x41]).toString('base64'); // U+D800 then "A", as UTF-16BE
    const raw = [
      'From: =?UTF-8?Q?Jane=00Roe?= <jane.nul@example.com>',
      `To: ${replyAddress(a)}`,
      `Subject: =?UTF-8?Q?Hello=00World?= =?UTF-16BE?B?${loneHigh}?=`,
      'Message-ID: <id\u0000one@example.com>',
      'In-Reply-To: <prev\u0000@example.com>',
      'References: <r1@example.com> <r\u00002@example.com>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/alternative; boundary=b',
      '',
      '--b',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'hi=00there',
      '--b',
      'Content-Type: text/html; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      '<p>hi=00there</p>',
      '--b--',
      '',
    ].join('\r\n');
    const sent = await sendRaw(replyAddress(a), raw);
    expect(sent.response).toMatch(/^250/);
    const entry = await threadedEntry(a, 'email', (e) => e.from === 'jane.nul@example.com');
    expect(entry).toMatchObject({
      body: 'hithere', subject: 'HelloWorld\ufffdA', html: '<p>hithere</p>', email_message_id: 'idone@example.com', in_reply_to: 'prev@example.com',
    });
    await expectOthersStillThreaded('email');
  });

  it('the same cleaned Message-ID delivered again is stored once', async () => {
    const raw = [`From: jane.nul@example.com`, `To: ${replyAddress(a)}`, 'Subject: again', 'Message-ID: <id\u0000one@example.com>', '', 'again', ''].join('\r\n');
    expect((await sendRaw(replyAddress(a), raw)).response).toMatch(/^250/);
    await server.caughtUp(['conversations']);
    const [c] = (await server.call('GET', '/v1/conversations?channel=email', { key: a.key })).body.data as any[];
    const thread = (await server.call('GET', `/v1/conversations/${c.id}/messages`, { key: a.key })).body.data as any[];
    expect(thread.filter((e) => e.email_message_id === 'idone@example.com')).toHaveLength(1);
  });
});

describe('an inbound sms with NUL and an unpaired surrogate', () => {
  it('in its text only: answered 200 and threaded with the text cleaned; the read model keeps running', async () => {
    const customer = '+447400123556';
    const sent = await server.call('POST', '/v1/messages/send', { key: a.key, body: { channel: 'sms', to: customer, message: 'Your order shipped' } });
    expect(sent.status).toBe(202);
    await server.caughtUp(['reply_routes']);
    const res = await postCarrier(server, { MessageSid: 'SMbody00000000000000000000000001', AccountSid: 'AC1', From: customer, To: OUR_SMS_NUMBER, Body: 'hi\u0000there' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await threadedEntry(a, 'sms', (e) => e.from === customer)).toMatchObject({ body: 'hithere', provider: 'carrier' });
    await expectOthersStillThreaded('sms body');
  });

  it('in its MessageSid too: answered 200 and threaded with the text cleaned; the read model keeps running', async () => {
    const customer = '+447400123555';
    const sent = await server.call('POST', '/v1/messages/send', { key: a.key, body: { channel: 'sms', to: customer, message: 'Your order shipped' } });
    expect(sent.status).toBe(202);
    await server.caughtUp(['reply_routes']);
    const res = await postCarrier(server, { MessageSid: 'SM\u0000nul00000000000000000000000001', AccountSid: 'AC1', From: customer, To: OUR_SMS_NUMBER, Body: 'hi\u0000there \ud800!' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const entry = await threadedEntry(a, 'sms', (e) => e.from === customer);
    expect(entry).toMatchObject({ body: 'hithere \ufffd!', provider: 'carrier' });
    await expectOthersStillThreaded('sms');
  });
});

describe('an inbound whatsapp message with NUL and unpaired surrogates', () => {
  it('is answered 200 and threaded with the text cleaned (text, and an interactive title); the read model keeps running', async () => {
    const customer = '+447400123606';
    const sent = await server.call('POST', '/v1/messages/send', { key: a.key, body: { channel: 'whatsapp', to: customer, message: 'Your table is ready' } });
    expect(sent.status).toBe(202);
    await server.caughtUp(['reply_routes']);
    const res = await postWhatsApp(server, JSON.stringify(whatsappPayload({
      messages: [
        { from: customer.slice(1), id: 'wamid.\u0000one', timestamp: '1764000000', type: 'text', text: { body: 'table\u0000 for \udc00two' } },
        { from: customer.slice(1), id: 'wamid.two', timestamp: '1764000001', type: 'interactive', interactive: { button_reply: { title: 'Ye\u0000s \ud83d' } } },
      ],
    })));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await threadedEntry(a, 'whatsapp', (e) => e.body === 'table for \ufffdtwo')).toMatchObject({ provider: 'whatsapp' });
    expect(await threadedEntry(a, 'whatsapp', (e) => e.body === 'Yes \ufffd')).toMatchObject({ provider: 'whatsapp' });
    await expectOthersStillThreaded('whatsapp');
  });
});
