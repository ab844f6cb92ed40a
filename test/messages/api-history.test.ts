// GET /v1/messages/history and GET /v1/messages/:id over HTTP (README "Messaging"; README "API
// conventions"): filters, cursor pagination without duplicates, account isolation (404 like a missing
// id), and the routing rule that history, bulk, send and send-by-tag are never read as an :id.
import { beforeAll, describe, expect, it } from 'vitest';
import { readyAccount, type TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { expectRejected } from '../support/http.ts';
import { sleep } from '../support/waits.ts';

// a loaded machine must not turn read-your-writes into a flaky read: wait for the read model as long as it takes
const SETTLE_MS = '60000';
type Account = TestAccount;
let a: Account;
let b: Account;
/** account A's messages by name, in the order they were sent */
const m: Record<string, { id: string; created_at: string }> = {};
let bIds: string[] = [];

async function send(k: string, body: Record<string, unknown>) {
  const res = await server.call('POST', '/v1/messages/send', { key: k, body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body as { id: string; created_at: string };
}

async function history(query: string, k = a.key) {
  const res = await server.call('GET', `/v1/messages/history${query ? `?${query}` : ''}`, { key: k });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(['data', 'next_cursor']);
  return res.body as { data: any[]; next_cursor: string | null };
}

const ids = (page: { data: { id: string }[] }) => page.data.map((x) => x.id);
/** names → ids, newest first (the history order) */
const newestFirst = (...names: string[]) => names.map((n) => m[n].id).sort().reverse();

// no dispatching: the statuses stay what the test made them
const server = testServerForSuite({ WORKERS_ENABLED: 'false', READ_YOUR_WRITES_TIMEOUT_MS: SETTLE_MS });
beforeAll(async () => {
  a = await readyAccount(server, 'History A');
  b = await readyAccount(server, 'History B');
  const later = new Date(Date.now() + 3600_000).toISOString();
  m.sms1 = await send(a.key, { to: '+14155550111', channel: 'sms', message: 'one' });
  m.sms2 = await send(a.key, { to: '+14155550112', channel: 'sms', message: 'two' });
  m.email = await send(a.key, { to: 'h1@example.com', channel: 'email', message: 'three', subject: 's' });
  // a clear gap, so `from`/`until` at m.wa's created_at split the set exactly
  await sleep(20);
  m.wa = await send(a.key, { to: '+14155550111', channel: 'whatsapp', message: 'four' });
  m.scheduled = await send(a.key, { to: '+14155550113', channel: 'sms', message: 'five', scheduled_at: later });
  m.push = await send(a.key, { to: 'device-token-abcdef', channel: 'push', message: 'six' });
  m.cancelled = await send(a.key, { to: '+14155550114', channel: 'sms', message: 'seven', scheduled_at: later });
  const del = await server.call('DELETE', `/v1/messages/${m.cancelled.id}`, { key: a.key });
  expect(del.status).toBe(200);
  bIds = [
    (await send(b.key, { to: '+14155550111', channel: 'sms', message: 'b one' })).id,
    (await send(b.key, { to: 'h1@example.com', channel: 'email', message: 'b two', scheduled_at: later })).id,
  ];
});

describe('GET /v1/messages/history', () => {
  it("lists the account's messages newest first, with the message fields, and none of another account's", async () => {
    const all = await history('');
    expect(ids(all)).toEqual(newestFirst('sms1', 'sms2', 'email', 'wa', 'scheduled', 'push', 'cancelled'));
    expect(all.next_cursor).toBeNull();
    for (const id of bIds) expect(ids(all)).not.toContain(id);
    const email = all.data.find((x) => x.id === m.email.id);
    expect(email).toMatchObject({ id: m.email.id, status: 'queued', channel: 'email', to: 'h1@example.com', message: 'three', subject: 's', created_at: m.email.created_at });
    const bAll = await history('', b.key);
    expect(ids(bAll).sort()).toEqual([...bIds].sort());
  });

  it('filters by status', async () => {
    expect(ids(await history('status=scheduled'))).toEqual([m.scheduled.id]);
    expect(ids(await history('status=cancelled'))).toEqual([m.cancelled.id]);
    expect(ids(await history('status=queued'))).toEqual(newestFirst('sms1', 'sms2', 'email', 'wa', 'push'));
    expect(ids(await history('status=delivered'))).toEqual([]);
    expectRejected(await server.call('GET', '/v1/messages/history?status=lost', { key: a.key }), 'status');
  });

  it('filters by channel', async () => {
    expect(ids(await history('channel=sms'))).toEqual(newestFirst('sms1', 'sms2', 'scheduled', 'cancelled'));
    expect(ids(await history('channel=email'))).toEqual([m.email.id]);
    expect(ids(await history('channel=push'))).toEqual([m.push.id]);
    expect(ids(await history('channel=voice'))).toEqual([]);
    expectRejected(await server.call('GET', '/v1/messages/history?channel=fax', { key: a.key }), 'channel');
  });

  it('filters by recipient, normalising it like a send does', async () => {
    expect(ids(await history(`to=${encodeURIComponent('+14155550111')}`))).toEqual(newestFirst('sms1', 'wa'));
    expect(ids(await history(`to=${encodeURIComponent('+1 415-555-0111')}`))).toEqual(newestFirst('sms1', 'wa'));
    expect(ids(await history(`to=${encodeURIComponent('+14155550111')}&channel=whatsapp`))).toEqual([m.wa.id]);
    expect(ids(await history(`to=${encodeURIComponent('H1@Example.com')}`))).toEqual([m.email.id]);
    expect(ids(await history('to=device-token-abcdef'))).toEqual([m.push.id]);
    expect(ids(await history(`to=${encodeURIComponent('+14155550199')}`))).toEqual([]);
  });

  it('filters by creation time: from is inclusive, until exclusive', async () => {
    const split = m.wa.created_at;
    expect(ids(await history(`from=${encodeURIComponent(split)}`))).toEqual(newestFirst('wa', 'scheduled', 'push', 'cancelled'));
    expect(ids(await history(`until=${encodeURIComponent(split)}`))).toEqual(newestFirst('sms1', 'sms2', 'email'));
    expect(ids(await history(`from=${encodeURIComponent(m.sms2.created_at)}&until=${encodeURIComponent(split)}`))).toEqual(newestFirst('sms2', 'email'));
    // an offset is honoured
    const shifted = new Date(Date.parse(split) + 2 * 3600_000).toISOString().slice(0, 23) + '+02:00';
    expect(ids(await history(`from=${encodeURIComponent(shifted)}`))).toEqual(newestFirst('wa', 'scheduled', 'push', 'cancelled'));
    expect(ids(await history(`from=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}`))).toEqual([]);
    expectRejected(await server.call('GET', '/v1/messages/history?from=yesterday', { key: a.key }), 'from');
    expectRejected(await server.call('GET', '/v1/messages/history?until=2026-02-30T00:00:00Z', { key: a.key }), 'until');
  });

  it('combines filters', async () => {
    expect(ids(await history('status=queued&channel=sms'))).toEqual(newestFirst('sms1', 'sms2'));
    expect(ids(await history(`channel=sms&from=${encodeURIComponent(m.wa.created_at)}`))).toEqual(newestFirst('scheduled', 'cancelled'));
  });

  it('rejects unknown query parameters and bad limits', async () => {
    expectRejected(await server.call('GET', '/v1/messages/history?stauts=queued', { key: a.key }), 'stauts');
    expectRejected(await server.call('GET', '/v1/messages/history?account_id=x', { key: a.key }), 'account_id');
    for (const limit of ['0', '501', 'abc', '-1', '1.5']) expectRejected(await server.call('GET', `/v1/messages/history?limit=${limit}`, { key: a.key }), 'limit');
    expectRejected(await server.call('GET', '/v1/messages/history?cursor=not-a-cursor', { key: a.key }), 'cursor');
  });

  it('pages with limit and next_cursor, without duplicates or gaps, to a null cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    for (let i = 0; i < 10; i++) {
      const page = await history(`limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      sizes.push(page.data.length);
      seen.push(...ids(page));
      cursor = page.next_cursor;
      if (!cursor) break;
      expect(typeof cursor).toBe('string');
    }
    expect(sizes).toEqual([2, 2, 2, 1]);
    expect(seen).toEqual(ids(await history('')));
    expect(new Set(seen).size).toBe(seen.length);

    // a limit equal to the number of messages leaves no further page
    expect((await history('limit=7')).next_cursor).toBeNull();
    // filters hold on every page
    const sms1 = await history('channel=sms&limit=3');
    expect(sms1.data.every((x) => x.channel === 'sms')).toBe(true);
    const sms2 = await history(`channel=sms&limit=3&cursor=${encodeURIComponent(sms1.next_cursor!)}`);
    expect([...ids(sms1), ...ids(sms2)]).toEqual(newestFirst('sms1', 'sms2', 'scheduled', 'cancelled'));
    expect(sms2.next_cursor).toBeNull();
  });

  it('does not repeat a message on the next page when new messages arrive between pages', async () => {
    const acct = await readyAccount(server);
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) sent.push((await send(acct.key, { to: '+14155550120', channel: 'sms', message: `p${i}` })).id);
    const first = await history('limit=2', acct.key);
    expect(ids(first)).toEqual([sent[4], sent[3]]);
    const newer = await send(acct.key, { to: '+14155550120', channel: 'sms', message: 'newer' });
    const rest: string[] = [];
    let cursor = first.next_cursor;
    while (cursor) {
      const page = await history(`limit=2&cursor=${encodeURIComponent(cursor)}`, acct.key);
      rest.push(...ids(page));
      cursor = page.next_cursor;
    }
    expect(rest).toEqual([sent[2], sent[1], sent[0]]);
    expect(rest).not.toContain(newer.id);
  });

  it("never shows another account's messages, even with that account's cursor", async () => {
    const bPage = await history('limit=1', b.key);
    expect(bPage.next_cursor).not.toBeNull();
    const viaA = await history(`limit=500&cursor=${encodeURIComponent(bPage.next_cursor!)}`);
    for (const id of bIds) expect(ids(viaA)).not.toContain(id);
    for (const x of viaA.data) expect(Object.values(m).map((v) => v.id)).toContain(x.id);
  });

  it('needs credentials', async () => {
    const res = await server.call('GET', '/v1/messages/history');
    expect(res.status).toBe(401);
  });
});

describe('GET /v1/messages/:id', () => {
  it('returns a message of the account', async () => {
    const res = await server.call('GET', `/v1/messages/${m.wa.id}`, { key: a.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: m.wa.id, channel: 'whatsapp', to: '+14155550111', message: 'four', status: 'queued', resend_of: null });
  });

  it("answers another account's message exactly like a missing one: 404 not_found", async () => {
    const other = await server.call('GET', `/v1/messages/${bIds[0]}`, { key: a.key });
    const missing = await server.call('GET', '/v1/messages/msg_01ARZ3NDEKTSV4RRFFQ69G5FAV', { key: a.key });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: 'not_found', message: expect.any(String) });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(other.body);
    // and the other account's own key still finds it
    expect((await server.call('GET', `/v1/messages/${bIds[0]}`, { key: b.key })).status).toBe(200);
  });

  it("answers 404 for another account's message on cancel, resend and timeline, and leaves it alone", async () => {
    const target = bIds[1]; // scheduled: cancellable by its owner
    for (const [method, path] of [
      ['DELETE', `/v1/messages/${target}`],
      ['POST', `/v1/messages/${target}/resend`],
      ['GET', `/v1/messages/${target}/timeline`],
    ] as const) {
      const res = await server.call(method, path, { key: a.key });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
    const still = await server.call('GET', `/v1/messages/${target}`, { key: b.key });
    expect(still.body.status).toBe('scheduled');
    expect(ids(await history('', a.key)).length).toBe(7);
  });

  it('answers 404 for ids that cannot exist', async () => {
    for (const id of ['nope', 'msg_', 'ct_01ARZ3NDEKTSV4RRFFQ69G5FAV', "msg_1' OR '1'='1", '%00', `msg_${'0'.repeat(80)}`]) {
      const res = await server.call('GET', `/v1/messages/${encodeURIComponent(id)}`, { key: a.key });
      expect(res.status, id).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
    const long = `msg_${'0'.repeat(80)}`;
    for (const [method, path] of [['DELETE', `/v1/messages/${long}`], ['POST', `/v1/messages/${long}/resend`], ['GET', `/v1/messages/${long}/timeline`]]) {
      const res = await server.call(method, path, { key: a.key });
      expect(res.status, method).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
  });
});

describe('routing: history, bulk, send and send-by-tag are never read as an :id', () => {
  async function unknownRoute(method: string, path: string) {
    const res = await server.call(method, path, { key: a.key });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(404);
    // the same answer as for any route that does not exist, not a failed message lookup
    expect(res.body).toEqual({ error: 'not_found', message: `no route ${method} ${path}` });
  }

  it('GET /v1/messages/history is the history, with or without a trailing slash', async () => {
    expect(ids(await history(''))).toHaveLength(7);
    const slash = await server.call('GET', '/v1/messages/history/', { key: a.key });
    expect(slash.status).toBe(200);
    expect(slash.body.data).toHaveLength(7);
  });

  it('answers a clear route-not-found 404 for the literal segments in the :id place', async () => {
    for (const seg of ['send', 'bulk', 'send-by-tag']) await unknownRoute('GET', `/v1/messages/${seg}`);
    for (const seg of ['history', 'send', 'bulk', 'send-by-tag']) {
      await unknownRoute('DELETE', `/v1/messages/${seg}`);
      await unknownRoute('POST', `/v1/messages/${seg}/resend`);
      await unknownRoute('GET', `/v1/messages/${seg}/timeline`);
    }
    await unknownRoute('POST', '/v1/messages/history');
    await unknownRoute('GET', '/v1/messages/history/extra');
    // the control: a route that does not exist at all answers the same way
    await unknownRoute('GET', '/v1/messages/send/extra');
  });
});
