// Which traits a browser may set (README "Browser tracking"; issue 25 finding 14): the profile traits
// (first_name, last_name, country, language, timezone) always; custom fields and tags only those the
// account allows through its tracking settings (settings capability, an event on tracking-<account>).
// Anything else in `traits` is ignored, named in `ignored_traits`, and the request's events still land.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { trackingStream } from '../../commands/tracking.ts';
import { trackingProjection } from '../../projections/tracking.ts';
import { testServerForSuite } from '../support/harness.ts';
import { expectNoServerError, expectRejected, requestJson } from '../support/http.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { contactByEmail, identitySecret, performed, trackingKey, userHash } from './helpers.ts';

const unique = () => randomBytes(5).toString('hex');
const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false' });
const PROFILE = ['first_name', 'last_name', 'country', 'language', 'timezone'];

async function track(body: unknown) {
  const res = await requestJson(server.url, 'POST', '/v1/track', { raw: JSON.stringify(body), headers: { 'content-type': 'text/plain;charset=UTF-8' } });
  expectNoServerError(res, 'POST /v1/track');
  return res;
}

async function setup() {
  const acct = await server.newAccount();
  const { key } = await trackingKey(server, acct.key);
  const secret = await identitySecret(server, acct.key);
  for (const field of ['plan', 'score']) {
    const res = await server.call('POST', '/v1/contacts/fields', { key: acct.key, body: { key: field, type: field === 'plan' ? 'text' : 'number' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  const email = `visitor-${unique()}@example.com`;
  return { acct, key, email, identity: { email, user_hash: userHash(secret, email) } };
}

const everything = { first_name: 'Ada', timezone: 'Europe/London', tags: ['vip'], custom_fields: { plan: 'enterprise', score: 99 }, favourite_colour: 'green' };

describe('browser traits', () => {
  it('by default set only the profile traits: tags, custom fields and unknown traits are ignored and named, and the events still land', async () => {
    const { acct, key, email, identity } = await setup();
    const settings = await server.call('GET', '/v1/account/tracking-traits', { key: acct.key });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    expect(settings.body).toEqual({ profile: PROFILE, custom_fields: [], tags: false });

    const res = await track({ key, identity, traits: everything, events: [{ type: 'track', name: 'Visited' }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ accepted: 1, failed: 0 });
    expect(res.body.ignored_traits).toEqual(['tags', 'custom_fields.plan', 'custom_fields.score', 'favourite_colour']);
    const contact = await contactByEmail(server, acct.key, email);
    expect(contact).toMatchObject({ first_name: 'Ada', timezone: 'Europe/London', tags: [] });
    expect(contact!.custom_fields ?? {}).toEqual({});
    expect(await performed(server, acct.key, email, 'Visited')).toBe(1);

    // an existing contact (traits applied as a PATCH) is held to the same rule
    const again = await track({ key, identity, traits: { last_name: 'Lovelace', tags: ['admin'], custom_fields: { plan: 'free' } } });
    expect(again.body.ignored_traits).toEqual(['tags', 'custom_fields.plan']);
    const after = await contactByEmail(server, acct.key, email);
    expect(after).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace', tags: [] });
    expect(after!.custom_fields ?? {}).toEqual({});
    // nothing ignored: no ignored_traits
    expect((await track({ key, identity, traits: { first_name: 'Ada' } })).body).not.toHaveProperty('ignored_traits');
  });

  it('the account may allow custom fields and tags (settings capability); the rest stays ignored', async () => {
    const { acct, key, email, identity } = await setup();
    const limited = (await server.call('POST', '/v1/account/api-keys', { key: acct.key, body: { scopes: ['read', 'write'] } })).body.key;
    const refused = await server.call('PUT', '/v1/account/tracking-traits', { key: limited, body: { custom_fields: ['plan'], tags: true } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'settings' });

    const set = await server.call('PUT', '/v1/account/tracking-traits', { key: acct.key, body: { custom_fields: ['plan', 'plan'], tags: true } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toEqual({ profile: PROFILE, custom_fields: ['plan'], tags: true });

    const res = await track({ key, identity, traits: everything });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.ignored_traits).toEqual(['custom_fields.score', 'favourite_colour']);
    const contact = await contactByEmail(server, acct.key, email);
    expect(contact).toMatchObject({ first_name: 'Ada', tags: ['vip'], custom_fields: { plan: 'enterprise' } });
    expect(contact!.custom_fields).not.toHaveProperty('score');
  });

  it('a bad setting is a 400 that changes nothing; the setting is an event on the tracking stream and rebuilds', async () => {
    const { acct } = await setup();
    const put = (body: unknown) => server.call('PUT', '/v1/account/tracking-traits', { key: acct.key, body });
    expect((await put({ custom_fields: ['plan'], tags: false })).status).toBe(200);
    expectRejected(await put({ custom_fields: 'plan', tags: false }), 'custom_fields');
    expectRejected(await put({ custom_fields: [''], tags: false }), 'custom_fields.0');
    expectRejected(await put({ custom_fields: ['x'.repeat(65)], tags: false }), 'custom_fields.0');
    expectRejected(await put({ custom_fields: Array.from({ length: 101 }, (_, i) => `f${i}`) }), 'custom_fields');
    expectRejected(await put({ custom_fields: [], tags: 'yes' }), 'tags');
    expectRejected(await put({ custom_fields: [], first_name: true }), 'first_name');
    const events = (await server.engage.store.readStream(trackingStream(acct.accountId))).map((e) => e.type);
    expect(events.filter((t) => t === 'TrackingBrowserTraitsSet')).toHaveLength(1);
    await rebuildAndWait(server, trackingProjection);
    expect((await server.call('GET', '/v1/account/tracking-traits', { key: acct.key })).body).toEqual({ profile: PROFILE, custom_fields: ['plan'], tags: false });
  });

  it('identifiers stay refused (400), and a bad value of a trait the browser may set is a 400', async () => {
    const { key, identity } = await setup();
    expectRejected(await track({ key, identity, traits: { email: 'other@example.com' } }), 'traits.email');
    expectRejected(await track({ key, identity, traits: { timezone: 'Mars/Olympus' } }), 'traits.timezone');
    expectRejected(await track({ key, identity, traits: 'Ada' }), 'traits');
  });
});
