// Security hardening (issue 8): authentication before the body is read, the per-IP limit for
// unauthenticated and failed-auth traffic on every route reachable without a key, JWT claims,
// login behind a proxy and per account, password hash upgrades, and secrets kept out of request logs.
import http from 'node:http';
import { Writable } from 'node:stream';
import { SignJWT } from 'jose';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { hashPassword, verifyPassword, passwordNeedsRehash } from '../../src/accounts/passwords.ts';
import { startServer, type Server } from '../../src/server.ts';
import { newAccount } from '../support/accounts.ts';
import { freshDatabase, testConfig, testServerForSuite, whileRunning } from '../support/harness.ts';
import { requestJson } from '../support/http.ts';
import { burst } from '../support/rate-limits.ts';
import { sleep } from '../support/waits.ts';

const SANDBOX_SECRET = 'sandbox-secret-0123456789abcdef';
const VERIFY_TOKEN = 'verify-token-do-not-log-0123456789';

/**
 * POSTs a chunked body of which only the first megabyte is ever sent (the end never comes), and
 * answers the status the server gave while the body was still incomplete, or 'no answer' when the
 * server was still waiting for the rest of the body after `patienceMs`.
 */
function postUnfinishedBody(url: string, headers: Record<string, string>, patienceMs = 15_000): Promise<number | 'no answer'> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...headers } });
    const timer = setTimeout(() => {
      req.destroy();
      resolve('no answer');
    }, patienceMs);
    req.on('response', (res) => {
      clearTimeout(timer);
      res.resume();
      req.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
    });
    const item = JSON.stringify({ channel: 'sms', to: '+15551234567', message: 'x'.repeat(100) });
    req.write(`{"messages":[${Array(Math.ceil(1_000_000 / item.length)).fill(item).join(',')}`);
    // never req.end(): the body is incomplete until the server answers
  });
}

/** The password hash `server` keeps for a user. */
async function storedPasswordHash(server: Server, userId: string): Promise<string> {
  return (await server.engage.pool.query<{ hash: string }>(`SELECT hash FROM credentials WHERE kind = 'password' AND id = $1`, [userId])).rows[0].hash;
}

/** A describe block's server (no workers) whose log lines, from info up, are kept in `lines`. */
function serverKeepingItsLog(overrides: Record<string, string>): { server: Server; lines: string[] } {
  let started: Server | undefined;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    started = await startServer({ config: testConfig(await freshDatabase(), { ...overrides, LOG_LEVEL: 'info' }), log: pino({ level: 'info' }, sink), workers: false });
  });
  afterAll(async () => {
    await started?.close();
  });
  return { server: whileRunning(() => started, 'the server keeping its log'), lines };
}

describe('finding 3: authentication before the body is read; failed auth counts per IP', () => {
  describe('authentication before the body is read', () => {
    const server = testServerForSuite();

    it('refuses an unauthenticated bulk POST with 401 while its body is still arriving', async () => {
      expect(await postUnfinishedBody(`${server.url}/v1/messages/bulk`, { 'x-api-key': 'ek_live_garbage_garbage_garbage' })).toBe(401);
      expect(await postUnfinishedBody(`${server.url}/v1/messages/bulk`, {})).toBe(401);
      expect(await postUnfinishedBody(`${server.url}/v1/messages/bulk`, { authorization: 'Bearer not.a.jwt' })).toBe(401);
    }, 60_000);
  });

  describe('failed auth counts per IP', () => {
    // a server of its own: nothing else has been counted for 127.0.0.1
    const server = testServerForSuite();

    it('answers 429 once one IP has sent 120 requests with a garbage key or none in a minute; valid keys from that IP still work', async () => {
      const acct = await server.newAccount();
      const garbage = await burst(150, 10, (i) =>
        i % 3 === 0 ? server.call('GET', '/v1/contacts') : server.call('GET', '/v1/contacts', { key: `ek_live_garbage_${i}` }),
      );
      const statuses = garbage.map((r) => r.status);
      expect(statuses.filter((s) => s === 401)).toHaveLength(120);
      expect(statuses.filter((s) => s === 429)).toHaveLength(30);
      const last = garbage[garbage.length - 1];
      expect(last.status).toBe(429);
      expect(last.body).toMatchObject({ error: 'rate_limit_exceeded', limit: 120, window: '1 minute' });
      expect(last.headers.get('retry-after')).toBe(String(last.body.retry_after));
      // a caller that authenticates is counted per account, not per IP
      const ok = await server.call('GET', '/v1/contacts', { key: acct.key });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-limit')).toBe('500');
    }, 120_000);
  });
});

describe('finding 4: 120 requests per minute per IP on every route reachable without a key', () => {
  const server = testServerForSuite({ WEBHOOK_SECRET_SANDBOX: SANDBOX_SECRET, WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN });

  it('limits /health, the documents, WhatsApp verify, login and unknown paths in one per-IP bucket; signed provider callbacks stay unlimited, failed ones are counted', async () => {
    const acct = await server.newAccount();
    const verify = `/v1/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=42`;
    const paths = ['/health', '/v1/openapi.json', verify, '/no/such/path'];
    const first = await burst(110, 10, (i) => server.call('GET', paths[i % paths.length]));
    expect(first.filter((r) => r.status === 429)).toHaveLength(0);
    for (const r of first) expect(r.headers.get('ratelimit-limit')).toBe('120');
    // logins count here too (besides their own 20 per 15 minutes)
    const logins = await burst(5, 5, () => server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: 'wrong' } }));
    expect(logins.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    // signed provider callbacks: platform traffic, never limited nor counted
    const signed = await burst(30, 10, () =>
      server.call('POST', '/v1/webhooks/sandbox', { body: { message_id: 'msg_01ARZ3NDEKTSV4RRFFQ69G5FAV', status: 'delivered' }, headers: { 'x-sandbox-secret': SANDBOX_SECRET } }),
    );
    expect(signed.map((r) => r.status)).toEqual(Array(30).fill(200));
    // 115 so far; callbacks failing their signature are counted: 5 more 401s, then 429
    const unsigned = await burst(8, 1, () =>
      server.call('POST', '/v1/webhooks/sandbox', { body: { message_id: 'msg_01ARZ3NDEKTSV4RRFFQ69G5FAV', status: 'delivered' }, headers: { 'x-sandbox-secret': 'wrong-secret-wrong-secret' } }),
    );
    expect(unsigned.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    expect(unsigned[5].body).toMatchObject({ error: 'rate_limit_exceeded', limit: 120 });

    for (const path of [...paths, '/docs']) expect((await server.call('GET', path)).status, path).toBe(429);
    const login = await server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: acct.password } });
    expect(login.status).toBe(429);
    // still: signed callbacks and API keys go through
    expect((await server.call('POST', '/v1/webhooks/sandbox', { body: { message_id: 'msg_01ARZ3NDEKTSV4RRFFQ69G5FAV', status: 'delivered' }, headers: { 'x-sandbox-secret': SANDBOX_SECRET } })).status).toBe(200);
    expect((await server.call('GET', '/v1/account/me', { key: acct.key })).status).toBe(200);
  }, 120_000);
});

describe('finding 6: JWT claims', () => {
  const server = testServerForSuite();

  it('answers 401 to a token with an unknown role and to one without exp', async () => {
    const acct = await server.newAccount();
    const { rows } = await server.engage.pool.query<{ value: string }>("SELECT value FROM service_secrets WHERE name = 'jwt'");
    const secret = new TextEncoder().encode(rows[0].value);
    const sign = (claims: Record<string, unknown>, exp: boolean) => {
      const jwt = new SignJWT({ acct: acct.accountId, ...claims }).setProtectedHeader({ alg: 'HS256' }).setSubject(acct.userId).setIssuedAt();
      return (exp ? jwt.setExpirationTime('1h') : jwt).sign(secret);
    };
    const unknownRole = await server.call('GET', '/v1/account/me', { token: await sign({ role: 'superuser' }, true) });
    expect(unknownRole.status).toBe(401);
    expect(unknownRole.body.error).toBe('unauthorized');
    const noRole = await server.call('GET', '/v1/account/me', { token: await sign({}, true) });
    expect(noRole.status).toBe(401);
    const noExp = await server.call('GET', '/v1/account/me', { token: await sign({ role: 'owner' }, false) });
    expect(noExp.status).toBe(401);
    // the same claims with a role we know and an exp are accepted: the rejections are about those claims
    expect((await server.call('GET', '/v1/account/me', { token: await sign({ role: 'viewer' }, true) })).status).toBe(200);
  });
});

describe('finding 11: login behind a proxy, per account, and the password KDF', () => {
  it('TRUST_PROXY is parsed: unset/empty/false = off, true, or proxy addresses (a hop count is refused: fastify would trust nothing)', () => {
    const base = { DATABASE_URL: 'postgres://x/y' };
    expect(loadConfig(base).TRUST_PROXY).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: '' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(() => loadConfig({ ...base, TRUST_PROXY: '2' })).toThrow(/TRUST_PROXY: a hop count/);
    expect(loadConfig({ ...base, TRUST_PROXY: 'loopback,::1' }).TRUST_PROXY).toBe('loopback,::1');
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.1, 192.168.0.0/16' }).TRUST_PROXY).toBe('10.0.0.1,192.168.0.0/16');
    expect(() => loadConfig({ ...base, TRUST_PROXY: 'not an address' })).toThrow(/TRUST_PROXY/);
  });

  describe('with TRUST_PROXY=127.0.0.1', () => {
    const server = testServerForSuite({ TRUST_PROXY: '127.0.0.1' });

    it('counts logins per client address from X-Forwarded-For, so one proxy does not put every client in one bucket', async () => {
      const attempt = (ip: string, i: number) =>
        server.call('POST', '/v1/auth/login', { body: { email: `nobody-${ip}-${i}@example.com`, password: 'wrong' }, headers: { 'x-forwarded-for': ip } });
      const a = await burst(20, 5, (i) => attempt('203.0.113.1', i));
      expect(a.map((r) => r.status)).toEqual(Array(20).fill(401));
      expect((await attempt('203.0.113.1', 99)).status).toBe(429);
      const b = await attempt('203.0.113.2', 0);
      expect(b.status).toBe(401);
      expect(b.headers.get('ratelimit-remaining')).toBe('19');
    }, 60_000);

    it('counts an IPv6 client by its /64 (one host can use every address of it)', async () => {
      const attempt = (ip: string, i: number) =>
        server.call('POST', '/v1/auth/login', { body: { email: `v6-${i}@example.com`, password: 'wrong' }, headers: { 'x-forwarded-for': ip } });
      const a = await burst(20, 5, (i) => attempt(`2001:db8:aa:1::${(i + 1).toString(16)}`, i));
      expect(a.map((r) => r.status)).toEqual(Array(20).fill(401));
      expect((await attempt('2001:0db8:00aa:0001:ffff:1:2:3', 99)).status).toBe(429);
      expect((await attempt('2001:db8:aa:2::1', 100)).status).toBe(401);
    }, 60_000);

    it('blocks an account after 10 failed logins in 15 minutes, from any address, even with the right password; other accounts are unaffected', async () => {
      const victim = await server.newAccount();
      const other = await server.newAccount();
      const failed = await burst(10, 5, (i) =>
        server.call('POST', '/v1/auth/login', { body: { email: victim.email, password: `guess-${i}` }, headers: { 'x-forwarded-for': `198.51.100.${i + 1}` } }),
      );
      expect(failed.map((r) => r.status)).toEqual(Array(10).fill(401));
      const right = await server.call('POST', '/v1/auth/login', { body: { email: victim.email.toUpperCase(), password: victim.password }, headers: { 'x-forwarded-for': '198.51.100.200' } });
      expect(right.status).toBe(429);
      expect(right.body).toMatchObject({ error: 'rate_limit_exceeded', limit: 10, window: '15 minutes' });
      expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
      const fine = await server.call('POST', '/v1/auth/login', { body: { email: other.email, password: other.password }, headers: { 'x-forwarded-for': '198.51.100.200' } });
      expect(fine.status).toBe(200);
    }, 60_000);
  });

  it('PASSWORD_SCRYPT_N is 2^17 (OWASP) unless set, and a power of two from 2^10 to 2^20', () => {
    const base = { DATABASE_URL: 'postgres://x/y' };
    expect(loadConfig(base).PASSWORD_SCRYPT_N).toBe(2 ** 17);
    expect(loadConfig({ ...base, PASSWORD_SCRYPT_N: '' }).PASSWORD_SCRYPT_N).toBe(2 ** 17);
    expect(loadConfig({ ...base, PASSWORD_SCRYPT_N: '1024' }).PASSWORD_SCRYPT_N).toBe(1024);
    for (const bad of ['1000', '512', String(2 ** 21), 'many']) expect(() => loadConfig({ ...base, PASSWORD_SCRYPT_N: bad }), bad).toThrow(/PASSWORD_SCRYPT_N/);
  });

  it('hashes with scrypt r = 8, p = 1 and carries the parameters in the hash', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('wrong', hash)).toBe(false);
    expect(passwordNeedsRehash(hash)).toBe(false);
    const old = await hashPassword('correct horse battery', { N: 2 ** 14, r: 8, p: 1 });
    expect(await verifyPassword('correct horse battery', old)).toBe(true);
    expect(passwordNeedsRehash(old)).toBe(true);
  }, 30_000);

  describe('at the cost an operator runs (2^17)', () => {
    // the other tests' servers hash at 2^10 (the harness's PASSWORD_SCRYPT_N): a test run makes thousands of accounts
    const server = testServerForSuite({ PASSWORD_SCRYPT_N: String(2 ** 17) });
    const storedHash = (userId: string) => storedPasswordHash(server, userId);

    it("hashes a new user's password with scrypt N = 2^17", async () => {
      const acct = await server.newAccount();
      expect(await storedHash(acct.userId)).toMatch(/^scrypt\$131072\$8\$1\$/);
    }, 60_000);

    it('rehashes a password stored with an older, cheaper scrypt cost on the next successful login', async () => {
      const acct = await server.newAccount();
      const old = await hashPassword(acct.password, { N: 2 ** 14, r: 8, p: 1 });
      expect(old.startsWith('scrypt$16384$8$1$')).toBe(true);
      await server.engage.pool.query(`UPDATE credentials SET hash = $1 WHERE kind = 'password' AND id = $2`, [old, acct.userId]);
      expect((await server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: acct.password } })).status).toBe(200);
      expect((await storedHash(acct.userId)).startsWith('scrypt$131072$8$1$')).toBe(true);
      expect((await server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: acct.password } })).status).toBe(200);
    }, 60_000);
  });

  describe('at a lower PASSWORD_SCRYPT_N', () => {
    const { server, lines } = serverKeepingItsLog({ PASSWORD_SCRYPT_N: '1024' });

    it('warns at start, hashes new passwords at that cost, and still verifies (and keeps) a dearer hash', async () => {
      const warning = lines.map((l) => JSON.parse(l)).find((l) => l.password_scrypt_n === 1024);
      expect(warning).toMatchObject({ level: 40 });
      expect(warning.msg).toMatch(/PASSWORD_SCRYPT_N is 1024, below OWASP's minimum of 131072/);
      const acct = await newAccount(server);
      const stored = () => storedPasswordHash(server, acct.userId);
      expect(await stored()).toMatch(/^scrypt\$1024\$8\$1\$/);
      // a hash made at a higher cost (before the setting was lowered) logs in, and is not rehashed down
      const dear = await hashPassword(acct.password, { N: 2 ** 14, r: 8, p: 1 });
      await server.engage.pool.query(`UPDATE credentials SET hash = $1 WHERE kind = 'password' AND id = $2`, [dear, acct.userId]);
      expect((await requestJson(server.url, 'POST', '/v1/auth/login', { body: { email: acct.email, password: acct.password } })).status).toBe(200);
      expect(await stored()).toBe(dear);
    }, 60_000);
  });
});

describe('finding 12: secrets in query strings never reach the request log', () => {
  const { server, lines } = serverKeepingItsLog({ WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN });

  it('redacts hub.verify_token and other secret-bearing parameters, keeping the path and harmless ones', async () => {
    const verify = await fetch(`${server.url}/v1/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=c123`);
    expect(verify.status).toBe(200);
    const wrong = await fetch(`${server.url}/v1/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=guessed-token-abcdef&hub.challenge=c456`);
    expect(wrong.status).toBe(403);
    await fetch(`${server.url}/v1/contacts?api_key=ek_live_secretvalue123&token=tok-secret-456&limit=5`);
    await sleep(200);
    const log = lines.join('');
    expect(log).toContain('/v1/webhooks/whatsapp');
    expect(log).toContain('hub.challenge=c123');
    expect(log).toContain('limit=5');
    for (const secret of [VERIFY_TOKEN, 'guessed-token-abcdef', 'ek_live_secretvalue123', 'tok-secret-456']) expect(log).not.toContain(secret);
  });
});
