// Deleting or disabling an endpoint and cancelling a replay stop its deliveries once the API has
// answered (README "Webhooks", "Webhook replay"): the only requests the receiver may still get are
// those already on the wire when the answer came. Here every request on the wire is held by the
// receiver, so the count at the answer is final: the held ones are then answered, which frees the
// sender's slots, and nothing more may come — neither what the sender had claimed and kept waiting
// for a slot, nor a retry. A cancelled replay's deliveries stay cancelled, whatever the held
// attempts' receiver said.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startServer } from '../../src/server.ts';
import { type TestServer, testConfig, testServerForSuite } from '../support/harness.ts';
import { checkedRequest } from '../support/http.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';
import { until } from '../support/waits.ts';

const PER_HOST = 2;
const server = testServerForSuite({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_PER_HOST_CONCURRENCY: String(PER_HOST), WEBHOOK_RETRY_DELAYS: '100ms,100ms,100ms' });

/**
 * A receiver that answers its first `fastHits` requests — once `open()` is called, so a backlog can
 * build up first — after a short pause (so the sender claims ahead and keeps some waiting for a
 * slot), then holds every further request unanswered.
 */
async function slowingReceiver(fastHits: number) {
  const held: ServerResponse[] = [];
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const receiver = await startReceiver(async (_hit, res) => {
    if (receiver.hits.length <= fastHits) {
      await opened;
      await new Promise((r) => setTimeout(r, 20));
      return 200;
    }
    held.push(res);
    return undefined;
  });
  return { receiver, held, open };
}

const receivers: { receiver: Receiver; held: ServerResponse[] }[] = [];
afterAll(async () => {
  for (const r of receivers) for (const res of r.held.splice(0)) res.destroy();
  await Promise.all(receivers.map((r) => r.receiver.close()));
});

/** Rows of the endpoint leased right now: in flight, or claimed and waiting in the sender for a slot. */
const leased = async (endpointId: string, on: TestServer = server) =>
  (await on.engage.pool.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND locked_until > now()`, [endpointId])).rows[0].n as number;

describe('after the API has answered', () => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await server.newAccount('Revoked'));
  });

  async function contacts(n: number, tag: string) {
    for (let i = 0; i < n; i++) expect((await server.call('POST', '/v1/contacts', { key, body: { email: `${tag}${i}@example.com` } })).status).toBe(201);
  }

  /**
   * Waits until the receiver holds PER_HOST requests and the sender has more of the endpoint leased
   * than those (claimed, waiting for a slot); then `act` answers, the held requests are answered,
   * and the receiver must get nothing more.
   */
  async function expectNothingAfter(endpointId: string, r: { receiver: Receiver; held: ServerResponse[] }, act: () => Promise<void>, heldAnswer = 200) {
    await until(() => r.held.length, (n) => n >= PER_HOST, 20_000);
    expect(r.held).toHaveLength(PER_HOST);
    // some are claimed and wait in the sender (they wait there at most 2 s, so act at once)
    expect(await until(() => leased(endpointId), (n) => n > PER_HOST, 5_000)).toBeGreaterThan(PER_HOST);
    await act();
    const hitsAtAnswer = r.receiver.hits.length;
    for (const res of r.held.splice(0)) res.writeHead(heldAnswer).end();
    // every lease of the endpoint ends (recorded or handed back) — by then anything the sender still
    // meant to send has gone out; then a while more for a retry
    const leftLeased = await until(() => leased(endpointId), (n) => n === 0, 5_000);
    await until(() => r.receiver.hits.length, (n) => n > hitsAtAnswer, 1_000);
    expect(r.receiver.hits.length).toBe(hitsAtAnswer);
    // and nothing is left looking in flight (a retry would be refused as one)
    expect(leftLeased).toBe(0);
  }

  it('DELETE /v1/webhook-endpoints/:id: nothing more reaches the endpoint, and the answer waited for the outbox', async () => {
    const r = await slowingReceiver(6);
    receivers.push(r);
    const ep = (await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: r.receiver.url, events: ['contact.created'] } })).body;
    await contacts(40, 'del');
    r.open();
    await expectNothingAfter(ep.id, r, async () => {
      const t = Date.now();
      const res = await server.call('DELETE', `/v1/webhook-endpoints/${ep.id}`, { key });
      expect(res.status).toBe(200);
      // the write waited for the outbox and no longer (the tests' read-your-writes timeout is 15 s)
      expect(Date.now() - t).toBeLessThan(5_000);
      const { rows } = await server.engage.pool.query('SELECT count(*)::int AS n FROM webhook_endpoints WHERE id = $1', [ep.id]);
      expect(rows[0].n).toBe(0);
    });
    const { rows } = await server.engage.pool.query(`SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY status`, [ep.id]);
    expect(rows.find((x) => x.status === 'pending')).toBeUndefined();
  });

  it('PATCH status disabled: nothing more reaches the endpoint', async () => {
    const r = await slowingReceiver(6);
    receivers.push(r);
    const ep = (await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: r.receiver.url, events: ['contact.created'] } })).body;
    await contacts(40, 'dis');
    r.open();
    await expectNothingAfter(ep.id, r, async () => {
      const res = await server.call('PATCH', `/v1/webhook-endpoints/${ep.id}`, { key, body: { status: 'disabled' } });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('disabled');
    }, 500);
    const deliveries = (await server.call('GET', `/v1/webhook-endpoints/${ep.id}/deliveries?limit=100`, { key })).body.data as { status: string }[];
    expect(deliveries.filter((d) => d.status === 'pending')).toEqual([]);
  });

  it('a cancelled replay: nothing more is sent, and its deliveries stay cancelled though the held attempts succeed', async () => {
    const r = await slowingReceiver(6);
    receivers.push(r);
    const from = new Date(Date.now() - 1).toISOString();
    await contacts(40, 'rep');
    const ep = (await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: r.receiver.url, events: ['contact.created'] } })).body;
    const started = await server.call('POST', `/v1/webhook-endpoints/${ep.id}/replay`, { key, body: { from } });
    expect(started.status).toBe(202);
    r.open();
    const path = `/v1/webhook-endpoints/${ep.id}/replays/${started.body.id}`;
    let cancelledView: any;
    await expectNothingAfter(ep.id, r, async () => {
      const res = await server.call('POST', `${path}/cancel`, { key });
      expect(res.status).toBe(200);
      cancelledView = res.body;
    });
    expect(cancelledView).toMatchObject({ status: 'cancelled', pending: 0 });
    expect(cancelledView.delivered).toBeLessThanOrEqual(6);
    const after = (await server.call('GET', path, { key })).body;
    // the held attempts were answered 200 after the cancel: they are counted as cancelled, not delivered
    expect(after).toMatchObject({ status: 'cancelled', pending: 0, delivered: cancelledView.delivered, cancelled: cancelledView.cancelled });
    expect(r.receiver.hits).toHaveLength(6 + PER_HOST);
  });
});

describe('when the outbox lags behind the delete', () => {
  // the write answers at its read-your-writes timeout with the outbox still showing the endpoint —
  // soon, while what the sender claimed ahead still waits there (it waits at most 2 s)
  const lagging = testServerForSuite({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_PER_HOST_CONCURRENCY: String(PER_HOST), READ_YOUR_WRITES_TIMEOUT_MS: '100' });

  /** The receiver holds PER_HOST requests of the endpoint; then `del` deletes it while the outbox cannot apply that. */
  async function deleteWhileLagging(tag: string, del: (key: string, endpointId: string) => Promise<void>) {
    const { key } = await lagging.newAccount(tag);
    const r = await slowingReceiver(6);
    receivers.push(r);
    const ep = (await lagging.call('POST', '/v1/webhook-endpoints', { key, body: { url: r.receiver.url, events: ['contact.created'] } })).body;
    for (let i = 0; i < 40; i++) expect((await lagging.call('POST', '/v1/contacts', { key, body: { email: `${tag}${i}@example.com` } })).status).toBe(201);
    await lagging.caughtUp(['webhook_outbox']);
    r.open();
    await until(() => r.held.length, (n) => n >= PER_HOST, 20_000);
    expect(r.held).toHaveLength(PER_HOST);
    // some are claimed and wait in the sender for a slot
    expect(await until(() => leased(ep.id, lagging), (n) => n > PER_HOST, 5_000)).toBeGreaterThan(PER_HOST);
    // the outbox cannot apply the delete while this lock is held (its claims still read the endpoint)
    const blocker = await lagging.engage.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE webhook_endpoints IN EXCLUSIVE MODE');
      await del(key, ep.id);
      // answered without the outbox: it still has the endpoint
      expect((await lagging.engage.pool.query('SELECT status FROM webhook_endpoints WHERE id = $1', [ep.id])).rows).toEqual([{ status: 'active' }]);
      const hitsAtAnswer = r.receiver.hits.length;
      for (const res of r.held.splice(0)) res.writeHead(200).end();
      const leftLeased = await until(() => leased(ep.id, lagging), (n) => n === 0, 5_000);
      await until(() => r.receiver.hits.length, (n) => n > hitsAtAnswer, 1_000);
      expect(r.receiver.hits.length).toBe(hitsAtAnswer);
      expect(leftLeased).toBe(0);
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    // once the outbox has applied it, the endpoint is gone and nothing of it is pending
    await lagging.caughtUp(['webhook_outbox']);
    expect((await lagging.engage.pool.query('SELECT count(*)::int AS n FROM webhook_endpoints WHERE id = $1', [ep.id])).rows[0].n).toBe(0);
    expect((await lagging.engage.pool.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'`, [ep.id])).rows[0].n).toBe(0);
  }

  it('DELETE: claims read the delete from the log, so nothing more reaches the endpoint', async () => {
    await deleteWhileLagging('lag', async (key, id) => {
      expect((await lagging.call('DELETE', `/v1/webhook-endpoints/${id}`, { key })).status).toBe(200);
    });
  });

  it('DELETE through an API process beside the worker (as `serve --processes`): its announcement reaches the sender', async () => {
    // no read models and no sender of its own: the sender that claimed ahead is in the other process
    const api = await startServer({
      config: testConfig(lagging.databaseUrl, { WEBHOOK_ALLOW_PRIVATE: 'true', READ_YOUR_WRITES_TIMEOUT_MS: '100' }),
      log: pino({ level: 'silent' }),
      runProjections: false,
      workers: false,
    });
    try {
      await deleteWhileLagging('apart', async (key, id) => {
        expect((await checkedRequest(api.url, 'DELETE', `/v1/webhook-endpoints/${id}`, { key })).status).toBe(200);
      });
    } finally {
      await api.close();
    }
  });
});
