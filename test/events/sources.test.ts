// Event ids per source (README "Events", "Browser tracking"; issue 25 finding 10): the server API and
// the public tracking key each have their own id namespace in an account, and browser ids are the
// visitor's own (per contact). A visitor cannot take an id ahead of the backend, cannot learn which
// ids the backend used, and cannot take another visitor's ids; what is stored rebuilds the same.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contactStream } from '../../commands/contact.ts';
import { contactEventsProjection } from '../../projections/contact-events.ts';
import { testServerForSuite, type TestServer } from '../support/harness.ts';
import { requestJson } from '../support/http.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { identitySecret, trackingKey, userHash } from '../tracking/helpers.ts';

const unique = () => randomBytes(5).toString('hex');
const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false' });

async function api(key: string, body: unknown) {
  const res = await server.call('POST', '/v1/events', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** POST /v1/track as the SDK would send it (text/plain JSON). */
async function browser(s: TestServer, body: unknown) {
  const res = await requestJson(s.url, 'POST', '/v1/track', { raw: JSON.stringify(body), headers: { 'content-type': 'text/plain;charset=UTF-8' } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function setup() {
  const acct = await server.newAccount();
  const { key } = await trackingKey(server, acct.key);
  const secret = await identitySecret(server, acct.key);
  const visitor = (email: string) => ({ email, user_hash: userHash(secret, email) });
  return { acct, key, visitor };
}

/** The contact's EventTracked events: client id, name and source as stored. */
async function stored(contactId: string) {
  const events = await server.engage.store.readStream(contactStream(contactId));
  return events.filter((e) => e.type === 'EventTracked').map((e) => ({ id: (e.data as any).event_id, name: (e.data as any).name, source: (e.data as any).source }));
}

const counts = async (accountId: string) =>
  (
    await server.engage.pool.query(
      `SELECT contact_id, name, count FROM contact_event_counts WHERE account_id = $1 ORDER BY contact_id, name`,
      [accountId],
    )
  ).rows;

describe('event ids per source', () => {
  it("a visitor's id does not take the backend's: the backend's event for another contact is stored, and each source dedupes its own", async () => {
    const { acct, key, visitor } = await setup();
    const id = `order-${unique()}`;
    const pre = await browser(server, { key, identity: visitor(`mallory-${unique()}@example.com`), events: [{ type: 'track', name: 'Order Completed', id }] });
    expect(pre).toMatchObject({ accepted: 1, duplicates: 0 });

    const buyer = `buyer-${unique()}@example.com`;
    const real = await api(acct.key, { contact: { email: buyer }, name: 'Order Completed', id, properties: { total: 42 } });
    expect(real.results[0], 'the backend event must not be dropped as a duplicate of the visitor one').toMatchObject({ status: 'accepted', id });
    const buyerId = real.results[0].contact_id as string;
    expect(await stored(buyerId)).toEqual([{ id, name: 'Order Completed', source: undefined }]);

    // the backend's own repeat is still a duplicate (for the contact it was stored for)
    const again = await api(acct.key, { contact: { email: `other-${unique()}@example.com` }, name: 'Order Completed', id });
    expect(again.results[0]).toMatchObject({ status: 'duplicate', id, contact_id: buyerId });
  });

  it('a visitor learns nothing of the ids the backend used: the browser answer is the same as for a new id', async () => {
    const { acct, key, visitor } = await setup();
    const used = `order-${unique()}`;
    await api(acct.key, { contact: { email: `buyer-${unique()}@example.com` }, name: 'Order Completed', id: used });
    const fresh = `order-${unique()}`;
    const probe = await browser(server, {
      key, identity: visitor(`mallory-${unique()}@example.com`),
      events: [{ type: 'track', name: 'Probe', id: used }, { type: 'track', name: 'Probe', id: fresh }],
    });
    expect(probe.results.map((r: any) => r.status)).toEqual(['accepted', 'accepted']);
    expect(probe).toMatchObject({ accepted: 2, duplicates: 0 });
  });

  it("browser ids are each visitor's own: one visitor cannot take (or probe) another's; a visitor's own repeat is a duplicate", async () => {
    const { acct, key, visitor } = await setup();
    const id = `checkout-${unique()}`;
    const ada = visitor(`ada-${unique()}@example.com`);
    const mallory = visitor(`mallory-${unique()}@example.com`);
    expect(await browser(server, { key, identity: mallory, events: [{ type: 'track', name: 'Checkout', id }] })).toMatchObject({ accepted: 1 });
    const first = await browser(server, { key, identity: ada, events: [{ type: 'track', name: 'Checkout', id }] });
    expect(first, "Ada's event must not be dropped as a duplicate of Mallory's").toMatchObject({ accepted: 1, duplicates: 0 });
    const repeat = await browser(server, { key, identity: ada, events: [{ type: 'track', name: 'Checkout', id }] });
    expect(repeat).toMatchObject({ accepted: 0, duplicates: 1, results: [{ index: 0, status: 'duplicate', id }] });

    const adaContact = (await server.call('GET', `/v1/contacts?email=${encodeURIComponent(ada.email)}`, { key: acct.key })).body.data[0];
    expect(await stored(adaContact.id)).toEqual([{ id, name: 'Checkout', source: 'browser' }]);
  });

  it('the read model rebuilt from the log counts the same events', async () => {
    const { acct, key, visitor } = await setup();
    const id = `order-${unique()}`;
    await browser(server, { key, identity: visitor(`v-${unique()}@example.com`), events: [{ type: 'track', name: 'Paid', id }] });
    await api(acct.key, { contact: { email: `b-${unique()}@example.com` }, name: 'Paid', id });
    await api(acct.key, { contact: { email: `b-${unique()}@example.com` }, name: 'Paid', id });
    const before = await counts(acct.accountId);
    expect(before.map((r) => r.count)).toEqual([1, 1]);
    await rebuildAndWait(server, contactEventsProjection);
    expect(await counts(acct.accountId)).toEqual(before);
  });
});
