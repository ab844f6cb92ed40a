// Rate limits (README "Rate limits", the 429 body in "API conventions"): login 20 per 15 minutes per IP, most
// authenticated endpoints 500 per minute per account, with the 429 body and RateLimit-* headers.
// The Redis-backed counters are tested against a real Redis when REDIS_URL is set.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type Limit, MemoryCounters, RedisCounters, checkLimit } from '../../src/http/plugins/rate-limit.ts';
import { startTestServer, testServerForSuite } from '../support/harness.ts';
import { burst, inOneWindow } from '../support/rate-limits.ts';
import { sleep } from '../support/waits.ts';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) console.log('rate-limit.test.ts: REDIS_URL is not set; skipping the Redis-backed counter tests');

function expect429(res: { status: number; body: any; headers: Headers }, limit: number, window: string) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    error: 'rate_limit_exceeded',
    message: expect.any(String),
    limit,
    window,
    retry_after: expect.any(Number),
  });
  expect(Number.isInteger(res.body.retry_after)).toBe(true);
  expect(res.body.retry_after).toBeGreaterThanOrEqual(1);
  expect(res.headers.get('retry-after')).toBe(String(res.body.retry_after));
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
}

describe('login: 20 attempts per 15 minutes per IP', () => {
  // a server of its own: the login counter is per IP and every test here comes from 127.0.0.1
  const server = testServerForSuite();

  it('answers the 21st attempt with 429, the body of README "Rate limits" and the RateLimit-* headers', async () => {
    const acct = await server.newAccount();
    // (the window is 15 minutes: one run, unless it happened to straddle a window edge)
    const attempts = await inOneWindow(15 * 60_000, () =>
      // (other emails: this is about the per-IP limit, not the 10 failures per account in hardening.test.ts)
      burst(20, 5, (i) => server.call('POST', '/v1/auth/login', { body: { email: `nobody-${i}-${acct.email}`, password: 'wrong' } })),
      1,
    );
    expect(attempts.map((r) => r.status)).toEqual(Array(20).fill(401));
    for (const r of attempts) expect(r.headers.get('ratelimit-limit')).toBe('20');
    const remaining = attempts.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => i));

    const blocked = await server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: 'wrong' } });
    expect429(blocked, 20, '15 minutes');
    // the sliding-window counter lets a burst at the start of a window slide out only by the end of
    // the next one: at most the window and a limit-th of it (945 s here), never more
    expect(blocked.body.retry_after).toBeLessThanOrEqual(Math.ceil(15 * 60 * (1 + 1 / 20)));
    expect(blocked.headers.get('x-request-id')).toBeTruthy();

    // blocked even with the right password: brute-force protection cannot be sidestepped
    const right = await server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: acct.password } });
    expect(right.status).toBe(429);
    expect(right.body).not.toHaveProperty('token');
    // nor by claiming another client address (the server does not trust X-Forwarded-For)
    const spoofed = await server.call('POST', '/v1/auth/login', {
      body: { email: acct.email, password: acct.password },
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    expect(spoofed.status).toBe(429);
  }, 120_000);

  it('limits logins only: API-key requests from the same IP are unaffected', async () => {
    const acct = await server.newAccount();
    expect((await server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: acct.password } })).status).toBe(429);
    const me = await server.call('GET', '/v1/account/me', { key: acct.key });
    expect(me.status).toBe(200);
  });
});

describe('authenticated endpoints: 500 requests per minute per account', () => {
  const server = testServerForSuite();

  it('answers the 501st request of an account with 429, whichever credential it uses, and leaves other accounts alone', async () => {
    const run = await inOneWindow(60_000, async () => {
      const a = await server.newAccount('busy');
      const b = await server.newAccount('quiet');
      // request 1 of account A: a second key, to show the count is per account, not per key
      const second = await server.call('POST', '/v1/account/api-keys', { key: a.key, body: { name: 'second' } });
      // requests 2..500
      const ok = await burst(499, 50, () => server.call('GET', '/v1/account/me', { key: a.key }));
      // request 501, with the same key, the other key and a dashboard session of the same account
      const blocked = await server.call('GET', '/v1/account/me', { key: a.key });
      const viaSecond = await server.call('GET', '/v1/contacts', { key: second.body.key });
      const login = await server.call('POST', '/v1/auth/login', { body: { email: a.email, password: a.password } });
      const viaSession = await server.call('GET', '/v1/account/me', { token: login.body.token });
      const write = await server.call('POST', '/v1/contacts', { key: a.key, body: { email: 'blocked@example.com' } });
      // another account
      const other = await server.call('GET', '/v1/account/me', { key: b.key });
      return { a, b, second, ok, blocked, viaSecond, login, viaSession, write, other };
    });
    const { a, b, second, ok, blocked, viaSecond, login, viaSession, write, other } = run;
    expect(second.status).toBe(201);
    expect(second.headers.get('ratelimit-limit')).toBe('500');
    expect(second.headers.get('ratelimit-remaining')).toBe('499');
    expect(ok.filter((r) => r.status !== 200)).toHaveLength(0);
    const remaining = ok.map((r) => Number(r.headers.get('ratelimit-remaining')));
    expect(Math.min(...remaining)).toBe(0);
    expect(Math.max(...remaining)).toBe(498);

    expect429(blocked, 500, '1 minute');
    // at most the window and a limit-th of it (a burst at the start of a window slides out by the end of the next)
    expect(blocked.body.retry_after).toBeLessThanOrEqual(Math.ceil(60 * (1 + 1 / 500)));
    expect(viaSecond.status).toBe(429);
    expect(login.status).toBe(200); // login is limited per IP, not per account
    expect(viaSession.status).toBe(429);
    expect(write.status).toBe(429);
    // a blocked write created nothing (checked from the database: the account's API is blocked)
    const { rows } = await server.engage.pool.query('SELECT 1 FROM contacts WHERE account_id = $1', [a.accountId]);
    expect(rows).toHaveLength(0);

    // another account is unaffected
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('499');
    expect((await server.call('GET', '/v1/contacts', { key: b.key })).status).toBe(200);
  }, 240_000);

  it('does not count requests that fail authentication against any account', async () => {
    const acct = await server.newAccount();
    const bad = await burst(20, 10, () => server.call('GET', '/v1/account/me', { key: 'ek_live_not_a_key' }));
    expect(bad.every((r) => r.status === 401)).toBe(true);
    const me = await server.call('GET', '/v1/account/me', { key: acct.key });
    expect(me.status).toBe(200);
    expect(me.headers.get('ratelimit-remaining')).toBe('499');
  });

  it('limits the public documents per IP (120 per minute, README "Rate limits")', async () => {
    const doc = await server.call('GET', '/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.headers.get('ratelimit-limit')).toBe('120');
  });
});

describe('Retry-After is accurate for the sliding window (memory counters, simulated clock)', () => {
  const LIMIT: Limit = { limit: 500, windowMs: 60_000, windowText: '1 minute' };
  type Step = { at: number; n: number };

  /** Replays `steps` on fresh counters, stopping after request number `upTo` if given; answers every result with its time. */
  async function replay(steps: Step[], upTo = Infinity) {
    const counters = new MemoryCounters();
    const results: { at: number; r: Awaited<ReturnType<typeof checkLimit>> }[] = [];
    for (const s of steps) for (let i = 0; i < s.n && results.length < upTo; i++) results.push({ at: s.at, r: await checkLimit(counters, 'acct', LIMIT, s.at) });
    return results;
  }
  const lastOf = async (steps: Step[]) => (await replay(steps)).at(-1)!.r;

  // window starts at multiples of 60 s; times are ms since the epoch of the simulated clock
  const W = 60_000;
  const scenarios: Record<string, Step[]> = {
    'a full previous window, a burst early in this one': [{ at: 10 * W + 30_000, n: 500 }, { at: 11 * W + 20_000, n: 171 }],
    'the issue: blocked, then retried every second for a while': [
      { at: 10 * W + 59_000, n: 500 },
      { at: 11 * W + 5_000, n: 200 },
      ...Array.from({ length: 40 }, (_, i) => ({ at: 11 * W + 6_000 + i * 1000, n: 3 })),
    ],
    'all in this window, nothing before': [{ at: 20 * W + 1_000, n: 501 }],
    'late in a window after a quiet one': [{ at: 30 * W + 50_000, n: 501 }],
    'a small previous window': [{ at: 40 * W + 10_000, n: 100 }, { at: 41 * W + 30_000, n: 460 }],
  };

  for (const [name, steps] of Object.entries(scenarios)) {
    it(`a client that waits exactly retry_after gets through: ${name}`, async () => {
      // every refused request of the scenario: waiting its retry_after (and nothing else arriving) gets through
      const results = await replay(steps);
      const refused = results.map((x, i) => ({ ...x, i })).filter((x) => !x.r.allowed);
      expect(refused.length).toBeGreaterThan(0);
      for (const { at, r, i } of refused) {
        const wait = r.retryAfterS;
        expect(wait).toBeGreaterThanOrEqual(1);
        // RateLimit-Reset matches Retry-After on a 429
        expect(r.resetS).toBe(wait);
        const upTo = await replay(steps, i + 1);
        const probe = async (t: number) => {
          const counters = new MemoryCounters();
          for (const x of upTo) await checkLimit(counters, 'acct', LIMIT, x.at);
          return (await checkLimit(counters, 'acct', LIMIT, t)).allowed;
        };
        expect(await probe(at + wait * 1000), `request ${i}: retry_after ${wait} s was too short`).toBe(true);
        // and not needlessly long: a second earlier it would still have been refused
        if (wait > 1) expect(await probe(at + (wait - 1) * 1000), `request ${i}: retry_after ${wait} s was longer than needed`).toBe(false);
      }
    });
  }

  it('a refused request does not count: hammering while blocked does not push the wait further out', async () => {
    const base: Step[] = [{ at: 10 * W + 30_000, n: 500 }, { at: 11 * W + 10_000, n: 200 }];
    const first = await lastOf(base);
    const hammered = await lastOf([...base, { at: 11 * W + 10_000, n: 1000 }]);
    expect(hammered.retryAfterS).toBe(first.retryAfterS);
  });
});

describe.skipIf(!REDIS_URL)('Redis-backed counters (REDIS_URL)', () => {
  it('RedisCounters counts per key and window and reports the previous window', async () => {
    const { Redis } = await import('ioredis');
    const redis = new Redis(REDIS_URL!);
    const counters = new RedisCounters(redis);
    try {
      const key = `test:${randomBytes(8).toString('hex')}`;
      const w = 60_000;
      const start = Math.floor(Date.now() / w) * w;
      expect(await counters.hit(key, start, w)).toEqual([1, 0]);
      expect(await counters.hit(key, start, w)).toEqual([2, 0]);
      expect(await counters.hit(`${key}:other`, start, w)).toEqual([1, 0]);
      // the next window starts at zero and sees this one as its previous
      expect(await counters.hit(key, start + w, w)).toEqual([1, 2]);
      // counters expire on their own (two windows), so Redis does not fill up
      const ttl = await redis.pttl(`engage:rl:${key}:${start}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(2 * w);
    } finally {
      await counters.close();
    }
  });

  it('RedisCounters takes a refused request back, and a client that waits retry_after gets through', async () => {
    const { Redis } = await import('ioredis');
    const counters = new RedisCounters(new Redis(REDIS_URL!));
    try {
      const key = `test:${randomBytes(8).toString('hex')}`;
      const w = 60_000;
      const start = Math.floor(Date.now() / w) * w;
      expect(await counters.hit(key, start, w)).toEqual([1, 0]);
      await counters.undo(key, start);
      expect(await counters.hit(key, start, w)).toEqual([1, 0]);
      // the same arithmetic as the memory counters, on the wall clock: fill a small limit, get refused, wait
      const limit: Limit = { limit: 3, windowMs: 10_000, windowText: '10 seconds' };
      const k2 = `${key}:small`;
      // start well inside a window, so the burst below is in one
      const into = Date.now() % limit.windowMs;
      if (into > 6_000) await sleep(limit.windowMs - into + 100);
      for (let i = 0; i < 3; i++) expect((await checkLimit(counters, k2, limit)).allowed).toBe(true);
      const refused = await checkLimit(counters, k2, limit);
      expect(refused.allowed).toBe(false);
      for (let i = 0; i < 5; i++) expect((await checkLimit(counters, k2, limit)).retryAfterS).toBe(refused.retryAfterS);
      await sleep(refused.retryAfterS * 1000);
      expect((await checkLimit(counters, k2, limit)).allowed).toBe(true);
    } finally {
      await counters.close();
    }
  }, 60_000);

  it('two servers sharing REDIS_URL share one count per account', async () => {
    const one = await startTestServer({ REDIS_URL: REDIS_URL! });
    const two = await startTestServer({ REDIS_URL: REDIS_URL! }, one.databaseUrl);
    try {
      const run = await inOneWindow(60_000, async () => {
        const acct = await one.newAccount();
        // the second server knows the account too (same database); this is request 1
        const seen = await two.call('GET', '/v1/account/me', { key: acct.key });
        // 249 + 250 more: 500 in all, split across the two servers (small batches: two servers' pools
        // on one Postgres, which may be shared with other test runs, must not run out of connections)
        const first = await burst(249, 10, () => one.call('GET', '/v1/account/me', { key: acct.key }));
        const second = await burst(250, 10, () => two.call('GET', '/v1/account/me', { key: acct.key }));
        const blockedOne = await one.call('GET', '/v1/account/me', { key: acct.key });
        const blockedTwo = await two.call('GET', '/v1/account/me', { key: acct.key });
        return { seen, first, second, blockedOne, blockedTwo };
      });
      expect(run.seen.status).toBe(200);
      expect([...run.first, ...run.second].filter((r) => r.status !== 200)).toHaveLength(0);
      expect(Math.min(...run.second.map((r) => Number(r.headers.get('ratelimit-remaining'))))).toBe(0);
      // each server alone has seen about 250: only a shared count blocks the 501st
      expect429(run.blockedOne, 500, '1 minute');
      expect429(run.blockedTwo, 500, '1 minute');
      // another account on the same Redis is unaffected
      const other = await two.newAccount();
      expect((await one.call('GET', '/v1/account/me', { key: other.key })).status).toBe(200);
    } finally {
      await two.close();
      await one.close();
    }
  }, 240_000);
});
