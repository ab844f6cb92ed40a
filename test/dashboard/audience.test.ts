// The dashboard's contacts, lists and segments in Chromium (README "Segments", "Contacts import",
// "Personal data and erasure", "The dashboard"): a segment built in the rule builder by the labels of
// its controls, its live count labelled "Matching contacts" following each change, saved and read back
// through the API; a contact searched, opened with its fields and history, and edited; a contact erased
// through the confirmation dialog; a CSV import followed to its end with its refused rows; a list made,
// filled and emptied; and a viewer offered no write control. axe-core checks every page and dialog.
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { dashboardSuite, expectAccessible, openFromNavigation, signedIn, userWithRole } from './support.ts';

const suite = dashboardSuite();
const { server } = suite;

const POLL = { timeout: 15_000 };

async function createContact(acct: TestAccount, body: Record<string, unknown>): Promise<{ id: string; email: string }> {
  const res = await server.call('POST', '/v1/contacts', { key: acct.key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; email: string };
}

const unique = () => randomBytes(4).toString('hex');

/** The live count the segment editor shows, as its text. */
const matching = (page: Page) => page.getByRole('status', { name: 'Matching contacts' }).textContent();

/** Rows of a table (its caption names it), the header row left out. */
const bodyRows = (page: Page, caption: string) => page.getByRole('table', { name: caption, exact: true }).locator('tbody').getByRole('row');

describe('contacts, lists and segments in the dashboard', () => {
  it('builds a segment with the rule builder, shows its live count as the rules change, saves it, and the API reads it back', async () => {
    const acct = await server.newAccount('Segments');
    const field = await server.call('POST', '/v1/contacts/fields', { key: acct.key, body: { key: 'plan', label: 'Plan', type: 'select', options: ['free', 'pro'] } });
    expect(field.status).toBe(201);
    const people = [
      { country: 'FR', tags: ['vip'], custom_fields: { plan: 'pro' } },
      { country: 'FR', custom_fields: { plan: 'free' } },
      { country: 'FR', tags: ['vip'], custom_fields: { plan: 'pro' } },
      { country: 'DE', custom_fields: { plan: 'pro' } },
      { country: 'DE' },
    ];
    for (const [i, p] of people.entries()) await createContact(acct, { email: `person${i}-${unique()}@example.com`, first_name: `Person ${i}`, ...p });

    const page = await signedIn(suite, acct);
    await openFromNavigation(page, 'Segments');
    await page.getByRole('link', { name: 'New segment' }).click();
    await page.getByRole('heading', { level: 1, name: 'New segment' }).waitFor();

    const rule1 = page.getByRole('group', { name: 'Rule 1', exact: true });
    await rule1.getByLabel('Field').selectOption({ label: 'Country' });
    await rule1.getByLabel('Operator').selectOption({ label: 'is' });
    // no value yet: nothing to count
    await expect.poll(() => matching(page), POLL).toBe('—');
    await rule1.getByLabel('Value').fill('FR');
    await expect.poll(() => matching(page), POLL).toBe('3');
    await expectAccessible(page, 'the segment editor');
    // the same rule on another value: another count
    await rule1.getByLabel('Value').fill('de');
    await expect.poll(() => matching(page), POLL).toBe('2');

    // a select field: its options as the value's choices
    await rule1.getByLabel('Field').selectOption({ label: 'Plan' });
    await rule1.getByLabel('Operator').selectOption({ label: 'is' });
    await rule1.getByLabel('Value').selectOption({ label: 'pro' });
    await expect.poll(() => matching(page), POLL).toBe('3');

    // a second rule: all of them, then any of them
    await page.getByRole('button', { name: 'Add rule', exact: true }).click();
    const rule2 = page.getByRole('group', { name: 'Rule 2', exact: true });
    await rule2.getByLabel('Field').selectOption({ label: 'Tag' });
    await rule2.getByLabel('Operator').selectOption({ label: 'has' });
    await rule2.getByLabel('Value').fill('vip');
    await expect.poll(() => matching(page), POLL).toBe('2');
    await page.getByLabel('Match', { exact: true }).selectOption({ label: 'Any of these rules' });
    await expect.poll(() => matching(page), POLL).toBe('3');

    await page.getByLabel('Name', { exact: true }).fill('Pro or VIP');
    await page.getByRole('button', { name: 'Save segment' }).click();
    await page.getByRole('heading', { level: 1, name: 'Pro or VIP' }).waitFor();
    await page.getByText('Segment saved.').waitFor();
    const id = /\/segments\/(seg_[0-9A-Za-z]+)$/.exec(page.url())?.[1];
    expect(id).toBeDefined();
    const saved = await server.call('GET', `/v1/segments/${id}`, { key: acct.key });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      name: 'Pro or VIP',
      count: 3,
      rules: {
        match: 'any',
        rules: [
          { field: 'custom.plan', operator: 'eq', value: 'pro' },
          { field: 'tag', operator: 'has', value: 'vip' },
        ],
      },
    });
    // the saved segment's members, and the rules drawn back into the builder
    await expect.poll(() => bodyRows(page, 'Members of the segment').count(), POLL).toBe(3);
    await expect.poll(() => page.getByRole('group', { name: 'Rule 2', exact: true }).getByLabel('Value').inputValue(), POLL).toBe('vip');
    await expect.poll(() => matching(page), POLL).toBe('3');
    await expectAccessible(page, "a saved segment's editor and members");

    // change it: one rule left, replaced (PUT) and read back
    await page.getByRole('button', { name: 'Remove rule 2' }).click();
    await expect.poll(() => matching(page), POLL).toBe('3');
    await page.getByRole('group', { name: 'Rule 1', exact: true }).getByLabel('Value').selectOption({ label: 'free' });
    await expect.poll(() => matching(page), POLL).toBe('1');
    await page.getByRole('button', { name: 'Save segment' }).click();
    await page.getByText('Segment saved.').waitFor();
    await expect.poll(async () => (await server.call('GET', `/v1/segments/${id}`, { key: acct.key })).body.rules, POLL).toEqual({ match: 'any', rules: [{ field: 'custom.plan', operator: 'eq', value: 'free' }] });
    await expect.poll(() => bodyRows(page, 'Members of the segment').count(), POLL).toBe(1);

    // the list of segments, with the live count
    await openFromNavigation(page, 'Segments');
    const row = page.getByRole('table', { name: 'Segments' }).getByRole('row', { name: /Pro or VIP/ });
    await expect.poll(() => row.getByRole('cell').nth(2).textContent(), POLL).toBe('1');
    await expectAccessible(page, 'the segments page');
    await page.context().close();
  });

  it('searches the contacts, opens one with its fields and history, edits it, and creates one', async () => {
    const acct = await server.newAccount('Contacts');
    expect((await server.call('POST', '/v1/contacts/fields', { key: acct.key, body: { key: 'seats', label: 'Seats', type: 'number' } })).status).toBe(201);
    const surname = `Hopper${unique()}`;
    const grace = await createContact(acct, { email: `grace-${unique()}@example.com`, first_name: 'Grace', last_name: surname, country: 'US', custom_fields: { seats: 12 } });
    await createContact(acct, { email: `other-${unique()}@example.com`, first_name: 'Other' });
    expect((await server.call('PATCH', `/v1/contacts/${grace.id}`, { key: acct.key, body: { tags: ['navy'] } })).status).toBe(200);

    const page = await signedIn(suite, acct);
    await openFromNavigation(page, 'Contacts');
    await expect.poll(() => bodyRows(page, 'Contacts').count(), POLL).toBe(2);
    await expectAccessible(page, 'the contacts page');
    await page.getByLabel('Search', { exact: true }).fill(surname.toLowerCase());
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => bodyRows(page, 'Contacts found').count(), POLL).toBe(1);
    await page.getByRole('table', { name: 'Contacts found' }).getByRole('link', { name: `Grace ${surname}` }).click();
    await page.getByRole('heading', { level: 1, name: `Grace ${surname}` }).waitFor();

    const facts = page.getByRole('region', { name: 'Fields' });
    await expect.poll(() => facts.textContent(), POLL).toContain(grace.email);
    expect(await facts.textContent()).toContain('Seats12');
    expect(await facts.textContent()).toContain('navy');
    const history = page.getByRole('list', { name: 'History of the contact' });
    await expect.poll(() => history.getByRole('listitem').filter({ hasText: /^Contact(Created|Updated)/ }).allTextContents(), POLL).toHaveLength(2);
    expect(await history.textContent()).toMatch(/ContactCreated.*ContactUpdated/s);
    await expectAccessible(page, "a contact's page");

    // edit: what changed is sent, and the API has it
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = page.getByRole('form', { name: 'Edit contact' });
    await form.getByLabel('First name').fill('Amazing Grace');
    await form.getByLabel('Seats').fill('15');
    await expectAccessible(page, "a contact's edit form");
    await form.getByRole('button', { name: 'Save contact' }).click();
    await page.getByText('Contact saved.').waitFor();
    const read = await server.call('GET', `/v1/contacts/${grace.id}`, { key: acct.key });
    expect(read.body).toMatchObject({ first_name: 'Amazing Grace', last_name: surname, custom_fields: { seats: 15 }, tags: ['navy'] });
    await expect.poll(() => history.getByRole('listitem').filter({ hasText: /^ContactUpdated/ }).count(), POLL).toBe(2);

    // a new contact through the form
    await openFromNavigation(page, 'Contacts');
    const create = page.getByRole('form', { name: 'New contact' });
    const email = `new-${unique()}@example.com`;
    await create.getByLabel('Email').fill(email);
    await create.getByLabel('First name').fill('Newly');
    await create.getByLabel('Tags').fill('fresh, made');
    await create.getByRole('button', { name: 'Create contact' }).click();
    await page.getByRole('status').filter({ hasText: 'Created' }).getByRole('link', { name: 'Newly' }).waitFor();
    const found = await server.call('GET', `/v1/contacts?email=${encodeURIComponent(email)}`, { key: acct.key });
    expect(found.body.data).toMatchObject([{ email, first_name: 'Newly', tags: ['fresh', 'made'] }]);
    await expect.poll(() => bodyRows(page, 'Contacts').count(), POLL).toBe(3);
    // the API's refusal, in its own words
    await create.getByLabel('Email').fill(email);
    await create.getByRole('button', { name: 'Create contact' }).click();
    await expect.poll(() => create.getByRole('alert').textContent(), POLL).toMatch(/email/i);
    await page.context().close();
  });

  it('erases a contact through a dialog that says what erasure does, and the API has erased it', async () => {
    const acct = await server.newAccount('Erasure');
    const ada = await createContact(acct, { email: `ada-${unique()}@example.com`, first_name: 'Ada', last_name: 'Lovelace' });
    const page = await signedIn(suite, acct, `/contacts/${ada.id}`);
    await page.getByRole('heading', { level: 1, name: 'Ada Lovelace' }).waitFor();
    await page.getByRole('button', { name: 'Erase', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Erase Ada Lovelace?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toMatch(/cannot be undone/);
    expect(await dialog.textContent()).toMatch(/\[erased\]/);
    await expectAccessible(page, 'the erase dialog');
    // cancelled, nothing happens
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await server.call('GET', `/v1/contacts/${ada.id}`, { key: acct.key })).status).toBe(200);

    await page.getByRole('button', { name: 'Erase', exact: true }).click();
    await dialog.getByLabel('Reason (optional)').fill('request 42');
    await dialog.getByRole('button', { name: 'Erase contact' }).click();
    await page.getByRole('heading', { level: 1, name: 'Contact erased' }).waitFor();
    const outcome = (await page.getByRole('status').filter({ hasText: 'was erased' }).textContent()) ?? '';
    const erasureId = /Erasure (\S+)\./.exec(outcome)?.[1];
    expect(erasureId).toBeTruthy();
    expect(outcome).toMatch(/[1-9]\d* data keys? destroyed/);
    // its history stays, what the destroyed keys sealed reads [erased]
    const history = page.getByRole('list', { name: 'History of the contact' });
    await expect.poll(() => history.textContent(), POLL).toContain('ContactErased');
    expect(await history.textContent()).toContain('[erased]');
    expect(await history.textContent()).not.toContain(ada.email);
    expect(await history.textContent()).not.toContain('Lovelace');
    await expectAccessible(page, 'the erased contact');

    // the API: gone from reads, and erasing again answers the same erasure
    expect((await server.call('GET', `/v1/contacts/${ada.id}`, { key: acct.key })).status).toBe(404);
    expect((await server.call('GET', `/v1/contacts?email=${encodeURIComponent(ada.email)}`, { key: acct.key })).body.data).toEqual([]);
    const again = await server.call('POST', `/v1/contacts/${ada.id}/erase`, { key: acct.key, body: {} });
    expect(again.status).toBe(200);
    expect(again.body.erasure_id).toBe(erasureId);
    await page.context().close();
  });

  it('imports a CSV file, follows its progress to the end with the rows it refused, and lists the contacts it made', async () => {
    const acct = await server.newAccount('Import');
    const page = await signedIn(suite, acct);
    await openFromNavigation(page, 'Contacts');
    const tag = `imported-${unique()}`;
    const csv = ['Email,First Name,Last Name', 'imp1@example.com,Imported,One', 'imp2@example.com,Imported,Two', 'not-an-email,Bad,Row', ''].join('\n');
    const form = page.getByRole('form', { name: 'Import contacts' });
    await form.getByLabel('CSV file').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await form.getByLabel('Tags for every imported contact').fill(tag);
    await form.getByRole('button', { name: 'Import', exact: true }).click();

    const progress = page.getByRole('region', { name: 'Import of people.csv' });
    await progress.getByRole('progressbar', { name: 'Importing people.csv' }).waitFor();
    await progress.getByText('completed', { exact: true }).waitFor({ timeout: 30_000 });
    const bar = progress.getByRole('progressbar', { name: 'Importing people.csv' });
    expect(await bar.getAttribute('value')).toBe(await bar.getAttribute('max'));
    expect(await progress.textContent()).toMatch(/Contacts created2/);
    const refused = bodyRows(page, 'Rows refused');
    expect(await refused.count()).toBe(1);
    expect(await refused.first().getByRole('cell').first().textContent()).toBe('4');
    await expectAccessible(page, 'a finished import');

    // the contacts list shows what it made, and the API agrees
    const table = page.getByRole('table', { name: 'Contacts' });
    await expect.poll(() => table.getByRole('link', { name: /^Imported (One|Two)$/ }).count(), POLL).toBe(2);
    const imported = await server.call('GET', `/v1/contacts?tag=${tag}`, { key: acct.key });
    expect(imported.body.data.map((c: { email: string }) => c.email).sort()).toEqual(['imp1@example.com', 'imp2@example.com']);
    await expect.poll(() => bodyRows(page, 'Recent imports').count(), POLL).toBe(1);
    await page.context().close();
  });

  it('creates a list, adds contacts by email and by id, removes one, pins it and deletes it after asking', async () => {
    const acct = await server.newAccount('Lists');
    const first = await createContact(acct, { email: `first-${unique()}@example.com`, first_name: 'First' });
    const second = await createContact(acct, { email: `second-${unique()}@example.com`, first_name: 'Second' });
    const page = await signedIn(suite, acct);
    await openFromNavigation(page, 'Lists');
    await expectAccessible(page, 'the lists page');
    const name = `Newsletter ${unique()}`;
    const create = page.getByRole('form', { name: 'New list' });
    await create.getByLabel('Name').fill(name);
    await create.getByLabel('Description').fill('Monthly news');
    await create.getByRole('button', { name: 'Create list' }).click();
    await page.getByRole('table', { name: 'Lists' }).getByRole('link', { name }).click();
    await page.getByRole('heading', { level: 1, name }).waitFor();
    const id = /\/lists\/(lst_[0-9A-Za-z]+)$/.exec(page.url())?.[1];
    expect(id).toBeDefined();

    const add = page.getByRole('form', { name: 'Add a contact to the list' });
    await add.getByLabel('Contact id or email').fill(first.email);
    await add.getByRole('button', { name: 'Add to list' }).click();
    await expect.poll(() => bodyRows(page, 'Members').count(), POLL).toBe(1);
    await add.getByLabel('Contact id or email').fill(second.id);
    await add.getByRole('button', { name: 'Add to list' }).click();
    await expect.poll(() => bodyRows(page, 'Members').count(), POLL).toBe(2);
    const members = await server.call('GET', `/v1/lists/${id}/contacts`, { key: acct.key });
    expect(members.body.data.map((c: { id: string }) => c.id).sort()).toEqual([first.id, second.id].sort());
    // an unknown email: said, nothing added
    await add.getByLabel('Contact id or email').fill(`nobody-${unique()}@example.com`);
    await add.getByRole('button', { name: 'Add to list' }).click();
    await expect.poll(() => add.getByRole('alert').textContent(), POLL).toMatch(/No contact matches/);
    await expectAccessible(page, "a list's page");

    await page.getByRole('button', { name: 'Remove First from the list' }).click();
    await expect.poll(() => bodyRows(page, 'Members').count(), POLL).toBe(1);
    expect((await server.call('GET', `/v1/lists/${id}`, { key: acct.key })).body.member_count).toBe(1);

    await page.getByRole('button', { name: 'Pinned', pressed: false }).click();
    await page.getByRole('button', { name: 'Pinned', pressed: true }).waitFor();
    expect((await server.call('GET', `/v1/lists/${id}`, { key: acct.key })).body.favorite).toBe(true);

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Delete the list ${name}?` });
    await dialog.waitFor();
    await expectAccessible(page, 'the delete list dialog');
    await dialog.getByRole('button', { name: 'Delete list' }).click();
    await page.getByRole('heading', { level: 1, name: 'Lists' }).waitFor();
    expect((await server.call('GET', `/v1/lists/${id}`, { key: acct.key })).status).toBe(404);
    expect((await server.call('GET', `/v1/contacts/${second.id}`, { key: acct.key })).status).toBe(200);
    await page.context().close();
  });

  it('offers a viewer no write control on contacts, lists and segments, and a member no erasure', async () => {
    const acct = await server.newAccount('Read only');
    const contact = await createContact(acct, { email: `seen-${unique()}@example.com`, first_name: 'Seen', country: 'IT' });
    const list = await server.call('POST', '/v1/lists', { key: acct.key, body: { name: 'Read-only list' } });
    expect((await server.call('POST', `/v1/lists/${list.body.id}/contacts`, { key: acct.key, body: { contact_id: contact.id } })).status).toBe(201);
    const segment = await server.call('POST', '/v1/segments', { key: acct.key, body: { name: 'Italians', rules: { match: 'all', rules: [{ field: 'contact.country', operator: 'eq', value: 'IT' }] } } });
    expect(segment.status).toBe(201);
    const viewer = await userWithRole(server, acct, 'viewer');
    const page = await signedIn(suite, viewer);

    await openFromNavigation(page, 'Contacts');
    await expect.poll(() => bodyRows(page, 'Contacts').count(), POLL).toBe(1);
    expect(await page.getByRole('button', { name: 'Create contact' }).count()).toBe(0);
    expect(await page.getByRole('form', { name: 'Import contacts' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Seen' }).click();
    await page.getByRole('heading', { level: 1, name: 'Seen' }).waitFor();
    await page.getByRole('list', { name: 'History of the contact' }).waitFor();
    for (const name of ['Edit', 'Delete', 'Erase']) expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    await expectAccessible(page, "a contact's page for a viewer");

    await openFromNavigation(page, 'Lists');
    expect(await page.getByRole('button', { name: 'Create list' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Read-only list' }).click();
    await expect.poll(() => bodyRows(page, 'Members').count(), POLL).toBe(1);
    for (const name of ['Add to list', 'Remove Seen from the list', 'Delete', 'Pinned', 'Edit']) expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);

    await openFromNavigation(page, 'Segments');
    expect(await page.getByRole('link', { name: 'New segment' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Italians' }).click();
    await page.getByRole('heading', { level: 1, name: 'Italians' }).waitFor();
    await expect.poll(() => matching(page), POLL).toBe('1');
    expect(await page.getByRole('button', { name: 'Save segment' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    expect(await page.getByLabel('Name', { exact: true }).isDisabled()).toBe(true);
    await expectAccessible(page, 'a segment for a viewer');
    await page.context().close();

    // a member edits contacts but erasure needs the settings capability
    const member = await userWithRole(server, acct, 'member');
    const memberPage = await signedIn(suite, member, `/contacts/${contact.id}`);
    await memberPage.getByRole('heading', { level: 1, name: 'Seen' }).waitFor();
    await memberPage.getByRole('button', { name: 'Edit', exact: true }).waitFor();
    expect(await memberPage.getByRole('button', { name: 'Erase', exact: true }).count()).toBe(0);
    await memberPage.context().close();
  });
});
