// The Overview and Billing pages in Chromium (README "Analytics and deliverability", README "Billing"):
// an account sends eleven messages through the sandbox (ten emails and an sms delivered, one email
// rejected at send) and waits for them to settle; the owner then reads the sent, delivered and failed
// figures on the Overview as text (stat cards and the tables under the named charts), narrows the
// period, and sees the deliverability and the balance the API answers; the Billing page shows the plan,
// this month's usage and the ledger the sends made, page by page as the API pages it; the owner
// changes the billing currency (read back through the API) and the billing details (a bad tax id
// refused with the API's own message); a viewer reads Billing without the controls that change it.
// Every page and the open dialog pass axe.
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { until } from '../support/waits.ts';
import { dashboardSuite, expectAccessible, openFromNavigation, signedIn, userWithRole } from './support.ts';

const suite = dashboardSuite();
const { server } = suite;

const EMAILS = 10;
const WAIT = { timeout: 20_000 };

interface LedgerEntry {
  id: string;
  kind: string;
  amount: string;
  currency: string;
  description: string;
  message_id: string | null;
}

let acct: TestAccount;

/** The texts of a table's body rows, cell by cell (the header row has no cells). */
async function bodyRows(table: Locator): Promise<string[][]> {
  const rows = await table.getByRole('row').all();
  const texts = await Promise.all(rows.map((row) => row.getByRole('cell').allTextContents()));
  return texts.filter((cells) => cells.length > 0).map((cells) => cells.map((c) => c.trim()));
}

/** The cells of the body row whose first cell is `first`. */
async function rowOf(table: Locator, first: string): Promise<string[] | undefined> {
  return (await bodyRows(table)).find((cells) => cells[0] === first);
}

/** The terms of the description lists in `within` with what each describes. */
async function statsIn(within: Locator): Promise<Record<string, string>> {
  const terms = await within.getByRole('term').allTextContents();
  const definitions = await within.getByRole('definition').allTextContents();
  return Object.fromEntries(terms.map((term, i) => [term.trim(), definitions[i]?.trim() ?? '']));
}

/** How the browser writes a number, an amount of money and a UTC day (as the pages do, in its locale). */
function writtenIn(page: Page) {
  return {
    number: (n: number) => page.evaluate((value) => new Intl.NumberFormat().format(value), n),
    money: (amount: string, currency: string) =>
      page.evaluate(([a, c]) => new Intl.NumberFormat(undefined, { style: 'currency', currency: c, maximumFractionDigits: 4 }).format(Number(a)), [amount, currency] as const),
    day: (day: string) => page.evaluate((d) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' }).format(Date.parse(`${d}T00:00:00Z`)), day),
  };
}

async function ledgerPage(cursor?: string): Promise<{ data: LedgerEntry[]; next_cursor: string | null }> {
  const res = await server.call('GET', `/v1/account/balance/transactions?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: acct.key });
  expect(res.status).toBe(200);
  return res.body;
}

beforeAll(async () => {
  acct = await server.newAccount('Overview and billing');
  const emails = Array.from({ length: EMAILS }, (_, i) => ({ channel: 'email', to: `reader-${i}@example.com`, subject: 'Your receipt', message: `Receipt ${i}`, transactional: true }));
  const bulk = await server.call('POST', '/v1/messages/bulk', { key: acct.key, body: { messages: emails } });
  expect(bulk.status).toBe(202);
  expect(bulk.body.accepted).toBe(EMAILS);
  const sms = await server.call('POST', '/v1/messages/send', { key: acct.key, body: { channel: 'sms', to: '+14155550123', message: 'Your code is 1234', transactional: true } });
  expect(sms.status).toBe(202);
  const rejected = await server.call('POST', '/v1/messages/send', {
    key: acct.key,
    body: { channel: 'email', to: 'reject@sandbox.engage.test', subject: 'Your receipt', message: 'Receipt', transactional: true },
  });
  expect(rejected.status).toBe(202);
  const delivered = [...bulk.body.results.map((r: { id: string }) => r.id), sms.body.id];
  const settled = async (id: string) => (await until(() => server.call('GET', `/v1/messages/${id}`, { key: acct.key }), (r) => r.body.status === 'delivered' || r.body.status === 'failed', 60_000, 100)).body.status;
  expect(await Promise.all(delivered.map(settled))).toEqual(delivered.map(() => 'delivered'));
  expect(await settled(rejected.body.id)).toBe('failed');
  await server.caughtUp(['analytics', 'billing']);
});

describe('the Overview page', () => {
  it('shows the messages sent, delivered and failed as text beside named charts, with deliverability and the balance', async () => {
    const analytics = await server.call('GET', '/v1/account/analytics', { key: acct.key });
    expect(analytics.body.totals).toMatchObject({ sent: EMAILS + 1, delivered: EMAILS + 1, failed: 1, clicked: 0 });

    const page = await signedIn(suite, acct);
    const written = writtenIn(page);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    // the stat cards: each figure under its term
    const totals = page.getByRole('region', { name: 'Totals' });
    await expect.poll(() => statsIn(totals), WAIT).toMatchObject({ Sent: '11', Delivered: '11', Failed: '1', Clicked: '0' });
    expect((await statsIn(totals))['Delivery rate']).toBe(`${(analytics.body.totals.delivery_rate * 100).toFixed(1)}%`);

    // the charts are images with names, and drawn
    const daily = page.getByRole('img', { name: /messages per day/i });
    const channels = page.getByRole('img', { name: /messages per channel/i });
    await daily.locator('svg').first().waitFor(WAIT);
    await channels.locator('svg').first().waitFor(WAIT);

    // the same numbers as text: the day they were sent, and each channel
    const days = analytics.body.days as { day: string; sent: number }[];
    const sendingDay = days.find((d) => d.sent > 0)!.day;
    const perDay = page.getByRole('table', { name: /messages per day/i });
    const dayName = await written.day(sendingDay);
    await expect.poll(() => rowOf(perDay, dayName), WAIT).toEqual([dayName, '11', '11', '1', '0']);
    expect((await bodyRows(perDay)).length).toBe(30);
    const perChannel = page.getByRole('table', { name: /messages per channel/i });
    expect(await rowOf(perChannel, 'Email')).toEqual(['Email', '10', '10', '1', '0']);
    expect(await rowOf(perChannel, 'SMS')).toEqual(['SMS', '1', '1', '0', '0']);
    expect(await rowOf(perChannel, 'Push')).toEqual(['Push', '0', '0', '0', '0']);

    // deliverability, as the API answers it
    const email = (await server.call('GET', '/v1/account/deliverability', { key: acct.key })).body;
    const byChannel = (await server.call('GET', '/v1/account/channel-deliverability', { key: acct.key })).body;
    const deliverability = page.getByRole('region', { name: 'Deliverability' });
    await expect.poll(() => deliverability.textContent(), WAIT).toContain(email.health.status);
    const weekRow = (await bodyRows(page.getByRole('table', { name: 'Email deliverability' })))[0]!;
    expect(weekRow.slice(1, 5)).toEqual([email.windows['7d'].sent, email.windows['7d'].delivered, email.windows['7d'].bounced, email.windows['7d'].complaints].map(String));
    expect(email.windows['7d'].delivered).toBe(EMAILS);
    const emailRates = byChannel.channels.find((c: { channel: string }) => c.channel === 'email').windows['7d'];
    const emailRow = await rowOf(page.getByRole('table', { name: 'Delivery by channel' }), 'Email');
    expect(emailRow?.slice(1, 4)).toEqual([emailRates.sent, emailRates.delivered, emailRates.failed].map(String));
    expect(emailRow?.[4]).toBe(`${(emailRates.delivery_rate * 100).toFixed(1)}%`);

    // the balance: the sends' debits
    const balance = (await server.call('GET', '/v1/account/balance', { key: acct.key })).body;
    expect(Number(balance.balance)).toBeLessThan(0);
    expect((await statsIn(page.getByRole('region', { name: 'Balance' })))['Prepaid balance']).toBe(await written.money(balance.balance, balance.currency));

    await page.waitForLoadState('networkidle');
    await expectAccessible(page, 'the Overview');

    // a shorter period asks the API for those days only
    await page.getByLabel('Period').selectOption({ label: 'Last 7 days' });
    await expect.poll(async () => (await bodyRows(perDay)).length, WAIT).toBe(7);
    expect(await rowOf(perDay, dayName)).toEqual([dayName, '11', '11', '1', '0']);
    expect((await statsIn(totals)).Sent).toBe('11');
    await page.context().close();
  });
});

describe('the Billing page', () => {
  it('shows the plan, the usage and the ledger the sends made, page by page as the API pages it', async () => {
    const plan = (await server.call('GET', '/v1/account/plan', { key: acct.key })).body;
    const first = await ledgerPage();
    expect(first.data).toHaveLength(10);
    expect(first.next_cursor).not.toBeNull();
    const second = await ledgerPage(first.next_cursor!);
    const entries = [...first.data, ...second.data];
    // every message sent was debited; the one rejected before sending was not
    expect(entries.filter((e) => e.kind === 'message')).toHaveLength(EMAILS + 1);
    expect(second.next_cursor).toBeNull();

    const page = await signedIn(suite, acct);
    const written = writtenIn(page);
    await openFromNavigation(page, 'Billing');

    const planRegion = page.getByRole('region', { name: 'Plan' });
    await planRegion.getByText(plan.name, { exact: true }).waitFor(WAIT);
    const usage = page.getByRole('table', { name: "This month's usage" });
    await expect.poll(() => rowOf(usage, 'Email'), WAIT).toEqual([
      'Email',
      await written.number(plan.usage_this_month.email.messages),
      await written.number(plan.usage_this_month.email.included),
      await written.number(plan.usage_this_month.email.remaining),
    ]);
    expect(plan.usage_this_month.email.messages).toBe(EMAILS);
    expect(await rowOf(usage, 'SMS')).toEqual(['SMS', '1', await written.number(plan.usage_this_month.sms.included), await written.number(plan.usage_this_month.sms.remaining)]);
    const upgrades = await bodyRows(page.getByRole('table', { name: 'Upgrade options' }));
    expect(upgrades.map((r) => r[0])).toEqual(plan.upgrade_options.map((o: { name: string }) => o.name));

    // the balance, and the ledger's first page as the API answers it
    const balance = (await server.call('GET', '/v1/account/balance', { key: acct.key })).body;
    const balanceShown = async () => (await statsIn(page.getByRole('region', { name: 'Balance' })))['Prepaid balance'];
    await expect.poll(balanceShown, WAIT).toBe(await written.money(balance.balance, balance.currency));
    const ledger = page.getByRole('table', { name: /balance ledger/i });
    const shown = async (entries: LedgerEntry[]) =>
      Promise.all(entries.map(async (e) => [e.description, e.message_id ?? '—', await written.money(e.amount, e.currency)]));
    const ledgerTexts = async () => (await bodyRows(ledger)).map((cells) => [cells[2], cells[4], cells[5]]);
    await expect.poll(ledgerTexts, WAIT).toEqual(await shown(first.data));
    const usageTable = page.getByRole('table', { name: /messages sent and charged/i });
    const month = new Date().toISOString().slice(0, 7);
    const usageApi = (await server.call('GET', '/v1/account/usage', { key: acct.key })).body;
    const thisMonth = usageApi.months.find((m: { month: string }) => m.month === month);
    expect((await bodyRows(usageTable)).find((r) => r[1] === 'Email')?.slice(2)).toEqual([
      String(thisMonth.channels.email.messages),
      await written.money(thisMonth.channels.email.amount, thisMonth.channels.email.currency),
    ]);
    await page.waitForLoadState('networkidle');
    await expectAccessible(page, 'the Billing page');

    // the next page is the API's next page, and back
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(ledgerTexts, WAIT).toEqual(await shown(second.data));
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(ledgerTexts, WAIT).toEqual(await shown(first.data));
    await page.context().close();
  });

  it('lets the owner change the billing currency (read back through the API) and the billing details, showing the API refusal of a bad tax id', async () => {
    const before = (await server.call('GET', '/v1/account/billing-currency', { key: acct.key })).body;
    expect(before.currency).toBe('USD');
    const page = await signedIn(suite, acct, '/billing');
    const written = writtenIn(page);
    const currencyRegion = page.getByRole('region', { name: 'Billing currency' });
    await currencyRegion.getByText(before.conversion).first().waitFor(WAIT);

    await currencyRegion.getByRole('combobox', { name: 'Billing currency' }).selectOption('EUR');
    await page.getByRole('button', { name: 'Change billing currency' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change the billing currency to EUR?' });
    await dialog.waitFor(WAIT);
    await expectAccessible(page, 'the billing currency dialog');
    await dialog.getByRole('button', { name: 'Convert the balance' }).click();
    await expect.poll(() => currencyRegion.getByRole('status').textContent(), WAIT).toMatch(/The billing currency is now EUR \(from USD/);

    // read back through the API: the currency, the converted balance and two conversion entries
    const after = (await server.call('GET', '/v1/account/billing-currency', { key: acct.key })).body;
    expect(after.currency).toBe('EUR');
    expect(after.last_change).toMatchObject({ from: 'USD', to: 'EUR' });
    const balance = (await server.call('GET', '/v1/account/balance', { key: acct.key })).body;
    expect(balance.currency).toBe('EUR');
    await expect.poll(async () => (await statsIn(page.getByRole('region', { name: 'Balance' })))['Prepaid balance'], WAIT).toBe(await written.money(balance.balance, 'EUR'));
    const newest = (await ledgerPage()).data.slice(0, 2);
    expect(newest.map((e) => e.kind)).toEqual(['conversion', 'conversion']);
    const ledger = page.getByRole('table', { name: /balance ledger/i });
    await expect.poll(async () => (await bodyRows(ledger)).slice(0, 2).map((cells) => [cells[1], cells[5]]), WAIT).toEqual(
      await Promise.all(newest.map(async (e) => ['Conversion', await written.money(e.amount, e.currency)])),
    );
    expect(await currencyRegion.getByRole('definition').first().textContent()).toBe('EUR');

    // billing details: a tax id of the wrong format is refused with the API's own message
    const details = page.getByRole('form', { name: 'Edit billing details' });
    await details.getByLabel('Company').fill('Acme GmbH');
    await details.getByLabel('Address line 1').fill('Unter den Linden 1');
    await details.getByLabel('City').fill('Berlin');
    await details.getByLabel('Postal code').fill('10117');
    await details.getByLabel('Country').fill('DE');
    await details.getByLabel('Tax id').fill('DE123');
    const refusal = await server.call('PUT', '/v1/account/billing-details', {
      key: acct.key,
      body: { company: 'Acme GmbH', address: { line1: 'Unter den Linden 1', city: 'Berlin', postal_code: '10117', country: 'DE' }, tax_id: 'DE123' },
    });
    expect(refusal.status).toBe(400);
    await details.getByRole('button', { name: 'Save billing details' }).click();
    await expect.poll(() => details.getByRole('alert').textContent(), WAIT).toContain(refusal.body.message);
    await expectAccessible(page, 'the billing details form with an error');
    await details.getByLabel('Tax id').fill('DE136695976');
    await details.getByRole('button', { name: 'Save billing details' }).click();
    await details.getByRole('status').getByText('Billing details saved.').waitFor(WAIT);
    const saved = (await server.call('GET', '/v1/account/billing-details', { key: acct.key })).body;
    expect(saved).toMatchObject({ company: 'Acme GmbH', address: { line1: 'Unter den Linden 1', city: 'Berlin', postal_code: '10117', country: 'DE' }, tax_id: { type: 'eu_vat', value: 'DE136695976' } });
    await page.getByRole('region', { name: 'Billing details' }).getByText('DE136695976 (eu_vat)').waitFor(WAIT);
    await page.context().close();
  });

  it('shows a viewer the plan, the ledger and the billing settings without the controls that change them', async () => {
    const viewer = await userWithRole(server, acct, 'viewer');
    const page = await signedIn(suite, viewer, '/billing');
    await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
    const plan = (await server.call('GET', '/v1/account/plan', { key: acct.key })).body;
    await page.getByRole('region', { name: 'Plan' }).getByText(plan.name, { exact: true }).waitFor(WAIT);
    const ledger = page.getByRole('table', { name: /balance ledger/i });
    const newest = (await ledgerPage()).data;
    await expect.poll(async () => (await bodyRows(ledger)).map((cells) => cells[2]), WAIT).toEqual(newest.map((e) => e.description));
    // the settings are read, not changed: every section has loaded, and none offers a control
    const currency = (await server.call('GET', '/v1/account/billing-currency', { key: acct.key })).body;
    await page.getByRole('region', { name: 'Billing currency' }).getByText(currency.conversion).first().waitFor(WAIT);
    const details = (await server.call('GET', '/v1/account/billing-details', { key: acct.key })).body;
    await page.getByRole('region', { name: 'Billing details' }).getByText(details.company ?? 'Not set', { exact: true }).waitFor(WAIT);
    expect(await page.getByRole('combobox').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Change billing currency' }).count()).toBe(0);
    expect(await page.getByRole('form', { name: 'Edit billing details' }).count()).toBe(0);
    expect(await page.getByRole('textbox').count()).toBe(0);
    await page.waitForLoadState('networkidle');
    await expectAccessible(page, 'the Billing page of a viewer');
    await page.context().close();
  });
});
