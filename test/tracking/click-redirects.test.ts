// Where a tracked link may lead (README "Link domains and click tracking"; issue 25 finding 15): only
// a link of an email the service handed to its provider redirects; any other token (forged, of a
// message never sent, of a cancelled one) is a 404. On the shared click host, an account younger
// than CLICK_INTERSTITIAL_DAYS gets a plain interstitial page naming the destination instead of a
// redirect; an older account, or a link through the account's own verified link domain, redirects.
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { clickTrackingKey } from '../../src/tracking/clicks.ts';
import { signClickToken } from '../../src/tracking/links.ts';
import { SettableClock } from '../analytics/helpers.ts';
import type { TestAccount } from '../support/accounts.ts';
import { serverWithDnsAndSmtp } from '../support/mail-suite.ts';
import { timeline, types } from '../support/messages.ts';
import { until } from '../support/waits.ts';

const SALE = 'https://shop.acme.test/sale?utm_source=mail&x=1';
const READER = 'reader@inbox.test';

const clock = new SettableClock();
const { server, dns, smtp } = serverWithDnsAndSmtp({}, clock);
let fresh: TestAccount;
let old: TestAccount;

beforeAll(async () => {
  // an account made 40 days ago, and one made now
  clock.set(new Date(Date.now() - 40 * 86_400_000));
  old = await server.newAccount('Old');
  clock.set(new Date());
  fresh = await server.newAccount('New');
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** GET a path of the server with this Host header (what a link domain's CNAME brings here). */
function get(path: string, host?: string): Promise<Answer> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET', headers: host ? { host } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends an HTML email with one link and answers the tracked path the recipient got. */
async function sendLink(key: string): Promise<{ id: string; path: string }> {
  const html = `<p><a href="${SALE.replaceAll('&', '&amp;')}">Sale</a></p>`;
  const res = await server.call('POST', '/v1/messages/send', { key, body: { channel: 'email', to: READER, subject: 'Sale', message: 'Sale', htmlmessage: html, transactional: true } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const mail = await until(() => smtp.find(res.body.id), (m) => m !== undefined);
  expect(mail, 'the email reached the SMTP server').toBeDefined();
  const href = /href="([^"]*)"/.exec(mail!.mail.html as string)![1].replaceAll('&amp;', '&');
  return { id: res.body.id, path: new URL(href).pathname };
}

const expectNotFound = (res: Answer) => {
  expect(res.status).toBe(404);
  expect(res.headers.location).toBeUndefined();
  expect(JSON.parse(res.body)).toMatchObject({ error: 'not_found', message: expect.any(String) });
};

describe('a tracked link', () => {
  it('of a message never handed to a provider is a 404, before and after it is cancelled; so is a forged or unknown token', async () => {
    const scheduled_at = new Date(Date.now() + 86_400_000).toISOString();
    const res = await server.call('POST', '/v1/messages/send', {
      key: old.key, body: { channel: 'email', to: READER, subject: 'Later', message: 'Later', htmlmessage: `<a href="https://evil.test/">x</a>`, transactional: true, scheduled_at },
    });
    expect(res.status).toBe(202);
    const key = await clickTrackingKey(server.engage.pool);
    const token = signClickToken(key, res.body.id, 'https://evil.test/');
    expectNotFound(await get(`/c/${token}`));
    expect((await server.call('DELETE', `/v1/messages/${res.body.id}`, { key: old.key })).status).toBeLessThan(300);
    expectNotFound(await get(`/c/${token}`));
    expect(types(await timeline(server, old.key, res.body.id))).not.toContain('MessageLinkClicked');

    expectNotFound(await get(`/c/${signClickToken(key, 'msg_01J00000000000000000000000', 'https://evil.test/')}`));
    expectNotFound(await get(`/c/${signClickToken(Buffer.alloc(32, 7), res.body.id, 'https://evil.test/')}`));
  });

  it('of a sent email, for an account older than 30 days, redirects from the shared host', async () => {
    const { id, path } = await sendLink(old.key);
    const res = await get(path);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(SALE);
    expect(types(await until(() => timeline(server, old.key, id), (e) => types(e).includes('MessageLinkClicked')))).toContain('MessageLinkClicked');
  });

  it('of a sent email, for a new account on the shared host, is an interstitial page naming the destination, with no redirect; the click is recorded', async () => {
    const { id, path } = await sendLink(fresh.key);
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers['content-type']).toMatch(/^text\/html; charset=utf-8/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    const destination = SALE;
    const escaped = destination.replaceAll('&', '&amp;');
    expect(res.body).toContain('You are leaving for shop.acme.test');
    expect(res.body).toContain(`<a href="${escaped}" rel="noopener noreferrer nofollow">`);
    expect(res.body).toContain(`<code>${escaped}</code>`);
    expect(res.body).not.toMatch(/<script|http-equiv/i);
    expect(types(await until(() => timeline(server, fresh.key, id), (e) => types(e).includes('MessageLinkClicked')))).toContain('MessageLinkClicked');
  });

  it("of a new account redirects through the account's own verified link domain, but not through another account's", async () => {
    const domain = 'click.fresh-acme.test';
    const added = await server.call('POST', '/v1/account/link-domains', { key: fresh.key, body: { domain } });
    expect(added.status).toBe(201);
    dns.set(domain, 'CNAME', ['links.engage.local']);
    expect((await server.call('POST', `/v1/account/link-domains/${added.body.id}/verify`, { key: fresh.key })).body.status).toBe('verified');
    const { path } = await sendLink(fresh.key);
    const own = await get(path, domain);
    expect(own.status).toBe(302);
    expect(own.headers.location).toBe(SALE);
    // the shared host, or an unverified host pointed here, still shows the page
    expect((await get(path)).status).toBe(200);
    expect((await get(path, 'click.someone-else.test')).status).toBe(200);
  });
});
