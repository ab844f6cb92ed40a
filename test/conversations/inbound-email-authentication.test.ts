// Inbound email is authenticated (issue 25, finding 6): SPF, DKIM and DMARC are checked against the
// sender's DNS (here a real DNS server on loopback, through DNS_SERVERS), the results are kept with the
// message and shown in the thread, and mail that fails DMARC under a reject or quarantine policy is
// refused (550) — no contact, no conversation. A DNS that does not answer costs a bounded wait and
// the message is threaded with temperror.
import { generateKeyPairSync } from 'node:crypto';
import dgram from 'node:dgram';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { eventually } from '../support/waits.ts';

const DOMAIN = 'inbound.acme.test';
const SELECTOR = 'mail2025';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const DKIM_PRIVATE_KEY = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const DKIM_PUBLIC_KEY = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

let server: TestServer;
let dns: TestDnsServer;
let a: TestAccount;

beforeAll(async () => {
  dns = await startDnsServer();
  // a bank that signs nothing and sends from nowhere we know: every From of it here is a spoof
  dns.set('bank.test', 'TXT', ['v=spf1 -all']);
  dns.set('_dmarc.bank.test', 'TXT', ['v=DMARC1; p=reject']);
  dns.set('shop.test', 'TXT', ['v=spf1 -all']);
  dns.set('_dmarc.shop.test', 'TXT', ['v=DMARC1; p=quarantine']);
  // a domain that signs its mail (and whose SPF does not list us: DKIM alone carries DMARC)
  dns.set('good.test', 'TXT', ['v=spf1 -all']);
  dns.set('_dmarc.good.test', 'TXT', ['v=DMARC1; p=reject']);
  dns.set(`${SELECTOR}._domainkey.good.test`, 'TXT', [`v=DKIM1; k=rsa; p=${DKIM_PUBLIC_KEY}`]);
  // nodmarc.test publishes nothing at all
  server = await startTestServer({ INBOUND_SMTP_PORT: '0', INBOUND_SMTP_HOST: '127.0.0.1', INBOUND_EMAIL_DOMAIN: DOMAIN, DNS_SERVERS: dns.address });
  a = await server.newAccount('Acme');
});

afterAll(async () => {
  await server?.close();
  await dns?.close();
});

const replyAddress = (account: TestAccount) => `${account.accountId.toLowerCase()}@${DOMAIN}`;

function mailTo(target: TestServer, message: Record<string, unknown>) {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: target.workers.inboundSmtp!.port, secure: false, ignoreTLS: true, name: 'mx.sender.test' });
  return transport.sendMail(message).finally(() => transport.close());
}

const contactsOf = async (target: TestServer, account: TestAccount) => (await target.call('GET', '/v1/contacts?limit=500', { key: account.key })).body.data as any[];

async function entryFrom(target: TestServer, account: TestAccount, email: string) {
  return eventually(`the thread of ${email}`, async () => {
    const contact = (await contactsOf(target, account)).find((c) => c.email === email);
    if (!contact) return undefined;
    const conversation = ((await target.call('GET', '/v1/conversations?channel=email', { key: account.key })).body.data as any[]).find((c) => c.contact_id === contact.id);
    if (!conversation) return undefined;
    return ((await target.call('GET', `/v1/conversations/${conversation.id}/messages`, { key: account.key })).body.data as any[])[0];
  });
}

describe('inbound email authentication', () => {
  it('a spoofed From of a domain with p=reject is refused (550): no contact, no conversation', async () => {
    await expect(
      mailTo(server, { envelope: { from: 'ceo@bank.test', to: [replyAddress(a)] }, from: 'CEO <ceo@bank.test>', to: replyAddress(a), subject: 'Wire the money', messageId: '<spoof1@bank.test>', text: 'Urgent.' }),
    ).rejects.toMatchObject({ responseCode: 550 });
    // the spoof of a p=quarantine domain likewise (there is no spam folder to put it in)
    await expect(
      mailTo(server, { envelope: { from: 'bounce@elsewhere.test', to: [replyAddress(a)] }, from: 'orders@shop.test', to: replyAddress(a), subject: 'Your order', messageId: '<spoof2@shop.test>', text: 'Click.' }),
    ).rejects.toMatchObject({ responseCode: 550 });
    await server.caughtUp(['conversations', 'contacts']);
    expect((await contactsOf(server, a)).map((c) => c.email)).not.toEqual(expect.arrayContaining(['ceo@bank.test']));
    expect((await contactsOf(server, a)).map((c) => c.email)).not.toEqual(expect.arrayContaining(['orders@shop.test']));
    expect((await server.call('GET', '/v1/conversations', { key: a.key })).body.data).toEqual([]);
  });

  it('a DKIM-signed message from a domain with p=reject is threaded, with dmarc: pass shown', async () => {
    const sent = await mailTo(server, {
      envelope: { from: 'support@good.test', to: [replyAddress(a)] },
      from: 'Good Support <support@good.test>', to: replyAddress(a), subject: 'Signed', messageId: '<signed1@good.test>', text: 'This one is really from us.',
      dkim: { domainName: 'good.test', keySelector: SELECTOR, privateKey: DKIM_PRIVATE_KEY },
    });
    expect(sent.response).toMatch(/^250/);
    const entry = await entryFrom(server, a, 'support@good.test');
    expect(entry).toMatchObject({ body: 'This one is really from us.', authentication: { spf: 'fail', dkim: 'pass', dmarc: 'pass', dmarc_policy: 'reject' } });
  });

  it('a message signed, then changed on the way, is refused like a spoof', async () => {
    const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
    const signed = await transport.sendMail({
      from: 'support@good.test', to: replyAddress(a), subject: 'Signed', messageId: '<tampered@good.test>', text: 'Pay invoice 1.',
      dkim: { domainName: 'good.test', keySelector: SELECTOR, privateKey: DKIM_PRIVATE_KEY },
    });
    const tampered = (signed.message as Buffer).toString('utf8').replace('Pay invoice 1.', 'Pay invoice 2.');
    await expect(mailTo(server, { envelope: { from: 'support@good.test', to: [replyAddress(a)] }, raw: tampered })).rejects.toMatchObject({ responseCode: 550 });
  });

  it('mail from a domain with no DMARC record is threaded with its results shown (dmarc: none)', async () => {
    const sent = await mailTo(server, { envelope: { from: 'jane@nodmarc.test', to: [replyAddress(a)] }, from: 'jane@nodmarc.test', to: replyAddress(a), subject: 'Hi', messageId: '<plain1@nodmarc.test>', text: 'Plain mail.' });
    expect(sent.response).toMatch(/^250/);
    const entry = await entryFrom(server, a, 'jane@nodmarc.test');
    expect(entry).toMatchObject({ body: 'Plain mail.', authentication: { spf: 'none', dkim: 'none', dmarc: 'none', dmarc_policy: null } });
  });
});

describe('a DNS server that does not answer', () => {
  let silent: dgram.Socket;
  let other: TestServer;
  let b: TestAccount;

  beforeAll(async () => {
    // takes every question and answers none
    silent = dgram.createSocket('udp4');
    await new Promise<void>((r) => silent.bind(0, '127.0.0.1', () => r()));
    other = await startTestServer({ INBOUND_SMTP_PORT: '0', INBOUND_SMTP_HOST: '127.0.0.1', INBOUND_EMAIL_DOMAIN: DOMAIN, DNS_SERVERS: `127.0.0.1:${silent.address().port}` });
    b = await other.newAccount('Quiet');
  });

  afterAll(async () => {
    await other?.close();
    silent?.close();
  });

  it('costs a bounded wait: the message is accepted and threaded with temperror', async () => {
    const started = Date.now();
    const sent = await mailTo(other, { envelope: { from: 'sam@unreachable.test', to: [replyAddress(b)] }, from: 'sam@unreachable.test', to: replyAddress(b), subject: 'Hello', messageId: '<q1@unreachable.test>', text: 'Anyone?' });
    expect(sent.response).toMatch(/^250/);
    expect(Date.now() - started).toBeLessThan(15_000);
    const entry = await entryFrom(other, b, 'sam@unreachable.test');
    expect(entry).toMatchObject({ body: 'Anyone?', authentication: { spf: 'temperror', dmarc: 'temperror' } });
  });
});
