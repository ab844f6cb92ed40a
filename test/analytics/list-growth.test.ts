// GET /v1/account/list-growth over HTTP: contacts created, deleted and erased, and addresses
// unsubscribed (unsubscribe, stop) and resubscribed through the API on UTC days set by the server's
// clock; per day new, unsubscribed, resubscribed, deleted, net and the running number of contacts
// (starting from those there before the range); a manual suppression or its lifting, and the erasure
// of a contact already deleted, count for nothing; another account sees zeros; a rebuild is identical.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listGrowthProjection } from '../../projections/list-growth.ts';
import { addDays, dayOf } from '../../src/analytics/range.ts';
import type { TestAccount } from '../support/accounts.ts';
import type { TestServer } from '../support/harness.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { noonOf, SettableClock, startClockedServer } from './helpers.ts';

const TODAY = addDays(dayOf(new Date()), -1);
const EARLIER = addDays(TODAY, -2);
const BETWEEN = addDays(TODAY, -1);
const BEFORE = addDays(EARLIER, -1);

const clock = new SettableClock();
let server: TestServer;
let a: TestAccount;
let b: TestAccount;

const ok = async (method: string, path: string, key: string, body?: unknown) => {
  const res = await server.call(method, path, { key, body });
  expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
};
const contact = async (key: string, fields: Record<string, string>) => (await ok('POST', '/v1/contacts', key, fields)).id as string;

beforeAll(async () => {
  clock.set(noonOf(EARLIER));
  server = await startClockedServer(clock);
  [a, b] = await Promise.all([server.newAccount('Acme'), server.newAccount('Other')]);
  const first = await contact(a.key, { email: 'ann@acme.test' });
  const second = await contact(a.key, { phone: '+14155550111' });
  await contact(a.key, { email: 'cy@acme.test' });

  clock.set(noonOf(TODAY));
  await contact(a.key, { email: 'dee@acme.test' });
  await contact(a.key, { email: 'eve@acme.test' });
  await ok('DELETE', `/v1/contacts/${first}`, a.key);
  // an erasure removes a contact that is there; erasing one already deleted removes nothing more
  await ok('POST', `/v1/contacts/${second}/erase`, a.key);
  await ok('POST', `/v1/contacts/${first}/erase`, a.key);
  // opt-outs: an unsubscribe (later lifted) and an sms STOP count; a manual entry, and lifting it, do not
  await ok('POST', '/v1/account/unsubscribes', a.key, { email: 'cy@acme.test', reason: 'unsubscribe' });
  await ok('POST', '/v1/account/unsubscribes', a.key, { phone: '+14155550199', reason: 'stop' });
  await ok('POST', '/v1/account/unsubscribes', a.key, { email: 'manual@acme.test' });
  await ok('DELETE', `/v1/account/unsubscribes/${encodeURIComponent('cy@acme.test')}`, a.key);
  await ok('DELETE', `/v1/account/unsubscribes/${encodeURIComponent('manual@acme.test')}`, a.key);
  await server.caughtUp(['list_growth']);
}, 120_000);
afterAll(async () => {
  await server?.close();
});

const growth = async (key: string, query: string) => {
  const res = await server.call('GET', `/v1/account/list-growth${query}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const quiet = (day: string, total: number) => ({ day, new: 0, unsubscribed: 0, resubscribed: 0, deleted: 0, net: 0, total });

describe('GET /v1/account/list-growth', () => {
  it('per UTC day: new, unsubscribed, resubscribed, deleted, net = new − unsubscribed − deleted + resubscribed, and the running total of contacts', async () => {
    const body = await growth(a.key, `?from=${BEFORE}&to=${TODAY}`);
    expect(body.from).toBe(BEFORE);
    expect(body.days).toEqual([
      quiet(BEFORE, 0),
      { day: EARLIER, new: 3, unsubscribed: 0, resubscribed: 0, deleted: 0, net: 3, total: 3 },
      quiet(BETWEEN, 3),
      { day: TODAY, new: 2, unsubscribed: 2, resubscribed: 1, deleted: 2, net: -1, total: 3 },
    ]);
    expect(body.totals).toEqual({ new: 5, unsubscribed: 2, resubscribed: 1, deleted: 2, net: 2, total: 3 });
    // the running total is the number of contacts the account has
    const listed = await server.call('GET', '/v1/contacts?limit=500', { key: a.key });
    expect(listed.body.data).toHaveLength(3);
  });

  it('a range that starts later starts from the contacts there before it', async () => {
    const body = await growth(a.key, `?from=${BETWEEN}&to=${TODAY}`);
    expect(body.days.map((d: any) => [d.day, d.total])).toEqual([[BETWEEN, 3], [TODAY, 3]]);
    expect(body.totals).toEqual({ new: 2, unsubscribed: 2, resubscribed: 1, deleted: 2, net: -1, total: 3 });
    const standard = await growth(a.key, '');
    expect(standard.days).toHaveLength(30);
    expect(standard.to).toBe(TODAY);
  });

  it('another account sees zeros; bad ranges are 400s naming the field', async () => {
    const other = await growth(b.key, `?from=${BEFORE}&to=${TODAY}`);
    expect(other.days).toEqual([quiet(BEFORE, 0), quiet(EARLIER, 0), quiet(BETWEEN, 0), quiet(TODAY, 0)]);
    for (const [query, field] of [['?from=2026-13-01', 'from'], [`?from=${TODAY}&to=${BEFORE}`, 'from'], ['?from=2020-01-01&to=2022-01-01', 'to']]) {
      const res = await server.call('GET', `/v1/account/list-growth${query}`, { key: a.key });
      expect(res.status, query).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual([field]);
    }
    expect((await server.call('GET', '/v1/account/list-growth?channel=email', { key: a.key })).status).toBe(400);
  });

  it('a rebuild replays the log into identical rows and answers', async () => {
    const snapshot = async () => ({
      daily: (await server.engage.pool.query('SELECT account_id, day::text, new_contacts, deleted, unsubscribed, resubscribed FROM list_growth_daily ORDER BY account_id, day')).rows,
      contacts: (await server.engage.pool.query('SELECT * FROM list_growth_contacts ORDER BY contact_id')).rows,
      suppressions: (await server.engage.pool.query('SELECT * FROM list_growth_suppressions ORDER BY stream_id')).rows,
      growth: await growth(a.key, `?from=${BEFORE}&to=${TODAY}`),
    });
    const before = await snapshot();
    expect(before.daily.length).toBeGreaterThan(0);
    await rebuildAndWait(server, listGrowthProjection);
    expect(await snapshot()).toEqual(before);
  });
});
