// Browser tracking in a real browser (README "Browser tracking"): headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core) opens pages served by this test from two origins,
// one allowed by the account and one not. On the allowed one the pasted snippet queues calls made
// before the SDK has loaded, the SDK sends them with the signed identity, later calls go at once,
// and the identity survives into the next page; the other origin is refused by CORS, and a wrong
// user_hash is refused with the error reported on the console. What arrived is read back through
// the API.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { testServerForSuite } from '../support/harness.ts';
import { eventually } from '../support/waits.ts';
import { contactByEmail, identitySecret, performed, trackedEvents, trackingKey, type TrackingKey, userHash } from './helpers.ts';

const server = testServerForSuite();
let browser: Browser;
/** the website: one server, reached as two origins (two ports), pages by path */
const pages = new Map<string, string>();
const sites: Server[] = [];
let allowed: string;
let refused: string;

async function startSite(): Promise<string> {
  const site = createServer((req, res) => {
    const html = pages.get(req.url ?? '');
    res.writeHead(html === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html ?? 'not found');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sites.push(site);
  return `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  browser = await launchChromium();
  allowed = await startSite();
  refused = await startSite();
});

afterAll(async () => {
  await browser?.close();
  for (const site of sites) await new Promise((resolve) => site.close(resolve));
});

const unique = () => randomBytes(5).toString('hex');

/** An account whose key only `allowed` may use, and a visitor with a valid user_hash. */
async function shop() {
  const acct = await server.newAccount();
  const origins = await server.call('PUT', '/v1/account/tracking-origins', { key: acct.key, body: { origins: [allowed] } });
  expect(origins.status).toBe(200);
  const tracking = await trackingKey(server, acct.key);
  const secret = await identitySecret(server, acct.key);
  const email = `shopper-${unique()}@example.com`;
  return { acct, tracking, secret, email };
}

/**
 * A page with the snippet as pasted, followed, in the same script (so before the SDK can have
 * loaded), by `calls`; `window.calledBeforeLoad` records that the SDK had indeed not loaded yet.
 */
function pageWith(tracking: TrackingKey, calls: string, body = ''): string {
  const before = `window.calledBeforeLoad = !window.engage.loaded;\n${calls}\n</script>`;
  return `<!doctype html><html><head><title>Product A1</title>\n${tracking.snippet.replace(/<\/script>$/, before)}\n</head><body>${body}</body></html>`;
}

interface Visit {
  context: BrowserContext;
  page: Page;
  console: string[];
  /** status of every POST /v1/track the page made (0: failed without an answer the page could see) */
  posts: Promise<number>[];
}

async function visit(context: BrowserContext, url: string): Promise<Visit> {
  const page = await context.newPage();
  const v: Visit = { context, page, console: [], posts: [] };
  page.on('console', (m) => v.console.push(m.text()));
  page.on('request', (request) => {
    if (request.method() !== 'POST' || !request.url().endsWith('/v1/track')) return;
    v.posts.push(
      new Promise((resolve) => {
        request.response().then((r) => resolve(r?.status() ?? 0), () => resolve(0));
      }),
    );
  });
  await page.goto(url);
  await page.waitForFunction(() => (window as any).engage?.loaded === true);
  return v;
}

/** The statuses of the page's POSTs once `n` have been made and answered. */
async function answered(v: Visit, n: number): Promise<number[]> {
  await eventually(`${n} POST /v1/track from the page`, async () => (v.posts.length >= n ? true : undefined), 30_000);
  return Promise.all(v.posts);
}

describe('the snippet and SDK in Chromium', () => {
  it('send calls queued before the SDK loaded and calls after it, with the signed identity, kept for the next page', async () => {
    const { acct, tracking, secret, email } = await shop();
    pages.set(
      '/product',
      pageWith(
        tracking,
        `engage('track', 'Viewed Product', {sku: 'A1'});
         engage('identify', {email: ${JSON.stringify(email)}, user_hash: ${JSON.stringify(userHash(secret, email))}, traits: {first_name: 'Grace', tags: ['vip']}});`,
        `<button id="buy" onclick="engage('track', 'Clicked Buy', {price: 12})">Buy</button>`,
      ),
    );
    const context = await browser.newContext();
    try {
      const v = await visit(context, `${allowed}/product`);
      expect(await v.page.evaluate(() => (window as any).calledBeforeLoad)).toBe(true);
      // the page view, the product view and the identify went as one request
      expect(await answered(v, 1)).toEqual([200]);
      await v.page.click('#buy');
      expect(await answered(v, 2)).toEqual([200, 200]);

      const contact = await eventually('the contact', () => contactByEmail(server, acct.key, email));
      // tags are not a browser's to set unless the account allows them (README "Browser tracking")
      expect(contact).toMatchObject({ email, first_name: 'Grace', tags: [] });
      expect(await performed(server, acct.key, email, 'Viewed Product')).toBe(1);
      expect(await performed(server, acct.key, email, 'Clicked Buy')).toBe(1);
      expect(await performed(server, acct.key, email, 'page_viewed')).toBe(1);
      const events = await trackedEvents(server, contact.id);
      expect(events.map((e) => e.name).sort()).toEqual(['Clicked Buy', 'Viewed Product', 'page_viewed']);
      expect(events.find((e) => e.name === 'page_viewed')!.properties).toMatchObject({ url: `${allowed}/product`, path: '/product', title: 'Product A1' });
      expect(events.find((e) => e.name === 'Clicked Buy')!.properties).toEqual({ price: 12 });
      expect(v.console.filter((m) => m.startsWith('[engage]'))).toEqual([expect.stringContaining('[engage] traits ignored (not allowed for the browser by the account): tags')]);

      // the next page of the site needs no identify: the identity was kept (localStorage)
      pages.set('/cart', pageWith(tracking, `engage('track', 'Opened Cart');`));
      const next = await visit(context, `${allowed}/cart`);
      expect(await answered(next, 1)).toEqual([200]);
      expect(await performed(server, acct.key, email, 'Opened Cart')).toBe(1);
      expect(await performed(server, acct.key, email, 'page_viewed', 2)).toBe(1);
    } finally {
      await context.close();
    }
  });

  it('are refused on an origin the key does not allow: nothing arrives, and the console says why', async () => {
    const { acct, tracking, secret, email } = await shop();
    pages.set('/elsewhere', pageWith(tracking, `engage('identify', {email: ${JSON.stringify(email)}, user_hash: ${JSON.stringify(userHash(secret, email))}}); engage('track', 'Stolen');`));
    const context = await browser.newContext();
    try {
      const v = await visit(context, `${refused}/elsewhere`);
      // the service answered (a 403) without Access-Control-Allow-Origin, so the page may not read it
      const [status] = await answered(v, 1);
      expect([0, 403]).toContain(status);
      await eventually('Chromium to block the answer and the SDK to report it', async () =>
        v.console.some((m) => m.includes(`from origin '${refused}' has been blocked by CORS policy: No 'Access-Control-Allow-Origin' header`)) &&
        v.console.some((m) => m.startsWith('[engage] could not send'))
          ? true
          : undefined,
      15_000);
      expect(await contactByEmail(server, acct.key, email)).toBeUndefined();
      expect(await performed(server, acct.key, email, 'Stolen')).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('are refused with a wrong user_hash: the SDK reports the 401 on the console and no contact is named', async () => {
    const { acct, tracking, email } = await shop();
    const forged = userHash('eis_guessed', email);
    pages.set('/forged', pageWith(tracking, `engage('identify', {email: ${JSON.stringify(email)}, user_hash: ${JSON.stringify(forged)}}); engage('track', 'Forged');`));
    const context = await browser.newContext();
    try {
      const v = await visit(context, `${allowed}/forged`);
      expect(await answered(v, 1)).toEqual([401]);
      await eventually('the SDK to report the 401', async () => (v.console.some((m) => m.startsWith('[engage] unauthorized: user_hash does not match')) ? true : undefined), 15_000);
      expect(await contactByEmail(server, acct.key, email)).toBeUndefined();
    } finally {
      await context.close();
    }
  });
});
