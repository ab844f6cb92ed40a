// Sender rules and senders over HTTP (README "Senders and sender rules";
// README "Senders and sender rules"): the rules dataset per country, validation of a sender for a
// country and channel, registration as a state machine (pending, approved at once, operator review),
// duplicates, removal, pagination, tenant isolation, bad input, and a rebuild of the read model.
import { describe, expect, it } from 'vitest';
import { sendersProjection } from '../../projections/senders.ts';
import { reviewSender } from '../../src/senders/service.ts';
import { KNOWN_COUNTRIES } from '../../src/senders/rules-data.ts';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { rebuildAndWait } from '../support/rebuild.ts';

const SENDER_ID_RE = /^snd_[0-9A-HJKMNP-TV-Z]{26}$/;
const MISSING = 'snd_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const server = testServerForSuite();

async function ok(key: string, method: string, path: string, body?: unknown, status = 200) {
  const res = await server.call(method, path, { key, body });
  expect(res.status, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}
const register = (key: string, body: Record<string, unknown>) => ok(key, 'POST', '/v1/senders', body, 201);
const approve = (id: string) => reviewSender(server.engage, id, { approve: true }, { actor: 'test-operator' });
const reject = (id: string, reason: string) => reviewSender(server.engage, id, { approve: false, reason }, { actor: 'test-operator' });
const listed = async (key: string, query = '') => (await ok(key, 'GET', `/v1/senders${query}`)).data as any[];

describe('GET /v1/sender/rules', () => {
  it('answers a country’s requirements from a dataset of at least 30 countries, case-insensitively', async () => {
    const { key } = await readyAccount(server);
    expect(KNOWN_COUNTRIES.length).toBeGreaterThanOrEqual(30);
    const us = await ok(key, 'GET', '/v1/sender/rules?country=US');
    expect(us).toEqual({ country: 'US', name: 'United States', alphanumeric_allowed: false, registration_required: ['long_code', 'short_code', 'toll_free'], lead_time_days: expect.any(Number), notes: expect.stringContaining('10DLC') });
    const gb = await ok(key, 'GET', '/v1/sender/rules?country=gb');
    expect(gb).toMatchObject({ country: 'GB', alphanumeric_allowed: true });
    expect(gb.registration_required).not.toContain('alphanumeric');
    expect((await ok(key, 'GET', '/v1/sender/rules?country=IN')).notes).toMatch(/DLT/);
  });

  it('an unknown country is a 404 listing the known codes; a missing one is a 400; unknown query fields too', async () => {
    const { key } = await readyAccount(server);
    const unknown = await server.call('GET', '/v1/sender/rules?country=XX', { key });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'not_found', known_countries: KNOWN_COUNTRIES });
    expect(unknown.body.message).toContain('US');
    const missing = await server.call('GET', '/v1/sender/rules', { key });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'validation_error', issues: [expect.objectContaining({ path: 'country' })] });
    expect((await server.call('GET', '/v1/sender/rules?country=US&x=1', { key })).status).toBe(400);
  });

  it('takes an API key only: a dashboard session is refused', async () => {
    const account = await readyAccount(server);
    const login = await ok('', 'POST', '/v1/auth/login', { email: account.email, password: account.password });
    expect((await server.call('GET', '/v1/sender/rules?country=US', { token: login.token })).status).toBe(401);
    expect((await server.call('GET', '/v1/sender/rules?country=US')).status).toBe(401);
  });
});

describe('POST /v1/sender/validate', () => {
  it('classifies each format and applies the country’s rules', async () => {
    const { key } = await readyAccount(server);
    const check = (sender: string, channel: string, country?: string) => ok(key, 'POST', '/v1/sender/validate', { sender, channel, ...(country ? { country } : {}) });
    expect(await check('ACME Shop', 'sms', 'GB')).toEqual({ valid: true, type: 'alphanumeric', registration_required: false, lead_time_days: null, issues: [] });
    const usAlpha = await check('ACME', 'sms', 'US');
    expect(usAlpha).toMatchObject({ valid: false, type: 'alphanumeric', issues: [expect.objectContaining({ code: 'alphanumeric_not_supported' })] });
    expect(await check('+14155550123', 'sms', 'US')).toMatchObject({ valid: true, type: 'long_code', registration_required: true, lead_time_days: expect.any(Number) });
    expect(await check('+18885550123', 'sms', 'US')).toMatchObject({ valid: true, type: 'toll_free', registration_required: true });
    expect(await check('12345', 'sms', 'DE')).toMatchObject({ valid: true, type: 'short_code', registration_required: true });
    expect(await check('ACME', 'sms', 'SG')).toMatchObject({ valid: true, type: 'alphanumeric', registration_required: true });
    expect(await check('+447700900123', 'sms', 'GB')).toMatchObject({ valid: true, type: 'long_code', registration_required: false });
    expect(await check('news@shop.example', 'email')).toEqual({ valid: true, type: 'email', registration_required: false, lead_time_days: null, issues: [] });
    expect(await check('ACME', 'voice', 'GB')).toMatchObject({ valid: false, issues: [expect.objectContaining({ code: 'channel_mismatch' })] });
    expect(await check('+447700900123', 'email')).toMatchObject({ valid: false, issues: [expect.objectContaining({ code: 'channel_mismatch' })] });
    for (const bad of ['TWELVECHARSX', '1234567890', 'AC-ME', '12', 'ÄCME']) {
      expect(await check(bad, 'sms', 'GB'), bad).toMatchObject({ valid: false, type: null, issues: [expect.objectContaining({ code: 'unrecognised_format' })] });
    }
  });

  it('bad input is a 400 naming the field', async () => {
    const { key } = await readyAccount(server);
    const cases: [unknown, string][] = [
      [{ sender: 'ACME', channel: 'sms', country: 'XX' }, 'country'],
      [{ sender: 'ACME', channel: 'sms' }, 'country'],
      [{ sender: 'ACME', channel: 'fax', country: 'GB' }, 'channel'],
      [{ sender: '', channel: 'sms', country: 'GB' }, 'sender'],
      [{ channel: 'sms', country: 'GB' }, 'sender'],
      [{ sender: 'ACME', channel: 'sms', country: 'GB', extra: 1 }, ''],
    ];
    for (const [body, path] of cases) {
      const res = await server.call('POST', '/v1/sender/validate', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('validation_error');
      if (path) expect(res.body.issues.map((i: { path: string }) => i.path), JSON.stringify(body)).toContain(path);
    }
  });
});

describe('registering senders', () => {
  it('a sender needing registration is pending until an operator approves it; listed as such', async () => {
    const { key } = await readyAccount(server);
    const s = await register(key, { sender: '+14155550123', channel: 'sms', country: 'US' });
    expect(s).toEqual({
      id: expect.stringMatching(SENDER_ID_RE), sender: '+14155550123', channel: 'sms', country: 'US', type: 'long_code', status: 'pending',
      registration_required: true, rejection_reason: null,
      verification: { status: 'unverified', method: null, expires_at: null, attempts_left: null, verified_at: null },
      created_at: expect.any(String), updated_at: s.created_at,
    });
    expect(await listed(key)).toEqual([s]);
    const review = await approve(s.id);
    await server.caughtUp(['senders']);
    expect(review.sender.status).toBe('approved');
    expect(await listed(key)).toEqual([expect.objectContaining({ id: s.id, status: 'approved', updated_at: expect.not.stringMatching(s.created_at) })]);
  });

  it('a sender needing no registration is approved at once', async () => {
    const { key } = await readyAccount(server);
    const s = await register(key, { sender: 'ACME', channel: 'sms', country: 'gb' });
    expect(s).toMatchObject({ country: 'GB', type: 'alphanumeric', status: 'approved', registration_required: false, verification: { status: 'not_applicable' } });
    const wa = await register(key, { sender: '+447700900123', channel: 'whatsapp', country: 'GB' });
    expect(wa).toMatchObject({ status: 'pending', registration_required: true });
  });

  it('an operator rejection carries its reason; a decision is final (409)', async () => {
    const { key } = await readyAccount(server);
    const s = await register(key, { sender: 'ACME', channel: 'sms', country: 'SG' });
    expect(s.status).toBe('pending');
    await reject(s.id, 'brand not verified');
    await server.caughtUp(['senders']);
    expect(await listed(key, '?status=rejected')).toEqual([expect.objectContaining({ id: s.id, status: 'rejected', rejection_reason: 'brand not verified' })]);
    expect(await listed(key, '?status=approved')).toEqual([]);
    await expect(approve(s.id)).rejects.toMatchObject({ statusCode: 409 });
    await expect(approve(MISSING)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('a duplicate sender+channel+country is 409 (alphanumeric IDs compared case-insensitively); another channel or country is not', async () => {
    const { key } = await readyAccount(server);
    const first = await register(key, { sender: 'Shop', channel: 'sms', country: 'DE' });
    for (const dup of [{ sender: 'Shop', channel: 'sms', country: 'DE' }, { sender: 'SHOP', channel: 'sms', country: 'de' }]) {
      const res = await server.call('POST', '/v1/senders', { key, body: dup });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ error: 'conflict', sender_id: first.id });
    }
    await register(key, { sender: 'Shop', channel: 'sms', country: 'FR' });
    // another account registers the same sender freely
    await register((await readyAccount(server)).key, { sender: 'Shop', channel: 'sms', country: 'DE' });
    // parallel registrations: exactly one wins
    const results = await Promise.all([1, 2, 3, 4].map(() => server.call('POST', '/v1/senders', { key, body: { sender: '+4915112345678', channel: 'sms', country: 'DE' } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });

  it('DELETE removes a sender and frees it for a new registration; another account’s sender is 404', async () => {
    const a = await readyAccount(server);
    const b = await readyAccount(server);
    const s = await register(a.key, { sender: 'Shop', channel: 'sms', country: 'NL' });
    for (const id of [s.id, MISSING, 'not-an-id']) {
      const res = await server.call('DELETE', `/v1/senders/${id}`, { key: b.key });
      expect(res.status, id).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
    expect(await ok(a.key, 'DELETE', `/v1/senders/${s.id}`)).toEqual({ id: s.id, deleted: true });
    expect(await listed(a.key)).toEqual([]);
    expect((await server.call('DELETE', `/v1/senders/${s.id}`, { key: a.key })).status).toBe(404);
    const again = await register(a.key, { sender: 'Shop', channel: 'sms', country: 'NL' });
    expect(again.id).not.toBe(s.id);
  });

  it('rejects bad registrations with 400: invalid for the country, unknown country, email channel, unknown fields', async () => {
    const { key } = await readyAccount(server);
    const cases: [unknown, string][] = [
      [{ sender: 'ACME', channel: 'sms', country: 'US' }, 'sender'],
      [{ sender: 'AC-ME', channel: 'sms', country: 'GB' }, 'sender'],
      [{ sender: 'ACME', channel: 'sms', country: 'XX' }, 'country'],
      [{ sender: 'news@shop.example', channel: 'email', country: 'GB' }, 'channel'],
      [{ sender: 'ACME', channel: 'sms', country: 'GB', status: 'approved' }, ''],
    ];
    for (const [body, path] of cases) {
      const res = await server.call('POST', '/v1/senders', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      if (path) expect(res.body.issues.map((i: { path: string }) => i.path), JSON.stringify(body)).toContain(path);
    }
    expect(await listed(key)).toEqual([]);
  });

  it('pages with a cursor, newest first, and works with a dashboard session', async () => {
    const account = await readyAccount(server);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await register(account.key, { sender: `Brand${i}`, channel: 'sms', country: 'GB' }));
    const first = await ok(account.key, 'GET', '/v1/senders?limit=2');
    expect(first.data.map((s: { id: string }) => s.id)).toEqual([made[4].id, made[3].id]);
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await ok(account.key, 'GET', `/v1/senders?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      ids.push(...page.data.map((s: { id: string }) => s.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(ids).toEqual(made.map((s) => s.id).reverse());
    expect((await server.call('GET', '/v1/senders?cursor=garbage', { key: account.key })).status).toBe(400);
    const login = await ok('', 'POST', '/v1/auth/login', { email: account.email, password: account.password });
    const viaSession = await server.call('GET', '/v1/senders?limit=500', { token: login.token });
    expect(viaSession.status).toBe(200);
    expect(viaSession.body.data).toHaveLength(5);
  });
});

describe('rebuilding the senders read model', () => {
  it('a requested rebuild replays the log into the same rows', async () => {
    const { key } = await readyAccount(server);
    const p = await register(key, { sender: 'Later', channel: 'sms', country: 'SG' });
    await reject(p.id, 'no documents');
    const gone = await register(key, { sender: 'Gone', channel: 'sms', country: 'GB' });
    await ok(key, 'DELETE', `/v1/senders/${gone.id}`);
    const snapshot = async () => (await server.engage.pool.query<{ r: string }>('SELECT row_to_json(t)::text AS r FROM senders t ORDER BY id')).rows.map((x) => x.r);
    await server.caughtUp(['senders']);
    const before = await snapshot();
    expect(before.length).toBeGreaterThan(5);
    await rebuildAndWait(server, sendersProjection);
    expect(await snapshot()).toEqual(before);
    expect(await listed(key)).toEqual([expect.objectContaining({ id: p.id, status: 'rejected', rejection_reason: 'no documents' })]);
  });
});
