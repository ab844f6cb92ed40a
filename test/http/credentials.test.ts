// Credentials (issue 8, findings 1 and 7): a credential never mints or rotates a key with more than
// it holds, and password and key hashes live in the credentials table, never in events.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { accountStream } from '../../commands/account.ts';
import { authProjection } from '../../projections/auth.ts';
import { addUser, hashApiKey } from '../../src/accounts/service.ts';
import { migrate } from '../../src/schema.ts';
import { newId } from '../../src/ids.ts';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { runEngage } from '../support/processes.ts';
import { testServerForSuite } from '../support/harness.ts';


async function issueKey(key: string, body: { name?: string; scopes?: string[] | null }) {
  const res = await server.call('POST', '/v1/account/api-keys', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; key: string; scopes: string[] | null };
}

async function sessionOf(accountId: string, role: 'owner' | 'admin' | 'member' | 'viewer') {
  const email = `${role}-${randomBytes(4).toString('hex')}@example.com`;
  const added = await addUser(server.engage, accountId, { email, password: `${role} password`, role }, { actor: 'test' });
  await server.engage.runner.waitFor(['auth'], added.position, 10_000);
  const res = await server.call('POST', '/v1/auth/login', { body: { email, password: `${role} password` } });
  expect(res.status).toBe(200);
  return { token: res.body.token as string, userId: added.user_id, email };
}

const server = testServerForSuite();

describe('a credential never mints more than it holds (finding 1)', () => {
  it('refuses a settings-only key asking for a full-access key, with 403 insufficient_scope naming what it lacks', async () => {
    const acct = await server.newAccount();
    const settings = await issueKey(acct.key, { scopes: ['settings'] });
    for (const body of [{}, { scopes: null }, { name: 'sneaky' }]) {
      const res = await server.call('POST', '/v1/account/api-keys', { key: settings.key, body });
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.body).toMatchObject({ error: 'insufficient_scope', missing_scopes: ['read', 'write'] });
    }
    const more = await server.call('POST', '/v1/account/api-keys', { key: settings.key, body: { scopes: ['settings', 'write'] } });
    expect(more.status).toBe(403);
    expect(more.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'write', missing_scopes: ['write'] });
    const listed = await server.call('GET', '/v1/account/api-keys', { key: acct.key });
    expect(listed.body.data).toHaveLength(2);
  });

  it('lets a scoped key create keys with a subset of its own scopes', async () => {
    const acct = await server.newAccount();
    const rs = await issueKey(acct.key, { scopes: ['read', 'settings'] });
    expect((await issueKey(rs.key, { scopes: ['read'] })).scopes).toEqual(['read']);
    expect((await issueKey(rs.key, { scopes: ['settings', 'read'] })).scopes).toEqual(['settings', 'read']);
    const w = await server.call('POST', '/v1/account/api-keys', { key: rs.key, body: { scopes: ['read', 'write'] } });
    expect(w.status).toBe(403);
    expect(w.body).toMatchObject({ error: 'insufficient_scope', missing_scopes: ['write'] });
  });

  it('refuses a scoped key rotating a key with more scopes than it holds, and keeps the scopes of a rotated key', async () => {
    const acct = await server.newAccount();
    const me = await server.call('GET', '/v1/account/me', { key: acct.key });
    const fullKeyId = me.body.credential.key_id as string;
    const settings = await issueKey(acct.key, { scopes: ['settings'] });
    const reader = await issueKey(acct.key, { scopes: ['read'] });
    for (const id of [fullKeyId, reader.id]) {
      const res = await server.call('POST', `/v1/account/api-keys/${id}/rotate`, { key: settings.key });
      expect(res.status, id).toBe(403);
      expect(res.body.error).toBe('insufficient_scope');
    }
    // the refused rotations set no expiry on the keys
    const before = await server.call('GET', '/v1/account/api-keys', { key: acct.key });
    expect(before.body.data.every((k: { expires_at: string | null }) => k.expires_at === null)).toBe(true);

    const own = await server.call('POST', `/v1/account/api-keys/${settings.id}/rotate`, { key: settings.key });
    expect(own.status).toBe(201);
    const byFull = await server.call('POST', `/v1/account/api-keys/${reader.id}/rotate`, { key: acct.key });
    expect(byFull.status).toBe(201);
    const listed = (await server.call('GET', '/v1/account/api-keys', { key: acct.key })).body.data as { id: string; scopes: string[] | null }[];
    expect(listed.find((k) => k.id === own.body.id)?.scopes).toEqual(['settings']);
    expect(listed.find((k) => k.id === byFull.body.id)?.scopes).toEqual(['read']);
  });

  it('lets owner and admin sessions mint any key; member and viewer sessions none (key management needs settings)', async () => {
    const acct = await server.newAccount();
    for (const role of ['owner', 'admin'] as const) {
      const { token } = await sessionOf(acct.accountId, role);
      const res = await server.call('POST', '/v1/account/api-keys', { token, body: { name: role } });
      expect(res.status, role).toBe(201);
      expect(res.body.scopes).toBeNull();
    }
    for (const role of ['member', 'viewer'] as const) {
      const { token } = await sessionOf(acct.accountId, role);
      const res = await server.call('POST', '/v1/account/api-keys', { token, body: { scopes: ['read'] } });
      expect(res.status, role).toBe(403);
      expect(res.body).toMatchObject({ error: 'forbidden', required_scope: 'settings' });
    }
  });
});

describe('credential material stays out of events (finding 7)', () => {
  it('writes no password or key hash into the account stream, and keeps them in the credentials table', async () => {
    const acct = await server.newAccount();
    const extra = await issueKey(acct.key, { scopes: ['read'] });
    const rotated = await server.call('POST', `/v1/account/api-keys/${extra.id}/rotate`, { key: acct.key });
    expect(rotated.status).toBe(201);
    const events = await server.engage.store.readStream(accountStream(acct.accountId));
    expect(events.map((e) => e.type)).toEqual(['AccountCreated', 'UserAdded', 'ApiKeyIssued', 'ApiKeyIssued', 'ApiKeyIssued', 'ApiKeyExpirySet']);
    const { rows: creds } = await server.engage.pool.query<{ kind: string; id: string; hash: string }>(
      'SELECT kind, id, hash FROM credentials WHERE account_id = $1 ORDER BY id',
      [acct.accountId],
    );
    expect(creds.map((c) => c.kind).sort()).toEqual(['api_key', 'api_key', 'api_key', 'password']);
    expect(creds.find((c) => c.id === rotated.body.id)?.hash).toBe(hashApiKey(rotated.body.key));
    const text = JSON.stringify(events.map((e) => e.data));
    expect(text).not.toMatch(/password_hash|key_hash|scrypt\$/);
    for (const c of creds) expect(text).not.toContain(c.hash);
    // the read models carry no hash either
    const { rows: cols } = await server.engage.pool.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_name IN ('users', 'api_keys') AND table_schema = current_schema()`,
    );
    expect(cols.map((c) => c.column_name)).not.toContain('password_hash');
    expect(cols.map((c) => c.column_name)).not.toContain('key_hash');
    // and both credentials work
    expect((await server.call('GET', '/v1/account/me', { key: rotated.body.key })).status).toBe(200);
    expect((await server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: acct.password } })).status).toBe(200);
  });

  it('authenticates only with both the event (read model row) and the credential row', async () => {
    const acct = await server.newAccount();
    // a credential row whose event was never appended (a crash between the two writes) is inert
    const orphan = `ek_live_${randomBytes(24).toString('base64url')}`;
    await server.engage.pool.query(`INSERT INTO credentials (kind, id, account_id, hash) VALUES ('api_key', $1, $2, $3)`, [newId('key'), acct.accountId, hashApiKey(orphan)]);
    expect((await server.call('GET', '/v1/account/me', { key: orphan })).status).toBe(401);
    // a key whose credential row is gone does not authenticate
    const k = await issueKey(acct.key, { scopes: ['read'] });
    await server.engage.pool.query(`DELETE FROM credentials WHERE kind = 'api_key' AND id = $1`, [k.id]);
    expect((await server.call('GET', '/v1/account/me', { key: k.key })).status).toBe(401);
  });

  it('copies the hashes of events written before the change into the credentials table, and the old events still project', async () => {
    const acct = await server.newAccount();
    const userId = newId('user');
    const keyId = newId('key');
    const email = `legacy-${randomBytes(4).toString('hex')}@example.com`;
    const key = `ek_live_${randomBytes(24).toString('base64url')}`;
    const at = new Date().toISOString();
    // events as the old code wrote them: with the hashes in their data
    const appended = await server.engage.store.append(accountStream(acct.accountId), [
      { type: 'UserAdded', data: { account_id: acct.accountId, user_id: userId, email, password_hash: await hashPassword('legacy password'), role: 'member', created_at: at }, metadata: { actor: 'test' } },
      { type: 'ApiKeyIssued', data: { account_id: acct.accountId, key_id: keyId, key_hash: hashApiKey(key), prefix: key.slice(0, 12), name: 'old', scopes: null, created_at: at }, metadata: { actor: 'test' } },
    ] as never);
    await server.engage.runner.waitFor(['auth'], appended.position, 10_000);
    // the migration copies them from the log (here: after their rows were lost)
    await server.engage.pool.query('DELETE FROM credentials WHERE id = ANY($1)', [[userId, keyId]]);
    await server.engage.pool.query('DELETE FROM schema_migrations WHERE id = 20');
    await migrate(server.engage.pool);
    const { rows } = await server.engage.pool.query('SELECT kind, id FROM credentials WHERE id = ANY($1) ORDER BY kind', [[userId, keyId]]);
    expect(rows).toEqual([{ kind: 'api_key', id: keyId }, { kind: 'password', id: userId }]);
    expect((await server.call('GET', '/v1/account/me', { key })).status).toBe(200);
    expect((await server.call('POST', '/v1/auth/login', { body: { email, password: 'legacy password' } })).status).toBe(200);

    // engage streams show redacts the hashes of those old events
    const shown = await runEngage(['streams', 'show', accountStream(acct.accountId), '--json'], server.databaseUrl);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toMatch(/scrypt\$/);
    expect(shown.stdout).not.toContain(hashApiKey(key));
    const legacy = (JSON.parse(shown.stdout) as { type: string; data: Record<string, unknown> }[]).filter((e) => e.data.user_id === userId || e.data.key_id === keyId);
    expect(legacy.map((e) => e.data.password_hash ?? e.data.key_hash)).toEqual(['[redacted]', '[redacted]']);
    const plain = await runEngage(['streams', 'show', accountStream(acct.accountId)], server.databaseUrl);
    expect(plain.stdout).not.toMatch(/scrypt\$/);
    expect(plain.stdout).toContain('[redacted]');

    // a rebuild of the auth read model replays those old events and the new ones: every credential still works
    const rebuilt = await runEngage(['projections', 'rebuild', 'auth'], server.databaseUrl);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    await new Promise((r) => setTimeout(r, 5_100)); // past the 5 s cache of authenticated keys
    const { rows: gens } = await server.engage.pool.query(`SELECT generation, version FROM projection_state WHERE name = 'auth' AND active`);
    expect(gens).toEqual([{ generation: 2, version: authProjection.version }]);
    expect((await server.call('GET', '/v1/account/me', { key })).status).toBe(200);
    expect((await server.call('GET', '/v1/account/me', { key: acct.key })).status).toBe(200);
    expect((await server.call('POST', '/v1/auth/login', { body: { email, password: 'legacy password' } })).status).toBe(200);
    expect((await server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: acct.password } })).status).toBe(200);
  }, 120_000);
});

describe('idempotent replays stay with their credential and keep no secret in clear (finding 2)', () => {
  async function storedResponses(accountId: string): Promise<string[]> {
    const { rows } = await server.engage.pool.query<{ response: string | null }>('SELECT response FROM idempotency_keys WHERE account_id = $1', [accountId]);
    return rows.map((r) => r.response ?? '');
  }

  it('does not replay a response to another key of the account: the same Idempotency-Key there is a request of its own', async () => {
    const acct = await server.newAccount();
    const other = await issueKey(acct.key, { name: 'other' });
    const headers = { 'idempotency-key': 'same-key-for-both' };
    const first = await server.call('POST', '/v1/account/api-keys', { key: acct.key, body: { name: 'minted' }, headers });
    expect(first.status).toBe(201);
    const replay = await server.call('POST', '/v1/account/api-keys', { key: acct.key, body: { name: 'minted' }, headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // the client that made the request gets back the key it may never have received
    expect(replay.body).toEqual(first.body);
    const byOther = await server.call('POST', '/v1/account/api-keys', { key: other.key, body: { name: 'minted' }, headers });
    expect(byOther.status).toBe(201);
    expect(byOther.headers.get('idempotent-replayed')).toBeNull();
    expect(byOther.body.id).not.toBe(first.body.id);
    expect(byOther.body.key).not.toBe(first.body.key);
    // a session of a user is a credential of its own too
    const { token } = await sessionOf(acct.accountId, 'owner');
    const bySession = await server.call('POST', '/v1/account/api-keys', { token, body: { name: 'minted' }, headers });
    expect(bySession.status).toBe(201);
    expect(bySession.headers.get('idempotent-replayed')).toBeNull();
    expect([first.body.id, byOther.body.id]).not.toContain(bySession.body.id);
  });

  it('stores responses sealed: no ek_live_ key or whsec_ secret in the idempotency table, and replays still carry them', async () => {
    const acct = await server.newAccount();
    const headers = { 'idempotency-key': 'sealed-1' };
    const minted = await server.call('POST', '/v1/account/api-keys', { key: acct.key, body: { name: 'k' }, headers });
    expect(minted.status).toBe(201);
    const endpoint = await server.call('POST', '/v1/webhook-endpoints', {
      key: acct.key,
      body: { url: 'https://hooks.example.com/engage', events: ['message.delivered'] },
      headers: { 'idempotency-key': 'sealed-2' },
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    expect(endpoint.body.secret).toMatch(/^whsec_/);
    const stored = await storedResponses(acct.accountId);
    expect(stored).toHaveLength(2);
    for (const text of stored) {
      expect(text).not.toContain(minted.body.key);
      expect(text).not.toContain(endpoint.body.secret);
      expect(text).not.toMatch(/ek_live_|whsec_/);
    }
    const again = await server.call('POST', '/v1/webhook-endpoints', {
      key: acct.key,
      body: { url: 'https://hooks.example.com/engage', events: ['message.delivered'] },
      headers: { 'idempotency-key': 'sealed-2' },
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(endpoint.body);
  });
});
