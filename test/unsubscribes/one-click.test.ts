// One-click unsubscribe (README "Suppressions and unsubscribes"; RFC 2369, RFC 8058): every
// marketing email carries List-Unsubscribe and List-Unsubscribe-Post and a visible link; the link's
// page never unsubscribes on GET, its POST does (reason `unsubscribe`, contact.unsubscribed to the
// endpoints), and an unsubscribe blocks later marketing to the address but not transactional mail.
import { generateKeyPairSync } from 'node:crypto';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suppressionStream } from '../../commands/suppression.ts';
import { newId } from '../../src/ids.ts';
import { addressHasher } from '../../src/personal-data/address-hash.ts';
import { UnsubscribeTokens } from '../../src/suppressions/unsubscribe-token.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { expectUnsupportedMediaType } from '../support/http.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';
import { eventually, until } from '../support/waits.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../support/smtp-receiver.ts';

const DOMAIN = 'mail.example.test';
const SELECTOR = 's1';

/** A header of the mail as written (continuation lines unfolded), without its name. */
function headerValue(mail: ParsedMail, name: string): string | undefined {
  const line = mail.headerLines.find((h) => h.key === name.toLowerCase())?.line;
  return line?.replace(/\r?\n[ \t]+/g, ' ').slice(name.length + 1).trim();
}

/** The unsubscribe URL in List-Unsubscribe: `<url>`. */
const linkOf = (mail: ParsedMail) => /^<(https?:\/\/[^>]+)>$/.exec(headerValue(mail, 'List-Unsubscribe') ?? '')?.[1];

const form = (body: string, accept = 'text/html') => ({ raw: body, headers: { 'content-type': 'application/x-www-form-urlencoded', accept } });

function expectPageHeaders(headers: Headers) {
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(headers.get('cache-control')).toBe('no-store');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
}

describe('one-click unsubscribe over SMTP', () => {
  let smtp: SmtpReceiver;
  let hooks: Receiver;
  let server: TestServer;
  let key: string;
  let accountId: string;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const dnsValue = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
  const resolver = async (name: string, type: string) => {
    if (type === 'TXT' && name.toLowerCase() === `${SELECTOR}._domainkey.${DOMAIN}`) return [[dnsValue]];
    throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' });
  };

  beforeAll(async () => {
    [smtp, hooks] = await Promise.all([startSmtpReceiver(), startReceiver()]);
    server = await startTestServer({
      SMTP_URL: smtp.url,
      EMAIL_FROM: `news@${DOMAIN}`,
      DKIM_KEYS: JSON.stringify({ [DOMAIN]: { selector: SELECTOR, privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() } }),
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_DELAYS: '200ms,400ms',
    });
    ({ key, accountId } = await server.newAccount());
    const endpoint = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: hooks.url, events: ['contact.unsubscribed'] } });
    expect(endpoint.status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all([smtp?.close(), hooks?.close()]);
  });

  const send = async (body: Record<string, unknown>) => {
    const res = await server.call('POST', '/v1/messages/send', { key, body: { channel: 'email', subject: 'News', ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.id as string;
  };
  const status = async (id: string) => (await server.call('GET', `/v1/messages/${id}`, { key })).body;
  const settled = (id: string) => until(() => status(id), (m) => m.status !== 'queued');
  const received = (id: string) => eventually(`the mail of ${id} at the SMTP server`, async () => smtp.find(id));
  const suppressions = async (address: string) => (await server.call('GET', `/v1/account/unsubscribes/api/list?address=${encodeURIComponent(address)}`, { key })).body.data;
  const unsubscribedHooks = () => hooks.hits.filter((h) => h.json?.type === 'contact.unsubscribed');
  /** The events of the address's suppression stream, straight from the log. */
  const suppressionEvents = async (address: string) => {
    const stream = suppressionStream(accountId, (await addressHasher(server.engage.pool))(address));
    return (await server.engage.store.readStream(stream)).map((e) => ({ type: e.type, ...('reason' in e.data ? { reason: e.data.reason } : {}), source: e.data.source }));
  };

  it('marketing email carries List-Unsubscribe, List-Unsubscribe-Post (DKIM-signed) and a link in both bodies; transactional email none of it', async () => {
    const marketing = await send({ to: 'reader@example.test', message: 'Our spring sale', htmlmessage: '<html><body><p>Our <b>spring</b> sale</p></body></html>' });
    const receipt = await send({ to: 'reader@example.test', message: 'Your receipt', htmlmessage: '<p>Your receipt</p>', transactional: true });
    const code = await send({ to: 'reader@example.test', message: 'Your code is 123456', category: 'transactional' });

    const { mail, raw } = await received(marketing);
    const url = linkOf(mail);
    expect(url, headerValue(mail, 'List-Unsubscribe')).toMatch(new RegExp(`^${server.url}/v1/unsubscribe/u1\\.[A-Za-z0-9_-]{43}\\.[A-Za-z0-9_-]{43}$`));
    expect(headerValue(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    // the token names the account and the message only: the address is nowhere in it
    const token = url!.split('/').pop()!;
    expect(token).not.toContain('reader');
    expect(Buffer.from(token.split('.')[1], 'base64url').toString('latin1')).not.toContain('reader');
    // a visible link: a footer after the text, and before </body> in the HTML
    expect(mail.text).toContain('Our spring sale');
    expect(mail.text?.trimEnd().endsWith(url!)).toBe(true);
    // (the open pixel, src/tracking/opens.ts, before the footer)
    expect(mail.html).toMatch(new RegExp(`<p>Our <b>spring</b> sale</p><img src="[^"]+/o/[^"]+"[^>]*/><p [^>]*>To stop receiving these emails, <a href="${url!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"[^>]*>unsubscribe</a>\\.</p></body>`));
    // RFC 8058 §4: both list headers are covered by the DKIM signature, which verifies
    const signed = /\bh=([^;]+)/.exec((headerValue(mail, 'DKIM-Signature') ?? '').replace(/\s+/g, ''))?.[1].toLowerCase().split(':');
    expect(signed).toEqual(expect.arrayContaining(['list-unsubscribe', 'list-unsubscribe-post']));
    const verified = await dkimVerify(raw, { resolver });
    expect(verified.results[0].status.result).toBe('pass');
    const tampered = Buffer.from(raw.toString('latin1').replace('List-Unsubscribe-Post: List-Unsubscribe=One-Click', 'List-Unsubscribe-Post: List-Unsubscribe=Two-Clicks'), 'latin1');
    expect((await dkimVerify(tampered, { resolver })).results[0].status.result).toBe('fail');

    for (const id of [receipt, code]) {
      const { mail: m } = await received(id);
      expect(headerValue(m, 'List-Unsubscribe'), id).toBeUndefined();
      expect(headerValue(m, 'List-Unsubscribe-Post'), id).toBeUndefined();
      expect(m.text).not.toContain('/v1/unsubscribe/');
    }
    expect((await received(receipt)).mail.text?.trim()).toBe('Your receipt');
    // (with its open pixel: src/tracking/opens.ts)
    expect(String((await received(receipt)).mail.html).trim()).toMatch(/^<p>Your receipt<\/p><img src="[^"]+\/o\/[^"]+"[^>]*\/>$/);
    // the message as the API shows it is what the customer sent: the link is added on the way out
    expect((await status(marketing)).message).toBe('Our spring sale');
  });

  it('puts the link where the body says {{unsubscribe_url}}, every occurrence, instead of a footer', async () => {
    const id = await send({
      to: 'placeholder@example.test',
      message: 'Sale! Leave: {{unsubscribe_url}} (or {{ unsubscribe_url }})',
      htmlmessage: '<p>Sale!</p><a href="{{unsubscribe_url}}">Leave this list</a>',
    });
    const { mail } = await received(id);
    const url = linkOf(mail)!;
    expect(mail.text?.trim()).toBe(`Sale! Leave: ${url} (or ${url})`);
    expect(String(mail.html).trim().replace(/<img src="[^"]+\/o\/[^"]+"[^>]*\/>$/, '')).toBe(`<p>Sale!</p><a href="${url}">Leave this list</a>`);
  });

  it('GET shows a confirmation page and unsubscribes nobody; the RFC 8058 POST unsubscribes once, however often it comes', async () => {
    const address = 'oneclick@example.test';
    const first = await send({ to: address, message: 'Deals' });
    const url = linkOf((await received(first)).mail)!;
    const path = new URL(url).pathname;

    const page = await server.request('GET', path, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expectPageHeaders(page.headers);
    expect(page.body).toMatch(/<form method="post">/);
    // a public page: counted per IP, 120 a minute
    expect(page.headers.get('ratelimit-limit')).toBe('120');
    expect(page.body).toContain('o•••@example.test');
    expect(page.body).not.toContain(address);
    // mail scanners fetch links: neither GET nor HEAD changes anything
    expect((await server.request('HEAD', path)).status).toBe(200);
    expect(await suppressions(address)).toEqual([]);

    const done = await server.request('POST', path, form('List-Unsubscribe=One-Click', '*/*'));
    expect(done.status).toBe(200);
    expect(done.headers.get('content-type')).toMatch(/^text\/html/);
    expectPageHeaders(done.headers);
    expect(done.body).toContain('You are unsubscribed');
    const [row] = await suppressions(address);
    expect(row).toMatchObject({ address, channel: 'email', reason: 'unsubscribe', source: 'one_click', message_id: first });

    // repeats (the page's button, an empty POST, JSON asked for) are harmless: still one suppression
    expect((await server.request('POST', path, form('confirm=yes'))).status).toBe(200);
    const json = await server.call('POST', path, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(200);
    expect(json.body).toEqual({ unsubscribed: true });
    expect(await suppressions(address)).toEqual([row]);

    // contact.unsubscribed reaches the endpoint, once
    const hit = await eventually('contact.unsubscribed at the endpoint', async () => unsubscribedHooks().find((h) => h.json.data.address === address));
    expect(hit.json).toMatchObject({ type: 'contact.unsubscribed', account_id: accountId, data: { address, reason: 'unsubscribe', source: 'one_click' } });

    // later marketing to the address fails `suppressed` and never reaches the server; transactional mail goes out
    const later = await send({ to: address, message: 'More deals' });
    const receipt = await send({ to: address, message: 'Your receipt', transactional: true });
    expect(await settled(later)).toMatchObject({ status: 'failed', reason: 'suppressed' });
    expect(await settled(receipt)).toMatchObject({ status: 'sent' });
    expect((await received(receipt)).mail.text?.trim()).toBe('Your receipt');
    expect(smtp.find(later)).toBeUndefined();
    // one unsubscribe on the log, so one contact.unsubscribed
    expect(await suppressionEvents(address)).toEqual([{ type: 'RecipientSuppressed', reason: 'unsubscribe', source: 'one_click' }]);
    expect(unsubscribedHooks().filter((h) => h.json.data.address === address)).toHaveLength(1);
  });

  it('a tampered, forged or unknown token is a 404 (an HTML page, or JSON when asked for), and writes nothing', async () => {
    const id = await send({ to: 'tamper@example.test', message: 'Deals' });
    const url = linkOf((await received(id)).mail)!;
    const [version, payload, signature] = new URL(url).pathname.split('/').pop()!.split('.');
    const flip = (s: string) => (s[5] === 'A' ? `${s.slice(0, 5)}B${s.slice(6)}` : `${s.slice(0, 5)}A${s.slice(6)}`);
    const otherSecret = (await import('node:crypto')).createHmac('sha256', 'not the secret').update(`${version}.${payload}`).digest('base64url');
    // a genuine signature over a message that does not exist
    const unknown = (await UnsubscribeTokens.of(server.engage.pool)).sign({ accountId, messageId: newId('message') });
    const bad = [`${version}.${flip(payload)}.${signature}`, `${version}.${payload}.${flip(signature)}`, `${version}.${payload}.${otherSecret}`, `u2.${payload}.${signature}`, `${version}.${payload}`, 'garbage', unknown];
    for (const token of bad) {
      const path = `/v1/unsubscribe/${encodeURIComponent(token)}`;
      const page = await server.request('GET', path);
      expect(page.status, token).toBe(404);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.body).toContain('Link not found');
      expectPageHeaders(page.headers);
      const json = await server.call('POST', path, { ...form('List-Unsubscribe=One-Click', 'application/json') });
      expect(json.status, token).toBe(404);
      expect(json.body).toMatchObject({ error: 'not_found' });
    }
    expect(await suppressions('tamper@example.test')).toEqual([]);
  });

  it('takes the one-click body as multipart/form-data too (what RFC 8058 says mailbox providers should send)', async () => {
    const address = 'multipart@example.test';
    const id = await send({ to: address, message: 'Deals' });
    const url = linkOf((await received(id)).mail)!;
    const oneClick = new FormData();
    oneClick.append('List-Unsubscribe', 'One-Click');
    const res = await fetch(url, { method: 'POST', body: oneClick });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.text()).toContain('You are unsubscribed');
    expect(await suppressions(address)).toEqual([expect.objectContaining({ address, reason: 'unsubscribe', source: 'one_click', message_id: id })]);
    // fields only: a file, or another field, is refused
    const withFile = new FormData();
    withFile.append('List-Unsubscribe', 'One-Click');
    withFile.append('attachment', new Blob(['x']), 'x.txt');
    const refused = await fetch(url, { method: 'POST', body: withFile, headers: { accept: 'application/json' } });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    const other = new FormData();
    other.append('List-Unsubscribe', 'Maybe');
    expect((await fetch(url, { method: 'POST', body: other })).status).toBe(400);
  });

  it('refuses other bodies with a 4xx', async () => {
    const id = await send({ to: 'bodies@example.test', message: 'Deals' });
    const path = new URL(linkOf((await received(id)).mail)!).pathname;
    const json = { accept: 'application/json' };
    const wrongValue = await server.call('POST', path, { ...form('List-Unsubscribe=Yes-Please', 'application/json') });
    expect(wrongValue.status).toBe(400);
    expect(wrongValue.body.issues[0].path).toBe('List-Unsubscribe');
    expect((await server.call('POST', path, { ...form('List-Unsubscribe=One-Click&extra=1', 'application/json') })).status).toBe(400);
    const twice = await server.call('POST', path, { ...form('List-Unsubscribe=One-Click&List-Unsubscribe=One-Click', 'application/json') });
    expect(twice.status).toBe(400);
    expect(twice.body.issues[0].path).toBe('List-Unsubscribe');
    const proto = await server.call('POST', path, { ...form('__proto__=x&constructor=y', 'application/json') });
    expect(proto.status).toBe(400);
    expect(proto.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(['__proto__', 'constructor']);
    expectUnsupportedMediaType(await server.call('POST', path, { raw: '{"a":1}', headers: { 'content-type': 'application/json', ...json } }));
    const htmlError = await server.request('POST', path, form('nope=1'));
    expect(htmlError.status).toBe(400);
    expect(htmlError.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await suppressions('bodies@example.test')).toEqual([]);
  });

  it('a recipient erased since: the page says done and nothing is written', async () => {
    const address = 'erased@example.test';
    const id = await send({ to: address, message: 'Deals' });
    const path = new URL(linkOf((await received(id)).mail)!).pathname;
    const erased = await server.call('POST', '/v1/account/erasures', { key, body: { email: address } });
    expect(erased.status).toBe(200);
    const everything = async () => (await server.call('GET', '/v1/account/unsubscribes/api/list?limit=500', { key })).body.data;
    const before = await everything();

    const page = await server.request('GET', path);
    expect(page.status).toBe(200);
    expect(page.body).toContain('You are unsubscribed');
    expect(page.body).not.toContain('<form');
    const done = await server.request('POST', path, form('List-Unsubscribe=One-Click'));
    expect(done.status).toBe(200);
    expect(done.body).toContain('You are unsubscribed');

    // nothing was suppressed (under any address); the erasure's suppression is the only event of the
    // address's stream, and stays what it is
    expect(await everything()).toEqual(before);
    expect(await suppressionEvents(address)).toEqual([{ type: 'RecipientSuppressed', reason: 'erasure', source: 'erasure' }]);
    const listed = (await server.call('GET', `/v1/account/unsubscribes/api/list?address=${address}`, { key })).body.data;
    expect(listed).toEqual([expect.objectContaining({ address: null, channel: null, reason: 'erasure', source: 'erasure' })]);
  });
});

describe('one-click unsubscribe through the sandbox, and the transactional rule', () => {
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    server = await startTestServer({ PUBLIC_BASE_URL: 'https://mail.example.com/engage/' });
    ({ key } = await server.newAccount());
  });
  afterAll(async () => {
    await server?.close();
  });

  const send = async (body: Record<string, unknown>) => {
    const res = await server.call('POST', '/v1/messages/send', { key, body: { channel: 'email', subject: 'News', ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.id as string;
  };
  const finalStatus = (id: string) => until(async () => (await server.call('GET', `/v1/messages/${id}`, { key })).body, (m) => m.status === 'delivered' || m.status === 'failed');
  const sandboxHeaders = (id: string) => eventually(`the sandbox to take ${id}`, async () => server.workers.messaging!.providers.sandbox.emailHeaders.get(id));

  it('the sandbox is given the same headers, under PUBLIC_BASE_URL; an unsubscribe then stops marketing only', async () => {
    const address = 'Shopper@Example.test';
    const first = await send({ to: address, message: 'Deals' });
    const headers = await sandboxHeaders(first);
    expect(headers['List-Unsubscribe']).toMatch(/^<https:\/\/mail\.example\.com\/engage\/v1\/unsubscribe\/u1\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}>$/);
    expect(headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    const receipt = await send({ to: address, message: 'Receipt', transactional: true });
    expect(await sandboxHeaders(receipt)).toEqual({});

    // the public URL is the proxy's; the same path reaches this server
    const path = new URL(headers['List-Unsubscribe'].slice(1, -1)).pathname.replace(/^\/engage/, '');
    expect((await server.request('POST', path, form('List-Unsubscribe=One-Click'))).status).toBe(200);

    const marketing = await send({ to: address, message: 'More deals' });
    const transactional = await send({ to: address.toLowerCase(), message: 'Your receipt', transactional: true });
    const code = await send({ to: address, message: 'Code 123456', category: 'transactional' });
    expect(await finalStatus(marketing)).toMatchObject({ status: 'failed', reason: 'suppressed' });
    expect(await finalStatus(transactional)).toMatchObject({ status: 'delivered' });
    expect(await finalStatus(code)).toMatchObject({ status: 'delivered' });
    expect(server.workers.messaging!.providers.sandbox.calls.has(marketing)).toBe(false);
  });
});
