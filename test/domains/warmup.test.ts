// Email-domain warm-up (its actions' rules are decider specs in test/commands/email-domain.test.ts):
// the 21-day ramp of README "Email domains" (50 a day, roughly doubling every 2-3 days, no cap from day 22; paused days do not
// count), and the dispatcher holding a domain's marketing email over the day's cap until the next
// UTC day while transactional mail and other domains go through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WarmupState } from '../../commands/email-domain.ts';
import { WARMUP_RAMP, nextUtcMidnight, warmupToday } from '../../src/domains/warmup.ts';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { messagesById } from '../support/messages.ts';
import { until } from '../support/waits.ts';

const day = (n: number, h = 12) => new Date(Date.UTC(2026, 2, n, h)).toISOString();
const running = (over: Partial<WarmupState>): WarmupState => ({ status: 'active', started_at: day(1, 18), paused_at: null, paused_days: 0, ...over });

describe('the ramp', () => {
  it('starts at 50, roughly doubles every 2-3 days for 21 days, and has no cap from day 22', () => {
    expect(WARMUP_RAMP).toHaveLength(21);
    expect(WARMUP_RAMP[0]).toBe(50);
    for (let i = 1; i < WARMUP_RAMP.length; i++) expect([1, 2]).toContain(WARMUP_RAMP[i] / WARMUP_RAMP[i - 1]);
    // every cap holds for two or three days
    const runs = WARMUP_RAMP.reduce<number[]>((r, cap, i) => (i > 0 && cap === WARMUP_RAMP[i - 1] ? [...r.slice(0, -1), r[r.length - 1] + 1] : [...r, 1]), []);
    expect(runs.every((n) => n === 2 || n === 3)).toBe(true);
    expect(warmupToday(running({}), new Date(day(1, 23)))).toEqual({ day: 1, cap: 50 });
    expect(warmupToday(running({}), new Date(day(2, 0)))).toEqual({ day: 2, cap: 50 });
    expect(warmupToday(running({}), new Date(day(21)))).toEqual({ day: 21, cap: 12_800 });
    expect(warmupToday(running({}), new Date(day(22)))).toEqual({ day: 22, cap: null });
  });

  it('holds the day while paused, and whole paused days do not count once resumed', () => {
    const paused = running({ status: 'paused', paused_at: day(3) });
    expect(warmupToday(paused, new Date(day(9)))).toEqual({ day: 3, cap: 100 });
    // paused on the 3rd, resumed on the 8th: five days do not count
    expect(warmupToday(running({ paused_days: 5 }), new Date(day(8)))).toEqual({ day: 3, cap: 100 });
    expect(warmupToday(running({ status: 'stopped' }), new Date(day(5)))).toEqual({ day: null, cap: null });
    expect(nextUtcMidnight(new Date(day(4, 23)))).toEqual(new Date(day(5, 0)));
  });
});

describe('the daily cap at send', () => {
  let dns: TestDnsServer;
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    dns = await startDnsServer();
    server = await startTestServer({ DNS_SERVERS: dns.address, EMAIL_SPF_INCLUDE: 'spf.sender.test', QUIET_HOURS: 'off', SANDBOX_DELIVERY_DELAY_MS: '0' });
    ({ key } = await server.newAccount());
  });
  afterAll(async () => {
    await server?.close();
    await dns?.close();
  });

  it("holds marketing email over day 1's cap of 50 until the next UTC day; transactional mail and other domains go through", async () => {
    const added = await server.call('POST', '/v1/account/email-domains', { key, body: { domain: 'warm.acme.test' } });
    for (const r of added.body.records) {
      if (r.type === 'TXT') dns.set(r.name, 'TXT', [r.value]);
    }
    expect((await server.call('POST', `/v1/account/email-domains/${added.body.id}/verify`, { key })).body.status).toBe('verified');
    const started = await server.call('POST', `/v1/account/email-domains/${added.body.id}/warmup`, { key, body: { action: 'start' } });
    expect(started.status).toBe(200);
    expect(started.body.warmup).toMatchObject({ status: 'active', day: 1, cap_today: 50, sent_today: 0 });
    expect((await server.call('POST', `/v1/account/email-domains/${added.body.id}/warmup`, { key, body: { action: 'start' } })).status).toBe(409);

    const marketing = Array.from({ length: 53 }, (_, i) => ({ channel: 'email', to: `reader${i}@inbox.test`, sender: 'news@warm.acme.test', subject: 'Sale', message: 'Sale today' }));
    const others = [
      { channel: 'email', to: 'receipt@inbox.test', sender: 'news@warm.acme.test', subject: 'Receipt', message: 'Thanks', transactional: true },
      { channel: 'email', to: 'reader0@inbox.test', subject: 'From the default domain', message: 'x' },
    ];
    const bulk = await server.call('POST', '/v1/messages/bulk', { key, body: { messages: [...marketing, ...others] } });
    expect(bulk.body).toMatchObject({ accepted: 55, failed: 0 });
    const ids = bulk.body.results.map((r: { id: string }) => r.id) as string[];
    const settled = await until(
      async () => (await messagesById(server, key, ids)).map((m) => m ?? {}),
      (all) => all.filter((m) => m.status === 'sent' || m.status === 'delivered').length === 52 && all.filter((m) => m.reason === 'warmup_cap').length === 3,
      60_000,
      500,
    );
    const held = settled.filter((m) => m.reason === 'warmup_cap');
    expect(held.every((m) => m.status === 'queued' && m.channel === 'email')).toBe(true);
    // the last three accepted wait, in order, for the next UTC day
    expect(held.map((m) => m.id)).toEqual(ids.slice(50, 53));
    const { rows } = await server.engage.pool.query<{ not_before: Date }>('SELECT not_before FROM messages WHERE id = ANY($1)', [held.map((m) => m.id)]);
    expect(rows.map((r) => r.not_before.toISOString())).toEqual(Array(3).fill(nextUtcMidnight(new Date()).toISOString()));
    expect(settled.slice(53).every((m) => m.status === 'sent' || m.status === 'delivered')).toBe(true);
    const view = (await server.call('GET', `/v1/account/email-domains/${added.body.id}`, { key })).body;
    expect(view.warmup).toMatchObject({ day: 1, cap_today: 50, sent_today: 50 });

    // stopping warm-up lifts the cap: the next marketing email goes out today
    await server.call('POST', `/v1/account/email-domains/${added.body.id}/warmup`, { key, body: { action: 'stop' } });
    const after = await server.call('POST', '/v1/messages/send', { key, body: { ...marketing[0], to: 'later@inbox.test' } });
    await until(async () => (await server.call('GET', `/v1/messages/${after.body.id}`, { key })).body, (m) => m.status === 'sent' || m.status === 'delivered', 30_000, 250);
  });
});
