// Authentication over real HTTP: API keys (X-API-Key), dashboard sessions (POST /v1/auth/login →
// Bearer JWT), key scopes and role capabilities, and key rotation with its 24-hour grace window.
// README "API conventions" (authentication), "API keys and credentials".
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/accounts/service.ts';
import { testServerForSuite } from '../support/harness.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const KEY_RE = /^ek_live_[A-Za-z0-9_-]{20,}$/;
const KEY_ID_RE = /^key_[0-9A-HJKMNP-TV-Z]{26}$/;


async function login(email: string, password: string) {
  return server.call('POST', '/v1/auth/login', { body: { email, password } });
}

async function issueKey(ownerKey: string, body: { name?: string; scopes?: string[] | null }) {
  const res = await server.call('POST', '/v1/account/api-keys', { key: ownerKey, body });
  expect(res.status).toBe(201);
  return res.body as { id: string; key: string; scopes: string[] | null; name: string | null };
}

const server = testServerForSuite();

describe('API key authentication (X-API-Key)', () => {
  it('rejects a request without credentials with 401 unauthorized', async () => {
    const res = await server.call('GET', '/v1/contacts');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'unauthorized' });
    expect(res.body.message.length).toBeGreaterThan(0);
  });

  it('rejects an unknown API key with 401 unauthorized', async () => {
    const res = await server.call('GET', '/v1/account/me', { key: `ek_live_${randomBytes(24).toString('base64url')}` });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });

  it('rejects a garbage API key and an empty one', async () => {
    const garbage = await server.call('GET', '/v1/account/me', { headers: { 'x-api-key': "' OR 1=1 --" } });
    expect(garbage.status).toBe(401);
    const empty = await server.call('GET', '/v1/account/me', { headers: { 'x-api-key': '' } });
    expect(empty.status).toBe(401);
    expect(empty.body.error).toBe('unauthorized');
  });

  it('accepts a valid key and identifies the account and the key', async () => {
    const acct = await server.newAccount('Key Co');
    const res = await server.call('GET', '/v1/account/me', { key: acct.key });
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({ id: acct.accountId, name: 'Key Co' });
    expect(res.body.credential).toMatchObject({ type: 'api_key', scopes: null });
    expect(res.body.credential.key_id).toMatch(KEY_ID_RE);
  });

  it("does not let one account's key see another account", async () => {
    const a = await server.newAccount('A');
    const b = await server.newAccount('B');
    const meA = await server.call('GET', '/v1/account/me', { key: a.key });
    const meB = await server.call('GET', '/v1/account/me', { key: b.key });
    expect(meA.body.account.id).toBe(a.accountId);
    expect(meB.body.account.id).toBe(b.accountId);
  });
});

describe('dashboard sessions: POST /v1/auth/login', () => {
  it('returns {token, expires_at, account_id, user_id} for the right email and password', async () => {
    const acct = await server.newAccount();
    const before = Date.now();
    const res = await login(acct.email, acct.password);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['account_id', 'expires_at', 'token', 'user_id']);
    expect(res.body.account_id).toBe(acct.accountId);
    expect(res.body.user_id).toBe(acct.userId);
    expect(res.body.token.split('.')).toHaveLength(3);
    // a 12-hour JWT (README "API conventions"); expires_at is an RFC 3339 UTC timestamp
    expect(res.body.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
    const exp = Date.parse(res.body.expires_at);
    expect(exp).toBeGreaterThanOrEqual(before + 12 * 3600_000 - 2000);
    expect(exp).toBeLessThanOrEqual(Date.now() + 12 * 3600_000 + 1000);
  });

  it('accepts the email in any case and with surrounding spaces', async () => {
    const acct = await server.newAccount();
    const res = await login(`  ${acct.email.toUpperCase()} `, acct.password);
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(acct.userId);
  });

  it('answers a wrong password and an unknown email with the same 401 text', async () => {
    const acct = await server.newAccount();
    const wrongPassword = await login(acct.email, 'not the password');
    const unknownEmail = await login(`nobody-${randomBytes(4).toString('hex')}@example.com`, acct.password);
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(wrongPassword.body).toEqual({ error: 'unauthorized', message: wrongPassword.body.message });
    expect(unknownEmail.body).toEqual(wrongPassword.body);
    expect(wrongPassword.body).not.toHaveProperty('token');
  });

  it('rejects a login body with missing or unknown fields with 400', async () => {
    const missing = await server.call('POST', '/v1/auth/login', { body: { email: 'a@example.com' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('validation_error');
    expect(missing.body.issues.map((i: { path: string }) => i.path)).toContain('password');
    const unknown = await server.call('POST', '/v1/auth/login', { body: { email: 'a@example.com', password: 'x', remember: true } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.issues.map((i: { path: string }) => i.path)).toContain('remember');
  });

  it('needs no credentials itself', async () => {
    const acct = await server.newAccount();
    const res = await server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: acct.password }, headers: {} });
    expect(res.status).toBe(200);
  });
});

describe('dashboard user emails are unique across accounts', () => {
  it('creates only one of several accounts racing for the same owner email, and login finds that one', async () => {
    const email = `race-${randomBytes(4).toString('hex')}@example.com`;
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, (_, i) => createAccount(server.engage, { name: `racer ${i}`, email, password: `password ${i}` })),
    );
    const won = results.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<typeof createAccount>>> => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as { statusCode?: number }).statusCode).toBe(409);
    const winner = won[0].value;
    await server.engage.runner.waitFor(['auth'], winner.position, 5000);
    const i = results.indexOf(won[0]);
    const res = await login(email, `password ${i}`);
    expect(res.status).toBe(200);
    expect(res.body.account_id).toBe(winner.account_id);
  });

  it('refuses an owner email already in use once the first account exists', async () => {
    const acct = await server.newAccount();
    await expect(createAccount(server.engage, { name: 'copy', email: acct.email.toUpperCase(), password: 'another password' })).rejects.toMatchObject({
      statusCode: 409,
    });
    expect((await login(acct.email, 'another password')).status).toBe(401);
  });
});

describe('Bearer JWT on key-or-login routes', () => {
  it('GET /v1/account/me works with both an API key and a Bearer JWT of the same account', async () => {
    const acct = await server.newAccount('Both Ways');
    const { token } = (await login(acct.email, acct.password)).body;
    const viaKey = await server.call('GET', '/v1/account/me', { key: acct.key });
    const viaToken = await server.call('GET', '/v1/account/me', { token });
    expect(viaKey.status).toBe(200);
    expect(viaToken.status).toBe(200);
    expect(viaToken.body.account).toEqual(viaKey.body.account);
    expect(viaToken.body.credential).toEqual({ type: 'session', user_id: acct.userId, role: 'owner' });
    expect(viaToken.body.user).toMatchObject({ id: acct.userId, email: acct.email, role: 'owner' });
  });

  it('lets a session create, read, update and delete contacts', async () => {
    const acct = await server.newAccount();
    const { token } = (await login(acct.email, acct.password)).body;
    const created = await server.call('POST', '/v1/contacts', { token, body: { email: 'session@example.com' } });
    expect(created.status).toBe(201);
    expect((await server.call('GET', `/v1/contacts/${created.body.id}`, { token })).status).toBe(200);
    expect((await server.call('PATCH', `/v1/contacts/${created.body.id}`, { token, body: { first_name: 'S' } })).body.first_name).toBe('S');
    expect((await server.call('DELETE', `/v1/contacts/${created.body.id}`, { token })).status).toBe(200);
    // and the session's writes are visible to the account's API key
    expect((await server.call('GET', `/v1/contacts/${created.body.id}`, { key: acct.key })).status).toBe(404);
  });

  it('accepts the scheme name in any case', async () => {
    const acct = await server.newAccount();
    const { token } = (await login(acct.email, acct.password)).body;
    const res = await server.call('GET', '/v1/account/me', { headers: { authorization: `bearer ${token}` } });
    expect(res.status).toBe(200);
  });

  it('rejects a malformed, tampered, foreign-signed, unsigned or expired token with 401', async () => {
    const acct = await server.newAccount();
    const { token } = (await login(acct.email, acct.password)).body as { token: string };
    const [h, p, s] = token.split('.');
    // tampered payload: claim another account
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, acct: 'acct_01ARZ3NDEKTSV4RRFFQ69G5FAV' })).toString('base64url')}.${s}`;
    // signed with a secret that is not the server's
    const foreign = await new SignJWT({ acct: acct.accountId, role: 'owner' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(acct.userId)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('not-the-server-secret-not-the-server-secret'));
    // alg "none"
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;
    // the server's own secret, but expired an hour ago
    const { rows } = await server.engage.pool.query<{ value: string }>("SELECT value FROM service_secrets WHERE name = 'jwt'");
    const expired = await new SignJWT({ acct: acct.accountId, role: 'owner' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(acct.userId)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(rows[0].value));
    for (const bad of ['not-a-jwt', forged, foreign, unsigned, expired]) {
      const res = await server.call('GET', '/v1/account/me', { token: bad });
      expect(res.status, bad).toBe(401);
      expect(res.body.error).toBe('unauthorized');
    }
    // the genuine token still works, so the rejections above are about the token alone
    expect((await server.call('GET', '/v1/account/me', { token })).status).toBe(200);
  });

  it('rejects an Authorization header that is not Bearer', async () => {
    const acct = await server.newAccount();
    const basic = Buffer.from(`${acct.email}:${acct.password}`).toString('base64');
    const res = await server.call('GET', '/v1/account/me', { headers: { authorization: `Basic ${basic}` } });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });

  it('rejects a Bearer JWT with 401 on a route marked "key" (POST /v1/messages/send-by-tag), where the API key is accepted', async () => {
    const acct = await server.newAccount();
    const { token } = (await login(acct.email, acct.password)).body;
    const body = { tag: 'nobody-has-this-tag', channel: 'sms', message: 'hello' };
    const viaToken = await server.call('POST', '/v1/messages/send-by-tag', { token, body });
    expect(viaToken.status).toBe(401);
    expect(viaToken.body.error).toBe('unauthorized');
    expect(viaToken.body.message).toMatch(/API key/i);
    const viaKey = await server.call('POST', '/v1/messages/send-by-tag', { key: acct.key, body });
    expect(viaKey.status).not.toBe(401);
    expect(viaKey.status).not.toBe(403);
  });

  // README "API conventions": dashboard-only routes (an API key gets 401) are left out of this API, so there is no
  // route with auth "login" to test that direction on.

  it('names X-API-Key when a route marked "key" gets a dashboard session', async () => {
    const acct = await server.newAccount();
    const { token } = (await login(acct.email, acct.password)).body;
    const res = await server.call('POST', '/v1/messages/send-by-tag', { token, body: { tag: 't', channel: 'sms', message: 'hello' } });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/X-API-Key/);
    expect(res.body.message).toMatch(/session/i);
  });
});

// README "API keys and credentials": an API key goes in X-API-Key only; Authorization: Bearer takes a
// dashboard session token. A key sent as Bearer is refused with a message that says where it goes.
describe('an API key sent as Authorization: Bearer', () => {
  const HINT = /this is an API key: send it in the X-API-Key header.*POST \/v1\/auth\/login/;

  it('is refused on a key-or-login route, with a message pointing to X-API-Key', async () => {
    const acct = await server.newAccount();
    const res = await server.call('GET', '/v1/account/me', { headers: { authorization: `Bearer ${acct.key}` } });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
    expect(res.body.message).toMatch(HINT);
    // the same key in X-API-Key works
    expect((await server.call('GET', '/v1/account/me', { key: acct.key })).status).toBe(200);
  });

  it('gets the same answer for a key that does not exist (the answer says nothing of whether a key is valid)', async () => {
    const made = `ek_live_${randomBytes(24).toString('base64url')}`;
    const res = await server.call('GET', '/v1/account/me', { headers: { authorization: `Bearer ${made}` } });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(HINT);
  });

  it('is refused with the same hint on a route marked "key" and on a key-then-login route', async () => {
    const acct = await server.newAccount();
    const authorization = `Bearer ${acct.key}`;
    const keyOnly = await server.call('POST', '/v1/messages/send-by-tag', { headers: { authorization }, body: { tag: 't', channel: 'sms', message: 'hello' } });
    expect(keyOnly.status).toBe(401);
    expect(keyOnly.body.message).toMatch(HINT);
    const keyThenLogin = await server.call('GET', '/v1/integrations', { headers: { authorization } });
    expect(keyThenLogin.status).toBe(401);
    expect(keyThenLogin.body.message).toMatch(HINT);
  });

  it('does not hide a failing X-API-Key behind the hint when both are sent', async () => {
    const acct = await server.newAccount();
    const wrong = `ek_live_${randomBytes(24).toString('base64url')}`;
    const res = await server.call('GET', '/v1/integrations', { headers: { 'x-api-key': wrong, authorization: `Bearer ${acct.key}` } });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('invalid API key');
  });
});

describe('dashboard roles', () => {
  it('gives a viewer read access only: 403 forbidden naming write on mutations', async () => {
    const acct = await server.newAccount();
    const email = `viewer-${randomBytes(4).toString('hex')}@example.com`;
    const added = await addUser(server.engage, acct.accountId, { email, password: 'viewer password', role: 'viewer' }, { actor: 'test' });
    await server.engage.runner.waitFor(['auth'], added.position, 5000);
    const { token } = (await login(email, 'viewer password')).body;
    expect((await server.call('GET', '/v1/contacts', { token })).status).toBe(200);
    const write = await server.call('POST', '/v1/contacts', { token, body: { email: 'v@example.com' } });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ error: 'forbidden', required_scope: 'write' });
    const keys = await server.call('GET', '/v1/account/api-keys', { token });
    expect(keys.status).toBe(403);
    expect(keys.body.required_scope).toBe('settings');
  });

  it('gives the owner full access, key management included', async () => {
    const acct = await server.newAccount();
    const { token } = (await login(acct.email, acct.password)).body;
    expect((await server.call('GET', '/v1/account/api-keys', { token })).status).toBe(200);
    const issued = await server.call('POST', '/v1/account/api-keys', { token, body: { name: 'from the dashboard' } });
    expect(issued.status).toBe(201);
    expect(issued.body.key).toMatch(KEY_RE);
  });
});

describe('API key scopes', () => {
  it('lets a read-only key list and read contacts', async () => {
    const acct = await server.newAccount();
    const c = await server.call('POST', '/v1/contacts', { key: acct.key, body: { email: 'ro@example.com' } });
    const ro = await issueKey(acct.key, { name: 'read only', scopes: ['read'] });
    expect(ro.scopes).toEqual(['read']);
    const list = await server.call('GET', '/v1/contacts', { key: ro.key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([c.body.id]);
    expect((await server.call('GET', `/v1/contacts/${c.body.id}`, { key: ro.key })).status).toBe(200);
    expect((await server.call('GET', '/v1/contacts/fields', { key: ro.key })).status).toBe(200);
  });

  it('answers a read-only key 403 insufficient_scope naming write on every contact mutation, and changes nothing', async () => {
    const acct = await server.newAccount();
    const c = await server.call('POST', '/v1/contacts', { key: acct.key, body: { email: 'keep@example.com', first_name: 'Keep' } });
    const ro = await issueKey(acct.key, { scopes: ['read'] });
    const attempts: [string, string, unknown][] = [
      ['POST', '/v1/contacts', { email: 'new@example.com' }],
      ['PATCH', `/v1/contacts/${c.body.id}`, { first_name: 'Changed' }],
      ['DELETE', `/v1/contacts/${c.body.id}`, undefined],
      ['POST', '/v1/contacts/fields', { key: 'plan', type: 'text' }],
    ];
    for (const [method, path, body] of attempts) {
      const res = await server.call(method, path, { key: ro.key, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toEqual({ error: 'insufficient_scope', message: res.body.message, required_scope: 'write', missing_scopes: ['write'] });
    }
    const after = await server.call('GET', `/v1/contacts/${c.body.id}`, { key: acct.key });
    expect(after.body.first_name).toBe('Keep');
    const list = await server.call('GET', '/v1/contacts', { key: acct.key });
    expect(list.body.data).toHaveLength(1);
    expect((await server.call('GET', '/v1/contacts/fields', { key: acct.key })).body.data).toEqual([]);
  });

  const mutatingKeys = [
    { what: 'a read+write key mutate contacts but not manage keys', scopes: ['read', 'write'], email: 'rw@example.com', denied: '/v1/account/api-keys', required: 'settings' },
    { what: 'a write-only key mutate but not read', scopes: ['write'], email: 'wo@example.com', denied: '/v1/contacts', required: 'read' },
  ];
  for (const { what, scopes, email, denied, required } of mutatingKeys) {
    it(`lets ${what}`, async () => {
      const acct = await server.newAccount();
      const scoped = await issueKey(acct.key, { scopes });
      expect((await server.call('POST', '/v1/contacts', { key: scoped.key, body: { email } })).status).toBe(201);
      const res = await server.call('GET', denied, { key: scoped.key });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'insufficient_scope', required_scope: required });
    });
  }

  it('gives an unscoped key full access: contacts and key management', async () => {
    const acct = await server.newAccount();
    const full = await issueKey(acct.key, { name: 'full' });
    expect(full.scopes).toBeNull();
    const c = await server.call('POST', '/v1/contacts', { key: full.key, body: { email: 'full@example.com' } });
    expect(c.status).toBe(201);
    expect((await server.call('PATCH', `/v1/contacts/${c.body.id}`, { key: full.key, body: { last_name: 'F' } })).status).toBe(200);
    expect((await server.call('DELETE', `/v1/contacts/${c.body.id}`, { key: full.key })).status).toBe(200);
    expect((await server.call('GET', '/v1/account/api-keys', { key: full.key })).status).toBe(200);
    expect((await server.call('POST', '/v1/account/api-keys', { key: full.key, body: { scopes: ['read'] } })).status).toBe(201);
  });

  it('requires the settings scope for every API key management route', async () => {
    const acct = await server.newAccount();
    const rw = await issueKey(acct.key, { scopes: ['read', 'write'] });
    const target = await issueKey(acct.key, { name: 'target' });
    for (const [method, path] of [
      ['GET', '/v1/account/api-keys'],
      ['POST', '/v1/account/api-keys'],
      ['POST', `/v1/account/api-keys/${target.id}/rotate`],
      ['DELETE', `/v1/account/api-keys/${target.id}`],
    ] as const) {
      const res = await server.call(method, path, { key: rw.key, body: method === 'POST' && !path.endsWith('rotate') ? {} : undefined });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'settings' });
    }
    // the target key was neither rotated nor revoked
    expect((await server.call('GET', '/v1/account/me', { key: target.key })).status).toBe(200);
    const settings = await issueKey(acct.key, { scopes: ['settings'] });
    const listed = await server.call('GET', '/v1/account/api-keys', { key: settings.key });
    expect(listed.status).toBe(200);
    const t = listed.body.data.find((k: { id: string }) => k.id === target.id);
    expect(t).toMatchObject({ expires_at: null, revoked_at: null });
  });

  it('validates the scope list when issuing a key', async () => {
    const acct = await server.newAccount();
    for (const scopes of [['admin'], [], 'read', ['read', 'nope']]) {
      const res = await server.call('POST', '/v1/account/api-keys', { key: acct.key, body: { scopes } });
      expect(res.status, JSON.stringify(scopes)).toBe(400);
      expect(res.body.error).toBe('validation_error');
    }
    const unknown = await server.call('POST', '/v1/account/api-keys', { key: acct.key, body: { scopes: ['read'], account_id: 'acct_x' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.issues.map((i: { path: string }) => i.path)).toContain('account_id');
  });
});

describe('API key management', () => {
  it('shows a new key once, and the listing never contains a secret', async () => {
    const acct = await server.newAccount();
    const issued = await issueKey(acct.key, { name: 'ci', scopes: ['read'] });
    expect(issued.key).toMatch(KEY_RE);
    expect(issued.id).toMatch(KEY_ID_RE);
    expect(issued.name).toBe('ci');
    const list = await server.call('GET', '/v1/account/api-keys', { key: acct.key });
    expect(list.status).toBe(200);
    expect(list.body.next_cursor).toBeNull();
    expect(list.body.data.map((k: { id: string }) => k.id)).toContain(issued.id);
    const text = JSON.stringify(list.body);
    expect(text).not.toContain(issued.key);
    expect(text).not.toContain(acct.key);
    expect(text).not.toContain('key_hash');
    const row = list.body.data.find((k: { id: string }) => k.id === issued.id);
    expect(row).toMatchObject({ name: 'ci', scopes: ['read'], expires_at: null, revoked_at: null, replaces: null });
    expect(issued.key.startsWith(row.prefix)).toBe(true);
  });

  it("lists only the caller's own account's keys", async () => {
    const a = await server.newAccount();
    const b = await server.newAccount();
    const bKey = await issueKey(b.key, { name: 'b only' });
    const list = await server.call('GET', '/v1/account/api-keys', { key: a.key });
    expect(list.body.data.map((k: { id: string }) => k.id)).not.toContain(bKey.id);
    expect(list.body.data).toHaveLength(1);
  });

  it('rotates a key: a new key at once, both work, and the old one expires exactly 24 h after the rotation', async () => {
    const acct = await server.newAccount();
    const old = await issueKey(acct.key, { name: 'rotating', scopes: ['read', 'write'] });
    const before = Date.now();
    const rotated = await server.call('POST', `/v1/account/api-keys/${old.id}/rotate`, { key: acct.key });
    const after = Date.now();
    expect(rotated.status).toBe(201);
    expect(rotated.body.key).toMatch(KEY_RE);
    expect(rotated.body.key).not.toBe(old.key);
    expect(rotated.body.id).toMatch(KEY_ID_RE);
    expect(rotated.body.id).not.toBe(old.id);
    expect(rotated.body.replaces).toBe(old.id);
    const expiresAt = Date.parse(rotated.body.old_key_expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + DAY_MS - 1000);
    expect(expiresAt).toBeLessThanOrEqual(after + DAY_MS);

    // both keys work during the grace window, each identified as itself
    const viaOld = await server.call('GET', '/v1/account/me', { key: old.key });
    const viaNew = await server.call('GET', '/v1/account/me', { key: rotated.body.key });
    expect(viaOld.status).toBe(200);
    expect(viaNew.status).toBe(200);
    expect(viaOld.body.credential.key_id).toBe(old.id);
    expect(viaNew.body.credential.key_id).toBe(rotated.body.id);
    expect(viaNew.body.account.id).toBe(acct.accountId);

    // the listing records the expiry on the old key and the lineage on the new one
    const list = await server.call('GET', '/v1/account/api-keys', { key: acct.key });
    const oldRow = list.body.data.find((k: { id: string }) => k.id === old.id);
    const newRow = list.body.data.find((k: { id: string }) => k.id === rotated.body.id);
    expect(oldRow.expires_at).toBe(rotated.body.old_key_expires_at);
    expect(oldRow.revoked_at).toBeNull();
    expect(newRow).toMatchObject({ replaces: old.id, expires_at: null, revoked_at: null, name: 'rotating', scopes: ['read', 'write'] });
  });

  it('carries the scopes over to the replacement key', async () => {
    const acct = await server.newAccount();
    const ro = await issueKey(acct.key, { scopes: ['read'] });
    const rotated = await server.call('POST', `/v1/account/api-keys/${ro.id}/rotate`, { key: acct.key });
    const res = await server.call('POST', '/v1/contacts', { key: rotated.body.key, body: { email: 'x@example.com' } });
    expect(res.status).toBe(403);
    expect(res.body.required_scope).toBe('write');
    expect((await server.call('GET', '/v1/contacts', { key: rotated.body.key })).status).toBe(200);
  });

  it('does not extend the grace window when the old key is rotated again', async () => {
    const acct = await server.newAccount();
    const old = await issueKey(acct.key, {});
    const first = await server.call('POST', `/v1/account/api-keys/${old.id}/rotate`, { key: acct.key });
    const second = await server.call('POST', `/v1/account/api-keys/${old.id}/rotate`, { key: acct.key });
    expect(second.status).toBe(201);
    const list = await server.call('GET', '/v1/account/api-keys', { key: acct.key });
    expect(list.body.data.find((k: { id: string }) => k.id === old.id).expires_at).toBe(first.body.old_key_expires_at);
    expect(second.body.old_key_expires_at).toBe(first.body.old_key_expires_at);
  });

  it('revokes a key at once: 401 afterwards, while the other keys keep working', async () => {
    const acct = await server.newAccount();
    const doomed = await issueKey(acct.key, { name: 'doomed' });
    expect((await server.call('GET', '/v1/account/me', { key: doomed.key })).status).toBe(200);
    const revoked = await server.call('DELETE', `/v1/account/api-keys/${doomed.id}`, { key: acct.key });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: doomed.id, revoked: true });
    const after = await server.call('GET', '/v1/account/me', { key: doomed.key });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('unauthorized');
    expect((await server.call('GET', '/v1/account/me', { key: acct.key })).status).toBe(200);
    const list = await server.call('GET', '/v1/account/api-keys', { key: acct.key });
    expect(list.body.data.find((k: { id: string }) => k.id === doomed.id).revoked_at).not.toBeNull();
  });

  it('revokes the old key of a rotation before its grace window ends, leaving the new key working', async () => {
    const acct = await server.newAccount();
    const old = await issueKey(acct.key, {});
    const rotated = await server.call('POST', `/v1/account/api-keys/${old.id}/rotate`, { key: acct.key });
    expect((await server.call('DELETE', `/v1/account/api-keys/${old.id}`, { key: acct.key })).status).toBe(200);
    expect((await server.call('GET', '/v1/account/me', { key: old.key })).status).toBe(401);
    expect((await server.call('GET', '/v1/account/me', { key: rotated.body.key })).status).toBe(200);
    // a revoked key cannot be rotated
    expect((await server.call('POST', `/v1/account/api-keys/${old.id}/rotate`, { key: acct.key })).status).toBe(404);
  });

  it("answers 404 for an unknown key id and for another account's key, and leaves that key alone", async () => {
    const a = await server.newAccount();
    const b = await server.newAccount();
    const bKey = await issueKey(b.key, {});
    for (const id of [bKey.id, 'key_01ARZ3NDEKTSV4RRFFQ69G5FAV']) {
      const rot = await server.call('POST', `/v1/account/api-keys/${id}/rotate`, { key: a.key });
      expect(rot.status).toBe(404);
      expect(rot.body.error).toBe('not_found');
      const del = await server.call('DELETE', `/v1/account/api-keys/${id}`, { key: a.key });
      expect(del.status).toBe(404);
    }
    expect((await server.call('GET', '/v1/account/me', { key: bKey.key })).status).toBe(200);
    const bList = await server.call('GET', '/v1/account/api-keys', { key: b.key });
    expect(bList.body.data.find((k: { id: string }) => k.id === bKey.id)).toMatchObject({ expires_at: null, revoked_at: null });
  });

  it('lets a key revoke itself', async () => {
    const acct = await server.newAccount();
    const self = await issueKey(acct.key, { scopes: ['settings'] });
    expect((await server.call('DELETE', `/v1/account/api-keys/${self.id}`, { key: self.key })).status).toBe(200);
    expect((await server.call('GET', '/v1/account/api-keys', { key: self.key })).status).toBe(401);
  });
});
