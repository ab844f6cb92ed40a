// Link domains and click tracking over HTTP: adding a link domain (IDNA), its live CNAME check
// against a real DNS server on loopback, removal and account isolation; HTML email received by a
// real SMTP server with its links through the account's verified link domain, or the service's own
// host when it has none; and following a link: a 302 to the link's own URL only, the click on the
// message's timeline and as the contact's email.clicked event, for a message whose links went out.
import { beforeAll, describe, expect, it } from 'vitest';
import { contactStream } from '../../commands/contact.ts';
import { ALL_PROJECTIONS } from '../../projections/index.ts';
import { clickTrackingKey } from '../../src/tracking/clicks.ts';
import { signClickToken } from '../../src/tracking/links.ts';
import { serverWithDnsAndSmtp } from '../support/mail-suite.ts';
import { timeline, types } from '../support/messages.ts';
import { until } from '../support/waits.ts';

/** The CNAME target with neither LINK_TRACKING_HOST nor PUBLIC_BASE_URL set. */
const TARGET = 'links.engage.local';
const READER = 'reader@inbox.test';
const SALE = 'https://shop.acme.test/sale?utm_source=mail&x=1';
const BLOG = 'https://blog.acme.test/';
const HTML = `<html><body><p>Hello <a href="${SALE.replace('&', '&amp;')}">Sale</a>, <a href='${BLOG}'>Blog</a>, <a href="${SALE.replace('&', '&amp;')}">again</a>, <a href="mailto:help@acme.test">Help</a> and <a data-engage-track="off" href="https://acme.test/reset">Reset</a></p></body></html>`;

// the interstitial of new accounts' links off (the operator's setting): these links are followed
// from the shared host; test/tracking/click-redirects.test.ts covers the page
const { server, dns, smtp } = serverWithDnsAndSmtp({ CLICK_INTERSTITIAL_DAYS: '0' });
let a: { key: string };
let b: { key: string };

beforeAll(async () => {
  a = await server.newAccount('Acme');
  b = await server.newAccount('Beta');
});

const base = '/v1/account/link-domains';
const add = async (key: string, domain: string) => {
  const res = await server.call('POST', base, { key, body: { domain } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};
const verify = async (key: string, id: string) => {
  const res = await server.call('POST', `${base}/${id}/verify`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
/** A link domain of the account, verified: its CNAME published and checked. */
const verifiedDomain = async (key: string, domain: string) => {
  const d = await add(key, domain);
  dns.set(domain, 'CNAME', [TARGET]);
  expect((await verify(key, d.id)).status).toBe('verified');
  return d;
};

/** Sends an HTML email and waits for the SMTP server to receive it. */
async function sendHtml(key: string, extra: Record<string, unknown> = {}) {
  const res = await server.call('POST', '/v1/messages/send', { key, body: { channel: 'email', to: READER, subject: 'Sale', message: 'Hello, the sale is on', htmlmessage: HTML, transactional: true, ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const mail = await until(() => smtp.find(res.body.id), (m) => m !== undefined);
  expect(mail, 'the email reached the SMTP server').toBeDefined();
  return { id: res.body.id as string, html: mail!.mail.html as string };
}
const hrefsOf = (html: string) => [...html.matchAll(/href=["']([^"']*)["']/g)].map((m) => m[1].replaceAll('&amp;', '&'));
/** Follows a tracked link at this server, whatever host the link names (as its CNAME would bring it here). */
const follow = (href: string) => fetch(`${server.url}${new URL(href).pathname}`, { redirect: 'manual' });
const trackedPath = /^\/c\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/;

describe('link domains', () => {
  it('adds a domain in A-label form with the CNAME record it must publish, unchecked, and lists it', async () => {
    const d = await add(a.key, 'Klick.Bücher.test');
    expect(d).toEqual({
      id: expect.stringMatching(/^ldom_/),
      domain: 'klick.xn--bcher-kva.test',
      unicode_domain: 'klick.bücher.test',
      status: 'pending',
      record: { type: 'CNAME', name: 'klick.xn--bcher-kva.test', value: TARGET },
      found: [],
      error: null,
      checked_at: null,
      verified_at: null,
      created_at: expect.any(String),
    });
    const list = await server.call('GET', base, { key: a.key });
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain(d.id);
  });

  it.each([
    ['', 'empty'],
    ['localhost', 'single label'],
    ['https://click.acme.test/', 'scheme and path'],
    ['192.0.2.1', 'IP address'],
    ['-bad-.test', 'label'],
  ])('refuses %j with a 400 naming the domain field (%s)', async (domain) => {
    const res = await server.call('POST', base, { key: a.key, body: { domain } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_error');
    expect(res.body.issues[0].path).toBe('domain');
  });

  it('verifies live: pending without a CNAME or with one naming another host, verified once it names the target, unknown when DNS fails', async () => {
    const d = await add(a.key, 'go.acme-verify.test');
    const none = await verify(a.key, d.id);
    expect(none).toMatchObject({ status: 'pending', found: [], error: null, verified_at: null });
    expect(none.checked_at).not.toBeNull();

    dns.set(d.domain, 'CNAME', ['links.elsewhere.test']);
    expect(await verify(a.key, d.id)).toMatchObject({ status: 'pending', found: ['links.elsewhere.test'] });

    dns.set(d.domain, 'CNAME', [TARGET]);
    const ok = await verify(a.key, d.id);
    expect(ok).toMatchObject({ status: 'verified', found: [TARGET], error: null });
    expect(ok.verified_at).not.toBeNull();

    dns.fail(d.domain);
    const failed = await verify(a.key, d.id);
    expect(failed).toMatchObject({ status: 'pending', verified_at: null });
    expect(failed.error).toMatch(/SERVFAIL/i);
    dns.remove(d.domain);

    const { rows } = await server.engage.pool.query<{ type: string; data: { pass?: boolean } }>('SELECT type, data FROM es_events WHERE stream_id = $1 ORDER BY stream_revision', [`linkdomain-${d.id}`]);
    expect(rows.map((r) => [r.type, r.data.pass])).toEqual([
      ['LinkDomainAdded', undefined],
      ['LinkDomainChecked', false],
      ['LinkDomainChecked', false],
      ['LinkDomainChecked', true],
      ['LinkDomainChecked', false],
    ]);
  });

  it('DELETE removes the domain; it is then a 404', async () => {
    const d = await add(a.key, 'gone.acme.test');
    expect((await server.call('DELETE', `${base}/${d.id}`, { key: a.key })).body).toEqual({ id: d.id, deleted: true });
    expect((await server.call('GET', base, { key: a.key })).body.data.map((x: { id: string }) => x.id)).not.toContain(d.id);
    expect((await server.call('DELETE', `${base}/${d.id}`, { key: a.key })).status).toBe(404);
    expect((await server.call('POST', `${base}/${d.id}/verify`, { key: a.key })).status).toBe(404);
  });

  it("another account's domain is a 404, exactly like a missing one; and a domain another account verified does not verify for a second", async () => {
    const d = await verifiedDomain(a.key, 'owned.acme.test');
    for (const [method, path] of [['DELETE', ''], ['POST', '/verify']] as const) {
      const res = await server.call(method, `${base}/${d.id}${path}`, { key: b.key });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
    expect((await server.call('GET', base, { key: b.key })).body.data.map((x: { id: string }) => x.id)).not.toContain(d.id);
    expect((await server.call('POST', `${base}/ldom_00000000000000000000000000/verify`, { key: a.key })).status).toBe(404);
    expect((await server.call('DELETE', `${base}/not-an-id`, { key: a.key })).status).toBe(404);

    // the CNAME names the shared target, so it proves nothing about whose domain it is: the first account keeps it
    const copy = await add(b.key, 'owned.acme.test');
    const check = await verify(b.key, copy.id);
    expect(check).toMatchObject({ status: 'pending', found: [TARGET], error: 'the domain is verified by another account' });
  });
});

describe('click tracking', () => {
  let contactId: string;
  let linkDomain: string;
  beforeAll(async () => {
    const contact = await server.call('POST', '/v1/contacts', { key: a.key, body: { email: READER } });
    expect(contact.status).toBe(201);
    contactId = contact.body.id;
    linkDomain = (await verifiedDomain(a.key, 'click.acme.test')).domain;
  });

  it("rewrites the links of the HTML the provider receives through the account's verified link domain, and stores the message as sent", async () => {
    const { id, html } = await sendHtml(a.key);
    const hrefs = hrefsOf(html);
    expect(hrefs).toHaveLength(5);
    const [sale, blog, again, help, reset] = hrefs;
    for (const tracked of [sale, blog, again]) {
      expect(new URL(tracked).origin).toBe(`https://${linkDomain}`);
      expect(new URL(tracked).pathname).toMatch(trackedPath);
    }
    // one token per link: the same link twice is the same tracked URL
    expect(again).toBe(sale);
    expect(blog).not.toBe(sale);
    expect(help).toBe('mailto:help@acme.test');
    expect(reset).toBe('https://acme.test/reset');
    // the message as stored and shown is what the customer sent
    const stored = await server.call('GET', `/v1/messages/${id}`, { key: a.key });
    expect(stored.body.htmlmessage).toBe(HTML);
  });

  it("uses the service's own host for an account without a verified link domain; a marketing email's unsubscribe link is not tracked", async () => {
    const { html } = await sendHtml(b.key, { transactional: false });
    const hrefs = hrefsOf(html);
    expect(hrefs.slice(0, 2).map((h) => new URL(h).origin)).toEqual([server.url, server.url]);
    expect(new URL(hrefs[0]).pathname).toMatch(trackedPath);
    const unsubscribe = hrefs.find((h) => h.includes('/v1/unsubscribe/'));
    expect(unsubscribe, 'the unsubscribe footer').toBeDefined();
    expect(unsubscribe!.startsWith(`${server.url}/v1/unsubscribe/`)).toBe(true);
  });

  it("following a link answers 302 to the link's URL and records the click on the message's timeline and as the contact's email.clicked event", async () => {
    const { id, html } = await sendHtml(a.key);
    const [sale, blog] = hrefsOf(html);
    // a HEAD (a link checker, a mail scanner) gets the same answer but is not a click
    const head = await fetch(`${server.url}${new URL(sale).pathname}`, { method: 'HEAD', redirect: 'manual' });
    expect(head.status).toBe(302);
    expect(head.headers.get('location')).toBe(SALE);
    const res = await follow(sale);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(SALE);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const second = await follow(blog);
    expect(second.status).toBe(302);
    expect(second.headers.get('location')).toBe(BLOG);

    const events = await timeline(server, a.key, id);
    const clicks = events.filter((e) => e.type === 'MessageLinkClicked');
    expect(clicks.map((c) => c.details.url)).toEqual([SALE, BLOG]);
    expect(clicks.every((c) => c.status === null && c.actor === 'recipient')).toBe(true);
    // the link came from the message's content: the log keeps it sealed like the content
    const { rows } = await server.engage.pool.query<{ data: unknown }>(`SELECT data FROM es_events WHERE stream_id = $1 AND type = 'MessageLinkClicked'`, [`message-${id}`]);
    expect(rows).toHaveLength(2);
    for (const r of rows) expect(JSON.stringify(r.data)).not.toContain('acme.test');
    // a click is no status: the message stays where its delivery put it. The mail reached the SMTP
    // server before the dispatcher recorded it sent, so the read model may still say queued: wait for it
    const message = await until(
      async () => (await server.call('GET', `/v1/messages/${id}`, { key: a.key })).body,
      (m) => m.status !== 'queued',
    );
    expect(['sent', 'delivered']).toContain(message.status);

    const contactEvents = await until(
      async () => (await server.engage.store.readStream(contactStream(contactId))).filter((e) => e.type === 'EventTracked').map((e) => e.data as { name: string; properties: unknown }),
      (tracked) => tracked.filter((t) => (t.properties as { message_id?: string }).message_id === id).length === 2,
    );
    expect(contactEvents.filter((t) => (t.properties as { message_id?: string }).message_id === id)).toEqual([
      expect.objectContaining({ name: 'email.clicked', properties: { message_id: id, url: SALE } }),
      expect.objectContaining({ name: 'email.clicked', properties: { message_id: id, url: BLOG } }),
    ]);
    // segments on event.email.clicked find the contact
    const rules = { match: 'all', rules: [{ field: 'event.email.clicked', operator: 'performed' }] };
    const preview = await until(
      async () => (await server.call('POST', '/v1/segments/preview', { key: a.key, body: { rules, sample: true } })).body,
      (p) => p.count === 1,
    );
    expect(preview.sample.map((c: { id: string }) => c.id)).toEqual([contactId]);
    // and every read model took the new event in its stride
    await server.caughtUp(ALL_PROJECTIONS.map((p) => p.name));
  });

  it('a tampered token, a token signed with another key, and a genuine token of a message that does not exist are 404s that redirect nowhere', async () => {
    const { html } = await sendHtml(a.key);
    const path = new URL(hrefsOf(html)[0]).pathname;
    const [payload, signature] = path.slice('/c/'.length).split('.');
    const otherUrl = Buffer.from(JSON.stringify({ m: JSON.parse(Buffer.from(payload, 'base64url').toString()).m, u: 'https://evil.test/' })).toString('base64url');
    const key = await clickTrackingKey(server.engage.pool);
    for (const bad of [
      `${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BA' : 'AA'}`,
      `${otherUrl}.${signature}`,
      signClickToken(Buffer.alloc(32, 1), 'msg_01J00000000000000000000000', 'https://evil.test/'),
      signClickToken(key, 'msg_01J00000000000000000000000', 'https://shop.acme.test/'),
      'not-a-token',
    ]) {
      const res = await fetch(`${server.url}/c/${bad}`, { redirect: 'manual' });
      expect(res.status, bad).toBe(404);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.json()).toMatchObject({ error: 'not_found' });
    }
  });

  it('a click as soon as the email arrives is kept: the message is sent once, and the click is on its timeline', async () => {
    const res = await server.call('POST', '/v1/messages/send', { key: a.key, body: { channel: 'email', to: READER, subject: 'Hi', message: 'Hi', htmlmessage: `<a href="${BLOG}">Blog</a>`, transactional: true } });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    // a link leads somewhere only once its message went to a provider (README "Link domains and click tracking")
    expect(await until(() => smtp.find(id), (m) => m !== undefined), 'the email went out').toBeDefined();
    const token = signClickToken(await clickTrackingKey(server.engage.pool), id, BLOG);
    const click = await fetch(`${server.url}/c/${token}`, { redirect: 'manual' });
    expect(click.status).toBe(302);
    expect(click.headers.get('location')).toBe(BLOG);

    const events = await until(
      () => timeline(server, a.key, id),
      (e) => types(e).includes('MessageSent'),
    );
    expect(types(events)).toEqual(expect.arrayContaining(['MessageAccepted', 'MessageLinkClicked', 'MessageSent']));
    expect(events.filter((e) => e.type === 'MessageSent')).toHaveLength(1);
  });

  it('a token of a scheduled message, whose links went nowhere yet, is a 404 that records nothing; the message can still be cancelled', async () => {
    const scheduled_at = new Date(Date.now() + 86_400_000).toISOString();
    const res = await server.call('POST', '/v1/messages/send', { key: a.key, body: { channel: 'email', to: READER, subject: 'Later', message: 'Later', htmlmessage: `<a href="${SALE}">Sale</a>`, transactional: true, scheduled_at } });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const token = signClickToken(await clickTrackingKey(server.engage.pool), id, SALE);
    const click = await fetch(`${server.url}/c/${token}`, { redirect: 'manual' });
    expect(click.status).toBe(404);
    expect(click.headers.get('location')).toBeNull();

    expect(types(await timeline(server, a.key, id))).toEqual(['MessageAccepted']);
    const cancel = await server.call('DELETE', `/v1/messages/${id}`, { key: a.key });
    expect(cancel.status, JSON.stringify(cancel.body)).toBeLessThan(300);
    expect(types(await timeline(server, a.key, id))).toEqual(['MessageAccepted', 'MessageCancelled']);
  });
});
