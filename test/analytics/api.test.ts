// GET /v1/account/analytics and /channel-deliverability over HTTP: real sends through the sandbox
// provider (delivered, failed by a report, rejected at send, bounced, complained about) and clicks
// on tracked links, on two UTC days set by the server's clock; counted per day and channel on the
// day of each event itself, zero-filled, another account seeing zeros, range validation, and a
// rebuild of the read model giving the same rows and the same answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsProjection } from '../../projections/analytics.ts';
import { addDays, dayOf } from '../../src/analytics/range.ts';
import { newId } from '../../src/ids.ts';
import { clickTrackingKey } from '../../src/tracking/clicks.ts';
import { signClickToken } from '../../src/tracking/links.ts';
import type { TestAccount } from '../support/accounts.ts';
import type { TestServer } from '../support/harness.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { until } from '../support/waits.ts';
import { noonOf, send, SettableClock, settled, startClockedServer } from './helpers.ts';

// the clock never runs ahead of the wall clock (what the database calls now): "today" is yesterday
const TODAY = addDays(dayOf(new Date()), -1);
const EARLIER = addDays(TODAY, -2);
const BETWEEN = addDays(TODAY, -1);
const LINK = 'https://shop.acme.test/sale';
const SANDBOX_SECRET = 'analytics-sandbox-secret-0123456789';
const zero = { sent: 0, delivered: 0, failed: 0, clicked: 0, unique_clicks: 0, opened: 0, unique_opens: 0, machine_opens: 0 };
const noOpens = { opened: 0, unique_opens: 0, machine_opens: 0 };

const clock = new SettableClock();
let server: TestServer;
let a: TestAccount;
let b: TestAccount;
let linked: string;

beforeAll(async () => {
  clock.set(noonOf(EARLIER));
  // the account is two days old: its link would show the interstitial page rather than redirect (off here)
  server = await startClockedServer(clock, { WEBHOOK_SECRET_SANDBOX: SANDBOX_SECRET, CLICK_INTERSTITIAL_DAYS: '0' });
  [a, b] = await Promise.all([server.newAccount('Acme'), server.newAccount('Other')]);
  // two days ago: sms delivered and failed by the carrier's report; email delivered and rejected at
  // send (failed, never sent); push failed by a report; voice delivered
  linked = await send(server, a.key, 'email', 'reader@inbox.test', { htmlmessage: `<a href="${LINK}">Sale</a>` });
  const earlier = [
    linked,
    await send(server, a.key, 'sms', '+14155550100'),
    await send(server, a.key, 'sms', '+15005550003'),
    await send(server, a.key, 'email', 'reject@sandbox.engage.test'),
    await send(server, a.key, 'push', 'sandbox-unregistered-token'),
    await send(server, a.key, 'voice', '+14155550101'),
  ];
  await settled(server, a.key, earlier);
  await server.caughtUp(['analytics']);

  // today: an email bounce and a complaint from the feedback loop, an sms delivered, and two clicks
  // on the email sent two days ago (a click counts on the day it happens)
  clock.set(noonOf(TODAY));
  const today = [await send(server, a.key, 'email', 'bounce@sandbox.engage.test'), await send(server, a.key, 'email', 'complaint@sandbox.engage.test'), await send(server, a.key, 'sms', '+14155550100')];
  const token = signClickToken(await clickTrackingKey(server.engage.pool), linked, LINK);
  for (let i = 0; i < 2; i++) expect((await fetch(`${server.url}/c/${token}`, { redirect: 'manual' })).status).toBe(302);
  await settled(server, a.key, today);
  // the provider repeats its reports, and contradicts them: a message settles once
  const [bounce, , sms] = today;
  for (const report of [{ message_id: sms, status: 'delivered' }, { message_id: sms, status: 'failed' }, { message_id: bounce, status: 'delivered' }]) {
    const res = await server.call('POST', '/v1/webhooks/sandbox', { body: report, headers: { 'x-sandbox-secret': SANDBOX_SECRET } });
    expect(res.status).toBe(200);
  }
  // the complaint's suppression follows the delivery report
  await until(
    async () => (await server.call('GET', '/v1/account/unsubscribes/api/list?reason=complaint', { key: a.key })).body.data.length,
    (n) => n === 1,
  );
  await server.caughtUp(['analytics']);
}, 180_000);
afterAll(async () => {
  await server?.close();
});

const analytics = async (key: string, query = '') => {
  const res = await server.call('GET', `/v1/account/analytics${query}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const row = (body: any, day: string, channel: string) => {
  const { day: _d, channel: _c, ...counts } = body.days.find((d: any) => d.day === day && d.channel === channel);
  return counts;
};

describe('GET /v1/account/analytics', () => {
  it('counts sent, delivered, failed and clicked per UTC day and channel, on the day each happened, zero-filled for every day × channel', async () => {
    const body = await analytics(a.key, `?from=${EARLIER}&to=${TODAY}`);
    expect(body.from).toBe(EARLIER);
    expect(body.to).toBe(TODAY);
    expect(body.channels).toEqual(['sms', 'rcs', 'whatsapp', 'voice', 'email', 'push']);
    expect(body.days).toHaveLength(3 * 6);
    expect(body.days.slice(0, 6).map((d: any) => `${d.day} ${d.channel}`)).toEqual(body.channels.map((c: string) => `${EARLIER} ${c}`));

    expect(row(body, EARLIER, 'sms')).toEqual({ ...zero, sent: 2, delivered: 1, failed: 1 });
    // the rejected email failed without being sent
    expect(row(body, EARLIER, 'email')).toEqual({ ...zero, sent: 1, delivered: 1, failed: 1 });
    expect(row(body, EARLIER, 'push')).toEqual({ ...zero, sent: 1, failed: 1 });
    expect(row(body, EARLIER, 'voice')).toEqual({ ...zero, sent: 1, delivered: 1 });
    for (const c of ['rcs', 'whatsapp']) expect(row(body, EARLIER, c)).toEqual(zero);
    for (const c of body.channels) expect(row(body, BETWEEN, c)).toEqual(zero);
    // the bounce is a failure, the complaint a delivery; both clicks (one message) are today's
    expect(row(body, TODAY, 'email')).toEqual({ sent: 2, delivered: 1, failed: 1, clicked: 2, unique_clicks: 1, ...noOpens });
    expect(row(body, TODAY, 'sms')).toEqual({ ...zero, sent: 1, delivered: 1 });

    expect(body.totals).toEqual({ sent: 8, delivered: 5, failed: 4, clicked: 2, unique_clicks: 1, ...noOpens, delivery_rate: 0.5556, click_rate: 0.2, open_rate: 0 });
  });

  it('keeps no row per message for that: each status event names its channel, a click whether it is the first (README "The write path")', async () => {
    const { rows } = await server.engage.pool.query('SELECT count(*)::int AS n FROM analytics_messages WHERE account_id = $1', [a.accountId]);
    expect(rows[0].n).toBe(0);
    const events = await server.engage.store.readStream(`message-${linked}`);
    expect(events.filter((e) => e.type !== 'MessageAccepted' && e.type !== 'MessageDispatching').map((e) => [e.type, e.data.channel, e.data.first])).toEqual([
      ['MessageSent', 'email', undefined],
      ['MessageDelivered', 'email', undefined],
      ['MessageLinkClicked', 'email', true],
      ['MessageLinkClicked', 'email', false],
    ]);
  });

  it('channel narrows to one channel; the default range is the 30 days ending today (UTC, by the service clock)', async () => {
    const email = await analytics(a.key, `?from=${EARLIER}&to=${TODAY}&channel=email`);
    expect(email.channels).toEqual(['email']);
    expect(email.days.map((d: any) => d.day)).toEqual([EARLIER, BETWEEN, TODAY]);
    expect(email.totals).toEqual({ sent: 3, delivered: 2, failed: 2, clicked: 2, unique_clicks: 1, ...noOpens, delivery_rate: 0.5, click_rate: 0.5, open_rate: 0 });

    const standard = await analytics(a.key);
    expect(standard.from).toBe(addDays(TODAY, -29));
    expect(standard.to).toBe(TODAY);
    expect(standard.days).toHaveLength(30 * 6);
    expect(standard.totals.sent).toBe(8);
    // a range that ends before anything happened
    const before = await analytics(a.key, `?to=${addDays(EARLIER, -1)}`);
    expect(before.totals).toEqual({ ...zero, delivery_rate: null, click_rate: null, open_rate: null });
  });

  it('another account sees zeros over the same range; a dashboard session reads it too', async () => {
    const other = await analytics(b.key, `?from=${EARLIER}&to=${TODAY}`);
    expect(other.days).toHaveLength(18);
    expect(other.days.every((d: any) => d.sent + d.delivered + d.failed + d.clicked === 0)).toBe(true);
    expect(other.totals).toEqual({ ...zero, delivery_rate: null, click_rate: null, open_rate: null });

    const login = await server.call('POST', '/v1/auth/login', { body: { email: a.email, password: a.password } });
    const res = await server.call('GET', `/v1/account/analytics?from=${EARLIER}&to=${TODAY}`, { token: login.body.token });
    expect(res.status).toBe(200);
    expect(res.body.totals.sent).toBe(8);
    expect((await server.call('GET', '/v1/account/analytics')).status).toBe(401);
  });

  it('needs the read scope', async () => {
    const issued = await server.call('POST', '/v1/account/api-keys', { key: a.key, body: { scopes: ['write'] } });
    expect(issued.status).toBe(201);
    const res = await server.call('GET', '/v1/account/analytics', { key: issued.body.key });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'read' });
  });

  it('a bad date, from after to, more than 366 days, an unknown channel or parameter: 400 naming the field', async () => {
    const cases: [string, string][] = [
      ['?from=2026-02-30', 'from'],
      ['?to=yesterday', 'to'],
      [`?from=${TODAY}&to=${EARLIER}`, 'from'],
      ['?from=2024-01-01&to=2025-01-01', 'to'],
      ['?channel=fax', 'channel'],
    ];
    for (const [query, field] of cases) {
      const res = await server.call('GET', `/v1/account/analytics${query}`, { key: a.key });
      expect(res.status, query).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(res.body.issues.map((i: { path: string }) => i.path), query).toEqual([field]);
    }
    expect((await server.call('GET', '/v1/account/analytics?day=2026-01-01', { key: a.key })).status).toBe(400);
    // exactly 366 days is allowed
    expect((await server.call('GET', '/v1/account/analytics?from=2024-01-01&to=2024-12-31', { key: a.key })).status).toBe(200);
  });
});

describe('a log that repeats an outcome', () => {
  it('counts a message sent, delivered or failed once: the first outcome stands (delivered and failed are both final), in a log written before status events named their channel', async () => {
    const c = await server.newAccount('Repeats');
    const id = newId('message');
    const at = clock.now().toISOString();
    const base = { id, account_id: c.accountId };
    await server.engage.store.append(`message-${id}`, [
      // schema version 1: accepted before its status events carried StatusFacts (the read model keeps a row for it)
      { type: 'MessageAccepted', data: { ...base, channel: 'whatsapp', to: '+14155550100', message: 'Hi', transactional: true, status: 'queued', created_at: at }, metadata: { schemaVersion: 1 } },
      { type: 'MessageSent', data: { ...base, at, provider: 'sandbox', provider_message_id: 'p1' } },
      { type: 'MessageSent', data: { ...base, at, provider: 'sandbox', provider_message_id: 'p1' } },
      { type: 'MessageDelivered', data: { ...base, at } },
      { type: 'MessageDelivered', data: { ...base, at } },
      { type: 'MessageFailed', data: { ...base, at, reason: 'late', stage: 'report' } },
    ]);
    await server.caughtUp(['analytics']);
    const body = await analytics(c.key, `?from=${TODAY}&to=${TODAY}&channel=whatsapp`);
    expect(body.days).toEqual([{ day: TODAY, channel: 'whatsapp', ...zero, sent: 1, delivered: 1 }]);
  });
});

describe('GET /v1/account/channel-deliverability', () => {
  it('lists all six channels with 7- and 30-day delivery and failure rates over settled messages; null where nothing settled', async () => {
    const res = await server.call('GET', '/v1/account/channel-deliverability', { key: a.key });
    expect(res.status).toBe(200);
    expect(res.body.windows['7d']).toEqual({ from: addDays(TODAY, -6), to: TODAY });
    const byChannel = Object.fromEntries(res.body.channels.map((c: any) => [c.channel, c.windows]));
    expect(Object.keys(byChannel)).toEqual(['sms', 'rcs', 'whatsapp', 'voice', 'email', 'push']);
    expect(byChannel.email['7d']).toEqual({ sent: 3, delivered: 2, failed: 2, delivery_rate: 0.5, failure_rate: 0.5 });
    expect(byChannel.sms['30d']).toEqual({ sent: 3, delivered: 2, failed: 1, delivery_rate: 0.6667, failure_rate: 0.3333 });
    expect(byChannel.push['7d']).toEqual({ sent: 1, delivered: 0, failed: 1, delivery_rate: 0, failure_rate: 1 });
    expect(byChannel.rcs['30d']).toEqual({ sent: 0, delivered: 0, failed: 0, delivery_rate: null, failure_rate: null });

    const other = await server.call('GET', '/v1/account/channel-deliverability', { key: b.key });
    expect(other.body.channels.every((c: any) => c.windows['30d'].sent === 0 && c.windows['30d'].delivery_rate === null)).toBe(true);
  });

  it("the account's email deliverability shows the bounce and the complaint, with too little volume to judge", async () => {
    const res = await server.call('GET', '/v1/account/deliverability', { key: a.key });
    expect(res.status).toBe(200);
    expect(res.body.windows['7d']).toEqual({ from: addDays(TODAY, -6), to: TODAY, sent: 3, delivered: 2, bounced: 1, complaints: 1, bounce_rate: 0.333333, complaint_rate: 0.5 });
    expect(res.body.health.status).toBe('insufficient_data');
  });
});

describe('rebuilding the analytics read model', () => {
  const snapshot = async () => ({
    messages: (await server.engage.pool.query('SELECT * FROM analytics_messages ORDER BY message_id')).rows,
    daily: (await server.engage.pool.query('SELECT account_id, day::text, channel, sent, delivered, failed, bounced, complained, clicked, unique_clicks FROM analytics_daily ORDER BY account_id, day, channel')).rows,
    analytics: await analytics(a.key, `?from=${EARLIER}&to=${TODAY}`),
    channels: (await server.call('GET', '/v1/account/channel-deliverability', { key: a.key })).body,
    deliverability: (await server.call('GET', '/v1/account/deliverability', { key: a.key })).body,
  });

  it('replays the log into identical rows and answers', async () => {
    const before = await snapshot();
    expect(before.daily.length).toBeGreaterThan(0);
    await rebuildAndWait(server, analyticsProjection);
    expect(await snapshot()).toEqual(before);
  });
});
