// The Webhooks and API keys pages in Chromium (README "Webhooks", "Webhook replay", "API keys and
// credentials"): an endpoint added from the dashboard to a local receiver, its secret shown once and
// verifying what the receiver got, its deliveries appearing on its page with their status as text, a
// failed one retried from the page until it succeeds, a test ping, a replay followed to completion and
// another cancelled, the endpoint's settings, the per-message secret; keys created (shown once), used,
// revoked (the API then refuses them) and rotated (the old one's expiry shown); a viewer and a member
// offered no control the API would refuse. axe on every page and open dialog.
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../client/src/index.ts';
import type { TestAccount } from '../support/accounts.ts';
import { addWebhookEndpoint, type Hit, receiverForSuite } from '../support/receivers.ts';
import { until } from '../support/waits.ts';
import { dashboardSuite, expectAccessible, signedIn, userWithRole } from './support.ts';

// deliveries to 127.0.0.1 allowed (tests only), and one quick retry: a refused delivery fails in ms
const suite = dashboardSuite({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '200ms' });
const { server } = suite;

/** Contacts whose deliveries the receiver refuses while `refusing` holds (by email). */
const refused = new Set<string>();
let refusing = true;
/** While set, replayed deliveries are answered only once it resolves (a replay that stays in flight). */
let holdReplays: { promise: Promise<void>; release: () => void } | undefined;

const receiver = receiverForSuite(async (hit) => {
  if (refusing && refused.has(hit.json?.data?.email)) return 500;
  if (hit.headers['x-service-replay'] && holdReplays) await holdReplays.promise;
  return 200;
});
afterAll(() => holdReplays?.release());

const WAIT = { timeout: 30_000, interval: 200 };
const hitsOf = (accountId: string) => receiver.hits.filter((h: Hit) => h.json?.account_id === accountId);

/** `ms` as a datetime-local input takes it, in the browser's time zone. */
async function localInput(page: Page, ms: number): Promise<string> {
  return page.evaluate((at) => {
    const d = new Date(at);
    const two = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
  }, ms);
}

async function createContact(account: TestAccount, email: string): Promise<string> {
  const res = await server.call('POST', '/v1/contacts', { key: account.key, body: { email } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** The rows of the deliveries table whose Status cell says `status`. */
const deliveryRows = (page: Page, status: string) =>
  page.getByRole('table', { name: 'Deliveries, newest first' }).getByRole('row').filter({ has: page.getByRole('cell', { name: status, exact: true }) });

describe('the Webhooks pages', () => {
  it('adds an endpoint from the dashboard (its secret shown once verifies what arrives), shows its deliveries with their status, retries a failed one until it succeeds, and sends a test ping', { timeout: 180_000 }, async () => {
    const account = await server.newAccount('Webhooks from the dashboard');
    const page = await signedIn(suite, account, '/webhooks');
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No webhook endpoints yet.').waitFor();
    await expectAccessible(page, 'the Webhooks page');

    const form = page.getByRole('form', { name: 'Add endpoint', exact: true });
    await form.getByLabel('URL').fill(receiver.url);
    await form.getByLabel('contact.created', { exact: true }).check();
    await expect.poll(() => form.getByText('1 of 10 checked.').count()).toBe(1);
    await form.getByRole('button', { name: 'Add endpoint' }).click();

    const shown = page.getByRole('region', { name: 'Signing secret', exact: true });
    await shown.waitFor();
    const secret = (await shown.getByText(/^whsec_/).textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await expectAccessible(page, 'the Webhooks page with a new signing secret');

    // read back through the API
    const listed = await server.call('GET', '/v1/webhook-endpoints', { key: account.key });
    expect(listed.body.data).toEqual([expect.objectContaining({ url: receiver.url, events: ['contact.created'], status: 'active' })]);
    const endpointId = listed.body.data[0].id as string;

    // the endpoint's page, from its link: the secret is not shown again
    await page.getByRole('table', { name: 'Webhook endpoints' }).getByRole('link', { name: receiver.url }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
    expect(page.url()).toBe(`${server.url}/app/webhooks/${endpointId}`);
    await page.getByText('No deliveries yet.').waitFor();
    expect(await page.getByText(secret).count()).toBe(0);
    await expectAccessible(page, 'an endpoint page');

    // an event: a delivery arrives, signed with the secret shown, and appears on the page as delivered
    await createContact(account, 'accepted@example.com');
    const [arrived] = await until(() => hitsOf(account.accountId).filter((h) => h.json.type === 'contact.created'), (l) => l.length > 0);
    expect(arrived, 'a contact.created delivery').toBeDefined();
    expect(await verifyWebhook({ secret, headers: arrived.headers, body: arrived.body })).toBe(true);
    expect(await verifyWebhook({ secret: `${secret}x`, headers: arrived.headers, body: arrived.body })).toBe(false);
    await expect.poll(() => deliveryRows(page, 'delivered').count(), WAIT).toBe(1);
    const deliveredRow = deliveryRows(page, 'delivered').first();
    expect(await deliveredRow.textContent()).toContain('contact.created');
    expect(await deliveredRow.textContent()).toContain('HTTP 200');
    expect(await deliveredRow.getByRole('button', { name: /^Retry/ }).count()).toBe(0);

    // a delivery the receiver refuses: failed after its retry, shown with its status and response
    refused.add('refused@example.com');
    await createContact(account, 'refused@example.com');
    await expect.poll(() => deliveryRows(page, 'failed').count(), WAIT).toBe(1);
    const failedRow = deliveryRows(page, 'failed');
    expect(await failedRow.textContent()).toContain('HTTP 500');
    const failed = await server.call('GET', `/v1/webhook-endpoints/${endpointId}/deliveries?status=failed`, { key: account.key });
    expect(failed.body.data).toEqual([expect.objectContaining({ status: 'failed', attempts: 2, status_code: 500 })]);
    const failedId = failed.body.data[0].id as string;
    await expectAccessible(page, 'an endpoint page with a failed delivery');

    // the receiver answers again; Retry sends it now and it is delivered
    refusing = false;
    await failedRow.getByRole('button', { name: /^Retry/ }).click();
    await expect.poll(() => deliveryRows(page, 'delivered').count(), WAIT).toBe(2);
    expect(await deliveryRows(page, 'failed').count()).toBe(0);
    const retried = await server.call('GET', `/v1/webhook-endpoints/${endpointId}/deliveries?status=delivered`, { key: account.key });
    expect(retried.body.data.find((d: { id: string }) => d.id === failedId)).toMatchObject({ status: 'delivered', attempts: 3, status_code: 200 });
    const refusedHits = hitsOf(account.accountId).filter((h) => h.json.data?.email === 'refused@example.com');
    expect(refusedHits).toHaveLength(3);
    expect(await verifyWebhook({ secret, headers: refusedHits[2].headers, body: refusedHits[2].body })).toBe(true);

    // a test ping: what the receiver answered, said on the page
    await page.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'The ping was answered 200' }).count(), WAIT).toBe(1);
    const ping = hitsOf(account.accountId).find((h) => h.json.type === 'ping');
    expect(ping?.json.data).toEqual({ endpoint_id: endpointId });
    expect(await verifyWebhook({ secret, headers: ping!.headers, body: ping!.body })).toBe(true);
    await page.context().close();
  });

  it("replays a window of the log, its progress polled until it is completed, and cancels another replay through its dialog", { timeout: 180_000 }, async () => {
    const account = await server.newAccount('Replays from the dashboard');
    const endpoint = (await server.call('POST', '/v1/webhook-endpoints', { key: account.key, body: { url: receiver.url } })).body as { id: string; secret: string };
    const start = Date.now() - 2000;
    await createContact(account, 'ann@example.com');
    await createContact(account, 'bob@example.com');
    await until(() => hitsOf(account.accountId).filter((h) => h.json.type === 'contact.created'), (l) => l.length === 2);

    const page = await signedIn(suite, account, `/webhooks/${endpoint.id}`);
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
    await page.getByText('No replays yet.').waitFor();
    const replayForm = page.getByRole('form', { name: 'Replay events', exact: true });
    await replayForm.getByLabel('From', { exact: true }).fill(await localInput(page, start));
    await replayForm.getByLabel('contact.created', { exact: true }).check();
    await replayForm.getByRole('button', { name: 'Start replay' }).click();

    // its progress, polled until completed: the bar full at delivered = found
    const progress = page.getByRole('region', { name: 'Replay progress', exact: true });
    const bar = progress.getByRole('progressbar', { name: 'Replay deliveries' });
    await bar.waitFor();
    await expect.poll(() => progress.getByText('completed', { exact: true }).count(), WAIT).toBe(1);
    expect(await bar.evaluate((el) => [(el as HTMLProgressElement).value, (el as HTMLProgressElement).max])).toEqual([2, 2]);
    await expectAccessible(page, 'an endpoint page with a completed replay');
    const replays = await server.call('GET', `/v1/webhook-endpoints/${endpoint.id}/replays`, { key: account.key });
    expect(replays.body.data).toEqual([expect.objectContaining({ status: 'completed', found: 2, delivered: 2, types: ['contact.created'] })]);
    const replayId = replays.body.data[0].id as string;
    const replayed = hitsOf(account.accountId).filter((h) => h.headers['x-service-replay'] === replayId);
    expect(replayed).toHaveLength(2);
    for (const hit of replayed) expect(await verifyWebhook({ secret: endpoint.secret, headers: hit.headers, body: hit.body })).toBe(true);
    const replayRow = page.getByRole('table', { name: 'Replays, newest first' }).getByRole('row').filter({ hasText: '2 of 2' });
    await expect.poll(() => replayRow.getByRole('cell', { name: 'completed', exact: true }).count(), WAIT).toBe(1);

    // another replay, held in flight by the receiver, cancelled from the page
    let release = () => {};
    holdReplays = { promise: new Promise<void>((r) => (release = r)), release: () => release() };
    await replayForm.getByRole('button', { name: 'Start replay' }).click();
    await until(() => hitsOf(account.accountId).filter((h) => h.headers['x-service-replay'] && h.headers['x-service-replay'] !== replayId), (l) => l.length > 0);
    await expect.poll(() => progress.getByText('delivering', { exact: true }).count(), WAIT).toBe(1);
    await progress.getByRole('button', { name: 'Cancel replay' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this replay?' });
    await dialog.waitFor();
    await expectAccessible(page, 'the dialog cancelling a replay');
    await dialog.getByRole('button', { name: 'Cancel replay' }).click();
    await expect.poll(() => progress.getByText('cancelled', { exact: true }).count(), WAIT).toBe(1);
    expect(await progress.getByRole('button', { name: 'Cancel replay' }).count()).toBe(0);
    holdReplays.release();
    holdReplays = undefined;
    const after = await server.call('GET', `/v1/webhook-endpoints/${endpoint.id}/replays`, { key: account.key });
    expect(after.body.data.map((r: { status: string }) => r.status)).toEqual(['cancelled', 'completed']);
    await page.context().close();
  });

  it("changes an endpoint's settings, disables, enables and deletes it through dialogs, shows and rotates the per-message secret; a viewer gets no write control", { timeout: 180_000 }, async () => {
    const account = await server.newAccount('Endpoint settings');
    const endpointId = await addWebhookEndpoint(server, account.key, receiver.url, ['contact.created']);
    const page = await signedIn(suite, account, `/webhooks/${endpointId}`);
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();

    const settings = page.getByRole('form', { name: 'Settings', exact: true });
    const moved = `${receiver.url}?moved=1`;
    await settings.getByLabel('URL').fill(moved);
    await settings.getByLabel('contact.updated', { exact: true }).check();
    await settings.getByRole('button', { name: 'Save endpoint' }).click();
    await settings.getByText('The endpoint was saved.').waitFor();
    const saved = (await server.call('GET', '/v1/webhook-endpoints', { key: account.key })).body.data[0];
    expect(saved).toMatchObject({ id: endpointId, url: moved, events: ['contact.created', 'contact.updated'], status: 'active' });
    await expect.poll(() => page.getByRole('region', { name: 'Endpoint', exact: true }).getByText('contact.created, contact.updated').count(), WAIT).toBe(1);

    const statusOf = async () => (await server.call('GET', '/v1/webhook-endpoints', { key: account.key })).body.data[0]?.status;
    await page.getByRole('button', { name: 'Disable endpoint' }).click();
    const disable = page.getByRole('dialog', { name: 'Disable this endpoint?' });
    await disable.waitFor();
    await expectAccessible(page, 'the dialog disabling an endpoint');
    await disable.getByRole('button', { name: 'Disable endpoint' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Endpoint', exact: true }).getByText('disabled', { exact: true }).count(), WAIT).toBe(1);
    expect(await statusOf()).toBe('disabled');
    await page.getByRole('button', { name: 'Enable endpoint' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Endpoint', exact: true }).getByText('active', { exact: true }).count(), WAIT).toBe(1);
    expect(await statusOf()).toBe('active');

    // a viewer sees the endpoint and its deliveries, and no control that writes
    await createContact(account, 'seen@example.com');
    const viewer = await userWithRole(server, account, 'viewer');
    const viewing = await signedIn(suite, viewer, '/webhooks');
    await viewing.getByRole('table', { name: 'Webhook endpoints' }).getByRole('link', { name: moved }).waitFor();
    expect(await viewing.getByRole('form', { name: 'Add endpoint', exact: true }).count()).toBe(0);
    expect(await viewing.getByRole('button', { name: 'Show secret' }).count()).toBe(0);
    await expectAccessible(viewing, 'the Webhooks page of a viewer');
    await viewing.getByRole('link', { name: moved }).click();
    await expect.poll(() => deliveryRows(viewing, 'delivered').count(), WAIT).toBe(1);
    for (const name of ['Save endpoint', 'Disable endpoint', 'Delete endpoint', 'Send test', 'Start replay', /^Retry/]) {
      expect(await viewing.getByRole('button', { name }).count(), String(name)).toBe(0);
    }
    await expectAccessible(viewing, 'an endpoint page of a viewer');
    await viewing.context().close();

    // deleted through its dialog: back to the list, and the API has no endpoint left
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    const remove = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    await remove.waitFor();
    await expectAccessible(page, 'the dialog deleting an endpoint');
    await remove.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    expect(page.url()).toBe(`${server.url}/app/webhooks`);
    await page.getByText('No webhook endpoints yet.').waitFor();
    expect((await server.call('GET', '/v1/webhook-endpoints', { key: account.key })).body.data).toEqual([]);

    // the per-message secret: shown on request, rotated through a dialog
    const secretOf = async () => (await server.call('GET', '/v1/account/webhook-secret', { key: account.key })).body.secret as string;
    const section = page.getByRole('region', { name: 'Per-message signing secret', exact: true });
    await section.getByRole('button', { name: 'Show secret' }).click();
    // the page's read is the account's first: it issues the secret, which the API then answers
    const first = (await section.getByText(/^whsec_/).textContent())!;
    expect(await secretOf()).toBe(first);
    await section.getByRole('button', { name: 'Rotate secret' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate the per-message signing secret?' });
    await rotate.waitFor();
    await expectAccessible(page, 'the dialog rotating the per-message secret');
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    await section.getByText(/was rotated/).waitFor();
    const second = await secretOf();
    expect(second).not.toBe(first);
    await section.getByText(second).waitFor();
    expect(await section.getByText(first).count()).toBe(0);
    await page.context().close();
  });
});

describe('the API keys page', () => {
  const keysTable = (page: Page) => page.getByRole('table', { name: 'API keys' });
  const keyRow = (page: Page, name: string) => keysTable(page).getByRole('row').filter({ hasText: name });

  it('creates a key (shown once) that the API takes, revokes it through its dialog so the API refuses it, and rotates another showing the old one’s expiry', { timeout: 120_000 }, async () => {
    const account = await server.newAccount('Keys from the dashboard');
    const page = await signedIn(suite, account, '/api-keys');
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await keysTable(page).waitFor();
    await expectAccessible(page, 'the API keys page');

    const form = page.getByRole('form', { name: 'Create key', exact: true });
    await form.getByText('None checked: this key will have full access').waitFor();
    await form.getByLabel('Name').fill('CI key');
    await form.getByLabel('read', { exact: true }).check();
    await form.getByText('This key will have only: read.').waitFor();
    await form.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('region', { name: 'New API key', exact: true });
    await shown.waitFor();
    const key = (await shown.getByText(/^ek_live_/).textContent())!;
    await expectAccessible(page, 'the API keys page with a new key');
    expect((await server.call('GET', '/v1/contacts', { key })).status).toBe(200);
    const listed = (await server.call('GET', '/v1/account/api-keys', { key: account.key })).body.data as { id: string; name: string | null; scopes: string[] | null; prefix: string }[];
    const created = listed.find((k) => k.name === 'CI key');
    expect(created).toMatchObject({ scopes: ['read'], prefix: key.slice(0, 12) });
    await expect.poll(() => keyRow(page, 'CI key').getByRole('cell', { name: 'active', exact: true }).count(), WAIT).toBe(1);
    expect(await keyRow(page, 'CI key').textContent()).toContain(created!.prefix);

    // revoked through its dialog: the API refuses the key from then on
    await keyRow(page, 'CI key').getByRole('button', { name: /^Revoke CI key/ }).click();
    const revoke = page.getByRole('dialog', { name: /^Revoke the key CI key/ });
    await revoke.waitFor();
    await expectAccessible(page, 'the dialog revoking a key');
    await revoke.getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => keyRow(page, 'CI key').getByText('revoked', { exact: true }).count(), WAIT).toBe(1);
    expect(await keyRow(page, 'CI key').getByRole('button').count()).toBe(0);
    const refused = await server.call('GET', '/v1/contacts', { key });
    expect(refused.status).toBe(401);

    // a full-access key, rotated: the new one shown once, the old one working until the expiry shown
    await form.getByLabel('Name').fill('Deploy key');
    await form.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('status').filter({ hasText: /^The key Deploy key was created/ }).waitFor();
    const oldKey = (await shown.getByText(/^ek_live_/).textContent())!;
    await expect.poll(() => keyRow(page, 'Deploy key').getByText('full access', { exact: true }).count(), WAIT).toBe(1);
    await keyRow(page, 'Deploy key').getByRole('button', { name: /^Rotate Deploy key/ }).click();
    const rotate = page.getByRole('dialog', { name: /^Rotate the key Deploy key/ });
    await rotate.waitFor();
    await expectAccessible(page, 'the dialog rotating a key');
    await rotate.getByRole('button', { name: 'Rotate key' }).click();
    const rotatedNote = page.getByRole('status').filter({ hasText: /^The key Deploy key .* was rotated/ });
    await rotatedNote.waitFor();
    const newKey = (await shown.getByText(/^ek_live_/).textContent())!;
    expect(newKey).not.toBe(oldKey);
    expect((await server.call('GET', '/v1/contacts', { key: oldKey })).status).toBe(200);
    expect((await server.call('GET', '/v1/contacts', { key: newKey })).status).toBe(200);
    const keys = (await server.call('GET', '/v1/account/api-keys', { key: account.key })).body.data as { prefix: string; expires_at: string | null; replaces: string | null; id: string }[];
    const old = keys.find((k) => k.prefix === oldKey.slice(0, 12))!;
    expect(Date.parse(old.expires_at!) - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(keys.find((k) => k.prefix === newKey.slice(0, 12))).toMatchObject({ replaces: old.id, expires_at: null });
    const rowOf = (prefix: string) => keysTable(page).getByRole('row').filter({ has: page.getByRole('cell', { name: `${prefix}…`, exact: true }) });
    const oldRow = rowOf(old.prefix);
    await expect.poll(() => oldRow.getByText('rotating', { exact: true }).count(), WAIT).toBe(1);
    const expiry = await page.evaluate((at) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(Date.parse(at)), old.expires_at!);
    expect(await oldRow.textContent()).toContain(`works until ${expiry}`);
    const newRow = rowOf(newKey.slice(0, 12));
    expect(await newRow.textContent()).toContain(`replaces ${old.prefix}`);
    expect(await newRow.getByText('active', { exact: true }).count()).toBe(1);
    expect(await rotatedNote.textContent()).toContain(`The old key keeps working until ${expiry}.`);

    // shown once: gone after a reload
    await page.reload();
    await keysTable(page).waitFor();
    expect(await page.getByText(newKey).count()).toBe(0);
    expect(await page.getByRole('region', { name: 'New API key', exact: true }).count()).toBe(0);
    await page.context().close();
  });

  it('offers a viewer and a member no key controls, and shows the API’s refusal of their key management', { timeout: 120_000 }, async () => {
    const account = await server.newAccount('Keys by role');
    for (const role of ['viewer', 'member'] as const) {
      const who = await userWithRole(server, account, role);
      const page = await signedIn(suite, who, '/api-keys');
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
      await expect.poll(() => page.getByRole('alert').textContent(), WAIT).toMatch(/your role does not allow settings/);
      await page.getByText(`you are signed in as ${role}`).waitFor();
      expect(await page.getByRole('form', { name: 'Create key', exact: true }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /Create key|Revoke|Rotate/ }).count()).toBe(0);
      await expectAccessible(page, `the API keys page of a ${role}`);
      // the API refuses the session itself, whatever the page offers
      const token = await page.evaluate(() => (JSON.parse(sessionStorage.getItem('engage.session') ?? '{}') as { token?: string }).token);
      expect((await server.call('POST', '/v1/account/api-keys', { token, body: { name: 'not allowed' } })).status).toBe(403);
      await page.context().close();
    }
  });
});
