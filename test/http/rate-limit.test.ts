// Rate limits (README "Rate limits", the 429 body in "API conventions"): login 20 per 15 minutes per IP, most
// authenticated endpoints 500 per minute per account, with the 429 body and RateLimit-* headers; a rolling
// window kept exactly (no more than the limit in any window's length, however the requests fall), and
// Retry-After saying when the oldest admitted request leaves it. The Redis-backed log is tested against a
// real Redis when REDIS_URL is set.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Limit, MemoryCounters, RedisCounters, checkLimit } from '../../src/http/plugins/rate-limit.ts';
import { startTestServer, testServerForSuite, type TestServer } from '../support/harness.ts';
import type { ApiResponse } from '../support/http.ts';
import { ManualClock, acrossTheTurnOfAMinute, burst, inOneWindow } from '../support/rate-limits.ts';
import { sleep, until } from '../support/waits.ts';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) console.log('rate-limit.test.ts: REDIS_URL is not set; skipping the Redis-backed rate-limit tests');

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
    // the first attempt leaves the window 15 minutes after it was made
    expect(blocked.body.retry_after).toBeLessThanOrEqual(15 * 60);
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
    // the first request leaves the window a minute after it was made
    expect(blocked.body.retry_after).toBeLessThanOrEqual(60);
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


const MINUTE = 60_000;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const count = (answers: ApiResponse[], status: number) => answers.filter((r) => r.status === status).length;
const remainingOf = (answers: ApiResponse[]) => answers.filter((r) => r.status === 200).map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((x, y) => x - y);
const retryAftersOf = (answers: ApiResponse[]) => [...new Set(answers.filter((r) => r.status === 429).map((r) => r.body.retry_after))];

describe('a rolling one-minute window, exactly (README "Rate limits")', () => {
  // The limiter reads the service's clock. This one stands still until the test moves it: "60 s later"
  // needs no waiting, and every request of a burst is made at the same instant. It starts a day back
  // (the service's clock must not run ahead of the database's) on a whole hour.
  const clock = new ManualClock(Math.floor((Date.now() - 24 * 3_600_000) / 3_600_000) * 3_600_000);
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({}, undefined, clock);
  });
  afterAll(async () => {
    await server?.close();
  });

  /** Moves the clock to `offsetMs` past a whole minute at least 16 minutes on: every per-IP log (15 minutes for logins) is empty again. */
  function freshStart(offsetMs: number): number {
    const t0 = Math.ceil(clock.now().getTime() / MINUTE) * MINUTE + 16 * MINUTE + offsetMs;
    clock.set(t0);
    return t0;
  }
  /** `n` requests of the account at once. */
  const meAtOnce = (key: string, n: number) => Promise.all(range(n).map(() => server.call('GET', '/v1/account/me', { key })));

  it('admits exactly 500 of 520 concurrent requests of a fresh account, at one instant and across the turn of a minute', async () => {
    const one = await server.newAccount();
    freshStart(30_000);
    const once = await meAtOnce(one.key, 520);
    expect(count(once, 200)).toBe(500);
    expect(count(once, 429)).toBe(20);
    // each admitted request was told what was left after it: every number from 499 down to 0, once
    expect(remainingOf(once)).toEqual(range(500));
    for (const r of once.filter((x) => x.status === 429)) expect429(r, 500, '1 minute');
    expect(retryAftersOf(once)).toEqual([60]);

    // the same split across the turn of a minute, the edge of the windows a window-counting limiter
    // keeps: there, 504 of these got through
    const two = await server.newAccount();
    clock.set(Math.ceil(clock.now().getTime() / MINUTE) * MINUTE - 1_000);
    const before = await meAtOnce(two.key, 260);
    clock.advance(2_000);
    const after = await meAtOnce(two.key, 260);
    expect(before.map((r) => r.status)).toEqual(Array(260).fill(200));
    expect(count(after, 200)).toBe(240);
    expect(count(after, 429)).toBe(20);
    // the 260 of 2 s ago leave the window 58 s from now
    expect(retryAftersOf(after)).toEqual([58]);
  }, 120_000);

  it('after a burst of refused calls admits nothing until the oldest admitted request has been in the window 60 s; Retry-After says when, to the second', async () => {
    const acct = await server.newAccount();
    // half way through a minute: the minute turns while the account waits
    const t0 = freshStart(30_000);
    const first = await meAtOnce(acct.key, 250);
    clock.set(t0 + 10_500);
    const second = await meAtOnce(acct.key, 270);
    expect(first.map((r) => r.status)).toEqual(Array(250).fill(200));
    expect(count(second, 200)).toBe(250);
    // the first 250 leave at t0 + 60 s, 49.5 s from now
    expect(retryAftersOf(second)).toEqual([50]);

    // a burst of refused calls: none counts, so each is told the same
    clock.set(t0 + 16_500);
    const refused = await meAtOnce(acct.key, 100);
    expect(count(refused, 429)).toBe(100);
    expect(retryAftersOf(refused)).toEqual([44]);
    // refused past the turn of the minute, and to the last millisecond before the first 250 are 60 s old
    for (const [at, wait] of [
      [30_500, 30],
      [45_000, 15],
      [59_999, 1],
    ]) {
      clock.set(t0 + at);
      const r = await server.call('GET', '/v1/account/me', { key: acct.key });
      expect(r.status, `${at} ms after the first request`).toBe(429);
      expect429(r, 500, '1 minute');
      expect(r.body.retry_after, `${at} ms after the first request`).toBe(wait);
      expect(r.headers.get('ratelimit-reset')).toBe(String(wait));
    }

    // the first 250 leave: 250 places, no more; the second 250 leave at t0 + 70.5 s
    clock.set(t0 + 60_000);
    const freed = await meAtOnce(acct.key, 260);
    expect(count(freed, 200)).toBe(250);
    expect(retryAftersOf(freed)).toEqual([11]);
    // a second less than it said is not enough; the instant the oldest leaves is
    clock.set(t0 + 70_000);
    expect((await server.call('GET', '/v1/account/me', { key: acct.key })).status).toBe(429);
    clock.set(t0 + 70_500);
    const back = await server.call('GET', '/v1/account/me', { key: acct.key });
    expect(back.status).toBe(200);
    expect(back.headers.get('ratelimit-remaining')).toBe('249');
    // the whole quota is back once this one, the newest, has left: a minute on
    expect(back.headers.get('ratelimit-reset')).toBe('60');
  }, 120_000);

  it('a request refused by one limit counts against none: logins refused per account or per IP leave the 120 a minute of the IP alone', async () => {
    const acct = await server.newAccount();
    freshStart(0);
    const login = (email: string) => server.call('POST', '/v1/auth/login', { body: { email, password: 'wrong' } });
    // 10 failed logins for one email; the 11th is refused by the 10 failures per 15 minutes per account
    const failures = await burst(11, 1, () => login(acct.email));
    expect(failures.map((r) => r.status)).toEqual([...Array(10).fill(401), 429]);
    expect429(failures[10], 10, '15 minutes');
    // 10 more from this IP for other emails: 20 attempts in all, then its 20 per 15 minutes refuse
    const others = await burst(10, 5, (i) => login(`nobody-${i}-${acct.email}`));
    expect(others.map((r) => r.status)).toEqual(Array(10).fill(401));
    const overIp = await burst(30, 10, (i) => login(`more-${i}-${acct.email}`));
    expect(overIp.map((r) => r.status)).toEqual(Array(30).fill(429));
    expect429(overIp[0], 20, '15 minutes');
    // the 20 admitted logins count against the IP's 120 a minute, the 31 refused ones do not
    const health = await burst(100, 10, () => server.call('GET', '/health'));
    expect(health.map((r) => r.status)).toEqual(Array(100).fill(200));
    expect429(await server.call('GET', '/health'), 120, '1 minute');
  }, 120_000);
});

describe('the in-memory log, on a clock the test moves', () => {
  const start = Date.UTC(2030, 0, 1);
  const LIMIT: Limit = { limit: 50, windowMs: MINUTE, windowText: '1 minute' };

  it('admits a request exactly when fewer than the limit were admitted in the minute before it (never more in any 60 s, never fewer); Retry-After is when the oldest leaves', async () => {
    const clock = new ManualClock(start);
    const counters = new MemoryCounters(clock);
    // a fixed pseudo-random arrival pattern: bursts at one instant, gaps up to 0.4 s, about 5 offered a second
    let seed = 20_240_607;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const admitted: number[] = [];
    let refused = 0;
    for (let i = 0; i < 3_000; i++) {
      clock.advance(next() < 0.3 ? 0 : Math.floor(next() * 400));
      const t = clock.now().getTime();
      const inWindow = admitted.filter((a) => a > t - MINUTE);
      const r = await checkLimit(counters, 'acct', LIMIT);
      expect(r.allowed, `request ${i}`).toBe(inWindow.length < LIMIT.limit);
      if (r.allowed) {
        admitted.push(t);
        expect(r.remaining).toBe(LIMIT.limit - inWindow.length - 1);
        expect(r.resetS).toBe(60);
      } else {
        refused++;
        expect(r.retryAfterS, `request ${i}`).toBe(Math.ceil((inWindow[0] + MINUTE - t) / 1000));
        expect(r.resetS).toBe(r.retryAfterS);
      }
    }
    expect(refused).toBeGreaterThan(500);
    // any 60 s holds at most 50: the 51st admitted after any one is at least a minute after it
    for (let i = 0; i + LIMIT.limit < admitted.length; i++) expect(admitted[i + LIMIT.limit] - admitted[i]).toBeGreaterThanOrEqual(MINUTE);
  });

  it('holds no refused request: hammering while blocked neither pushes the wait out nor takes memory', async () => {
    const clock = new ManualClock(start);
    const counters = new MemoryCounters(clock);
    const small: Limit = { limit: 5, windowMs: MINUTE, windowText: '1 minute' };
    for (let i = 0; i < 5; i++) expect((await checkLimit(counters, 'acct', small)).allowed).toBe(true);
    clock.advance(20_000);
    const waits = new Set<number>();
    for (let i = 0; i < 10_000; i++) waits.add((await checkLimit(counters, 'acct', small)).retryAfterS);
    expect([...waits]).toEqual([40]);
    expect(counters.holding()).toEqual({ keys: 1, requests: 5 });
  });

  it('takes an admitted request back (a login that succeeded): its place is free at once', async () => {
    const clock = new ManualClock(start);
    const counters = new MemoryCounters(clock);
    const small: Limit = { limit: 3, windowMs: MINUTE, windowText: '1 minute' };
    const a = await checkLimit(counters, 'k', small);
    expect(a.ticket).toBeDefined();
    clock.advance(1_000);
    const b = await checkLimit(counters, 'k', small);
    await checkLimit(counters, 'k', small);
    expect((await checkLimit(counters, 'k', small)).allowed).toBe(false);
    await counters.takeBack('k', b.ticket!);
    expect((await checkLimit(counters, 'k', small)).allowed).toBe(true);
    // the oldest, a, still decides when the next place is free
    const over = await checkLimit(counters, 'k', small);
    expect(over.allowed).toBe(false);
    expect(over.retryAfterS).toBe(59);
  });

  it('forgets a key once its requests have left the window: what it holds follows the requests of the last window', async () => {
    const clock = new ManualClock(start);
    const counters = new MemoryCounters(clock);
    const login: Limit = { limit: 20, windowMs: 15 * MINUTE, windowText: '15 minutes' };
    for (let i = 0; i < 1_000; i++) await checkLimit(counters, `ip-${i}`, LIMIT);
    await checkLimit(counters, 'login', login);
    expect(counters.holding()).toEqual({ keys: 1_001, requests: 1_001 });
    clock.advance(MINUTE + 1);
    await checkLimit(counters, 'another', LIMIT);
    // the minute's keys are gone; the login attempt stays for its 15 minutes
    expect(counters.holding()).toEqual({ keys: 2, requests: 2 });
    clock.advance(15 * MINUTE);
    await checkLimit(counters, 'last', LIMIT);
    expect(counters.holding()).toEqual({ keys: 1, requests: 1 });
  });
});

describe.skipIf(!REDIS_URL)('the Redis-backed log (REDIS_URL)', () => {
  it('admits up to the limit per key, records no refused request, takes one back, and lets an idle key expire', async () => {
    const { Redis } = await import('ioredis');
    const redis = new Redis(REDIS_URL!);
    const counters = new RedisCounters(new Redis(REDIS_URL!));
    try {
      const key = `test:${randomBytes(8).toString('hex')}`;
      const small: Limit = { limit: 3, windowMs: MINUTE, windowText: '1 minute' };
      const admitted = await burst(3, 1, () => checkLimit(counters, key, small));
      expect(admitted.map((r) => [r.allowed, r.remaining])).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
      ]);
      const refused = await burst(100, 100, () => checkLimit(counters, key, small));
      expect(refused.every((r) => !r.allowed)).toBe(true);
      for (const r of refused) expect([59, 60]).toContain(r.retryAfterS);
      // the log holds the three admitted only, and goes away a window after its newest
      expect(await redis.zcard(`engage:rlog:${key}`)).toBe(3);
      const ttl = await redis.pttl(`engage:rlog:${key}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(MINUTE);
      // another key has its own
      expect((await checkLimit(counters, `${key}:other`, small)).allowed).toBe(true);
      await counters.takeBack(key, admitted[1].ticket!);
      expect(await redis.zcard(`engage:rlog:${key}`)).toBe(2);
      expect((await checkLimit(counters, key, small)).allowed).toBe(true);
      expect((await checkLimit(counters, key, small)).allowed).toBe(false);
    } finally {
      await counters.close();
      await redis.quit();
    }
  });

  it('admits nothing until the oldest admitted request has been in the window its full length; waiting Retry-After is enough', async () => {
    const { Redis } = await import('ioredis');
    const counters = new RedisCounters(new Redis(REDIS_URL!));
    try {
      const key = `test:${randomBytes(8).toString('hex')}`;
      const short: Limit = { limit: 3, windowMs: 2_000, windowText: '2 seconds' };
      const firstAt = Date.now();
      expect((await checkLimit(counters, key, short)).allowed).toBe(true);
      await sleep(700);
      for (let i = 0; i < 2; i++) expect((await checkLimit(counters, key, short)).allowed).toBe(true);
      // hammered until admitted: not before the first is 2 s old (measured here, after the answer)
      const hammered = await until(
        () => checkLimit(counters, key, short),
        (r) => r.allowed,
        10_000,
        10,
      );
      expect(hammered.allowed).toBe(true);
      expect(Date.now() - firstAt).toBeGreaterThanOrEqual(2_000);
      // now full again: the second and third leave 0.7 s after the first did
      const refused = await checkLimit(counters, key, short);
      expect(refused.allowed).toBe(false);
      expect(refused.retryAfterS).toBe(1);
      await sleep(refused.retryAfterS * 1000);
      expect((await checkLimit(counters, key, short)).allowed).toBe(true);
    } finally {
      await counters.close();
    }
  }, 30_000);

  it('two servers sharing REDIS_URL admit exactly 500 of 520 concurrent requests of an account, across the turn of a minute too', async () => {
    const one = await startTestServer({ REDIS_URL: REDIS_URL! });
    const two = await startTestServer({ REDIS_URL: REDIS_URL! }, one.databaseUrl);
    try {
      const acct = await one.newAccount();
      const other = await two.newAccount();
      // half on each server, at once; the minute turns between the halves
      const half = () => Promise.all(range(260).map((i) => (i % 2 ? one : two).call('GET', '/v1/account/me', { key: acct.key })));
      const [before, after] = await acrossTheTurnOfAMinute(half, half);
      expect(before.map((r) => r.status)).toEqual(Array(260).fill(200));
      expect(count(after, 200)).toBe(240);
      expect(count(after, 429)).toBe(20);
      for (const r of after.filter((x) => x.status === 429)) expect429(r, 500, '1 minute');
      expect(remainingOf([...before, ...after])).toEqual(range(500));
      // another account on the same Redis is unaffected
      expect((await one.call('GET', '/v1/account/me', { key: other.key })).status).toBe(200);
    } finally {
      await two.close();
      await one.close();
    }
  }, 240_000);
});
