// The dashboard's frame in Chromium (README "The dashboard"): served at /app (and / sends a browser
// there), the sign-in form with the API's refusal, the main navigation to every page with no serious
// accessibility violation on any of them, a session that survives a reload and ends on Sign out, and a
// viewer whose session the API itself refuses every write.
import { createClient } from '../../client/src/index.ts';
import { describe, expect, it } from 'vitest';
import { listsProjection } from '../../projections/lists.ts';
import { bootstrapFirstAccount } from '../../src/server.ts';
import { holdRebuild } from '../support/held-read-model.ts';
import { dashboardSuite, expectAccessible, openFromNavigation, signedIn, userWithRole } from './support.ts';

const suite = dashboardSuite();
const { server } = suite;

const NAVIGATION = ['Overview', 'Messages', 'Contacts', 'Lists', 'Segments', 'Campaigns', 'Domains', 'Webhooks', 'Conversations', 'API keys', 'Billing'];

describe('the dashboard at /app', () => {
  it('signs in a new user with the credentials the first start prints', async () => {
    // this suite's database has no account yet: the start's own bootstrap, on a terminal
    const printed: string[] = [];
    await bootstrapFirstAccount(server.engage, (line) => printed.push(line), true);
    const credentials = /dashboard: (\S+@\S+) \/ (\S+)/.exec(printed.join('\n'));
    expect(credentials, printed.join('\n')).not.toBeNull();
    const page = await signedIn(suite, { email: credentials![1], password: credentials![2] });
    await expect.poll(() => page.getByText('My account · owner@engage.local (owner)').count()).toBe(1);
    await page.context().close();
  });

  it('is served at /app with a strict content security policy, and / sends a browser there', async () => {
    const root = await fetch(`${server.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/app/');
    // any path under /app is the page (its router draws the view)
    const deep = await fetch(`${server.url}/app/messages/msg_123`);
    expect(deep.status).toBe(200);
    expect(deep.headers.get('content-type')).toMatch(/^text\/html/);
    expect(deep.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(deep.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await deep.text();
    const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${server.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    // compressed at build, sent as the browser accepts it
    const brotli = await fetch(`${server.url}${script}`, { headers: { 'accept-encoding': 'br' } });
    expect(brotli.headers.get('content-encoding')).toBe('br');
    expect(await brotli.text()).toBe(await asset.text());
    expect((await fetch(`${server.url}/app/assets/missing.js`)).status).toBe(404);
    // the API is where it was, and the OpenAPI document does not list the dashboard's paths
    const doc = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p === '/' || p.startsWith('/app'))).toEqual([]);
  });

  it("refuses a wrong password with the API's message, and the sign-in form is accessible", async () => {
    const acct = await server.newAccount();
    const page = await (await suite.browser().newContext()).newPage();
    await page.goto(`${server.url}/app/`);
    await expectAccessible(page, 'the sign-in form');
    await page.getByLabel('Email').fill(acct.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/invalid email or password/i);
    await page.context().close();
  });

  it('signs the owner in, reaches every page from the navigation with no serious accessibility violation, and keeps the session across a reload', async () => {
    const acct = await server.newAccount('Dashboard frame');
    const page = await signedIn(suite, acct);
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(NAVIGATION);
    await expect.poll(() => page.getByText(`${acct.email} (owner)`).count()).toBe(1);
    for (const name of NAVIGATION) {
      await openFromNavigation(page, name);
      // let the page's first answers arrive before judging it
      await page.waitForLoadState('networkidle');
      await expectAccessible(page, `the ${name} page`);
    }
    await page.reload();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.context().close();
  });

  it('works from the keyboard: signs in with Tab and Enter, and opens a page from the navigation', async () => {
    const acct = await server.newAccount();
    const page = await (await suite.browser().newContext()).newPage();
    await page.goto(`${server.url}/app/`);
    await page.getByLabel('Email').waitFor();
    const focused = () => page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      const label = el?.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : undefined;
      return label ?? el?.textContent ?? '';
    });
    /** Tab until the control named `name` has the focus (at most 30 presses). */
    const tabTo = async (name: string) => {
      for (let i = 0; i < 30 && (await focused()) !== name; i++) await page.keyboard.press('Tab');
      expect(await focused()).toBe(name);
    };
    await tabTo('Email');
    await page.keyboard.type(acct.email);
    await tabTo('Password');
    await page.keyboard.type(acct.password);
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await tabTo('Conversations');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Conversations' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/app/conversations');
    await page.context().close();
  });

  it('shows a read model being rebuilt as a progress bar until it has caught up', async () => {
    const acct = await server.newAccount();
    for (let i = 0; i < 3; i++) expect((await server.call('POST', '/v1/lists', { key: acct.key, body: { name: `List ${i}` } })).status).toBe(201);
    const page = await signedIn(suite, acct);
    // the rebuild's batches wait for the runner's lock of its generation, held here: it stays rebuilding
    const held = await holdRebuild(server.engage.pool, listsProjection);
    try {
      await page.reload();
      const bar = page.getByRole('progressbar', { name: /^Rebuilding lists/ });
      await bar.waitFor({ timeout: 20_000 });
      await expectAccessible(page, 'the overview while a read model is rebuilt');
      await held.release();
      // caught up and swapped in: the banner goes on its next look at /health
      await bar.waitFor({ state: 'detached', timeout: 30_000 });
    } finally {
      await held.release();
    }
    expect((await server.call('GET', '/v1/lists', { key: acct.key })).body.data).toHaveLength(3);
    await page.context().close();
  });

  it("gives a viewer a session the API itself refuses every write: the dashboard cannot go around the API's checks", async () => {
    const acct = await server.newAccount();
    const viewer = await userWithRole(server, acct, 'viewer');
    const page = await signedIn(suite, viewer);
    await expect.poll(() => page.getByText(`${viewer.email} (viewer)`).count()).toBe(1);
    // the token the dashboard holds, used as the dashboard uses it: through the typed client
    const token = await page.evaluate(() => (JSON.parse(sessionStorage.getItem('engage.session') ?? '{}') as { token?: string }).token);
    expect(token).toBeTruthy();
    const engage = createClient({ baseUrl: server.url, token: token!, maxRetries: 0 });
    const read = await engage.GET('/v1/contacts');
    expect(read.response.status).toBe(200);
    const write = await engage.POST('/v1/contacts', { body: { email: 'someone@example.com' } });
    expect(write.response.status).toBe(403);
    const send = await engage.POST('/v1/messages/send', { body: { channel: 'email', to: 'someone@example.com', subject: 'Hi', message: 'Hello' } });
    expect(send.response.status).toBe(403);
    const key = await engage.POST('/v1/account/api-keys', { body: { name: 'from a viewer' } });
    expect(key.response.status).toBe(403);
    await page.context().close();
  });
});
