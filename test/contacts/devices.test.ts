// Push devices of contacts over real HTTP (README "Push devices"): registering, listing and removing
// a contact's device tokens; idempotent re-registration; a token moving from one contact to another
// (atomically: never active on two contacts, even when registered for several at once); the 50
// devices cap; validation; tenant isolation; the public registration with the tracking key (origins,
// signed identity, the public rate limit); erasure leaving no token anywhere; the history showing
// tokens masked; and the read model rebuilding to the same rows.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contactStream } from '../../commands/contact.ts';
import { activeDevices, pushDevicesProjection } from '../../projections/push-devices.ts';
import { unregisterDevice } from '../../src/contacts/devices.ts';
import { testServerForSuite, type TestServer } from '../support/harness.ts';
import { type ApiResponse, expectNoServerError, requestJson } from '../support/http.ts';
import { burst, inOneWindow } from '../support/rate-limits.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { everyTableAsText, foundIn } from '../support/tables.ts';
import { identitySecret, trackingKey, userHash } from '../tracking/helpers.ts';

const DEVICE_ID_RE = /^dev_[0-9A-HJKMNP-TV-Z]{26}$/;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MISSING_CONTACT = 'ct_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const MISSING_DEVICE = 'dev_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const SHOP = 'https://shop.example';

const unique = () => randomBytes(5).toString('hex');
/** A device token unique to this run (FCM-like: letters, digits, : _ - .). */
const newToken = () => `fcm:${randomBytes(24).toString('base64url')}`;
const issuePaths = (body: { issues?: { path: string }[] }) => (body.issues ?? []).map((i) => i.path);

async function newContact(server: TestServer, key: string, body: Record<string, unknown> = { email: `ada.${unique()}@example.com` }): Promise<string> {
  const res = await server.call('POST', '/v1/contacts', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

const register = (server: TestServer, key: string, contactId: string, body: Record<string, unknown>) =>
  server.call('POST', `/v1/contacts/${contactId}/devices`, { key, body });

async function devicesOf(server: TestServer, key: string, contactId: string): Promise<any[]> {
  const res = await server.call('GET', `/v1/contacts/${contactId}/devices`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

async function deviceEvents(server: TestServer, contactId: string) {
  const events = await server.engage.store.readStream(contactStream(contactId));
  return events.filter((e) => e.type.startsWith('ContactDevice')).map((e) => ({ type: e.type, data: e.data as Record<string, any> }));
}

/** POST /v1/push/devices as an app would (JSON, an Origin header when given); never a 5xx, flat errors. */
async function publicRegister(server: TestServer, body: unknown, origin?: string): Promise<ApiResponse> {
  const res = await requestJson(server.url, 'POST', '/v1/push/devices', { body, headers: origin === undefined ? {} : { origin } });
  expectNoServerError(res, 'POST /v1/push/devices');
  return res;
}

describe('a contact’s devices over the API', () => {
  const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false' });

  it('registers a device (201), lists it, re-registers it idempotently (200, same id) and removes it', async () => {
    const { key } = await server.newAccount();
    const contactId = await newContact(server, key);
    const token = newToken();
    const made = await register(server, key, contactId, { token, platform: 'android', app_id: 'com.acme.shop' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(DEVICE_ID_RE), contact_id: contactId, token, platform: 'android', app_id: 'com.acme.shop',
      created_at: expect.stringMatching(RFC3339_UTC), last_registered_at: expect.stringMatching(RFC3339_UTC),
    });
    expect(await devicesOf(server, key, contactId)).toEqual([made.body]);

    // the same token again: the same device, and nothing appended
    const again = await register(server, key, contactId, { token, platform: 'android', app_id: 'com.acme.shop' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(made.body);
    expect((await deviceEvents(server, contactId)).map((e) => e.type)).toEqual(['ContactDeviceRegistered']);

    // the same token with another platform or app: the same device, changed
    const moved = await register(server, key, contactId, { token, platform: 'ios' });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: made.body.id, platform: 'ios', app_id: null, created_at: made.body.created_at });
    expect(Date.parse(moved.body.last_registered_at)).toBeGreaterThanOrEqual(Date.parse(made.body.last_registered_at));
    expect(await devicesOf(server, key, contactId)).toEqual([moved.body]);
    expect((await deviceEvents(server, contactId)).map((e) => e.type)).toEqual(['ContactDeviceRegistered', 'ContactDeviceRegistered']);

    const removed = await server.call('DELETE', `/v1/contacts/${contactId}/devices/${made.body.id}`, { key });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ id: made.body.id, deleted: true });
    expect(await devicesOf(server, key, contactId)).toEqual([]);
    const events = await deviceEvents(server, contactId);
    expect(events.at(-1)).toMatchObject({ type: 'ContactDeviceRemoved', data: { id: contactId, device_id: made.body.id, reason: 'removed' } });
    // removed already, or never there
    for (const id of [made.body.id, MISSING_DEVICE, 'not-a-device']) {
      const gone = await server.call('DELETE', `/v1/contacts/${contactId}/devices/${id}`, { key });
      expect(gone.status, id).toBe(404);
      expect(gone.body).toMatchObject({ error: 'not_found' });
    }
    // registered again after its removal: a new device
    const back = await register(server, key, contactId, { token, platform: 'web' });
    expect(back.status).toBe(201);
    expect(back.body.id).not.toBe(made.body.id);
  });

  it('moves a token registered to another contact of the account: removed there (replaced), registered here', async () => {
    const { key } = await server.newAccount();
    const [a, b] = [await newContact(server, key), await newContact(server, key)];
    const token = newToken();
    const first = await register(server, key, a, { token, platform: 'ios' });
    expect(first.status).toBe(201);
    const second = await register(server, key, b, { token, platform: 'ios' });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    expect(await devicesOf(server, key, a)).toEqual([]);
    expect((await devicesOf(server, key, b)).map((d) => d.token)).toEqual([token]);
    expect((await deviceEvents(server, a)).at(-1)).toMatchObject({ type: 'ContactDeviceRemoved', data: { device_id: first.body.id, reason: 'replaced' } });

    // another account's contact with the same token is another device, untouched
    const other = await server.newAccount();
    const theirs = await newContact(server, other.key);
    expect((await register(server, other.key, theirs, { token, platform: 'ios' })).status).toBe(201);
    expect((await devicesOf(server, key, b)).map((d) => d.token)).toEqual([token]);
  });

  it('never leaves a token on two contacts when several register it at once', async () => {
    const { key, accountId } = await server.newAccount();
    const contacts = await Promise.all(Array.from({ length: 4 }, () => newContact(server, key)));
    const token = newToken();
    const answers = await Promise.all(contacts.map((c) => register(server, key, c, { token, platform: 'android' })));
    for (const res of answers) expect([201, 409], JSON.stringify(res.body)).toContain(res.status);
    await server.caughtUp(['push_devices']);
    const holders: string[] = [];
    for (const c of contacts) if ((await activeDevices(server.engage.pool, accountId, c)).some((d) => d.token === token)) holders.push(c);
    expect(holders).toHaveLength(1);
    // the streams agree with the read model: every other contact that had it lost it again
    for (const c of contacts.filter((x) => x !== holders[0])) {
      const events = await deviceEvents(server, c);
      expect(events.filter((e) => e.type === 'ContactDeviceRegistered').length).toBe(events.filter((e) => e.type === 'ContactDeviceRemoved').length);
    }
  });

  it('keeps at most 50 devices per contact: the 51st removes the oldest (replaced)', async () => {
    const { key } = await server.newAccount();
    const contactId = await newContact(server, key);
    const ids: string[] = [];
    for (let i = 0; i < 51; i++) {
      const res = await register(server, key, contactId, { token: newToken(), platform: 'web' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      ids.push(res.body.id);
    }
    const active = await devicesOf(server, key, contactId);
    expect(active).toHaveLength(50);
    expect(active.map((d) => d.id).sort()).toEqual(ids.slice(1).sort());
    expect((await deviceEvents(server, contactId)).filter((e) => e.type === 'ContactDeviceRemoved').map((e) => e.data)).toEqual([
      expect.objectContaining({ device_id: ids[0], reason: 'replaced' }),
    ]);
  });

  it('refuses a bad token, platform or app_id, and unknown fields, with 400 naming the field', async () => {
    const { key } = await server.newAccount();
    const contactId = await newContact(server, key);
    const cases: [Record<string, unknown>, string][] = [
      [{ token: 'short', platform: 'ios' }, 'token'],
      [{ token: 'has spaces in it', platform: 'ios' }, 'token'],
      [{ token: 'x'.repeat(4097), platform: 'ios' }, 'token'],
      [{ platform: 'ios' }, 'token'],
      [{ token: newToken(), platform: 'windows' }, 'platform'],
      [{ token: newToken() }, 'platform'],
      [{ token: newToken(), platform: 'ios', app_id: '' }, 'app_id'],
      [{ token: newToken(), platform: 'ios', app_id: 'a'.repeat(256) }, 'app_id'],
      [{ token: newToken(), platform: 'ios', user: 'x' }, 'user'],
    ];
    for (const [body, path] of cases) {
      const res = await register(server, key, contactId, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(issuePaths(res.body), JSON.stringify(body)).toContain(path);
    }
    expect(await devicesOf(server, key, contactId)).toEqual([]);
  });

  it('answers 404 for another account’s contact, a missing one and a deleted one', async () => {
    const { key } = await server.newAccount();
    const other = await server.newAccount();
    const contactId = await newContact(server, key);
    const device = await register(server, key, contactId, { token: newToken(), platform: 'ios' });
    expect(device.status).toBe(201);
    for (const [k, id] of [[other.key, contactId], [key, MISSING_CONTACT], [key, 'nope']] as const) {
      for (const res of [
        await register(server, k, id, { token: newToken(), platform: 'ios' }),
        await server.call('GET', `/v1/contacts/${id}/devices`, { key: k }),
        await server.call('DELETE', `/v1/contacts/${id}/devices/${device.body.id}`, { key: k }),
      ]) {
        expect(res.status, `${id}: ${JSON.stringify(res.body)}`).toBe(404);
        expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
      }
    }
    expect(await devicesOf(server, key, contactId)).toHaveLength(1);
    // a deleted contact registers nothing, and its devices are gone
    expect((await server.call('DELETE', `/v1/contacts/${contactId}`, { key })).status).toBe(200);
    const refused = await register(server, key, contactId, { token: newToken(), platform: 'ios' });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ error: 'not_found', message: expect.any(String) });
    expect((await server.call('GET', `/v1/contacts/${contactId}/devices`, { key })).status).toBe(404);
  });

  it('shows the device events in the contact’s history with the token masked to its last 6 characters', async () => {
    const { key } = await server.newAccount();
    const contactId = await newContact(server, key);
    const token = newToken();
    const made = await register(server, key, contactId, { token, platform: 'ios', app_id: 'com.acme' });
    await server.call('DELETE', `/v1/contacts/${contactId}/devices/${made.body.id}`, { key });
    const history = await server.call('GET', `/v1/contacts/${contactId}/history`, { key });
    expect(history.status).toBe(200);
    expect(JSON.stringify(history.body)).not.toContain(token);
    expect(JSON.stringify(history.body)).not.toContain(token.slice(0, -6));
    const entries = history.body.data.filter((e: { type: string }) => e.type.startsWith('ContactDevice'));
    expect(entries.map((e: { type: string; changes: unknown }) => [e.type, e.changes])).toEqual([
      ['ContactDeviceRegistered', { device_id: made.body.id, token: `…${token.slice(-6)}`, platform: 'ios', app_id: 'com.acme', at: made.body.created_at, personal_data: expect.objectContaining({ erased: false }) }],
      ['ContactDeviceRemoved', { device_id: made.body.id, reason: 'removed', at: expect.stringMatching(RFC3339_UTC) }],
    ]);
  });

  it('gives the dispatcher the active devices, and a token it learns is unregistered is removed (unregistered)', async () => {
    const { key, accountId } = await server.newAccount();
    const contactId = await newContact(server, key);
    const [t1, t2] = [newToken(), newToken()];
    const d1 = await register(server, key, contactId, { token: t1, platform: 'android', app_id: 'com.acme' });
    await register(server, key, contactId, { token: t2, platform: 'ios' });
    expect(await activeDevices(server.engage.pool, accountId, contactId)).toEqual([
      { device_id: d1.body.id, token: t1, platform: 'android', app_id: 'com.acme' },
      { device_id: expect.stringMatching(DEVICE_ID_RE), token: t2, platform: 'ios', app_id: null },
    ]);
    await unregisterDevice(server.engage, accountId, contactId, t1);
    // (again: nothing more to remove)
    await unregisterDevice(server.engage, accountId, contactId, t1);
    await server.caughtUp(['push_devices']);
    expect((await activeDevices(server.engage.pool, accountId, contactId)).map((d) => d.token)).toEqual([t2]);
    expect((await deviceEvents(server, contactId)).filter((e) => e.type === 'ContactDeviceRemoved').map((e) => e.data)).toEqual([
      expect.objectContaining({ device_id: d1.body.id, reason: 'unregistered' }),
    ]);
    expect(await activeDevices(server.engage.pool, 'acct_01ARZ3NDEKTSV4RRFFQ69G5FAV', contactId)).toEqual([]);
  });

  it('erasing the contact removes its devices and leaves its tokens nowhere', async () => {
    const { key, accountId } = await server.newAccount();
    const contactId = await newContact(server, key);
    const tokens = [newToken(), newToken()];
    for (const token of tokens) expect((await register(server, key, contactId, { token, platform: 'android' })).status).toBe(201);
    const erased = await server.call('POST', `/v1/contacts/${contactId}/erase`, { key, body: {} });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    expect((await server.call('GET', `/v1/contacts/${contactId}/devices`, { key })).status).toBe(404);
    expect(await activeDevices(server.engage.pool, accountId, contactId)).toEqual([]);
    const history = await server.call('GET', `/v1/contacts/${contactId}/history`, { key });
    expect(JSON.stringify(history.body)).not.toContain(tokens[0].slice(-12));
    expect(foundIn(await everyTableAsText(server.engage.pool), tokens)).toEqual([]);
  });

  it('rebuilds the read model from the log into the same rows', async () => {
    const { key } = await server.newAccount();
    const [a, b] = [await newContact(server, key), await newContact(server, key)];
    const token = newToken();
    await register(server, key, a, { token, platform: 'ios' });
    await register(server, key, a, { token: newToken(), platform: 'web', app_id: 'site' });
    await register(server, key, b, { token, platform: 'android', app_id: 'com.acme' });
    const gone = await register(server, key, b, { token: newToken(), platform: 'ios' });
    await server.call('DELETE', `/v1/contacts/${b}/devices/${gone.body.id}`, { key });
    await server.caughtUp(['push_devices']);
    const rows = async () => (await server.engage.pool.query('SELECT * FROM push_devices ORDER BY device_id')).rows;
    const before = await rows();
    expect(before.length).toBeGreaterThanOrEqual(2);
    await rebuildAndWait(server, pushDevicesProjection);
    expect(await rows()).toEqual(before);
  }, 180_000);
});

describe('public device registration with the tracking key (POST /v1/push/devices)', () => {
  const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false' });

  async function setup() {
    const acct = await server.newAccount();
    const { key } = await trackingKey(server, acct.key);
    const secret = await identitySecret(server, acct.key);
    const email = `app-${unique()}@example.com`;
    return { acct, key, secret, email, identity: { email, user_hash: userHash(secret, email) } };
  }

  it('registers the app’s device for the signed identity (201, then 200 with the same id), answering the device id only', async () => {
    const { acct, key, identity, email } = await setup();
    const token = newToken();
    const made = await publicRegister(server, { key, identity, token, platform: 'ios', app_id: 'com.acme.app' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toEqual({ id: expect.stringMatching(DEVICE_ID_RE) });
    const again = await publicRegister(server, { key, identity, token, platform: 'ios', app_id: 'com.acme.app' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(made.body);
    // the contact named by email was created, as /v1/track creates it, and holds the device
    const found = await server.call('GET', `/v1/contacts?email=${encodeURIComponent(email)}`, { key: acct.key });
    const contactId = found.body.data[0].id;
    expect(await devicesOf(server, acct.key, contactId)).toEqual([expect.objectContaining({ id: made.body.id, token, platform: 'ios', app_id: 'com.acme.app' })]);
    const [registered] = await server.engage.store.readStream(contactStream(contactId)).then((es) => es.filter((e) => e.type === 'ContactDeviceRegistered'));
    expect(registered.metadata.actor).toBe(`tracking:${key}`);
    // an existing contact named by its external id
    const external = `crm-${unique()}`;
    const known = await newContact(server, acct.key, { external_id: external });
    const byExternal = await publicRegister(server, { key, identity: { external_id: external, user_hash: userHash((await identitySecret(server, acct.key)), external) }, token: newToken(), platform: 'android' });
    expect(byExternal.status, JSON.stringify(byExternal.body)).toBe(201);
    expect((await devicesOf(server, acct.key, known)).map((d) => d.id)).toEqual([byExternal.body.id]);
  });

  it('requires the user_hash while the account requires identity, and not once it does not', async () => {
    const { acct, key, email, secret } = await setup();
    const token = newToken();
    for (const identity of [{ email }, { email, user_hash: userHash(secret, 'someone.else@example.com') }, { email, user_hash: 'nothex' }]) {
      const refused = await publicRegister(server, { key, identity, token, platform: 'ios' });
      expect(refused.status, JSON.stringify(identity)).toBe(401);
      expect(refused.body).toEqual({ error: 'unauthorized', message: expect.any(String) });
    }
    expect((await server.call('GET', `/v1/contacts?email=${encodeURIComponent(email)}`, { key: acct.key })).body.data).toEqual([]);
    const off = await server.call('PUT', '/v1/account/tracking-identity', { key: acct.key, body: { require_identity: false } });
    expect(off.status).toBe(200);
    const accepted = await publicRegister(server, { key, identity: { email }, token, platform: 'ios' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
  });

  it('checks the key and the origins as /v1/track does, and validates the body naming the field', async () => {
    const { acct, key, identity } = await setup();
    const unknown = await publicRegister(server, { key: `etk_${unique()}`, identity, token: newToken(), platform: 'ios' });
    expect(unknown.status).toBe(401);
    const missing = await publicRegister(server, { identity, token: newToken(), platform: 'ios' });
    expect(missing.status).toBe(400);
    expect(issuePaths(missing.body)).toContain('key');
    expect((await server.call('PUT', '/v1/account/tracking-origins', { key: acct.key, body: { origins: [SHOP] } })).status).toBe(200);
    const noOrigin = await publicRegister(server, { key, identity, token: newToken(), platform: 'web' });
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.headers.get('access-control-allow-origin')).toBeNull();
    const elsewhere = await publicRegister(server, { key, identity, token: newToken(), platform: 'web' }, 'https://evil.example');
    expect(elsewhere.status).toBe(403);
    const fromShop = await publicRegister(server, { key, identity, token: newToken(), platform: 'web' }, SHOP);
    expect(fromShop.status, JSON.stringify(fromShop.body)).toBe(201);
    expect(fromShop.headers.get('access-control-allow-origin')).toBe(SHOP);
    for (const [body, path] of [
      [{ key, identity, token: 'bad token', platform: 'web' }, 'token'],
      [{ key, identity, token: newToken(), platform: 'tv' }, 'platform'],
      [{ key, identity, token: newToken(), platform: 'web', extra: 1 }, 'extra'],
    ] as const) {
      const bad = await publicRegister(server, body, SHOP);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(issuePaths(bad.body)).toContain(path);
      expect(bad.headers.get('access-control-allow-origin')).toBe(SHOP);
    }
    // an unknown external id is a 404, as on /v1/track
    const external = `crm-${unique()}`;
    const secret = await identitySecret(server, acct.key);
    const nobody = await publicRegister(server, { key, identity: { external_id: external, user_hash: userHash(secret, external) }, token: newToken(), platform: 'web' }, SHOP);
    expect(nobody.status).toBe(404);
  });
});

describe('rate limit of /v1/push/devices', () => {
  // a server of its own: the public limit is per IP, and every request here comes from 127.0.0.1
  const server = testServerForSuite();

  it('answers the 121st request in a minute from one IP with 429', async () => {
    const acct = await server.newAccount();
    const { key } = await trackingKey(server, acct.key);
    const secret = await identitySecret(server, acct.key);
    const email = `app-${unique()}@example.com`;
    const body = { key, identity: { email, user_hash: userHash(secret, email) }, token: newToken(), platform: 'android' };
    const statuses = await inOneWindow(60_000, async () => {
      const answers = await burst(120, 10, () => publicRegister(server, body));
      return { answers, over: await publicRegister(server, body) };
    }, 1);
    expect(statuses.answers.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    expect(statuses.over.status).toBe(429);
    expect(statuses.over.body).toEqual({ error: 'rate_limit_exceeded', message: expect.any(String), limit: 120, window: '1 minute', retry_after: expect.any(Number) });
    expect(statuses.over.headers.get('retry-after')).toBe(String(statuses.over.body.retry_after));
  }, 120_000);
});
