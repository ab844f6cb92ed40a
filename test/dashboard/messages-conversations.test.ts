// The Messages and Conversations pages in Chromium (README "The dashboard", "Messaging", "Inbound
// messages and conversations"): a message sent from the API is found in the list, and its page follows
// its status to delivered without a reload; a send from the dashboard's form lands on the new
// message's page (and a refusal shows the API's message); a scheduled message is cancelled through the
// dialog and a message resent; a viewer gets no write controls; an inbound sms starts a conversation
// that is in the inbox, its thread shows it, and a reply from the dashboard is in the thread. Each
// outcome is read back through the API, and axe checks every page and the open dialog.
import { randomInt } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { postCarrier, SECRETS } from '../webhooks-inbound/helpers.ts';
import type { TestAccount } from '../support/accounts.ts';
import { eventually } from '../support/waits.ts';
import { dashboardSuite, expectAccessible, openFromNavigation, signedIn, userWithRole } from './support.ts';

const OUR_SMS_NUMBER = '+447400123111';
// the sandbox reports delivery this long after a send: long enough to see a page move from sent to
// delivered on its own
const DELIVERY_DELAY_MS = 8000;
const suite = dashboardSuite({
  WEBHOOK_SECRET_CARRIER: SECRETS.WEBHOOK_SECRET_CARRIER,
  DEFAULT_SMS_SENDER: OUR_SMS_NUMBER,
  SANDBOX_DELIVERY_DELAY_MS: String(DELIVERY_DELAY_MS),
});
const { server } = suite;

/** The status, as text: the live region named Status. */
const statusText = (page: Page) => page.getByRole('status', { name: 'Status' }).textContent();
/** The page's Details region. */
const details = (page: Page) => page.getByRole('region', { name: 'Details' });
/** Waits until the Details show `id` (the message or conversation the page is about). */
const showsId = (page: Page, id: string) => expect.poll(() => details(page).getByText(id, { exact: true }).count()).toBe(1);

async function sendFromApi(account: TestAccount, body: Record<string, unknown>): Promise<string> {
  const res = await server.call('POST', '/v1/messages/send', { key: account.key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
}

const messageOf = async (account: TestAccount, id: string) => (await server.call('GET', `/v1/messages/${id}`, { key: account.key })).body;

/** A message's page, reached by its link in the Messages list (or, with `id` null, only the list);
 * `onList` runs while the list is shown. */
async function openFromList(page: Page, id: string | null, onList?: () => Promise<void>): Promise<void> {
  await openFromNavigation(page, 'Messages');
  await page.getByRole('table', { name: 'Messages, newest first' }).waitFor();
  await onList?.();
  if (id === null) return;
  await page.getByRole('link', { name: id, exact: true }).click();
  await page.waitForURL(`**/app/messages/${id}`);
  await showsId(page, id);
}

describe('the Messages pages', () => {
  it('opens a message sent from the API from the list, and follows its status to delivered without a reload', async () => {
    const acct = await server.newAccount('Messages');
    const page = await signedIn(suite, acct);
    // the list's accessibility is checked with an earlier message in it, before the message followed
    // here is sent: the sandbox's delivery delay runs from that send, and the check takes seconds on a
    // loaded machine (the first status read below once came after delivery)
    await sendFromApi(acct, { channel: 'email', to: 'earlier@example.com', subject: 'Welcome', message: 'Welcome aboard.' });
    await server.caughtUp(['messages']);
    await openFromList(page, null, () => expectAccessible(page, 'the Messages list, with the send form'));
    await openFromNavigation(page, 'Overview');
    const id = await sendFromApi(acct, { channel: 'email', to: 'reader@example.com', subject: 'Your receipt', message: 'Thank you for your order.' });
    await server.caughtUp(['messages']);
    await openFromList(page, id);
    // a mark a reload would wipe
    await page.evaluate(() => {
      (window as unknown as { stayedHere?: boolean }).stayedHere = true;
    });
    // not there yet: the sandbox reports delivery seconds after the send
    expect(['queued', 'sent']).toContain(await statusText(page));
    expect(await details(page).getByText('reader@example.com', { exact: true }).count()).toBe(1);
    await expect.poll(() => statusText(page), { timeout: DELIVERY_DELAY_MS + 20_000, interval: 250 }).toBe('delivered');
    expect(await page.evaluate(() => (window as unknown as { stayedHere?: boolean }).stayedHere)).toBe(true);
    expect((await messageOf(acct, id)).status).toBe('delivered');
    // the timeline shows the delivery too
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await expect.poll(() => timeline.getByRole('listitem').filter({ hasText: 'Delivered' }).count()).toBe(1);
    expect(await page.getByText('Thank you for your order.').count()).toBe(1);
    await expectAccessible(page, 'a message page');
    await page.context().close();
  });

  it("sends from the dashboard's form and lands on the new message's page; a refusal shows the API's message", async () => {
    const acct = await server.newAccount();
    const page = await signedIn(suite, acct, '/messages');
    const form = page.getByRole('form', { name: 'Send a message' });
    await form.getByLabel('Channel').selectOption('email');
    await form.getByLabel('To').fill('not an address');
    await form.getByLabel('Subject').fill('Hello');
    await form.getByLabel('Message text').fill('Hello from the dashboard');
    await form.getByRole('button', { name: 'Send message' }).click();
    // the API's own words for the same request
    const refused = await server.call('POST', '/v1/messages/send', { key: acct.key, body: { channel: 'email', to: 'not an address', subject: 'Hello', message: 'Hello from the dashboard' } });
    expect(refused.status).toBe(400);
    await expect.poll(() => form.getByRole('alert').textContent()).toContain(refused.body.message);
    expect(page.url()).toMatch(/\/app\/messages$/);
    expect((await server.call('GET', '/v1/messages/history', { key: acct.key })).body.data).toEqual([]);

    await form.getByLabel('To').fill('friend@example.com');
    await form.getByRole('button', { name: 'Send message' }).click();
    await page.waitForURL(/\/app\/messages\/msg_[0-9A-Za-z]+$/);
    const id = page.url().split('/').pop()!;
    await showsId(page, id);
    expect(await messageOf(acct, id)).toMatchObject({ channel: 'email', to: 'friend@example.com', subject: 'Hello', message: 'Hello from the dashboard' });
    await page.context().close();
  });

  it('cancels a scheduled message through the dialog, and resends a message to its new page', async () => {
    const acct = await server.newAccount();
    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const later = await sendFromApi(acct, { channel: 'sms', to: '+14155550123', message: 'See you tomorrow', scheduled_at: scheduledAt });
    const page = await signedIn(suite, acct);
    await openFromList(page, later);
    expect(await statusText(page)).toBe('scheduled');
    await page.getByRole('button', { name: 'Cancel message' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this message?' });
    await dialog.waitFor();
    await expectAccessible(page, 'the cancel dialog');
    await dialog.getByRole('button', { name: 'Yes, cancel it' }).click();
    await expect.poll(() => statusText(page)).toBe('cancelled');
    expect(await dialog.isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Cancel message' }).count()).toBe(0);
    expect(await messageOf(acct, later)).toMatchObject({ status: 'cancelled', cancelled_at: expect.any(String) });

    // resend it: a new message with the same content, on its own page
    await page.getByRole('button', { name: 'Resend' }).click();
    const resendDialog = page.getByRole('dialog', { name: 'Resend this message?' });
    await resendDialog.getByRole('button', { name: 'Send it again' }).click();
    await page.waitForURL((url) => /\/app\/messages\/msg_/.test(url.pathname) && !url.pathname.endsWith(later));
    const resent = page.url().split('/').pop()!;
    await showsId(page, resent);
    expect(await details(page).getByRole('link', { name: later, exact: true }).count()).toBe(1);
    expect(await messageOf(acct, resent)).toMatchObject({ resend_of: later, to: '+14155550123', message: 'See you tomorrow' });
    await page.context().close();
  });

  it('gives a viewer the list and the message pages without a send form, Cancel or Resend', async () => {
    const acct = await server.newAccount();
    const viewer = await userWithRole(server, acct, 'viewer');
    const later = await sendFromApi(acct, { channel: 'sms', to: '+14155550124', message: 'Later', scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
    const page = await signedIn(suite, viewer);
    await openFromList(page, later);
    expect(await statusText(page)).toBe('scheduled');
    expect(await page.getByRole('button', { name: 'Cancel message' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Resend' }).count()).toBe(0);
    await openFromNavigation(page, 'Messages');
    await page.getByRole('table', { name: 'Messages, newest first' }).waitFor();
    expect(await page.getByRole('form', { name: 'Send a message' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Send message' }).count()).toBe(0);
    await page.context().close();
  });
});

describe('the Conversations pages', () => {
  it('shows an inbound sms in the inbox and its thread, and a reply sent from the dashboard joins the thread', async () => {
    const acct = await server.newAccount('Inbox');
    const customer = `+44740012${String(randomInt(1000, 9999))}`;
    // the account writes first from the default number, so the answer to it is the account's
    await sendFromApi(acct, { channel: 'sms', to: customer, message: 'Your parcel is on its way' });
    await server.caughtUp(['reply_routes']);
    const inbound = await postCarrier(server, { MessageSid: `SM${String(randomInt(1e9, 2e9)).padStart(32, '0')}`, AccountSid: 'AC123', From: customer, To: OUR_SMS_NUMBER, Body: 'Where is my parcel?', NumMedia: '0' });
    expect(inbound.status, JSON.stringify(inbound.body)).toBe(200);
    const conversation = await eventually('the conversation in the inbox', async () => (await server.call('GET', '/v1/conversations', { key: acct.key })).body.data[0] as { id: string } | undefined);

    const page = await signedIn(suite, acct);
    await openFromNavigation(page, 'Conversations');
    const inbox = page.getByRole('table', { name: 'Inbox, newest activity first' });
    await inbox.waitFor();
    expect(await inbox.getByRole('row').filter({ hasText: conversation.id }).getByText('1 unread').count()).toBe(1);
    await expectAccessible(page, 'the inbox');
    await inbox.getByRole('link', { name: conversation.id, exact: true }).click();
    await page.waitForURL(`**/app/conversations/${conversation.id}`);
    const thread = page.getByRole('list', { name: 'Thread' });
    await thread.waitFor();
    const received = thread.getByRole('listitem').filter({ hasText: 'Where is my parcel?' });
    expect(await received.count()).toBe(1);
    expect(await received.getByText(`Received from ${customer}`).count()).toBe(1);
    await expect.poll(() => details(page).getByText('sms', { exact: true }).count()).toBe(1);
    expect(await statusText(page)).toBe('open');
    await expectAccessible(page, 'a conversation thread');

    // marked read from the page, as the API then says
    const inboxRow = async () =>
      ((await server.call('GET', '/v1/conversations', { key: acct.key })).body.data as { id: string; status: string; read: boolean }[]).find((c) => c.id === conversation.id);
    expect(await details(page).getByText('1 unread', { exact: true }).count()).toBe(1);
    await page.getByRole('button', { name: 'Mark as read' }).click();
    await page.getByRole('button', { name: 'Mark as unread' }).waitFor();
    expect(await inboxRow()).toMatchObject({ read: true });
    await page.getByRole('button', { name: 'Mark as unread' }).click();
    await page.getByRole('button', { name: 'Mark as read' }).waitFor();
    expect(await inboxRow()).toMatchObject({ read: false });

    // a reply from the dashboard joins the thread (and answering reads it)
    expect(await page.getByRole('form', { name: 'Reply' }).count()).toBe(1);
    await page.getByLabel('Reply text').fill('It arrives tomorrow.');
    await page.getByRole('button', { name: 'Send reply' }).click();
    const reply = thread.getByRole('listitem').filter({ hasText: 'It arrives tomorrow.' });
    await expect.poll(() => reply.count()).toBe(1);
    expect(await reply.getByText(`Sent to ${customer}`).count()).toBe(1);
    const entries = (await server.call('GET', `/v1/conversations/${conversation.id}/messages`, { key: acct.key })).body.data as { direction: string; body: string }[];
    expect(entries.map((e) => [e.direction, e.body])).toEqual([
      ['inbound', 'Where is my parcel?'],
      ['outbound', 'It arrives tomorrow.'],
    ]);
    await page.getByRole('button', { name: 'Mark as unread' }).waitFor();

    // closed from the page
    await page.getByRole('button', { name: 'Close conversation' }).click();
    await expect.poll(() => statusText(page)).toBe('closed');
    expect(await page.getByRole('button', { name: 'Reopen conversation' }).count()).toBe(1);
    expect(await inboxRow()).toMatchObject({ status: 'closed', read: true });
    await page.context().close();

    // a viewer reads the thread with no reply form and no inbox controls
    const viewer = await userWithRole(server, acct, 'viewer');
    const viewerPage = await signedIn(suite, viewer, `/conversations/${conversation.id}`);
    await viewerPage.getByRole('list', { name: 'Thread' }).getByText('Where is my parcel?').waitFor();
    expect(await viewerPage.getByRole('form', { name: 'Reply' }).count()).toBe(0);
    expect(await viewerPage.getByRole('button', { name: 'Reopen conversation' }).count()).toBe(0);
    await viewerPage.context().close();
  });
});
