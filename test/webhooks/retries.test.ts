// Retries (README "Webhooks"): anything but a 2xx is retried on the configured schedule,
// redirects count as failures and are not followed, the event id is stable across attempts while
// each attempt is signed afresh, a delivery that never succeeds ends `failed` after 1 + 3
// attempts, and POST …/deliveries/:id/retry sends it again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDelays } from '../../src/config.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { type Receiver, h, independentServiceSignature, startReceiver } from '../support/receivers.ts';
import { until } from '../support/waits.ts';

const DELAYS = [200, 400, 800];
/**
 * Tolerance of the retry schedule: an attempt may start no earlier than its delay after the
 * previous one ended, and at most 1 s later (the sender polls every 250 ms when idle; the rest is
 * the attempt's own latency and scheduling on a busy machine).
 */
const LATE_TOLERANCE_MS = 1000;

describe('webhook retries', () => {
  let server: TestServer;
  let key: string;
  const receivers: Receiver[] = [];
  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: DELAYS.map((d) => `${d}ms`).join(',') });
    ({ key } = await server.newAccount());
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  async function endpoint(url: string, events = ['contact.created']) {
    const res = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url, events } });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  }
  async function contact() {
    const res = await server.call('POST', '/v1/contacts', { key, body: { email: `r-${Math.random().toString(36).slice(2)}@example.com` } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }
  const deliveries = async (endpointId: string) => (await server.call('GET', `/v1/webhook-endpoints/${endpointId}/deliveries`, { key })).body.data as any[];
  const settled = (endpointId: string, n = 1) =>
    until(() => deliveries(endpointId), (d) => d.length === n && d.every((x) => x.status !== 'pending'), 30_000);
  const attemptsOf = async (deliveryId: string) =>
    (await server.engage.pool.query('SELECT * FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt', [deliveryId])).rows;
  function expectSchedule(attempts: { at: Date }[], delays: number[]) {
    const gaps = attempts.slice(1).map((a, i) => a.at.getTime() - attempts[i].at.getTime());
    expect(gaps).toHaveLength(delays.length);
    gaps.forEach((gap, i) => {
      expect(gap, `gap ${i + 1}`).toBeGreaterThanOrEqual(delays[i]);
      expect(gap, `gap ${i + 1}`).toBeLessThanOrEqual(delays[i] + LATE_TOLERANCE_MS);
    });
  }

  it('parseDelays reads ms, s, m and h', () => {
    expect(parseDelays('200ms,400ms,800ms')).toEqual([200, 400, 800]);
    expect(parseDelays('30s,5m,30m')).toEqual([30_000, 300_000, 1_800_000]);
    expect(parseDelays(' 1.5s , 1h ')).toEqual([1500, 3_600_000]);
    expect(() => parseDelays('30 seconds')).toThrow(/WEBHOOK_RETRY_DELAYS/);
    expect(() => parseDelays('-1s')).toThrow();
  });

  it('500, then a 302 (not followed), then 200: delivered on the third try, same event id, fresh signatures', async () => {
    const redirectTarget = await receiver();
    const flaky = await receiver((hit, res) => {
      const n = flaky.hits.length;
      if (n === 1) return 500;
      if (n === 2) {
        res.writeHead(302, { location: redirectTarget.url }).end();
        return undefined;
      }
      return 200;
    });
    const ep = await endpoint(flaky.url);
    await contact();
    const [d] = await settled(ep.id);
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, status_code: 200, event: 'contact.created', next_attempt_at: null, error: null });
    expect(d.delivered_at).not.toBeNull();
    expect(flaky.hits).toHaveLength(3);
    expect(redirectTarget.hits).toEqual([]); // the redirect was not followed

    const ids = flaky.hits.map((x) => h(x, 'x-service-event-id'));
    expect(new Set(ids)).toEqual(new Set([d.event_id]));
    expect(new Set(flaky.hits.map((x) => h(x, 'webhook-id')))).toEqual(new Set([d.event_id]));
    expect(new Set(flaky.hits.map((x) => x.body)).size).toBe(1); // the payload is the same every time
    const stamps = flaky.hits.map((x) => Number(h(x, 'x-service-timestamp')));
    expect(new Set(stamps).size).toBe(3);
    expect(new Set(flaky.hits.map((x) => h(x, 'x-service-signature'))).size).toBe(3);
    // signed when sent: the signing time moves on by at least the retry delay
    expect(stamps[1] - stamps[0]).toBeGreaterThanOrEqual(DELAYS[0]);
    expect(stamps[2] - stamps[1]).toBeGreaterThanOrEqual(DELAYS[1]);
    for (const hit of flaky.hits) {
      expect(h(hit, 'x-service-signature')).toBe(independentServiceSignature(ep.secret, h(hit, 'x-service-timestamp'), hit.body));
    }

    const attempts = await attemptsOf(d.id);
    expect(attempts.map((a) => a.status_code)).toEqual([500, 302, 200]);
    expect(attempts[0].error).toMatch(/500/);
    expect(attempts[1].error).toMatch(/redirect/);
    expect(attempts[2].error).toBeNull();
    expectSchedule(attempts, DELAYS.slice(0, 2));
  });

  it('a connection the receiver destroys is a failed attempt without a status code', async () => {
    const dropper = await receiver((hit, res, req) => {
      if (dropper.hits.length === 1) {
        req.socket.destroy();
        return undefined;
      }
      return 200;
    });
    const ep = await endpoint(dropper.url);
    await contact();
    const [d] = await settled(ep.id);
    expect(d).toMatchObject({ status: 'delivered', attempts: 2, status_code: 200 });
    const attempts = await attemptsOf(d.id);
    expect(attempts[0].status_code).toBeNull();
    expect(attempts[0].error).toEqual(expect.any(String));
    expect(new Set(dropper.hits.map((x) => h(x, 'x-service-event-id'))).size).toBe(1);
  });

  it('a receiver that always fails: failed after 1 + 3 attempts on schedule; POST …/retry re-sends it once it recovers', async () => {
    let healthy = false;
    const down = await receiver(() => (healthy ? 200 : 503));
    const ep = await endpoint(down.url);
    await contact();
    const [d] = await settled(ep.id);
    expect(d).toMatchObject({ status: 'failed', attempts: 4, status_code: 503, next_attempt_at: null, delivered_at: null });
    expect(d.error).toMatch(/503/);
    expect(down.hits).toHaveLength(4);
    expect((await server.call('GET', `/v1/webhook-endpoints/${ep.id}/deliveries?status=failed`, { key })).body.data.map((x: { id: string }) => x.id)).toEqual([d.id]);
    expect((await server.call('GET', `/v1/webhook-endpoints/${ep.id}/deliveries?status=delivered`, { key })).body.data).toEqual([]);
    const attempts = await attemptsOf(d.id);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
    expect(attempts.map((a) => a.status_code)).toEqual([503, 503, 503, 503]);
    expectSchedule(attempts, DELAYS);

    healthy = true;
    const retry = await server.call('POST', `/v1/webhook-endpoints/${ep.id}/deliveries/${d.id}/retry`, { key });
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ id: d.id, status: 'pending', event_id: d.event_id });
    const [after] = await settled(ep.id);
    expect(after).toMatchObject({ id: d.id, status: 'delivered', attempts: 5, status_code: 200, error: null });
    expect(down.hits).toHaveLength(5);
    expect(h(down.hits[4], 'x-service-event-id')).toBe(d.event_id);
    expect(h(down.hits[4], 'x-service-signature')).toBe(independentServiceSignature(ep.secret, h(down.hits[4], 'x-service-timestamp'), down.hits[4].body));

    // a delivered one is not sent again; unknown or foreign ids are 404
    const again = await server.call('POST', `/v1/webhook-endpoints/${ep.id}/deliveries/${d.id}/retry`, { key });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('conflict');
    expect((await server.call('POST', `/v1/webhook-endpoints/${ep.id}/deliveries/whd_nope/retry`, { key })).status).toBe(404);
    const sibling = await endpoint(down.url, ['campaign.sent']);
    expect((await server.call('POST', `/v1/webhook-endpoints/${sibling.id}/deliveries/${d.id}/retry`, { key })).status).toBe(404);
    const { key: stranger } = await server.newAccount();
    expect((await server.call('POST', `/v1/webhook-endpoints/${ep.id}/deliveries/${d.id}/retry`, { key: stranger })).status).toBe(404);
    expect(down.hits).toHaveLength(5);
  });

  /** A receiver whose first request waits for `release(status)`; later ones answer `then`. */
  async function gatedReceiver(then: number) {
    let release!: (status: number) => void;
    const gate = new Promise<number>((r) => (release = r));
    let arrived!: () => void;
    const first = new Promise<void>((r) => (arrived = r));
    const r = await receiver(async () => {
      if (r.hits.length > 1) return then;
      arrived();
      return gate;
    });
    return { r, release, first };
  }

  it('retries of an endpoint disabled meanwhile are not sent (cancelled)', async () => {
    const { r, release, first } = await gatedReceiver(200);
    const ep = await endpoint(r.url);
    await contact();
    await first; // attempt 1 is in flight
    const off = await server.call('PATCH', `/v1/webhook-endpoints/${ep.id}`, { key, body: { status: 'disabled' } });
    expect(off.body.status).toBe('disabled');
    release(500);
    // cancelled by the disable itself; the attempt in flight then is recorded, and no retry follows
    const [d] = await until(() => deliveries(ep.id), (l) => l.length === 1 && l[0].attempts === 1, 30_000);
    expect(d).toMatchObject({ status: 'cancelled', attempts: 1, status_code: 500 });
    expect(d.error).toMatch(/disabled/);
    expect(r.hits).toHaveLength(1);
    // re-enabled, a manual retry delivers it
    await server.call('PATCH', `/v1/webhook-endpoints/${ep.id}`, { key, body: { status: 'active' } });
    expect((await server.call('POST', `/v1/webhook-endpoints/${ep.id}/deliveries/${d.id}/retry`, { key })).status).toBe(202);
    const [after] = await settled(ep.id);
    expect(after.status).toBe('delivered');
    expect(r.hits).toHaveLength(2);
  });

  it('retries follow the endpoint to its new URL', async () => {
    const { r: old, release, first } = await gatedReceiver(200);
    const moved = await receiver();
    const ep = await endpoint(old.url);
    await contact();
    await first;
    const patched = await server.call('PATCH', `/v1/webhook-endpoints/${ep.id}`, { key, body: { url: moved.url } });
    expect(patched.body.url).toBe(moved.url);
    release(500);
    const [d] = await settled(ep.id);
    expect(d).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(old.hits).toHaveLength(1);
    expect(moved.hits).toHaveLength(1);
    expect(h(moved.hits[0], 'x-service-event-id')).toBe(h(old.hits[0], 'x-service-event-id'));
  });

  it('POST …/retry does not re-arm an attempt that is in flight', async () => {
    const { r, release, first } = await gatedReceiver(200);
    const ep = await endpoint(r.url);
    await contact();
    await first;
    const [d] = await deliveries(ep.id);
    const res = await server.call('POST', `/v1/webhook-endpoints/${ep.id}/deliveries/${d.id}/retry`, { key });
    expect(res.status).toBe(409);
    release(200);
    const [after] = await settled(ep.id);
    expect(after).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(r.hits).toHaveLength(1);
  });
});
