// The cancel race: DELETEs fired while the dispatcher is claiming the same messages. A claim and a
// cancel are both appends at the revision read, so each message ends exactly one way.
import { beforeAll, describe, expect, it } from 'vitest';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { eventually } from '../support/waits.ts';

const N = 500;

function shuffle<T>(xs: T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

describe('cancel racing the dispatcher', () => {
  let key: string;
  // small batches spread dispatch over many rounds, so DELETEs land before, during and after claims
  const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false', DISPATCH_BATCH_SIZE: '10', DISPATCH_CONCURRENCY: '4' });
  beforeAll(async () => {
    ({ key } = await readyAccount(server));
  });

  it(`${N} queued messages and ${N} concurrent DELETEs: each message is either cancelled or dispatched, never both or neither`, async () => {
    const bulk = await server.call('POST', '/v1/messages/bulk', {
      key,
      body: { messages: Array.from({ length: N }, (_, i) => ({ to: `+1415555${String(1000 + i).padStart(4, '0')}`, channel: 'sms', message: `race ${i}`, transactional: true })) },
    });
    expect(bulk.status).toBe(202);
    expect(bulk.body.accepted).toBe(N);
    const ids: string[] = bulk.body.results.map((r: { id: string }) => r.id);

    // the dispatcher is already running: fire every DELETE at once, in random order
    const responses = new Map<string, { status: number; body: any }>();
    await Promise.all(
      shuffle(ids).map(async (id) => {
        const res = await server.call('DELETE', `/v1/messages/${id}`, { key });
        responses.set(id, { status: res.status, body: res.body });
      }),
    );

    // only the two documented answers: cancelled, or 409 not_cancellable. (Soft, so that the
    // invariants below are still checked for a DELETE that answered otherwise: it must not have
    // cancelled anything.)
    const unexpected = [...responses].filter(([, r]) => r.status !== 200 && r.status !== 409);
    expect.soft(unexpected.length, `DELETEs answered neither 200 nor 409: ${JSON.stringify(unexpected.slice(0, 3))}`).toBe(0);
    const cancelled = ids.filter((id) => responses.get(id)!.status === 200);
    const refused = ids.filter((id) => responses.get(id)!.status !== 200);
    // a real race: both sides won some
    expect(cancelled.length, 'some DELETEs must win').toBeGreaterThan(0);
    expect(refused.length, 'some claims must win').toBeGreaterThan(0);
    for (const id of cancelled) expect(responses.get(id)!.body).toMatchObject({ id, status: 'cancelled' });
    for (const id of refused.filter((x) => responses.get(x)!.status === 409)) {
      expect(responses.get(id)!.body).toMatchObject({ error: 'not_cancellable' });
      expect(['queued', 'sent', 'delivered']).toContain(responses.get(id)!.body.status);
    }

    // wait until every dispatched message has its delivery report
    const pool = server.engage.pool;
    await eventually('every message to settle', async () => {
      const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE id = ANY($1) AND status IN ('cancelled', 'delivered')`, [ids]);
      return rows[0].n === N ? true : undefined;
    }, 60_000, 100);

    const { rows: streams } = await pool.query<{ stream_id: string; types: string[] }>(
      `SELECT stream_id, array_agg(type ORDER BY stream_revision) AS types FROM es_events WHERE stream_id = ANY($1) GROUP BY stream_id`,
      [ids.map((id) => `message-${id}`)],
    );
    expect(streams).toHaveLength(N);
    const typesOf = new Map(streams.map((s) => [s.stream_id.slice('message-'.length), s.types]));
    const { rows: statusRows } = await pool.query<{ id: string; status: string }>('SELECT id, status FROM messages WHERE id = ANY($1)', [ids]);
    const statusOf = new Map(statusRows.map((r) => [r.id, r.status]));
    const calls = server.workers.messaging!.providers.sandbox.calls;

    for (const id of ids) {
      const types = typesOf.get(id)!;
      const count = (t: string) => types.filter((x) => x === t).length;
      // the event right after acceptance is the one that won: a cancel or the first claim
      expect(['MessageCancelled', 'MessageDispatching'], `${id}: ${types.join(',')}`).toContain(types[1]);
      expect(count('MessageCancelled') + (count('MessageDispatching') > 0 ? 1 : 0), `${id}: ${types.join(',')}`).toBe(1);
      if (responses.get(id)!.status === 200) {
        expect(types, id).toEqual(['MessageAccepted', 'MessageCancelled']);
        expect(statusOf.get(id)).toBe('cancelled');
        expect(calls.has(id), `${id} was cancelled but handed to the provider`).toBe(false);
      } else {
        expect(types, id).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
        expect(statusOf.get(id)).toBe('delivered');
        expect(calls.get(id)).toBe(1);
      }
    }
  });
});
