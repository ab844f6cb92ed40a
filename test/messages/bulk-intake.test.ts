// A bulk is answered once it is stored whole in its intake; its messages are appended to the log
// behind the answer (README "The write path"). Here the process takes no bulk up in the background
// (as while it stops), so each bulk stays in its intake until something needs its messages: reading
// one by id, its timeline, cancelling or resending it, erasing its recipient, or another process's
// sweeper once the lease has run out. Each then finds every message of the bulk in the log, once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedData } from '../../src/messages/accepted.ts';
import { BULK_APPENDS_AT_ONCE, bulkIntakes } from '../../src/messages/bulk-intake.ts';
import { newId } from '../../src/ids.ts';
import { BulkIntakeSweeper } from '../../src/workers/bulk-intake-sweeper.ts';
import { readyAccount } from '../support/accounts.ts';
import { withAppendMany } from '../support/append-many.ts';
import { testServerForSuite } from '../support/harness.ts';
import { eventually, until } from '../support/waits.ts';

const server = testServerForSuite({ WORKERS_ENABLED: 'false', DISPATCH_LEASE_MS: '1000' });
let account: Awaited<ReturnType<typeof readyAccount>>;

beforeAll(async () => {
  account = await readyAccount(server);
  await bulkIntakes(server.engage).stop();
});

const items = (n: number, to = (i: number) => `+1415555${String(2000 + i)}`) =>
  Array.from({ length: n }, (_, i) => ({ to: to(i), channel: 'sms', message: `intake ${i}` }));

/** POSTs a bulk and answers its message ids. */
async function bulk(messages: unknown[]): Promise<string[]> {
  const res = await server.call('POST', '/v1/messages/bulk', { key: account.key, body: { messages } });
  expect(res.status).toBe(202);
  expect(res.body.accepted).toBe(messages.length);
  return (res.body.results as { id: string }[]).map((r) => r.id);
}

/** How many MessageAccepted each of these messages has in the log. */
async function acceptedCounts(ids: string[]): Promise<number[]> {
  const { rows } = await server.engage.pool.query<{ stream_id: string; n: number }>(
    `SELECT stream_id, count(*)::int AS n FROM es_events WHERE type = 'MessageAccepted' AND stream_id = ANY($1::text[]) GROUP BY stream_id`,
    [ids.map((id) => `message-${id}`)],
  );
  const byStream = new Map(rows.map((r) => [r.stream_id, r.n]));
  return ids.map((id) => byStream.get(`message-${id}`) ?? 0);
}

const intakesOfAccount = async () => (await server.engage.pool.query('SELECT 1 FROM bulk_intakes WHERE account_id = $1', [account.accountId])).rowCount;

describe('a bulk whose messages are not in the log yet', () => {
  it('is held in its intake, sealed: no message of it in the log, no recipient or content readable in the row', async () => {
    const ids = await bulk(items(3, (i) => `+1415555${String(3000 + i)}`));
    expect(await acceptedCounts(ids)).toEqual([0, 0, 0]);
    const { rows } = await server.engage.pool.query<{ payload: Buffer; first_id: string; last_id: string }>('SELECT payload, first_id, last_id FROM bulk_intakes WHERE account_id = $1', [
      account.accountId,
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0].payload.toString('latin1')).not.toContain('14155553000');
    expect(rows[0].payload.toString('latin1')).not.toContain('intake 0');
    expect([rows[0].first_id, rows[0].last_id]).toEqual([ids[0], ids[2]].sort());
    // a read of one of its messages appends the whole bulk (the harness's barrier does too)
    await server.caughtUp(['messages']);
    expect(await acceptedCounts(ids)).toEqual([1, 1, 1]);
  });

  it('answers a read by id, and its timeline, by appending the bulk first: each message once', async () => {
    const ids = await bulk(items(5));
    const one = await server.call('GET', `/v1/messages/${ids[3]}`, { key: account.key });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: ids[3], status: 'queued', to: '+14155552003', message: 'intake 3' });
    expect(await acceptedCounts(ids)).toEqual([1, 1, 1, 1, 1]);
    expect(await intakesOfAccount()).toBe(0);
    const again = await bulk(items(2));
    const timeline = await server.call('GET', `/v1/messages/${again[1]}/timeline`, { key: account.key });
    expect(timeline.body.events.map((e: { type: string }) => e.type)).toEqual(['MessageAccepted']);
    // another account's key finds nothing, and appends nothing
    const other = await readyAccount(server);
    const third = await bulk(items(1));
    expect((await server.call('GET', `/v1/messages/${third[0]}`, { key: other.key })).status).toBe(404);
    expect(await acceptedCounts(third)).toEqual([0]);
    await server.caughtUp(['messages']);
  });

  it('is cancelled and resent by id like any message', async () => {
    const ids = await bulk(items(3));
    const cancelled = await server.call('DELETE', `/v1/messages/${ids[0]}`, { key: account.key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: ids[0], status: 'cancelled' });
    const more = await bulk(items(2));
    const resent = await server.call('POST', `/v1/messages/${more[1]}/resend`, { key: account.key });
    expect(resent.status).toBe(202);
    expect(resent.body).toMatchObject({ status: 'queued', to: '+14155552001' });
    expect(await acceptedCounts([...ids, ...more])).toEqual([1, 1, 1, 1, 1]);
  });

  it('is appended before an erasure of its recipient destroys the keys: the message is kept erased, the intake gone', async () => {
    const ids = await bulk([{ to: 'erase.me@example.com', channel: 'email', subject: 'Hi', message: 'private words' }]);
    const erased = await server.call('POST', '/v1/account/erasures', { key: account.key, body: { email: 'erase.me@example.com' } });
    expect(erased.status).toBe(200);
    expect(await intakesOfAccount()).toBe(0);
    expect(await acceptedCounts(ids)).toEqual([1]);
    const [accepted] = await server.engage.store.readStream(`message-${ids[0]}`);
    expect(JSON.stringify(accepted.data)).not.toContain('erase.me@example.com');
    expect(JSON.stringify(accepted.data)).not.toContain('private words');
  });

  it('is taken up by a sweeper once its lease has run out, and appended once', async () => {
    const ids = await bulk(items(4));
    const sweeper = new BulkIntakeSweeper(server.engage);
    sweeper.start();
    try {
      await eventually('the sweeper appends the bulk', async () => ((await intakesOfAccount()) === 0 ? true : undefined), 30_000, 50);
    } finally {
      await sweeper.stop();
    }
    expect(await acceptedCounts(ids)).toEqual([1, 1, 1, 1]);
  });
});

describe('bulks taken faster than they are appended', () => {
  it(`are appended ${BULK_APPENDS_AT_ONCE} at a time by the process that took them; the others wait in their rows, and every message is appended once`, async () => {
    // the log's appends of MessageAccepted are held until released, and counted while they run
    let running = 0;
    let most = 0;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const engage = withAppendMany(server.engage, async (appendMany, batch) => {
      running++;
      most = Math.max(most, running);
      try {
        await released;
        return await appendMany(batch);
      } finally {
        running--;
      }
    });
    const intakes = bulkIntakes(engage);
    const bulks = 5;
    const ids: string[] = [];
    try {
      for (let b = 0; b < bulks; b++) {
        const bulkId = newId('bulk');
        const messages = items(3, (i) => `+1415556${String(1000 + b * 10 + i)}`).map((item) =>
          acceptedData(account.accountId, { content: item as never }, new Date(), { bulkId }),
        );
        ids.push(...messages.map((m) => m.id));
        await intakes.accept(account.accountId, bulkId, messages, { actor: 'test', accountId: account.accountId });
      }
      // the first appends reach the log; no other starts while they are held (given a second to: each
      // accepted bulk's append starts a turn after its answer, once its messages are sealed)
      await eventually('the first appends to start', async () => (running >= BULK_APPENDS_AT_ONCE ? true : undefined));
      expect(await until(() => running, (n) => n > BULK_APPENDS_AT_ONCE, 1000)).toBe(BULK_APPENDS_AT_ONCE);
    } finally {
      release();
    }
    // the waiting bulks follow, read back from their rows, until none is left
    await eventually('every bulk appended', async () => ((await intakesOfAccount()) === 0 ? true : undefined));
    expect(most).toBe(BULK_APPENDS_AT_ONCE);
    expect(await acceptedCounts(ids)).toEqual(ids.map(() => 1));
    await intakes.stop();
  });
});

afterAll(async () => {
  // nothing left behind for the suite's close
  await bulkIntakes(server.engage).settleAll();
});
