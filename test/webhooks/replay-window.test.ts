// A replay's share of the delivery queue and its cancellation: it keeps at most its window (8 ×
// WEBHOOK_PER_HOST_CONCURRENCY) of deliveries pending, so a receiver that does not answer holds up
// only the replay — live deliveries to other endpoints go on — and a cancel ends it: what it had not
// delivered is cancelled, nothing more is added or sent.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAY_WINDOW_PER_HOST_CAP } from '../../src/workers/webhook-replayer.ts';
import { testServerForSuite } from '../support/harness.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';
import { until } from '../support/waits.ts';

const PER_HOST = 2;
const WINDOW = REPLAY_WINDOW_PER_HOST_CAP * PER_HOST;
const server = testServerForSuite({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_PER_HOST_CONCURRENCY: String(PER_HOST), WEBHOOK_RETRY_DELAYS: '200ms,400ms' });
let slow: Receiver;
let other: Receiver;
/** the slow receiver's requests, held unanswered until the test ends them */
const held: ServerResponse[] = [];

beforeAll(async () => {
  slow = await startReceiver((_hit, res) => {
    held.push(res);
    return undefined;
  });
  other = await startReceiver();
});
afterAll(async () => {
  for (const res of held.splice(0)) res.destroy();
  await Promise.all([slow, other].map((r) => r?.close()));
});

describe("a replay's window", () => {
  it('never has more than its window pending; live deliveries to another endpoint are not held up; a cancel cancels what is left', async () => {
    const { key } = await server.newAccount('Windowed');
    const from = new Date(Date.now() - 1).toISOString();
    const contacts: string[] = [];
    for (let i = 0; i < WINDOW + 10; i++) contacts.push((await server.call('POST', '/v1/contacts', { key, body: { email: `w${i}@example.com` } })).body.id);
    const slowEp = (await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: slow.url, events: ['contact.created'] } })).body;
    const started = await server.call('POST', `/v1/webhook-endpoints/${slowEp.id}/replay`, { key, body: { from } });
    expect(started.status).toBe(202);
    const path = `/v1/webhook-endpoints/${slowEp.id}/replays/${started.body.id}`;

    // the receiver holds PER_HOST attempts; the replay has filled its window and stops there
    await until(() => held.length, (n) => n >= PER_HOST);
    const stuck = await until(() => server.call('GET', path, { key }), (r) => r.body.found >= WINDOW, 10_000);
    expect(stuck.body).toMatchObject({ status: 'scanning', found: WINDOW, pending: WINDOW, delivered: 0 });
    const { rows } = await server.engage.pool.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE replay_id = $1`, [started.body.id]);
    expect(rows[0].n).toBe(WINDOW);

    // meanwhile a live event reaches another endpoint at once (one the held endpoint does not subscribe to)
    expect((await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: other.url, events: ['contact.updated'] } })).status).toBe(201);
    const t = Date.now();
    expect((await server.call('PATCH', `/v1/contacts/${contacts[0]}`, { key, body: { first_name: 'Fresh' } })).status).toBe(200);
    const [hit] = await until(() => other.hits.filter((x) => x.json?.data?.id === contacts[0]), (l) => l.length === 1, 10_000);
    expect(hit.at - t).toBeLessThan(5_000);

    const cancelled = await server.call('POST', `${path}/cancel`, { key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', found: WINDOW, pending: 0, cancelled: WINDOW, completed_at: expect.any(String) });
    // the attempts in flight end in failure: they stay cancelled (no retry), and nothing more is sent
    for (const res of held.splice(0)) res.writeHead(500).end();
    const hitsThen = slow.hits.length;
    await until(() => server.call('GET', path, { key }), () => false, 1_500);
    expect(slow.hits.length).toBe(hitsThen);
    expect((await server.call('GET', path, { key })).body).toMatchObject({ status: 'cancelled', found: WINDOW, pending: 0, cancelled: WINDOW, delivered: 0 });

    const again = await server.call('POST', `${path}/cancel`, { key });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'conflict', status: 'cancelled' });
  });
});
