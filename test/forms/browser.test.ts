// Signup forms in a real browser (README "Signup forms"): headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core) fills the hosted page and, on a website of the
// account's allowed origin, the form the pasted snippet draws; submits it; follows the emailed
// confirmation link and presses its button. The contact is then on the form's list with its consent
// in its history, and form.submitted reached the account's endpoint.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, seriousViolations } from '../support/browser.ts';
import { testServerForSuite } from '../support/harness.ts';
import { addWebhookEndpoint, receiverForSuite } from '../support/receivers.ts';
import { eventually } from '../support/waits.ts';

const server = testServerForSuite({ WEBHOOK_ALLOW_PRIVATE: 'true' });
const hooks = receiverForSuite();
let browser: Browser;
let site: Server;
let siteOrigin: string;
const sitePages = new Map<string, string>();

beforeAll(async () => {
  browser = await launchChromium();
  site = createServer((req, res) => {
    const html = sitePages.get(req.url ?? '');
    res.writeHead(html === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html ?? 'not found');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => site?.close(resolve));
});

const unique = () => randomBytes(5).toString('hex');

async function shop() {
  const acct = await server.newAccount();
  expect((await server.call('PUT', '/v1/account/tracking-origins', { key: acct.key, body: { origins: [siteOrigin] } })).status).toBe(200);
  await addWebhookEndpoint(server, acct.key, hooks.url, ['form.submitted']);
  const list = await server.call('POST', '/v1/lists', { key: acct.key, body: { name: 'Newsletter' } });
  const form = await server.call('POST', '/v1/forms', {
    key: acct.key,
    // min_fill_seconds 0: a test fills faster than a person; the fill time has its own tests
    body: { name: 'Our newsletter', fields: [{ name: 'email' }, { name: 'first_name' }], list_id: list.body.id, consent_text: 'I agree to receive the newsletter.', min_fill_seconds: 0 },
  });
  expect(form.status, JSON.stringify(form.body)).toBe(201);
  return { acct, listId: list.body.id as string, form: form.body as { id: string; url: string; snippet: string } };
}

/** Follows the confirmation link sent to `to` and presses its button. */
async function confirm(page: Page, key: string, to: string): Promise<void> {
  const message = await eventually('the confirmation message', async () => (await server.call('GET', `/v1/messages/history?to=${encodeURIComponent(to)}`, { key })).body.data[0]);
  const link = /https?:\/\/\S+\/f\/confirm\/[A-Za-z0-9._-]+/.exec(message.message)![0];
  await page.goto(link);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByText('You are subscribed').waitFor();
}

async function expectSubscribed(key: string, listId: string, email: string, formId: string) {
  const contact = (await server.call('GET', `/v1/contacts?email=${encodeURIComponent(email)}`, { key })).body.data[0];
  expect(contact).toMatchObject({ email, first_name: 'Ann' });
  expect((await server.call('GET', `/v1/lists/${listId}/contacts`, { key })).body.data.map((c: { id: string }) => c.id)).toEqual([contact.id]);
  const history = await server.call('GET', `/v1/contacts/${contact.id}/history`, { key });
  expect(history.body.data.find((e: { type: string }) => e.type === 'ContactConsentRecorded').changes).toMatchObject({ form_id: formId, method: 'double_opt_in', text: 'I agree to receive the newsletter.' });
  await eventually('form.submitted at the endpoint', async () => hooks.hits.find((h) => h.json?.type === 'form.submitted' && h.json.data.form_id === formId));
}

describe('a signup form in Chromium', () => {
  /** On a page showing the form (`check` runs on it first): fill, submit, follow the link, confirm; the contact is then subscribed. */
  async function signUpOn(url: string, shopOf: Awaited<ReturnType<typeof shop>>, check: (page: Page) => Promise<void> = async () => {}) {
    const { acct, listId, form } = shopOf;
    const email = `ann-${unique()}@example.com`;
    const page = await (await browser.newContext()).newPage();
    await page.goto(url);
    await check(page);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('First name').fill('Ann');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.getByText('Almost done').waitFor();
    await confirm(page, acct.key, email);
    await expectSubscribed(acct.key, listId, email, form.id);
    await page.context().close();
  }

  it('the hosted page: filled, submitted, confirmed by its link; the contact is on the list', async () => {
    const subscription = await shop();
    await signUpOn(subscription.form.url, subscription, async (page) => expect(await seriousViolations(page)).toEqual([]));
  });

  it("the snippet pasted into the account's website draws the same form, which submits and confirms the same way", async () => {
    const subscription = await shop();
    sitePages.set('/signup', `<!doctype html><html lang="en"><head><title>Shop</title></head><body><h1>Join us</h1>\n${subscription.form.snippet}\n</body></html>`);
    await signUpOn(`${siteOrigin}/signup`, subscription);
  });
});
