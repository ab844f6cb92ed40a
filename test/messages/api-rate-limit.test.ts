// Rate limits of the message endpoints (README "Rate limits", the 429 body in "API conventions"): POST
// /v1/messages/bulk 100 per minute and POST /v1/messages/send 1,000 per minute, per account (not per
// credential), each group counted on its own.
import { describe, expect, it } from 'vitest';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { burst } from '../support/rate-limits.ts';

type Res = { status: number; body: any; headers: Headers };

function expect429(res: Res, limit: number) {
  expect(res.status, JSON.stringify(res.body)).toBe(429);
  expect(res.body).toEqual({ error: 'rate_limit_exceeded', message: expect.any(String), limit, window: '1 minute', retry_after: expect.any(Number) });
  expect(Number.isInteger(res.body.retry_after)).toBe(true);
  expect(res.body.retry_after).toBeGreaterThanOrEqual(1);
  // the first request leaves the window a minute after it was made
  expect(res.body.retry_after).toBeLessThanOrEqual(60);
  expect(res.headers.get('retry-after')).toBe(String(res.body.retry_after));
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
}


// nothing is dispatched: the requests are what is counted
const server = testServerForSuite({ WORKERS_ENABLED: 'false', READ_YOUR_WRITES_TIMEOUT_MS: '60000' });

describe('POST /v1/messages/bulk: 100 requests per minute per account', () => {
  it('answers the 101st bulk call within a minute with 429 and the documented body; other groups and accounts are unaffected', async () => {
    const acct = await readyAccount(server);
    const other = await readyAccount(server);
    const login = await server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: acct.password } });
    expect(login.status).toBe(200);
    const tiny = { messages: [{ to: '+14155550160', channel: 'sms', message: 'tiny' }] };

    const calls = await burst(100, 10, () => server.call('POST', '/v1/messages/bulk', { key: acct.key, body: tiny }));
    expect(calls.map((r) => r.status)).toEqual(Array(100).fill(202));
    for (const r of calls) expect(r.headers.get('ratelimit-limit')).toBe('100');
    const remaining = calls.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i));

    const blocked = await server.call('POST', '/v1/messages/bulk', { key: acct.key, body: tiny });
    expect429(blocked, 100);
    // per account, not per credential: the dashboard session of the same account is blocked too
    expect429(await server.call('POST', '/v1/messages/bulk', { token: login.body.token, body: tiny }), 100);

    // the blocked calls accepted nothing (a bulk answers before history lists its messages)
    await server.caughtUp(['messages']);
    const history = await server.call('GET', '/v1/messages/history?limit=500', { key: acct.key });
    expect(history.status).toBe(200);
    expect(history.body.data).toHaveLength(100);

    // single sends have their own budget, and another account its own
    const single = await server.call('POST', '/v1/messages/send', { key: acct.key, body: tiny.messages[0] });
    expect(single.status).toBe(202);
    expect(single.headers.get('ratelimit-limit')).toBe('1000');
    const theirs = await server.call('POST', '/v1/messages/bulk', { key: other.key, body: tiny });
    expect(theirs.status).toBe(202);
  });
});

describe('POST /v1/messages/send: 1,000 requests per minute per account', () => {
  it('answers the 1,001st send within a minute with 429 and the documented body', { timeout: 300_000 }, async () => {
    const acct = await readyAccount(server);
    const body = { to: '+14155550161', channel: 'sms', message: 'counted' };
    const calls = await burst(1000, 25, () => server.call('POST', '/v1/messages/send', { key: acct.key, body }));
    const statuses = calls.map((r) => r.status);
    expect(statuses.filter((s) => s !== 202)).toEqual([]);
    for (const r of calls) expect(r.headers.get('ratelimit-limit')).toBe('1000');

    const blocked = await server.call('POST', '/v1/messages/send', { key: acct.key, body });
    expect429(blocked, 1000);
    // bulk is a separate group and still open for this account
    const bulk = await server.call('POST', '/v1/messages/bulk', { key: acct.key, body: { messages: [body] } });
    expect(bulk.status).toBe(202);
    expect(bulk.headers.get('ratelimit-limit')).toBe('100');
  });
});
