// Whole-system crash between a bulk's answer and its messages reaching the log (README "The write
// path"): `engage serve` answers 202 once the bulk is stored in its intake, then appends its
// messages. Here the log's stream table is locked, so that append cannot finish, and the process is
// SIGKILLed. A new process on the same database takes the bulk up once its lease has run out:
// every accepted message is in the log exactly once and is delivered; the intake is gone.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migratedDatabase } from '../support/harness.ts';
import { requestJson } from '../support/http.ts';
import { killAllEngageProcesses, printedApiKey, startEngage, TEST_APPLICATION_NAME, untilOtherSessionsEnd } from '../support/processes.ts';
import { eventually } from '../support/waits.ts';

const N = 1000;
const ENV = { QUIET_HOURS: 'off', RATE_LIMITS_ENABLED: 'false', DISPATCH_LEASE_MS: '1000', SANDBOX_DELIVERY_DELAY_MS: '50' };

describe('kill -9 of engage serve after a bulk is answered, before its messages are in the log', () => {
  let db: pg.Pool | undefined;
  afterAll(async () => {
    await killAllEngageProcesses();
    await db?.end();
  });

  it('a restarted process appends every accepted message once, and each is delivered', async () => {
    const databaseUrl = await migratedDatabase();
    db = new pg.Pool({ connectionString: databaseUrl, max: 4, application_name: TEST_APPLICATION_NAME });
    const first = await startEngage('serve', databaseUrl, ENV);
    const key = printedApiKey(first);

    // no stream can be written while this lock is held (reads go on): the bulk stays in its intake
    const holder = await db.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE es_streams IN EXCLUSIVE MODE');
    const messages = Array.from({ length: N }, (_, i) => ({ to: `+1415${String(7_000_000 + i)}`, channel: 'sms', message: `intake crash ${i}`, transactional: true }));
    const res = await requestJson(first.url!, 'POST', '/v1/messages/bulk', { key, body: { messages } });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(202);
    expect(res.body.accepted).toBe(N);
    const ids: string[] = res.body.results.map((r: { id: string }) => r.id);
    expect((await db.query('SELECT 1 FROM bulk_intakes')).rowCount).toBe(1);

    await first.kill();
    await holder.query('ROLLBACK');
    holder.release();
    // statements it had sent still run: count what it left only once its sessions are gone
    await untilOtherSessionsEnd(db);

    const second = await startEngage('serve', databaseUrl, ENV);
    let last = '';
    await eventually(
      'every message of the bulk appended once and delivered',
      async () => {
        const { rows } = await db!.query<{ intakes: number; accepted: number; streams: number; delivered: number }>(
          `SELECT (SELECT count(*)::int FROM bulk_intakes) AS intakes,
                  (SELECT count(*)::int FROM es_events WHERE type = 'MessageAccepted' AND stream_id = ANY($1::text[])) AS accepted,
                  (SELECT count(DISTINCT stream_id)::int FROM es_events WHERE type = 'MessageAccepted' AND stream_id = ANY($1::text[])) AS streams,
                  (SELECT count(*)::int FROM messages WHERE id = ANY($2::text[]) AND status = 'delivered') AS delivered`,
          [ids.map((id) => `message-${id}`), ids],
        );
        last = JSON.stringify(rows[0]);
        return rows[0].delivered === N ? rows[0] : undefined;
      },
      120_000,
      200,
    ).then(
      (settled) => expect(settled).toEqual({ intakes: 0, accepted: N, streams: N, delivered: N }),
      (err: Error) => {
        throw new Error(`${err.message}; last seen: ${last}\nsecond process stderr:\n${second.output().stderr.slice(-3000)}`);
      },
    );
    // the new process says what it took up
    expect(second.output().stdout).toContain('appending the messages of a bulk whose process left them');
  }, 180_000);
});
