// Tracked events over HTTP (README "Events"): one event, {events}
// or a bare array of up to 1,000; contacts found by id, email, phone or external_id, unknown ones
// identified by email or phone created (contact.created); per-event failures that never fail the
// batch; idempotency on the client's id per account, across contacts and concurrent repeats;
// traits; properties sealed under the contact's key and erased with it; the contact_events read
// model (counts per name, contact and UTC day) read-your-writes, dropped with its contact, rebuilt
// from the log into the same rows.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactStream } from '../../commands/contact.ts';
import { contactEventsProjection } from '../../projections/contact-events.ts';
import { claimHasher } from '../../src/claims.ts';
import { readyAccount, type TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { expectRejected } from '../support/http.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';

const server = testServerForSuite({ WEBHOOK_ALLOW_PRIVATE: 'true' });
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CONTACT_ID = /^ct_[0-9A-HJKMNP-TV-Z]{26}$/;
const unique = () => randomBytes(5).toString('hex');

async function post(key: string, body: unknown, status = 200) {
  const res = await server.call('POST', '/v1/events', { key, body });
  expect(res.status, `POST /v1/events ${JSON.stringify(body).slice(0, 300)} → ${JSON.stringify(res.body).slice(0, 1000)}`).toBe(status);
  return res.body;
}
const createContact = async (key: string, body: Record<string, unknown>) => {
  const res = await server.call('POST', '/v1/contacts', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
};
const getContact = async (key: string, id: string) => (await server.call('GET', `/v1/contacts/${id}`, { key })).body;
const contactsWithEmail = async (key: string, email: string) => (await server.call('GET', `/v1/contacts?email=${encodeURIComponent(email)}`, { key })).body.data;

/** The contact's rows of contact_event_counts, by name and day. */
async function countsOf(contactId: string) {
  const { rows } = await server.engage.pool.query<{ name: string; day: string; count: number; first_at: Date; last_at: Date }>(
    `SELECT name, to_char(day, 'YYYY-MM-DD') AS day, count, first_at, last_at FROM contact_event_counts WHERE contact_id = $1 ORDER BY name, day`,
    [contactId],
  );
  return rows.map((r) => ({ ...r, first_at: r.first_at.toISOString(), last_at: r.last_at.toISOString() }));
}
const total = async (contactId: string) => (await countsOf(contactId)).reduce((n, r) => n + r.count, 0);
/** EventTracked events stored for the contact, as the event store holds them (raw, sealed). */
async function storedEvents(contactId: string) {
  const { rows } = await server.engage.pool.query<{ data: string }>(
    `SELECT data::text FROM es_events WHERE stream_id = $1 AND type = 'EventTracked' ORDER BY stream_revision`,
    [contactStream(contactId)],
  );
  return rows;
}

describe('the body: one event, {events: [...]} or an array', () => {
  let acct: TestAccount;
  let contactId: string;
  beforeAll(async () => {
    acct = await readyAccount(server);
    contactId = await createContact(acct.key, { email: `shapes-${unique()}@example.com` });
  });

  it('takes one event object and answers with the same shape as a batch; the read model has it when it answers', async () => {
    const body = await post(acct.key, { contact: { id: contactId }, name: 'Signed Up', timestamp: '2026-03-01T10:00:00Z' });
    expect(body).toEqual({ accepted: 1, duplicates: 0, failed: 0, results: [{ index: 0, status: 'accepted', id: expect.stringMatching(UUID), contact_id: contactId }] });
    expect(await countsOf(contactId)).toEqual([
      { name: 'Signed Up', day: '2026-03-01', count: 1, first_at: '2026-03-01T10:00:00.000Z', last_at: '2026-03-01T10:00:00.000Z' },
    ]);
  });

  it('takes {events: [...]} and a bare array', async () => {
    const events = [
      { contact: { id: contactId }, name: 'Viewed', timestamp: '2026-03-02T23:59:59.999+00:00' },
      { contact: { id: contactId }, name: 'Viewed', timestamp: '2026-03-03T01:00:00+02:00' },
    ];
    expect(await post(acct.key, { events })).toMatchObject({ accepted: 2, failed: 0, duplicates: 0 });
    expect(await post(acct.key, [{ contact: { id: contactId }, name: 'Viewed', timestamp: '2026-03-03T12:00:00Z' }])).toMatchObject({ accepted: 1 });
    // days are UTC dates of the timestamps: +02:00 01:00 on the 3rd is the 2nd in UTC
    expect((await countsOf(contactId)).filter((r) => r.name === 'Viewed')).toEqual([
      { name: 'Viewed', day: '2026-03-02', count: 2, first_at: '2026-03-02T23:00:00.000Z', last_at: '2026-03-02T23:59:59.999Z' },
      { name: 'Viewed', day: '2026-03-03', count: 1, first_at: '2026-03-03T12:00:00.000Z', last_at: '2026-03-03T12:00:00.000Z' },
    ]);
  });

  it('an event without a timestamp happened now', async () => {
    const before = Date.now();
    await post(acct.key, { contact: { id: contactId }, name: 'Now' });
    const [row] = (await countsOf(contactId)).filter((r) => r.name === 'Now');
    expect(Date.parse(row.first_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(row.first_at)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('refuses with 400 what is not an event, an array or {events}, an empty batch, more than 1,000 events, and unknown envelope fields', async () => {
    const before = await total(contactId);
    const one = { contact: { id: contactId }, name: 'Too many' };
    for (const [body, path] of [
      ['"just a string"', '(body)'],
      ['42', '(body)'],
      ['null', '(body)'],
      ['[]', '(body)'],
      [JSON.stringify({ events: [] }), 'events'],
      [JSON.stringify({ events: 'x' }), 'events'],
      [JSON.stringify(Array.from({ length: 1001 }, () => one)), '(body)'],
      [JSON.stringify({ events: Array.from({ length: 1001 }, () => one) }), 'events'],
      [JSON.stringify({ events: [one], extra: true }), 'extra'],
    ] as const) {
      const res = await server.call('POST', '/v1/events', { key: acct.key, raw: body, headers: { 'content-type': 'application/json' } });
      expectRejected(res, path);
    }
    expect(await total(contactId)).toBe(before);
    // exactly 1,000 is fine
    expect((await post(acct.key, Array.from({ length: 1000 }, () => one))).accepted).toBe(1000);
    expect(await total(contactId)).toBe(before + 1000);
  });

  it('needs an API key with the write scope', async () => {
    const reader = await server.call('POST', '/v1/account/api-keys', { key: acct.key, body: { scopes: ['read'] } });
    expect(reader.status).toBe(201);
    const refused = await server.call('POST', '/v1/events', { key: reader.body.key, body: { contact: { id: contactId }, name: 'Nope' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'write' });
    expect((await server.call('POST', '/v1/events', { body: { contact: { id: contactId }, name: 'Nope' } })).status).toBe(401);
  });
});

describe('bad events fail alone', () => {
  it('reports each bad event with its error and the paths of its issues; the good ones are stored', async () => {
    const acct = await readyAccount(server);
    const id = await createContact(acct.key, { email: `alone-${unique()}@example.com` });
    const ok = { contact: { id }, name: 'Good' };
    const inAnHour = new Date(Date.now() + 25 * 3600_000).toISOString();
    const body = await post(acct.key, [
      ok,
      { contact: { email: 'not an email' }, name: 'x' },
      { contact: { id }, name: '   ' },
      { contact: {}, name: 'x' },
      { contact: { id }, name: 'x', colour: 'red' },
      { contact: { id }, name: 'x', timestamp: 'yesterday' },
      { contact: { id }, name: 'x', timestamp: inAnHour },
      { contact: { id }, name: 'x', properties: { blob: 'x'.repeat(33 * 1024) } },
      { contact: { id }, name: 'x', properties: [1, 2] },
      { contact: { id }, name: 'x', id: '' },
      { contact: { id }, name: 'x', traits: { shoe_size: 44 } },
      { contact: { id }, name: 'x', traits: { custom_fields: { undefined_field: 1 } } },
      'not an object',
      ok,
    ]);
    expect(body).toMatchObject({ accepted: 2, duplicates: 0, failed: 12 });
    const paths = body.results.map((r: { issues?: { path: string }[] }) => r.issues?.map((i) => i.path));
    expect(paths).toEqual([
      undefined, ['contact.email'], ['name'], ['contact'], ['colour'], ['timestamp'], ['timestamp'], ['properties'], ['properties'], ['id'],
      ['traits.shoe_size'], ['custom_fields.undefined_field'], ['(body)'], undefined,
    ]);
    for (const r of body.results.slice(1, -1)) {
      expect(r).toEqual({ index: expect.any(Number), status: 'failed', error: 'validation_error', message: expect.any(String), issues: expect.any(Array) });
    }
    expect(body.results.map((r: { index: number }) => r.index)).toEqual([...Array(14).keys()]);
    expect(await countsOf(id)).toEqual([expect.objectContaining({ name: 'Good', count: 2 })]);
    // the event with bad traits is not stored, and the contact is as it was
    expect(await getContact(acct.key, id)).toMatchObject({ custom_fields: {} });
  });
});

describe('which contact an event is about', () => {
  let acct: TestAccount;
  beforeAll(async () => {
    acct = await readyAccount(server);
  });

  it('finds a contact by id, email (any case), phone (any format) or external_id', async () => {
    const tag = unique();
    const id = await createContact(acct.key, { email: `find-${tag}@example.com`, phone: '+14155550142', external_id: `ext-${tag}` });
    const body = await post(acct.key, [
      { contact: { id }, name: 'By id' },
      { contact: { email: `  FIND-${tag}@Example.com ` }, name: 'By email' },
      { contact: { phone: '(415) 555-0142' }, name: 'By phone' },
      { contact: { phone: '+1 415 555 0142', external_id: 'someone else' }, name: 'By phone first' },
      { contact: { external_id: `ext-${tag}` }, name: 'By external id' },
    ]);
    expect(body.failed).toBe(1); // (415) 555-0142 is not E.164: no country to read it in
    expect(body.results[2]).toMatchObject({ status: 'failed', issues: [{ path: 'contact.phone' }] });
    for (const i of [0, 1, 3, 4]) expect(body.results[i]).toMatchObject({ status: 'accepted', contact_id: id });
    expect((await countsOf(id)).map((r) => r.name)).toEqual(['By email', 'By external id', 'By id', 'By phone first']);
  });

  it('creates an unknown contact identified by email or phone (contact.created), once per batch, with its traits', async () => {
    const endpoint = await server.call('POST', '/v1/webhook-endpoints', { key: acct.key, body: { url: receiver.url, events: ['contact.created'] } });
    expect(endpoint.status).toBe(201);
    const email = `new-${unique()}@example.com`;
    const body = await post(acct.key, [
      { contact: { email, external_id: 'crm-7' }, name: 'First Visit', traits: { first_name: 'Ada', tags: ['lead'] } },
      { contact: { email }, name: 'Second Visit' },
      { contact: { phone: '+447911123456' }, name: 'Phone Only' },
    ]);
    expect(body).toMatchObject({ accepted: 3, failed: 0 });
    const [a, b, c] = body.results;
    expect(a.contact_id).toMatch(CONTACT_ID);
    expect(b.contact_id).toBe(a.contact_id);
    expect(c.contact_id).not.toBe(a.contact_id);
    // read-your-writes: listed at once, created with the identifiers and the traits
    const listed = await contactsWithEmail(acct.key, email);
    expect(listed).toEqual([expect.objectContaining({ id: a.contact_id, email, external_id: 'crm-7', first_name: 'Ada', tags: ['lead'] })]);
    expect(await getContact(acct.key, c.contact_id)).toMatchObject({ phone: '+447911123456', email: null });
    // one ContactCreated per new contact, before its events on its own stream
    const { rows } = await server.engage.pool.query<{ type: string }>('SELECT type FROM es_events WHERE stream_id = $1 ORDER BY stream_revision', [contactStream(a.contact_id)]);
    expect(rows.map((r) => r.type)).toEqual(['ContactCreated', 'EventTracked', 'EventTracked']);
    await server.caughtUp(['webhook_outbox']);
    const { rows: deliveries } = await server.engage.pool.query<{ event_type: string; body: string }>(
      'SELECT event_type, body FROM webhook_deliveries WHERE endpoint_id = $1',
      [endpoint.body.id],
    );
    expect(deliveries.map((d) => d.event_type)).toEqual(['contact.created', 'contact.created']);
    expect(deliveries.map((d) => JSON.parse(d.body).data.id).sort()).toEqual([a.contact_id, c.contact_id].sort());
  });

  it('an unknown id or external_id, another account’s contact, a deleted contact and an ambiguous external_id fail the event', async () => {
    const other = await readyAccount(server);
    const theirs = await createContact(other.key, { email: `theirs-${unique()}@example.com`, external_id: 'shared-ext' });
    const gone = await createContact(acct.key, { email: `gone-${unique()}@example.com` });
    expect((await server.call('DELETE', `/v1/contacts/${gone}`, { key: acct.key })).status).toBe(200);
    await createContact(acct.key, { external_id: 'twice' });
    await createContact(acct.key, { external_id: 'twice' });
    const body = await post(acct.key, [
      { contact: { id: 'ct_01ARZ3NDEKTSV4RRFFQ69G5FAV' }, name: 'x' },
      { contact: { id: 'not-an-id' }, name: 'x' },
      { contact: { external_id: `nobody-${unique()}` }, name: 'x' },
      { contact: { id: theirs }, name: 'x' },
      { contact: { external_id: 'shared-ext' }, name: 'x' },
      { contact: { id: gone }, name: 'x' },
      { contact: { external_id: 'twice' }, name: 'x' },
    ]);
    expect(body).toMatchObject({ accepted: 0, failed: 7 });
    expect(body.results.map((r: { error: string }) => r.error)).toEqual(['not_found', 'not_found', 'not_found', 'not_found', 'not_found', 'not_found', 'conflict']);
    for (const r of body.results) expect(r).toEqual({ index: expect.any(Number), status: 'failed', error: expect.any(String), message: expect.any(String) });
    expect(await total(theirs)).toBe(0);
    expect(await storedEvents(theirs)).toEqual([]);
  });

  it('a claim left behind on an email by a create that never happened does not keep the email from a new contact', async () => {
    const email = `left-behind-${unique()}@example.com`;
    await server.engage.pool.query(
      `INSERT INTO unique_claims (key, account_id, kind, value, owner_id, created_at)
       VALUES (unique_claim_key($1, 'contact_email', $2), $1, 'contact_email', $2, 'ct_01ARZ3NDEKTSV4RRFFQ69GHOST', now() - interval '1 hour')`,
      [acct.accountId, (await claimHasher(server.engage.pool))(email)],
    );
    const body = await post(acct.key, { contact: { email }, name: 'Came Back' });
    expect(body.results[0]).toMatchObject({ status: 'accepted', contact_id: expect.stringMatching(CONTACT_ID) });
    expect(body.results[0].contact_id).not.toBe('ct_01ARZ3NDEKTSV4RRFFQ69GHOST');
    expect(await contactsWithEmail(acct.key, email)).toEqual([expect.objectContaining({ id: body.results[0].contact_id })]);
    expect(await total(body.results[0].contact_id)).toBe(1);
  });
});

describe('traits', () => {
  it('update the contact (contact.updated) like PATCH, and a trait PATCH would refuse fails its event', async () => {
    const acct = await readyAccount(server);
    const field = await server.call('POST', '/v1/contacts/fields', { key: acct.key, body: { key: 'plan', type: 'select', options: ['free', 'pro'] } });
    expect(field.status).toBe(201);
    const tag = unique();
    const id = await createContact(acct.key, { email: `traits-${tag}@example.com` });
    const taken = await createContact(acct.key, { email: `taken-${tag}@example.com` });
    const body = await post(acct.key, [
      { contact: { id }, name: 'Upgraded', traits: { first_name: 'Grace', custom_fields: { plan: 'pro' } } },
      { contact: { id }, name: 'Moved', traits: { email: `traits-new-${tag}@example.com`, phone: '+14155550177' } },
      { contact: { id }, name: 'Bad Plan', traits: { custom_fields: { plan: 'gold' } } },
      { contact: { id }, name: 'Stolen Email', traits: { email: `taken-${tag}@example.com` } },
    ]);
    expect(body.results.map((r: { status: string; error?: string }) => r.error ?? r.status)).toEqual(['accepted', 'accepted', 'validation_error', 'conflict']);
    expect(body.results[2].issues).toEqual([{ path: 'custom_fields.plan', message: expect.any(String) }]);
    expect(await getContact(acct.key, id)).toMatchObject({ first_name: 'Grace', email: `traits-new-${tag}@example.com`, phone: '+14155550177', custom_fields: { plan: 'pro' } });
    expect((await countsOf(id)).map((r) => r.name)).toEqual(['Moved', 'Upgraded']);
    // the email changed through the claims: the old one is free, the new one is the contact's
    expect((await post(acct.key, { contact: { email: `traits-new-${tag}@example.com` }, name: 'Found' })).results[0].contact_id).toBe(id);
    expect((await post(acct.key, { contact: { email: `traits-${tag}@example.com` }, name: 'Someone New' })).results[0].contact_id).not.toBe(id);
    expect(await getContact(acct.key, taken)).toMatchObject({ email: `taken-${tag}@example.com` });
    const { rows } = await server.engage.pool.query<{ type: string }>(`SELECT type FROM es_events WHERE stream_id = $1 AND type = 'ContactUpdated'`, [contactStream(id)]);
    expect(rows).toHaveLength(2);
  });

  it('traits that would leave a new contact without an email, phone or external_id fail the event and create nothing', async () => {
    const acct = await readyAccount(server);
    const email = `bare-${unique()}@example.com`;
    const body = await post(acct.key, { contact: { email }, name: 'Nobody', traits: { email: null, first_name: 'Ghost' } });
    expect(body.results[0]).toMatchObject({ status: 'failed', error: 'validation_error', issues: [{ path: 'traits', message: expect.any(String) }] });
    expect((await server.call('GET', '/v1/contacts?q=Ghost', { key: acct.key })).body.data).toEqual([]);
  });

  it('a later event for a contact the batch creates applies its traits after the contact exists', async () => {
    const acct = await readyAccount(server);
    const email = `later-${unique()}@example.com`;
    const body = await post(acct.key, [
      { contact: { email }, name: 'One', traits: { first_name: 'Ada' } },
      { contact: { email }, name: 'Two', traits: { last_name: 'Lovelace' } },
    ]);
    expect(body).toMatchObject({ accepted: 2 });
    expect(body.results[1].contact_id).toBe(body.results[0].contact_id);
    expect(await getContact(acct.key, body.results[0].contact_id)).toMatchObject({ email, first_name: 'Ada', last_name: 'Lovelace' });
  });
});

describe('idempotency on the client’s event id', () => {
  let acct: TestAccount;
  beforeAll(async () => {
    acct = await readyAccount(server);
  });

  it('a batch sent again is all duplicates and stores nothing more; a repeat within a batch is a duplicate too', async () => {
    const tag = unique();
    const id = await createContact(acct.key, { email: `idem-${tag}@example.com` });
    const email = `idem-new-${tag}@example.com`;
    const events = [
      { id: `o-${tag}-1`, contact: { id }, name: 'Order', properties: { n: 1 } },
      { id: `o-${tag}-2`, contact: { email }, name: 'Order', traits: { first_name: 'New' } },
      { id: `o-${tag}-1`, contact: { id }, name: 'Order', properties: { n: 1 } },
      { contact: { id }, name: 'No id' },
    ];
    const first = await post(acct.key, { events });
    expect(first).toMatchObject({ accepted: 3, duplicates: 1, failed: 0 });
    expect(first.results[0]).toEqual({ index: 0, status: 'accepted', id: `o-${tag}-1`, contact_id: id });
    expect(first.results[2]).toEqual({ index: 2, status: 'duplicate', id: `o-${tag}-1`, contact_id: id });
    const created = first.results[1].contact_id;
    // each stored event carries its id: the client's, or (without one) the id the answer gave it
    expect((await storedEvents(id)).map((e) => JSON.parse(e.data).event_id)).toEqual([`o-${tag}-1`, first.results[3].id]);

    const again = await post(acct.key, { events });
    expect(again).toMatchObject({ accepted: 1, duplicates: 3, failed: 0 });
    expect(again.results.slice(0, 3)).toEqual([
      { index: 0, status: 'duplicate', id: `o-${tag}-1`, contact_id: id },
      { index: 1, status: 'duplicate', id: `o-${tag}-2`, contact_id: created },
      { index: 2, status: 'duplicate', id: `o-${tag}-1`, contact_id: id },
    ]);
    expect(await total(id)).toBe(3); // o-1 once and "No id" twice
    expect(await total(created)).toBe(1);
    expect(await contactsWithEmail(acct.key, email)).toHaveLength(1);
  });

  it('an id is the account’s: used again for another contact it is a duplicate of the first; another account may use it', async () => {
    const tag = unique();
    const a = await createContact(acct.key, { email: `first-${tag}@example.com` });
    const b = await createContact(acct.key, { email: `second-${tag}@example.com` });
    expect((await post(acct.key, { id: `shared-${tag}`, contact: { id: a }, name: 'X' })).accepted).toBe(1);
    expect((await post(acct.key, { id: `shared-${tag}`, contact: { id: b }, name: 'X' })).results[0]).toEqual({ index: 0, status: 'duplicate', id: `shared-${tag}`, contact_id: a });
    expect(await total(b)).toBe(0);
    const other = await readyAccount(server);
    const c = await createContact(other.key, { email: `first-${tag}@example.com` });
    expect((await post(other.key, { id: `shared-${tag}`, contact: { id: c }, name: 'X' })).results[0]).toMatchObject({ status: 'accepted', contact_id: c });
  });

  it('an event sent again after its contact was deleted is still a duplicate of the first, not a failure', async () => {
    const tag = unique();
    const gone = await createContact(acct.key, { email: `deleted-later-${tag}@example.com` });
    const first = [
      { id: `by-id-${tag}`, contact: { id: gone }, name: 'X' },
      { id: `by-email-${tag}`, contact: { email: `deleted-later-${tag}@example.com` }, name: 'X' },
    ];
    expect((await post(acct.key, first)).accepted).toBe(2);
    expect((await server.call('DELETE', `/v1/contacts/${gone}`, { key: acct.key })).status).toBe(200);
    const again = await post(acct.key, [...first, { id: `new-${tag}`, contact: { id: gone }, name: 'X' }]);
    expect(again.results[0]).toEqual({ index: 0, status: 'duplicate', id: `by-id-${tag}`, contact_id: gone });
    expect(again.results[1]).toEqual({ index: 1, status: 'duplicate', id: `by-email-${tag}`, contact_id: gone });
    // a new id for the deleted contact fails as any event for it does
    expect(again.results[2]).toMatchObject({ index: 2, status: 'failed', error: 'not_found' });
  });

  it('concurrent posts of the same id accept it exactly once, for one contact', async () => {
    for (let round = 0; round < 3; round++) {
      const tag = unique();
      const email = `race-${tag}@example.com`;
      const event = { id: `race-${tag}`, contact: { email }, name: 'Raced', traits: { first_name: 'Racer' } };
      const answers = await Promise.all(Array.from({ length: 4 }, () => post(acct.key, [event, { contact: { email }, name: 'Unraced' }])));
      const firsts = answers.map((a) => a.results[0]);
      expect(firsts.filter((r) => r.status === 'accepted'), JSON.stringify(firsts)).toHaveLength(1);
      // the others learnt it was taken: a duplicate, or (while the first was still storing it) a conflict to retry
      for (const r of firsts.filter((x) => x.status !== 'accepted')) expect(r.status === 'duplicate' || r.error === 'conflict', JSON.stringify(r)).toBe(true);
      const contacts = await contactsWithEmail(acct.key, email);
      expect(contacts).toHaveLength(1);
      const { rows } = await server.engage.pool.query(`SELECT 1 FROM es_events WHERE type = 'EventTracked' AND data->>'account_id' = $1 AND data->>'event_id' = $2`, [
        acct.accountId, `race-${tag}`,
      ]);
      expect(rows).toHaveLength(1);
      expect(answers.map((a) => a.results[1]), JSON.stringify(answers)).toEqual(answers.map((_, i) => expect.objectContaining({ status: 'accepted', contact_id: contacts[0].id })));
      // asked again, it is a duplicate for everyone
      expect((await post(acct.key, event)).results[0]).toMatchObject({ status: 'duplicate', contact_id: contacts[0].id });
    }
  });

  it('a batch the store refused gives its ids and new contacts back: sent again, it is accepted', async () => {
    const tag = unique();
    const id = await createContact(acct.key, { email: `refused-${tag}@example.com` });
    const events = [
      { id: `refused-${tag}-1`, contact: { id }, name: `Refused ${tag}` },
      { id: `refused-${tag}-2`, contact: { email: `refused-new-${tag}@example.com` }, name: 'Fine' },
    ];
    // the database refuses the append (a constraint only this test's events break)
    await server.engage.pool.query(`ALTER TABLE es_events ADD CONSTRAINT refuse_${tag} CHECK (type <> 'EventTracked' OR data->>'name' <> 'Refused ${tag}') NOT VALID`);
    try {
      const refused = await server.request('POST', '/v1/events', { key: acct.key, body: events });
      expect(refused.status).toBe(500);
      expect(refused.body).toMatchObject({ error: 'internal_error' });
    } finally {
      await server.engage.pool.query(`ALTER TABLE es_events DROP CONSTRAINT refuse_${tag}`);
    }
    const again = await post(acct.key, events);
    expect(again.results).toEqual([
      { index: 0, status: 'accepted', id: `refused-${tag}-1`, contact_id: id },
      { index: 1, status: 'accepted', id: `refused-${tag}-2`, contact_id: expect.stringMatching(CONTACT_ID) },
    ]);
    expect(await total(id)).toBe(1);
  });

  it('an id left claimed by a request that died is free again later if its event was not stored, and a duplicate if it was', async () => {
    const tag = unique();
    const id = await createContact(acct.key, { email: `died-${tag}@example.com` });
    // a claim row holds the keyed hash of its value (src/claims.ts)
    const hash = await claimHasher(server.engage.pool);
    const claim = (clientId: string, age: string) =>
      server.engage.pool.query(
        `INSERT INTO unique_claims (key, account_id, kind, value, owner_id, created_at) VALUES (unique_claim_key($1, 'tracked_event', $2), $1, 'tracked_event', $2, $3, now() - $4::interval)
         ON CONFLICT (key) DO UPDATE SET owner_id = excluded.owner_id, created_at = excluded.created_at`,
        [acct.accountId, hash(clientId), `pending:01ARZ3NDEKTSV4RRFFQ69G5FAV:${id}`, age],
      );
    // within the time a request may take, but not one storing it right now: the client is told to send it again
    await claim(`young-${tag}`, '2 minutes');
    expect((await post(acct.key, { id: `young-${tag}`, contact: { id }, name: 'Young' })).results[0]).toMatchObject({ status: 'failed', error: 'conflict' });
    // left behind, never stored: ingested now
    await claim(`old-${tag}`, '1 hour');
    expect((await post(acct.key, { id: `old-${tag}`, contact: { id }, name: 'Old' })).results[0]).toMatchObject({ status: 'accepted', contact_id: id });
    // left behind after it was stored: a duplicate
    expect((await post(acct.key, { id: `stored-${tag}`, contact: { id }, name: 'Stored' })).accepted).toBe(1);
    await claim(`stored-${tag}`, '1 hour');
    expect((await post(acct.key, { id: `stored-${tag}`, contact: { id }, name: 'Stored' })).results[0]).toMatchObject({ status: 'duplicate', contact_id: id });
    expect(await countsOf(id)).toEqual([expect.objectContaining({ name: 'Old', count: 1 }), expect.objectContaining({ name: 'Stored', count: 1 })]);
  });

  it("a batch's stored events are settled by one row for the request, not by rewriting each id's claim", async () => {
    const tag = unique();
    const id = await createContact(acct.key, { email: `settled-${tag}@example.com` });
    const events = Array.from({ length: 50 }, (_, i) => ({ id: `settled-${tag}-${i}`, contact: { id }, name: 'Settled' }));
    expect((await post(acct.key, events)).accepted).toBe(50);
    const hash = await claimHasher(server.engage.pool);
    const { rows } = await server.engage.pool.query<{ owner_id: string }>(
      `SELECT owner_id FROM unique_claims WHERE account_id = $1 AND kind = 'tracked_event' AND value = ANY($2::text[])`,
      [acct.accountId, events.map((e) => hash(e.id))],
    );
    // every claim still names the request that took it; the request's one row says its events are stored
    const owners = new Set(rows.map((r) => r.owner_id.slice(0, r.owner_id.lastIndexOf(':'))));
    expect(rows).toHaveLength(50);
    expect(owners.size).toBe(1);
    const [owner] = owners;
    expect(owner).toMatch(/^pending:/);
    const marks = await server.engage.pool.query(`SELECT 1 FROM stored_event_batches WHERE account_id = $1 AND token = $2`, [acct.accountId, owner.slice('pending:'.length)]);
    expect(marks.rowCount).toBe(1);
    // and they are duplicates at once, young as their claims are
    expect(await post(acct.key, events.slice(0, 3))).toMatchObject({ accepted: 0, duplicates: 3 });
  });

  it("a young claim is a duplicate when its request's batch is marked stored, and in flight when it is not", async () => {
    const tag = unique();
    const id = await createContact(acct.key, { email: `marked-${tag}@example.com` });
    const hash = await claimHasher(server.engage.pool);
    const token = `01ARZ3NDEKTSV4RRFFQ69G${tag.slice(0, 4).toUpperCase()}`;
    await server.engage.pool.query(
      `INSERT INTO unique_claims (key, account_id, kind, value, owner_id)
       VALUES (unique_claim_key($1, 'tracked_event', $2), $1, 'tracked_event', $2, $4), (unique_claim_key($1, 'tracked_event', $3), $1, 'tracked_event', $3, $5)`,
      [acct.accountId, hash(`marked-${tag}`), hash(`unmarked-${tag}`), `pending:${token}:${id}`, `pending:${token}x:${id}`],
    );
    await server.engage.pool.query(`INSERT INTO stored_event_batches (account_id, token) VALUES ($1, $2)`, [acct.accountId, token]);
    const answer = await post(acct.key, [
      { id: `marked-${tag}`, contact: { id }, name: 'Marked' },
      { id: `unmarked-${tag}`, contact: { id }, name: 'Unmarked' },
    ]);
    expect(answer.results[0]).toEqual({ index: 0, status: 'duplicate', id: `marked-${tag}`, contact_id: id });
    expect(answer.results[1]).toMatchObject({ status: 'failed', error: 'conflict' });
    // another account's batch of that token is not this account's
    const other = await readyAccount(server);
    const otherId = await createContact(other.key, { email: `marked-${tag}@example.com` });
    await server.engage.pool.query(`INSERT INTO unique_claims (key, account_id, kind, value, owner_id) VALUES (unique_claim_key($1, 'tracked_event', $2), $1, 'tracked_event', $2, $3)`, [
      other.accountId, hash(`marked-${tag}`), `pending:${token}:${otherId}`,
    ]);
    expect((await post(other.key, { id: `marked-${tag}`, contact: { id: otherId }, name: 'Marked' })).results[0]).toMatchObject({ status: 'failed', error: 'conflict' });
  });

  it('an event of a batch that goes alone is not covered by its batch’s mark', async () => {
    const tag = unique();
    const email = `alone-${tag}@example.com`;
    // the second event names the contact the first creates and brings traits: it is tracked alone, after the batch
    const answer = await post(acct.key, [
      { id: `alone-${tag}-1`, contact: { email }, name: 'First' },
      { id: `alone-${tag}-2`, contact: { email }, name: 'Second', traits: { first_name: 'Later' } },
    ]);
    expect(answer).toMatchObject({ accepted: 2 });
    const hash = await claimHasher(server.engage.pool);
    const { rows } = await server.engage.pool.query<{ owner_id: string }>(
      `SELECT owner_id FROM unique_claims WHERE account_id = $1 AND kind = 'tracked_event' AND value = $2`,
      [acct.accountId, hash(`alone-${tag}-2`)],
    );
    expect(rows[0].owner_id).toBe(`event:${answer.results[1].contact_id}`);
  });
});

describe('personal data in properties', () => {
  it('is sealed in the event log and readable through the store, until the contact is erased: then its counts go and its properties read as erased', async () => {
    const acct = await readyAccount(server);
    const secret = `card-${unique()}`;
    const id = await createContact(acct.key, { email: `sealed-${unique()}@example.com` });
    const keep = await createContact(acct.key, { email: `kept-${unique()}@example.com` });
    await post(acct.key, [
      { contact: { id }, name: 'Paid', properties: { card: secret, amount: 12.5 } },
      { contact: { id: keep }, name: 'Paid', properties: { card: 'other' } },
    ]);
    const raw = await storedEvents(id);
    expect(raw).toHaveLength(1);
    expect(raw[0].data).not.toContain(secret);
    expect(JSON.parse(raw[0].data)).toMatchObject({ name: 'Paid', contact_id: id, personal_data: { key: expect.any(String) } });
    const opened = (await server.engage.store.readStream(contactStream(id))).find((e) => e.type === 'EventTracked')!;
    expect(opened.data).toMatchObject({ name: 'Paid', properties: { card: secret, amount: 12.5 }, personal_data: { erased: false } });
    // a reader that never looks at them (the contact_events read model) reads them sealed: nothing decrypted
    expect(contactEventsProjection.personalData).toBe('unused');
    const readFrom = { commit: opened.position.commit, prepare: opened.position.prepare - 1n };
    const [asStored] = await server.engage.store.readAll({ after: readFrom, maxCount: 1, keepSealed: true });
    expect(asStored!.data).not.toHaveProperty('properties');
    expect(JSON.stringify(asStored!.data)).not.toContain(secret);
    const [openedAgain] = await server.engage.store.readAll({ after: readFrom, maxCount: 1 });
    expect(openedAgain!.data).toMatchObject({ properties: { card: secret } });

    const erased = await server.call('POST', `/v1/contacts/${id}/erase`, { key: acct.key, body: {} });
    expect(erased.status).toBe(200);
    // read-your-writes: its rows are gone when the erasure answers; the other contact's stay
    expect(await countsOf(id)).toEqual([]);
    expect(await total(keep)).toBe(1);
    const after = (await server.engage.store.readStream(contactStream(id))).find((e) => e.type === 'EventTracked')!;
    expect(after.data).toMatchObject({ name: 'Paid', properties: {}, personal_data: { erased: true } });
    // and no event is tracked for it any more
    expect((await post(acct.key, { contact: { id }, name: 'After' })).results[0]).toMatchObject({ status: 'failed', error: 'not_found' });
  });

  it('a deleted contact’s counts go with it', async () => {
    const acct = await readyAccount(server);
    const id = await createContact(acct.key, { email: `deleted-${unique()}@example.com` });
    await post(acct.key, { contact: { id }, name: 'Before' });
    expect(await total(id)).toBe(1);
    expect((await server.call('DELETE', `/v1/contacts/${id}`, { key: acct.key })).status).toBe(200);
    expect(await countsOf(id)).toEqual([]);
  });
});

describe('rebuilding the contact_events read model', () => {
  it('replays the log into the same rows', async () => {
    // (after the tests above: events of many contacts and days, contacts deleted and erased)
    await server.caughtUp(['contact_events']);
    const snapshot = async () => {
      const dump: Record<string, string[]> = {};
      for (const [table, order] of [['contact_event_counts', 'account_id, name, contact_id, day'], ['contact_events_gone', 'contact_id']]) {
        const { rows } = await server.engage.pool.query<{ r: string }>(`SELECT row_to_json(t)::text AS r FROM ${table} t ORDER BY ${order}`);
        dump[table] = rows.map((x) => x.r);
      }
      return dump;
    };
    const before = await snapshot();
    expect(before.contact_event_counts.length).toBeGreaterThan(20);
    expect(before.contact_events_gone.length).toBeGreaterThanOrEqual(2);
    await rebuildAndWait(server, contactEventsProjection);
    expect(await snapshot()).toEqual(before);
  });
});
