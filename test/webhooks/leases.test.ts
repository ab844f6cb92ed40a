// A delivery's lease (README "Webhooks"): a sender that claimed a delivery holds it until the lease
// ends; after that another claim may take it, and then what the first sender does late — record an
// outcome, hand the delivery back, or start its attempt — must not touch the new lease (issue 26,
// item 6). The first two are settled on the outbox's own statements against the real database, at
// times the test chooses (a claim takes its `now`); the third on the running sender, whose finding
// of a signing secret is held up past its lease by a lock.
import { afterAll, describe, expect, it } from 'vitest';
import { claimDueDeliveries, type ClaimedDelivery, recordDeliveryAttempts, releaseDeliveries } from '../../projections/webhook-outbox.ts';
import { testServerForSuite } from '../support/harness.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';
import { until } from '../support/waits.ts';

const TIMEOUT_MS = 200;
const LEASE_MS = 1000;
const server = testServerForSuite({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_LEASE_MS: String(LEASE_MS) });
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

let n = 0;
/** A per-message delivery row to `url`, due at `due` (far ahead: the running sender, on today's clock, leaves it alone). */
async function deliveryRow(accountId: string, url: string, due: Date): Promise<string> {
  const id = `delivery_lease_${Date.now()}_${n++}`;
  await server.engage.pool.query(
    `INSERT INTO webhook_deliveries (id, account_id, endpoint_id, target_url, target_host, kind, event_id, event_type, body, status, attempts, next_attempt_at, created_at, updated_at, target_key)
     VALUES ($1, $2, NULL, $3, $4, 'message', $5, 'message.queued', '{}', 'pending', 0, $6, now(), now(), 'message')`,
    [id, accountId, url, new URL(url).host, `evt_${id}`, due],
  );
  return id;
}

const row = async (id: string) => (await server.engage.pool.query('SELECT status, attempts, locked_until, last_status_code FROM webhook_deliveries WHERE id = $1', [id])).rows[0];

/** A claim at `now` (ms) of the test's row, as a sender with a lease of LEASE_MS makes it. */
async function claimAt(id: string, now: number): Promise<ClaimedDelivery> {
  const rows = await claimDueDeliveries(server.engage.pool, { now: new Date(now), limit: 10, leaseUntil: new Date(now + LEASE_MS), skipHosts: [], hostRoom: new Map(), perHost: 10 });
  const mine = rows.find((r) => r.id === id);
  expect(mine, `claim at ${new Date(now).toISOString()}`).toBeDefined();
  return mine!;
}

const outcome = (claim: ClaimedDelivery, at: number, status: 'pending' | 'delivered', statusCode: number) => ({
  deliveryId: claim.id,
  lease: claim.lease,
  attempt: claim.attempts + 1,
  status,
  nextAttemptAt: new Date(at + 30_000),
  at: new Date(at),
  statusCode,
  error: status === 'delivered' ? null : `HTTP ${statusCode}`,
  latencyMs: 5,
});

describe('a lease that ran out and was claimed again', () => {
  // far ahead of today, so the running sender never claims these rows
  const T = Date.parse('2100-01-01T00:00:00Z');

  it("the first sender's late outcome does not overwrite the second's: delivered stays delivered", async () => {
    const { accountId } = await server.newAccount('Late outcome');
    const id = await deliveryRow(accountId, 'http://127.0.0.1:9/late', new Date(T));
    const first = await claimAt(id, T);
    // the first lease ends; a second sender claims it, sends it and records it delivered
    const second = await claimAt(id, T + LEASE_MS + 1);
    await recordDeliveryAttempts(server.engage.pool, [outcome(second, T + LEASE_MS + 50, 'delivered', 200)]);
    // then the first sender's attempt ends, failed: it would make it pending again (sent once more)
    await recordDeliveryAttempts(server.engage.pool, [outcome(first, T + LEASE_MS + 60, 'pending', 500)]);
    expect(await row(id)).toMatchObject({ status: 'delivered', attempts: 1, locked_until: null, last_status_code: 200 });
    const attempts = await server.engage.pool.query('SELECT status_code FROM webhook_attempts WHERE delivery_id = $1', [id]);
    expect(attempts.rows).toEqual([{ status_code: 200 }]);
  });

  it("the first sender's late hand-back does not end the second's lease", async () => {
    const { accountId } = await server.newAccount('Late release');
    const id = await deliveryRow(accountId, 'http://127.0.0.1:9/release', new Date(T));
    const first = await claimAt(id, T);
    const second = await claimAt(id, T + LEASE_MS + 1);
    await releaseDeliveries(server.engage.pool, [{ deliveryId: first.id, lease: first.lease }]);
    // still the second's: no third claim while it lasts
    expect((await row(id)).locked_until).toEqual(new Date(T + LEASE_MS + 1 + LEASE_MS));
    const third = await claimDueDeliveries(server.engage.pool, { now: new Date(T + LEASE_MS + 2), limit: 10, leaseUntil: new Date(T + 2 * LEASE_MS), skipHosts: [], hostRoom: new Map(), perHost: 10 });
    expect(third.map((r) => r.id)).not.toContain(id);
    // the second's own hand-back does end it
    await releaseDeliveries(server.engage.pool, [{ deliveryId: second.id, lease: second.lease }]);
    expect((await row(id)).locked_until).toBeNull();
  });
});

describe('an attempt held up past its lease before it starts', () => {
  it('is not made once the lease may be another claim\'s: the receiver gets the delivery once', async () => {
    // the account has no per-message signing secret yet: the sender issues it before the first
    // attempt (an append to the account's stream; later deliveries bring it with their claim)
    const { accountId } = await server.newAccount('Slow secret');
    const receiver = await startReceiver();
    receivers.push(receiver);
    const blocker = await server.engage.pool.connect();
    let id: string;
    try {
      // issuing the account's secret waits for this lock on its stream: the sender's claimed attempt is held up
      await blocker.query('BEGIN');
      expect((await blocker.query('SELECT 1 FROM es_streams WHERE stream_id = $1 FOR UPDATE', [`account-${accountId}`])).rowCount).toBe(1);
      id = await deliveryRow(accountId, receiver.url, new Date());
      const firstLease = (await until(() => row(id), (r) => r.locked_until !== null, 10_000)).locked_until as Date;
      expect(firstLease).not.toBeNull();
      // the lease runs out and the row is claimed again (that attempt is held up too)
      const again = await until(() => row(id), (r) => r.locked_until !== null && r.locked_until.getTime() !== firstLease.getTime(), 10_000);
      expect(again.locked_until.getTime()).toBeGreaterThan(firstLease.getTime());
    } finally {
      await blocker.query('COMMIT');
      blocker.release();
    }
    const done = await until(() => row(id!), (r) => r.status === 'delivered', 15_000);
    expect(done.status).toBe('delivered');
    // a second request would come at once from the held-up attempt: give it time to show
    await until(() => receiver.hits.length, (n) => n > 1, 1_000);
    expect(receiver.hits).toHaveLength(1);
  });
});
