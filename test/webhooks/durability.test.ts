// Durability and isolation of the delivery engine: a restart in the middle of a backlog loses no
// delivery (at least once, same event id for duplicates), and a hanging or dead receiver does not
// hold up a healthy one.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DeliveryClient } from '../../src/webhooks/delivery.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { type Hit, type Receiver, h, startReceiver } from '../support/receivers.ts';
import { until } from '../support/waits.ts';

const BASE = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '200ms,400ms,800ms', RATE_LIMITS_ENABLED: 'false' };

async function createContacts(server: TestServer, key: string, n: number, prefix: string, parallel = 8): Promise<string[]> {
  const ids: string[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < n) {
        const i = next++;
        const res = await server.call('POST', '/v1/contacts', { key, body: { email: `${prefix}-${i}@example.com` } });
        expect(res.status).toBe(201);
        ids[i] = res.body.id;
      }
    }),
  );
  return ids;
}

async function countByStatus(databaseUrl: string, endpointId: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY status', [endpointId]);
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  } finally {
    await client.end();
  }
}

describe('durability and isolation', () => {
  const servers: TestServer[] = [];
  const receivers: Receiver[] = [];
  afterAll(async () => {
    // receivers first: their sockets close, so no attempt of a closing server hangs
    await Promise.all(receivers.map((r) => r.close()));
    for (const s of servers) await s.close().catch(() => undefined);
  });

  it('a restart mid-backlog delivers every event at least once; every delivery row ends delivered', async () => {
    const N = 300;
    // the receiver holds its answers while `open` is false: requests stay in flight (the attempt
    // timeout is far longer than the test, so a held attempt never fails on its own)
    let open = false;
    let held: { release: () => void; res: import('node:http').ServerResponse }[] = [];
    const setOpen = (v: boolean) => {
      open = v;
      if (v) for (const w of held.splice(0)) w.release();
    };
    /** ends the held requests by destroying their connections: the sender sees a connection error */
    const dropHeld = () => {
      for (const w of held.splice(0)) w.res.socket?.destroy();
    };
    const receiver = await startReceiver(async (_hit, res) => {
      while (!open) await new Promise<void>((release) => held.push({ release, res }));
      return 200;
    });
    receivers.push(receiver);
    const overrides = { ...BASE, WEBHOOK_PER_HOST_CONCURRENCY: '4', WEBHOOK_TIMEOUT_MS: '120000' };

    const first = await startTestServer(overrides);
    servers.push(first);
    const { key } = await first.newAccount();
    const ep = await first.call('POST', '/v1/webhook-endpoints', { key, body: { url: receiver.url, events: ['contact.created'] } });
    expect(ep.status).toBe(201);
    const contactIds = await createContacts(first, key, N, 'backlog');

    // let some through, then hold the answers and shut the server down with attempts in flight
    setOpen(true);
    await until(() => receiver.hits.length, (n) => n >= 40, 60_000);
    setOpen(false);
    const hitsBeforeClose = receiver.hits.length;
    // the sender is stopped at once (server.close() stops it after the messaging workers, and it
    // would go on sending meanwhile); it waits for its attempts in flight, which end when their
    // connections are cut
    let closed = false;
    const closing = Promise.all([first.workers.webhooks?.stop(), first.close()]).finally(() => (closed = true));
    while (!closed) {
      dropHeld();
      await new Promise((r) => setTimeout(r, 50));
    }
    await closing;
    servers.splice(servers.indexOf(first), 1);

    const mid = await countByStatus(first.databaseUrl, ep.body.id);
    expect(mid.pending ?? 0).toBeGreaterThan(0); // it really was stopped mid-backlog
    expect(mid.failed ?? 0).toBe(0);
    expect(receiver.hits.length).toBeLessThan(N);
    expect(hitsBeforeClose).toBeGreaterThanOrEqual(40);

    // a new process on the same database picks the backlog up
    setOpen(true);
    const second = await startTestServer(overrides, first.databaseUrl);
    servers.push(second);
    const rows = await until(
      async () => (await second.engage.pool.query('SELECT id, event_id, status, body FROM webhook_deliveries WHERE endpoint_id = $1', [ep.body.id])).rows,
      (r) => r.length === N && r.every((d) => d.status === 'delivered'),
      150_000,
    );
    expect(rows).toHaveLength(N);
    expect(rows.filter((r) => r.status !== 'delivered')).toEqual([]);
    // one row per event, and the events are exactly the contacts created
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(N);
    expect(new Set(rows.map((r) => JSON.parse(r.body).data.id))).toEqual(new Set(contactIds));

    // every event id arrived at least once; a duplicate is the same event (same id, same body)
    const byEvent = new Map<string, Hit[]>();
    for (const hit of receiver.hits) byEvent.set(h(hit, 'x-service-event-id'), [...(byEvent.get(h(hit, 'x-service-event-id')) ?? []), hit]);
    expect(new Set(byEvent.keys())).toEqual(new Set(rows.map((r) => r.event_id)));
    for (const [eventId, hits] of byEvent) {
      expect(new Set(hits.map((x) => x.body)).size, eventId).toBe(1);
      expect(hits[0].json.id).toBe(eventId);
    }
  }, 240_000); // 300 contacts and two server starts on a shared 2-core machine; no speed is asserted

  it('a hanging receiver and a dead port do not hold up healthy endpoints', async () => {
    const N = 30;
    // hangs until the test ends (far beyond the attempt timeout below), then its sockets are destroyed
    const hanging = await startReceiver(() => new Promise<number>(() => undefined));
    const healthyA = await startReceiver();
    const healthyB = await startReceiver();
    const gone = await startReceiver();
    const deadUrl = gone.url;
    await gone.close(); // nothing listens on this port any more
    receivers.push(hanging, healthyA, healthyB);

    const server = await startTestServer({ ...BASE, WEBHOOK_CONCURRENCY: '8', WEBHOOK_PER_HOST_CONCURRENCY: '4', WEBHOOK_TIMEOUT_MS: '600000' });
    servers.push(server);
    const a = await server.newAccount('A');
    const b = await server.newAccount('B');
    const mk = async (key: string, url: string) => (await server.call('POST', '/v1/webhook-endpoints', { key, body: { url, events: ['contact.created'] } })).body.id as string;
    const hangingId = await mk(a.key, hanging.url);
    const deadId = await mk(a.key, deadUrl);
    const healthyAId = await mk(a.key, healthyA.url);
    const healthyBId = await mk(b.key, healthyB.url);

    await Promise.all([createContacts(server, a.key, N, 'iso-a', 4), createContacts(server, b.key, N, 'iso-b', 4)]);
    const status = async () =>
      (
        await server.engage.pool.query(
          `SELECT endpoint_id, status, attempts, locked_until > now() AS in_flight FROM webhook_deliveries WHERE endpoint_id = ANY($1)`,
          [[hangingId, deadId, healthyAId, healthyBId]],
        )
      ).rows;
    const snapshot = await until(
      status,
      (rows) => [healthyAId, healthyBId].every((id) => rows.filter((r) => r.endpoint_id === id && r.status === 'delivered').length === N),
      100_000,
    );
    const of = (id: string) => snapshot.filter((r) => r.endpoint_id === id);
    expect(of(healthyAId).map((r) => r.status)).toEqual(Array(N).fill('delivered'));
    expect(of(healthyBId).map((r) => r.status)).toEqual(Array(N).fill('delivered'));
    expect(healthyA.hits).toHaveLength(N);
    expect(healthyB.hits).toHaveLength(N);
    // …while the hanging receiver has not finished a single attempt: its deliveries are all still
    // pending, at most the per-host share of them in flight, the rest waiting their turn
    const stuck = of(hangingId);
    expect(stuck).toHaveLength(N);
    expect(stuck.every((r) => r.status === 'pending' && r.attempts === 0)).toBe(true);
    expect(stuck.filter((r) => r.in_flight).length).toBeLessThanOrEqual(4);
    expect(hanging.hits.length).toBeLessThanOrEqual(4);
    // the dead port was tried, and failed (or is failing) on its own schedule
    const dead = of(deadId);
    expect(dead).toHaveLength(N);
    expect(dead.every((r) => r.status !== 'delivered')).toBe(true);

    // hung attempts end when the receiver goes away
    await hanging.close();
    await until(status, (rows) => rows.filter((r) => r.endpoint_id === hangingId).every((r) => !r.in_flight), 30_000);
  }, 180_000);

  it('an attempt that outlasts the timeout is aborted and recorded as a timeout', async () => {
    const sleepy = await startReceiver(() => new Promise<number>((r) => setTimeout(() => r(200), 10_000)));
    receivers.push(sleepy);
    const client = new DeliveryClient(300, true);
    try {
      const result = await client.post(sleepy.url, 'whsec_x', 'evt_1', 'ping', '{}', new Date());
      expect(result).toMatchObject({ ok: false, error: 'timeout after 300 ms' });
      expect(result.statusCode).toBeUndefined();
      expect(sleepy.hits).toHaveLength(1); // it was sent, and abandoned
    } finally {
      await client.close();
      await sleepy.close();
    }
  });
});
