// A delete answered by an API process while the webhook sender runs in `engage worker` (another
// process, as in `engage serve --processes N`), and the worker's outbox cannot apply the delete in
// time: the write answers at its read-your-writes timeout, and the deliveries the worker's sender
// claimed ahead (waiting there for a slot) must not go out after that answer. Only the API's
// announcement (README "Webhooks") tells that process in time.
import type { ServerResponse } from 'node:http';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/service.ts';
import { type Server, startServer } from '../../src/server.ts';
import { migratedDatabase, testConfig } from '../support/harness.ts';
import { checkedRequest } from '../support/http.ts';
import { killAllEngageProcesses, startEngage } from '../support/processes.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';
import { until } from '../support/waits.ts';

const PER_HOST = 2;

describe('an API process and `engage worker`', () => {
  let url: string;
  /** for the setup: waits for the worker's read models */
  let api: Server;
  /** for the delete: answers at once whether or not the outbox has applied it */
  let impatient: Server;
  let receiver: Receiver;
  const held: ServerResponse[] = [];
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));

  beforeAll(async () => {
    url = await migratedDatabase();
    const apiProcess = (timeout: string) =>
      startServer({ config: testConfig(url, { WEBHOOK_ALLOW_PRIVATE: 'true', READ_YOUR_WRITES_TIMEOUT_MS: timeout }), log: pino({ level: 'silent' }), runProjections: false, workers: false });
    api = await apiProcess('60000');
    impatient = await apiProcess('100');
    await startEngage('worker', url, { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_PER_HOST_CONCURRENCY: String(PER_HOST) });
    // the first 6 answered (after `open`) with a short pause, so the sender claims ahead; then held
    receiver = await startReceiver(async (_hit, res) => {
      if (receiver.hits.length <= 6) {
        await opened;
        await new Promise((r) => setTimeout(r, 20));
        return 200;
      }
      held.push(res);
      return undefined;
    });
  }, 120_000);
  afterAll(async () => {
    for (const res of held.splice(0)) res.destroy();
    await receiver?.close();
    await impatient?.close();
    await api?.close();
    await killAllEngageProcesses();
  }, 120_000);

  it('DELETE while the outbox lags: nothing more reaches the endpoint', async () => {
    const created = await createAccount(api.engage, { name: 'Apart', email: 'apart@example.com', password: 'correct horse battery' });
    expect(await api.engage.runner.waitFor(['auth'], created.position, 60_000)).toBe(true);
    const key = created.api_key;
    const ep = (await checkedRequest(api.url, 'POST', '/v1/webhook-endpoints', { key, body: { url: receiver.url, events: ['contact.created'] } })).body;
    for (let i = 0; i < 40; i++) expect((await checkedRequest(api.url, 'POST', '/v1/contacts', { key, body: { email: `apart${i}@example.com` } })).status).toBe(201);
    const db = api.engage.pool;
    await until(async () => (await db.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [ep.id])).rows[0].n, (n) => n === 40, 30_000);
    open();
    await until(() => held.length, (n) => n >= PER_HOST, 30_000);
    expect(held).toHaveLength(PER_HOST);
    const leased = async () => (await db.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND locked_until > now()', [ep.id])).rows[0].n as number;
    // some are claimed and wait in the worker's sender for a slot (at most 2 s: act at once; the
    // claim beyond the held ones may land a moment after the last held request arrives)
    expect(await until(leased, (n) => n > PER_HOST, 1_000)).toBeGreaterThan(PER_HOST);
    const blocker = await db.connect();
    try {
      // the worker's outbox cannot apply the delete while this lock is held
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE webhook_endpoints IN EXCLUSIVE MODE');
      expect((await checkedRequest(impatient.url, 'DELETE', `/v1/webhook-endpoints/${ep.id}`, { key })).status).toBe(200);
      expect((await db.query('SELECT status FROM webhook_endpoints WHERE id = $1', [ep.id])).rows).toEqual([{ status: 'active' }]);
      const hitsAtAnswer = receiver.hits.length;
      for (const res of held.splice(0)) res.writeHead(200).end();
      const leftLeased = await until(leased, (n) => n === 0, 5_000);
      await until(() => receiver.hits.length, (n) => n > hitsAtAnswer, 1_000);
      expect(receiver.hits.length).toBe(hitsAtAnswer);
      expect(leftLeased).toBe(0);
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
  }, 120_000);
});
