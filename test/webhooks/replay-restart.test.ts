// A replay survives a crash: `engage serve` (the real CLI) is SIGKILLed while a replay is under way;
// a new process on the same database resumes it from its stored cursor. No delivery is lost or
// added twice: one delivery row per event (the rows and the cursor are written in one transaction),
// each event reaches the receiver, a second time only if the dead process had sent it without
// recording the answer (an attempt in flight, or an answer still in the batch of outcomes being
// written: the receiver's slot is free once it answers, so there can be more of those than the
// per-host concurrency), and never twice from the new process.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migratedDatabase } from '../support/harness.ts';
import { requestJson } from '../support/http.ts';
import { type EngageProcess, killAllEngageProcesses, printedApiKey, startEngage, TEST_APPLICATION_NAME, untilOtherSessionsEnd } from '../support/processes.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';
import { eventually, sleep } from '../support/waits.ts';

const PER_HOST = 4;
// An attempt that times out is failed and sent again (at least once): the receiver has the first
// copy already. At a 1 s timeout a stall of this test process (the receiver) on two busy cores did
// that to the attempts in flight at once, PER_HOST events sent twice by the new process, seen four
// times in CI at leases from 3 to 20 s: the timeout, not the lease, was what the machine's load
// reached. 10 s is beyond any stall seen; the lease is then the sender's least (3 × the timeout),
// which the attempts in flight at the kill wait out before the new process sends them again.
const ENV = {
  RATE_LIMITS_ENABLED: 'false',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_PER_HOST_CONCURRENCY: String(PER_HOST),
  WEBHOOK_RETRY_DELAYS: '200ms,400ms',
  WEBHOOK_TIMEOUT_MS: '10000',
  WEBHOOK_LEASE_MS: '30000',
};
const N = 300;

describe('kill -9 of engage serve mid-replay, then a restart on the same data', () => {
  let db: pg.Pool | undefined;
  let receiver: Receiver | undefined;
  afterAll(async () => {
    await killAllEngageProcesses();
    await db?.end();
    await receiver?.close();
  });

  it('resumes the replay from its cursor: every event delivered, one delivery row each', async () => {
    // answers after a moment: the replay takes long enough to be killed in the middle
    receiver = await startReceiver(async () => {
      await sleep(15);
      return 200;
    });
    const databaseUrl = await migratedDatabase();
    db = new pg.Pool({ connectionString: databaseUrl, application_name: TEST_APPLICATION_NAME, max: 2 });
    let proc: EngageProcess = await startEngage('serve', databaseUrl, ENV);
    const key = printedApiKey(proc);
    const call = (method: string, path: string, body?: unknown) => requestJson(proc.url!, method, path, { key, ...(body === undefined ? {} : { body }) });

    const from = new Date(Date.now() - 1).toISOString();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < N) {
          const i = next++;
          expect((await call('POST', '/v1/contacts', { email: `r${i}@example.com` })).status).toBe(201);
        }
      }),
    );
    const ep = (await call('POST', '/v1/webhook-endpoints', { url: receiver.url, events: ['contact.created'] })).body;
    const started = await call('POST', `/v1/webhook-endpoints/${ep.id}/replay`, { from });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const path = `/v1/webhook-endpoints/${ep.id}/replays/${started.body.id}`;

    await eventually('a part of the replay to be delivered', async () => (receiver!.hits.length >= N / 5 ? true : undefined), 60_000, 5);
    await proc.kill();
    await untilOtherSessionsEnd(db);
    const atKill = (await db.query<{ status: string; found: number }>('SELECT status, found FROM webhook_replays WHERE id = $1', [started.body.id])).rows[0]!;
    expect(atKill.status, 'the kill came after the scan had ended: make the replay longer').toBe('scanning');
    expect(atKill.found).toBeLessThan(N);
    // what the dead process sent, and what it recorded as delivered
    const hitsAtKill = receiver.hits.length;
    const sentBeforeKill = new Set(receiver.hits.map((h) => h.headers['webhook-id'] as string));
    const recordedAtKill = new Set(
      (await db.query<{ event_id: string }>("SELECT event_id FROM webhook_deliveries WHERE replay_id = $1 AND status = 'delivered'", [started.body.id])).rows.map((r) => r.event_id),
    );

    proc = await startEngage('serve', databaseUrl, ENV);
    const done = await eventually(
      'the resumed replay to complete',
      async () => {
        const r = await call('GET', path);
        return r.body.status === 'completed' ? r.body : undefined;
      },
      120_000,
      50,
    );
    expect(done).toMatchObject({ found: N, delivered: N, failed: 0, pending: 0 });
    const rows = await db.query<{ n: number; events: number }>('SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS events FROM webhook_deliveries WHERE replay_id = $1', [
      started.body.id,
    ]);
    expect(rows.rows[0]).toEqual({ n: N, events: N });
    const ids = receiver.hits.map((h) => h.headers['webhook-id'] as string);
    expect(new Set(ids).size).toBe(N);
    // each process sent each event once, and the new one none that the dead one had recorded as delivered
    const resent = ids.slice(hitsAtKill);
    expect(new Set(ids.slice(0, hitsAtKill)).size).toBe(hitsAtKill);
    // (on failure: what the new process recorded of each event it sent twice)
    const sentTwiceByNew = resent.filter((id, i) => resent.indexOf(id) !== i);
    const why = sentTwiceByNew.length
      ? JSON.stringify(
          (
            await db.query(
              `SELECT d.event_id, a.attempt, a.status_code, a.error, a.latency_ms FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
                WHERE d.replay_id = $1 AND d.event_id = ANY($2::text[]) ORDER BY d.event_id, a.attempt`,
              [started.body.id, sentTwiceByNew],
            )
          ).rows,
        )
      : '';
    expect(sentTwiceByNew, why).toEqual([]);
    expect(resent.filter((id) => recordedAtKill.has(id))).toEqual([]);
    // so an event reached the receiver twice only if the dead process sent it without recording it
    const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
    expect(twice.every((id) => sentBeforeKill.has(id) && !recordedAtKill.has(id))).toBe(true);
    expect(twice.length).toBeLessThan(N / 5);
    await proc.kill();
  }, 240_000);
});
