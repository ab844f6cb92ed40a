// Lists over HTTP (README "API conventions": contact lists): CRUD,
// pinned-first cursor pagination, members added and removed one at a time with exact live counts
// (after a re-add, a contact's deletion or erasure, a list's deletion), tenant isolation, validation,
// scopes, and a rebuild of the lists read model that reproduces its rows.
import { describe, expect, it } from 'vitest';
import { listStream } from '../../commands/list.ts';
import { listsProjection } from '../../projections/lists.ts';
import { readyAccount, type TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { rebuildAndWait } from '../support/rebuild.ts';

const LIST_ID_RE = /^lst_[0-9A-HJKMNP-TV-Z]{26}$/;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MISSING_LIST = 'lst_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const MISSING_CONTACT = 'ct_01ARZ3NDEKTSV4RRFFQ69G5FAV';

const server = testServerForSuite();

async function ok(method: string, path: string, key: string, body?: unknown, status = 200) {
  const res = await server.call(method, path, { key, body });
  expect(res.status, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

const createList = (key: string, body: Record<string, unknown>) => ok('POST', '/v1/lists', key, body, 201);
const createContact = async (key: string, email: string) => (await ok('POST', '/v1/contacts', key, { email }, 201)).id as string;
const getList = (key: string, id: string) => ok('GET', `/v1/lists/${id}`, key);
const addMember = (key: string, listId: string, contactId: string, status = 201) => ok('POST', `/v1/lists/${listId}/contacts`, key, { contact_id: contactId }, status);
const removeMember = (key: string, listId: string, contactId: string) => ok('DELETE', `/v1/lists/${listId}/contacts/${contactId}`, key);
const countOf = async (key: string, listId: string) => (await getList(key, listId)).member_count as number;
const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
const issuePaths = (body: { issues?: { path: string }[] }) => (body.issues ?? []).map((i) => i.path);

/** Every page of a paginated route, following next_cursor. */
async function allPages(key: string, path: string, limit: number) {
  const pages: any[][] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const body = await ok('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key);
    pages.push(body.data);
    cursor = body.next_cursor;
    expect(pages.length).toBeLessThan(100);
  } while (cursor);
  return pages;
}

describe('creating, reading, updating and deleting a list', () => {
  it('creates a list (201) that GET returns as it was created, with favorite false and no members', async () => {
    const { key } = await readyAccount(server);
    const before = Date.now();
    const list = await createList(key, { name: '  Newsletter ', description: 'Monthly news' });
    expect(list).toEqual({
      id: expect.stringMatching(LIST_ID_RE),
      name: 'Newsletter',
      description: 'Monthly news',
      favorite: false,
      member_count: 0,
      created_at: expect.stringMatching(RFC3339_UTC),
      updated_at: expect.stringMatching(RFC3339_UTC),
    });
    expect(Date.parse(list.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(await getList(key, list.id)).toEqual(list);
    expect((await createList(key, { name: 'No description' })).description).toBeNull();
  });

  it('updates the name and the description (null removes it); an empty PATCH changes nothing', async () => {
    const { key } = await readyAccount(server);
    const list = await createList(key, { name: 'Old', description: 'about' });
    const renamed = await ok('PATCH', `/v1/lists/${list.id}`, key, { name: 'New' });
    expect(renamed).toMatchObject({ id: list.id, name: 'New', description: 'about', member_count: 0, favorite: false });
    const cleared = await ok('PATCH', `/v1/lists/${list.id}`, key, { description: null });
    expect(cleared).toMatchObject({ name: 'New', description: null });
    expect(await ok('PATCH', `/v1/lists/${list.id}`, key, {})).toEqual(cleared);
    expect(await getList(key, list.id)).toEqual(cleared);
  });

  it('deletes a list: it is gone from GET, the listing and every route of it', async () => {
    const { key } = await readyAccount(server);
    const keep = await createList(key, { name: 'Keep' });
    const gone = await createList(key, { name: 'Gone' });
    const c = await createContact(key, 'deleted-list@example.com');
    await addMember(key, gone.id, c);
    expect(await ok('DELETE', `/v1/lists/${gone.id}`, key)).toEqual({ id: gone.id, deleted: true });
    expect(ids((await ok('GET', '/v1/lists', key)).data)).toEqual([keep.id]);
    for (const [method, path, body] of [
      ['GET', `/v1/lists/${gone.id}`],
      ['PATCH', `/v1/lists/${gone.id}`, { name: 'x' }],
      ['DELETE', `/v1/lists/${gone.id}`],
      ['PATCH', `/v1/lists/${gone.id}/favorite`, { favorite: true }],
      ['GET', `/v1/lists/${gone.id}/contacts`],
      ['POST', `/v1/lists/${gone.id}/contacts`, { contact_id: c }],
      ['DELETE', `/v1/lists/${gone.id}/contacts/${c}`],
    ] as const) {
      const res = await server.call(method, path, { key, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toMatchObject({ error: 'not_found', message: 'list not found' });
    }
    // the contact itself stays
    expect((await server.call('GET', `/v1/contacts/${c}`, { key })).status).toBe(200);
  });

  it('answers 404 for a missing list and for a path segment that is not a list id', async () => {
    const { key } = await readyAccount(server);
    for (const id of [MISSING_LIST, 'not-an-id', 'ct_01ARZ3NDEKTSV4RRFFQ69G5FAV']) {
      for (const [method, path, body] of [
        ['GET', `/v1/lists/${id}`],
        ['PATCH', `/v1/lists/${id}`, { name: 'x' }],
        ['DELETE', `/v1/lists/${id}`],
        ['PATCH', `/v1/lists/${id}/favorite`, { favorite: true }],
        ['POST', `/v1/lists/${id}/contacts`, { contact_id: MISSING_CONTACT }],
      ] as const) {
        const res = await server.call(method, path, { key, body });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.error).toBe('not_found');
      }
    }
  });
});

describe('GET /v1/lists: pinned lists first, then newest first, by cursor', () => {
  it('orders pinned lists first and pages through every list exactly once', async () => {
    const { key } = await readyAccount(server);
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await createList(key, { name: `List ${i}` })).id);
    // pin two older lists (their pin does not change their place among the pinned: newest first)
    const pinnedOld = made[1];
    const pinnedMid = made[3];
    expect((await ok('PATCH', `/v1/lists/${pinnedOld}/favorite`, key, { favorite: true })).favorite).toBe(true);
    expect((await ok('PATCH', `/v1/lists/${pinnedMid}/favorite`, key, { favorite: true })).favorite).toBe(true);
    const expected = [pinnedMid, pinnedOld, ...made.filter((id) => id !== pinnedOld && id !== pinnedMid).reverse()];

    const full = await ok('GET', '/v1/lists', key);
    expect(ids(full.data)).toEqual(expected);
    expect(full.next_cursor).toBeNull();
    expect(full.data.map((l: { favorite: boolean }) => l.favorite)).toEqual([true, true, false, false, false, false, false]);

    for (const limit of [1, 2, 3]) {
      const pages = await allPages(key, '/v1/lists', limit);
      expect(pages.every((p) => p.length <= limit)).toBe(true);
      expect(ids(pages.flat()), `limit ${limit}`).toEqual(expected);
    }

    // pinning again is a no-op; unpinning puts the list back among the others by age
    expect((await ok('PATCH', `/v1/lists/${pinnedMid}/favorite`, key, { favorite: true })).favorite).toBe(true);
    expect((await ok('PATCH', `/v1/lists/${pinnedMid}/favorite`, key, { favorite: false })).favorite).toBe(false);
    expect(ids((await ok('GET', '/v1/lists', key)).data)).toEqual([pinnedOld, ...made.filter((id) => id !== pinnedOld).reverse()]);
    expect((await getList(key, pinnedOld)).favorite).toBe(true);
  });

  it('rejects a bad limit or a cursor it did not issue with 400 naming the parameter', async () => {
    const { key } = await readyAccount(server);
    for (const [query, path] of [
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=abc', 'limit'],
      ['cursor=garbage', 'cursor'],
      [`cursor=${Buffer.from(JSON.stringify({ id: 'lst_x' })).toString('base64url')}`, 'cursor'],
      ['colour=red', 'colour'],
    ]) {
      const res = await server.call('GET', `/v1/lists?${query}`, { key });
      expect(res.status, query).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(issuePaths(res.body), query).toContain(path);
    }
  });
});

describe('members and their count', () => {
  it('adds contacts one at a time; adding again is a 200 no-op; counts are exact after every change', async () => {
    const { key } = await readyAccount(server);
    const list = await createList(key, { name: 'Members' });
    const [a, b, c] = [await createContact(key, 'm-a@example.com'), await createContact(key, 'm-b@example.com'), await createContact(key, 'm-c@example.com')];

    expect(await addMember(key, list.id, a)).toMatchObject({ id: list.id, member_count: 1, favorite: false });
    expect((await addMember(key, list.id, b)).member_count).toBe(2);
    // again: 200, nothing changes
    expect((await addMember(key, list.id, a, 200)).member_count).toBe(2);
    expect(await countOf(key, list.id)).toBe(2);

    const members = await ok('GET', `/v1/lists/${list.id}/contacts`, key);
    expect(ids(members.data)).toEqual([b, a]);
    expect(members.data[0]).toMatchObject({ id: b, email: 'm-b@example.com' });
    expect(members.next_cursor).toBeNull();

    expect((await removeMember(key, list.id, a)).member_count).toBe(1);
    expect(await countOf(key, list.id)).toBe(1);
    // not on the list (any more): 404, the count stays
    const again = await server.call('DELETE', `/v1/lists/${list.id}/contacts/${a}`, { key });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ error: 'not_found', message: 'the contact is not on this list' });
    expect((await server.call('DELETE', `/v1/lists/${list.id}/contacts/${c}`, { key })).status).toBe(404);
    // re-added after removal: counted again
    expect((await addMember(key, list.id, a)).member_count).toBe(2);
    expect((await addMember(key, list.id, c)).member_count).toBe(3);
    expect(ids((await ok('GET', `/v1/lists/${list.id}/contacts`, key)).data)).toEqual([c, b, a]);
    // the listing carries the same count
    expect((await ok('GET', '/v1/lists', key)).data).toEqual([expect.objectContaining({ id: list.id, member_count: 3 })]);
  });

  it('a deleted contact leaves every list it was on, and cannot be added or removed', async () => {
    const { key } = await readyAccount(server);
    const one = await createList(key, { name: 'One' });
    const two = await createList(key, { name: 'Two' });
    const stays = await createContact(key, 'stays@example.com');
    const leaves = await createContact(key, 'leaves@example.com');
    for (const l of [one, two]) for (const c of [stays, leaves]) await addMember(key, l.id, c);
    expect(await countOf(key, one.id)).toBe(2);

    expect((await server.call('DELETE', `/v1/contacts/${leaves}`, { key })).status).toBe(200);
    // the next read shows it (the delete waited for the lists read model)
    expect(await countOf(key, one.id)).toBe(1);
    expect(await countOf(key, two.id)).toBe(1);
    expect(ids((await ok('GET', `/v1/lists/${one.id}/contacts`, key)).data)).toEqual([stays]);

    for (const res of [
      await server.call('POST', `/v1/lists/${one.id}/contacts`, { key, body: { contact_id: leaves } }),
      await server.call('DELETE', `/v1/lists/${one.id}/contacts/${leaves}`, { key }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'not_found', message: 'contact not found' });
    }
    expect(await countOf(key, one.id)).toBe(1);
  });

  it('an erased contact leaves every list too', async () => {
    const { key } = await readyAccount(server);
    const list = await createList(key, { name: 'Erasure' });
    const kept = await createContact(key, 'kept-erasure@example.com');
    const erased = await createContact(key, 'erased-member@example.com');
    await addMember(key, list.id, kept);
    await addMember(key, list.id, erased);
    const res = await server.call('POST', `/v1/contacts/${erased}/erase`, { key, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await countOf(key, list.id)).toBe(1);
    expect(ids((await ok('GET', `/v1/lists/${list.id}/contacts`, key)).data)).toEqual([kept]);
    expect((await server.call('POST', `/v1/lists/${list.id}/contacts`, { key, body: { contact_id: erased } })).status).toBe(404);
  });

  it('a membership recorded after the contact was deleted (an add racing the delete) is not counted', async () => {
    const { key, accountId } = await readyAccount(server);
    const list = await createList(key, { name: 'Race' });
    const c = await createContact(key, 'race@example.com');
    expect((await server.call('DELETE', `/v1/contacts/${c}`, { key })).status).toBe(200);
    // the add that read the contact as live just before the delete, appended just after it
    await server.engage.store.append(
      listStream(list.id),
      [{ type: 'ListMemberAdded', data: { account_id: accountId, id: list.id, contact_id: c, added_at: new Date().toISOString() }, metadata: { accountId, actor: 'test' } }],
      'any',
    );
    await server.caughtUp(['lists']);
    expect(await countOf(key, list.id)).toBe(0);
    expect((await ok('GET', `/v1/lists/${list.id}/contacts`, key)).data).toEqual([]);
  });

  it('deleting a list leaves the other lists of its members as they were', async () => {
    const { key } = await readyAccount(server);
    const a = await createList(key, { name: 'A' });
    const b = await createList(key, { name: 'B' });
    const c1 = await createContact(key, 'both-1@example.com');
    const c2 = await createContact(key, 'both-2@example.com');
    for (const c of [c1, c2]) {
      await addMember(key, a.id, c);
      await addMember(key, b.id, c);
    }
    await ok('DELETE', `/v1/lists/${a.id}`, key);
    expect(await countOf(key, b.id)).toBe(2);
    expect(ids((await ok('GET', `/v1/lists/${b.id}/contacts`, key)).data)).toEqual([c2, c1]);
    const rows = await server.engage.pool.query('SELECT count(*)::int AS n FROM list_members WHERE list_id = $1', [a.id]);
    expect(rows.rows[0].n).toBe(0);
  });

  it('pages through the members by cursor', async () => {
    const { key } = await readyAccount(server);
    const list = await createList(key, { name: 'Paged' });
    const contacts: string[] = [];
    for (let i = 0; i < 5; i++) {
      contacts.push(await createContact(key, `paged-${i}@example.com`));
      await addMember(key, list.id, contacts[i]);
    }
    for (const limit of [1, 2, 5]) {
      const pages = await allPages(key, `/v1/lists/${list.id}/contacts`, limit);
      expect(ids(pages.flat()), `limit ${limit}`).toEqual([...contacts].reverse());
    }
    const bad = await server.call('GET', `/v1/lists/${list.id}/contacts?cursor=nope`, { key });
    expect(bad.status).toBe(400);
    expect(issuePaths(bad.body)).toContain('cursor');
  });

  it('a contact that does not exist is 404 naming the contact', async () => {
    const { key } = await readyAccount(server);
    const list = await createList(key, { name: 'Missing contact' });
    for (const contactId of [MISSING_CONTACT, 'nobody', MISSING_LIST]) {
      const res = await server.call('POST', `/v1/lists/${list.id}/contacts`, { key, body: { contact_id: contactId } });
      expect(res.status, contactId).toBe(404);
      expect(res.body).toMatchObject({ error: 'not_found', message: 'contact not found' });
    }
    expect(await countOf(key, list.id)).toBe(0);
  });
});

describe('account isolation', () => {
  it("another account's list and contact answer 404 exactly like missing ones", async () => {
    const a = await readyAccount(server);
    const b = await readyAccount(server);
    const listA = await createList(a.key, { name: 'Private' });
    const contactA = await createContact(a.key, 'private@example.com');
    await addMember(a.key, listA.id, contactA);
    const listB = await createList(b.key, { name: 'Theirs' });
    const contactB = await createContact(b.key, 'theirs@example.com');

    const missing = await server.call('GET', `/v1/lists/${MISSING_LIST}`, { key: b.key });
    for (const [method, path, body] of [
      ['GET', `/v1/lists/${listA.id}`],
      ['PATCH', `/v1/lists/${listA.id}`, { name: 'hijacked' }],
      ['DELETE', `/v1/lists/${listA.id}`],
      ['PATCH', `/v1/lists/${listA.id}/favorite`, { favorite: true }],
      ['GET', `/v1/lists/${listA.id}/contacts`],
      ['POST', `/v1/lists/${listA.id}/contacts`, { contact_id: contactB }],
      ['DELETE', `/v1/lists/${listA.id}/contacts/${contactA}`],
    ] as const) {
      const res = await server.call(method, path, { key: b.key, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body, `${method} ${path}`).toEqual(missing.body);
    }
    // A's contact cannot be put on B's list
    const cross = await server.call('POST', `/v1/lists/${listB.id}/contacts`, { key: b.key, body: { contact_id: contactA } });
    expect(cross.status).toBe(404);
    expect(cross.body).toEqual((await server.call('POST', `/v1/lists/${listB.id}/contacts`, { key: b.key, body: { contact_id: MISSING_CONTACT } })).body);

    expect(ids((await ok('GET', '/v1/lists', b.key)).data)).toEqual([listB.id]);
    expect(await getList(a.key, listA.id)).toMatchObject({ name: 'Private', member_count: 1, favorite: false });
    expect(await countOf(b.key, listB.id)).toBe(0);
  });
});

describe('validation and scopes', () => {
  it('rejects bad bodies with 400 validation_error naming the path, unknown fields included', async () => {
    const { key } = await readyAccount(server);
    const list = await createList(key, { name: 'Valid' });
    const cases: [string, string, unknown, string][] = [
      ['POST', '/v1/lists', {}, 'name'],
      ['POST', '/v1/lists', { name: '   ' }, 'name'],
      ['POST', '/v1/lists', { name: 'x'.repeat(201) }, 'name'],
      ['POST', '/v1/lists', { name: 42 }, 'name'],
      ['POST', '/v1/lists', { name: 'ok', description: 7 }, 'description'],
      ['POST', '/v1/lists', { name: 'ok', description: 'x'.repeat(2001) }, 'description'],
      ['POST', '/v1/lists', { name: 'ok', member_count: 100 }, 'member_count'],
      ['POST', '/v1/lists', { name: 'ok', favorite: true }, 'favorite'],
      ['POST', '/v1/lists', ['name'], '(body)'],
      ['PATCH', `/v1/lists/${list.id}`, { name: '' }, 'name'],
      ['PATCH', `/v1/lists/${list.id}`, { nmae: 'typo' }, 'nmae'],
      ['PATCH', `/v1/lists/${list.id}`, { favorite: true }, 'favorite'],
      ['PATCH', `/v1/lists/${list.id}/favorite`, {}, 'favorite'],
      ['PATCH', `/v1/lists/${list.id}/favorite`, { favorite: 'yes' }, 'favorite'],
      ['PATCH', `/v1/lists/${list.id}/favorite`, { favorite: true, name: 'x' }, 'name'],
      ['POST', `/v1/lists/${list.id}/contacts`, {}, 'contact_id'],
      ['POST', `/v1/lists/${list.id}/contacts`, { contact_id: 12 }, 'contact_id'],
      ['POST', `/v1/lists/${list.id}/contacts`, { contact_id: 'ct_x', role: 'admin' }, 'role'],
      ['POST', '/v1/lists', { name: 'nul \u0000 byte' }, 'name'],
    ];
    for (const [method, path, body, issuePath] of cases) {
      const res = await server.call(method, path, { key, body });
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(issuePaths(res.body), `${method} ${path} ${JSON.stringify(body)}`).toContain(issuePath);
    }
    // nothing was created or changed
    expect((await ok('GET', '/v1/lists', key)).data).toEqual([list]);
  });

  it('a read-only key may read lists but gets 403 insufficient_scope on every mutation', async () => {
    const acct: TestAccount = await readyAccount(server);
    const list = await createList(acct.key, { name: 'Scoped' });
    const contact = await createContact(acct.key, 'scoped@example.com');
    await addMember(acct.key, list.id, contact);
    const reader = (await ok('POST', '/v1/account/api-keys', acct.key, { scopes: ['read'] }, 201)).key as string;

    expect((await ok('GET', '/v1/lists', reader)).data).toHaveLength(1);
    expect((await ok('GET', `/v1/lists/${list.id}`, reader)).member_count).toBe(1);
    expect(ids((await ok('GET', `/v1/lists/${list.id}/contacts`, reader)).data)).toEqual([contact]);
    for (const [method, path, body] of [
      ['POST', '/v1/lists', { name: 'nope' }],
      ['PATCH', `/v1/lists/${list.id}`, { name: 'nope' }],
      ['DELETE', `/v1/lists/${list.id}`],
      ['PATCH', `/v1/lists/${list.id}/favorite`, { favorite: true }],
      ['POST', `/v1/lists/${list.id}/contacts`, { contact_id: contact }],
      ['DELETE', `/v1/lists/${list.id}/contacts/${contact}`],
    ] as const) {
      const res = await server.call(method, path, { key: reader, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body, `${method} ${path}`).toMatchObject({ error: 'insufficient_scope', required_scope: 'write' });
    }
    expect(await getList(acct.key, list.id)).toMatchObject({ name: 'Scoped', member_count: 1, favorite: false });
  });
});

describe('rebuilding the lists read model', () => {
  async function snapshot() {
    const dump: Record<string, string[]> = {};
    for (const [table, order] of [['lists', 'id'], ['list_members', 'list_id, contact_id'], ['list_gone_contacts', 'contact_id']]) {
      const { rows } = await server.engage.pool.query<{ r: string }>(`SELECT row_to_json(t)::text AS r FROM ${table} t ORDER BY ${order}`);
      dump[table] = rows.map((x) => x.r);
    }
    return dump;
  }

  it('a requested rebuild replays the log into the same rows', async () => {
    // (after the tests above: lists pinned, renamed and deleted, members removed and re-added,
    // contacts deleted and erased); one more account for sure
    const { key } = await readyAccount(server);
    const list = await createList(key, { name: 'Rebuilt', description: 'd' });
    await ok('PATCH', `/v1/lists/${list.id}/favorite`, key, { favorite: true });
    const c1 = await createContact(key, 'rebuild-1@example.com');
    const c2 = await createContact(key, 'rebuild-2@example.com');
    await addMember(key, list.id, c1);
    await addMember(key, list.id, c2);
    await ok('DELETE', `/v1/contacts/${c1}`, key);

    await server.caughtUp(['lists']);
    const before = await snapshot();
    expect(before.lists.length).toBeGreaterThan(10);
    expect(before.list_members.length).toBeGreaterThan(10);
    expect(before.list_gone_contacts.length).toBeGreaterThanOrEqual(4);
    const page = await ok('GET', '/v1/lists', key);

    await rebuildAndWait(server, listsProjection);
    expect(await snapshot()).toEqual(before);
    expect(await ok('GET', '/v1/lists', key)).toEqual(page);
    expect(page.data[0]).toMatchObject({ id: list.id, favorite: true, member_count: 1 });
  });
});
