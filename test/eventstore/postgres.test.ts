// The event store contract against the Postgres adapter, plus the out-of-order commit test that a
// catch-up reader ordering or filtering by global position alone would fail.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPool } from '../../src/db/pool.ts';
import { migrate } from '../../src/schema.ts';
import { type Position, type RecordedEvent, START, comparePositions } from '../../src/eventstore/port.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { freshDatabase } from '../support/harness.ts';
import { eventStoreContract, newStreamId, readableUpTo, take } from './contract.ts';

let url: string;
let pool: pg.Pool;

beforeAll(async () => {
  url = await freshDatabase();
  pool = createPool(url);
  await migrate(pool);
});

afterAll(async () => {
  await pool?.end();
});

describe('postgres event store on an empty database', () => {
  it('has no head and nothing to read', async () => {
    const store = new PostgresEventStore(pool, url);
    try {
      expect(await store.headPosition()).toEqual(START);
      expect(await store.readAll()).toEqual([]);
      expect(await store.countAfter(START, undefined, 10)).toBe(0);
      expect(await store.ping()).toBe(true);
    } finally {
      await store.close();
    }
  });
});

eventStoreContract('postgres', async () => new PostgresEventStore(pool, url));

/**
 * An append whose transaction is held open: the adapter's own append SQL runs on a client inside
 * BEGIN, so its event row exists (with an earlier global position, and an xid) but is uncommitted.
 */
async function heldAppend(streamId: string) {
  const client = await pool.connect();
  await client.query('BEGIN');
  const inTx = { query: (...args: unknown[]) => (client.query as (...a: unknown[]) => unknown)(...args) } as unknown as pg.Pool;
  const result = await new PostgresEventStore(inTx).append(streamId, [{ type: 'OutOfOrderHeld', data: { held: true } }], 'no_stream');
  return {
    result,
    async commit() {
      try {
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    },
    async rollback() {
      try {
        await client.query('ROLLBACK');
      } finally {
        client.release();
      }
    },
  };
}

/**
 * The scenario: A's event gets the earlier global position but commits last; B's commits first.
 * `poll` is a catch-up reader that checkpoints at every event it returns. While A is open it must
 * not hand out B (a checkpoint at B would skip A for ever); once A commits, it must see both.
 */
async function outOfOrderScenario<C>(reader: { start: C; poll(cursor: C): Promise<{ events: { streamId: string }[]; cursor: C }> }) {
  const a = newStreamId('ooo');
  const b = newStreamId('ooo');
  const ours = (e: { streamId: string }) => e.streamId === a || e.streamId === b;
  let cursor = reader.start;
  const seen: string[] = [];
  const poll = async () => {
    const r = await reader.poll(cursor);
    cursor = r.cursor;
    seen.push(...r.events.filter(ours).map((e) => e.streamId));
  };

  const store = new PostgresEventStore(pool, url);
  const held = await heldAppend(a);
  let open = true;
  try {
    const bResult = await store.append(b, [{ type: 'OutOfOrderCommitted', data: { held: false } }], 'no_stream');
    // the setup really is out of order: A holds the earlier global position, B is committed
    expect(held.result.position.prepare < bResult.position.prepare).toBe(true);
    expect((await pool.query('SELECT count(*)::int AS n FROM es_events WHERE stream_id = $1', [b])).rows[0].n).toBe(1);
    expect((await pool.query('SELECT count(*)::int AS n FROM es_events WHERE stream_id = $1', [a])).rows[0].n).toBe(0);

    await poll();
    await poll();
    const seenWhileHeld = [...seen];
    await held.commit();
    open = false;
    // once both are readable (other transactions in the cluster may delay that), read to the end
    await readableUpTo(store, bResult.position);
    let before: number;
    do {
      before = seen.length;
      await poll();
    } while (seen.length > before);
    return { a, b, seenWhileHeld, seen, heldPosition: held.result.position, bPosition: bResult.position };
  } finally {
    if (open) await held.rollback();
    await store.close();
  }
}

describe('postgres event store: out-of-order commits', () => {
  let store: PostgresEventStore;
  beforeAll(() => {
    store = new PostgresEventStore(pool, url);
  });
  afterAll(async () => {
    await store.close();
  });

  it('a checkpointing readAll reader never skips an event that commits after a later-positioned one', async () => {
    const head = await store.headPosition();
    const r = await outOfOrderScenario<Position>({
      start: head,
      async poll(cursor) {
        const events = await store.readAll({ after: cursor });
        return { events, cursor: events.length ? events[events.length - 1].position : cursor };
      },
    });
    // B must not be handed out (and checkpointed past) while A may still commit before it
    expect(r.seenWhileHeld).toEqual([]);
    expect(r.seen).toEqual([r.a, r.b]);
  });

  it('headPosition and countAfter do not run past an open transaction either; headPosition({includeHeldBack}) names the newest committed event', async () => {
    const head = await store.headPosition();
    const a = newStreamId('ooo');
    const held = await heldAppend(a);
    try {
      const b = await store.append(newStreamId('ooo'), [{ type: 'OutOfOrderCommitted', data: {} }], 'no_stream');
      expect(held.result.position.prepare < b.position.prepare).toBe(true);
      expect(await store.headPosition()).toEqual(head);
      expect(await store.countAfter(head, undefined, 10)).toBe(0);
      // a wait for everything written so far (the test harness's caughtUp, a campaign's audience)
      // must wait for B too, though no reader may see it yet
      expect(await store.headPosition({ includeHeldBack: true })).toEqual(b.position);
      await held.commit();
      expect(await readableUpTo(store, b.position)).toEqual(b.position);
      expect(await store.countAfter(head, undefined, 10)).toBe(2);
    } catch (err) {
      await held.rollback().catch(() => undefined);
      throw err;
    }
  });

  it('countsAfter, like countAfter, counts what an open transaction holds back only with includeHeldBack', async () => {
    const head = await store.headPosition();
    const held = await heldAppend(newStreamId('ooo'));
    try {
      await store.append(newStreamId('ooo'), [{ type: 'OutOfOrderCommitted', data: {} }], 'no_stream');
      const readers = [{ after: head, types: undefined }, { after: head, types: ['OutOfOrderCommitted'] }];
      expect(await store.countsAfter(readers, 10)).toEqual([0, 0]);
      expect(await store.countsAfter(readers, 10, { includeHeldBack: true })).toEqual([1, 1]);
      await held.commit();
      expect(await store.countsAfter(readers, 10, { includeHeldBack: true })).toEqual([2, 1]);
    } catch (err) {
      await held.rollback().catch(() => undefined);
      throw err;
    }
  });

  it('subscribeToAll delivers both events, the earlier-positioned one first, none skipped', async () => {
    const head = await store.headPosition();
    const a = newStreamId('ooo');
    const b = newStreamId('ooo');
    const readAll = vi.spyOn(store, 'readAll');
    const sub = store.subscribeToAll({ after: head });
    const delivered: RecordedEvent[] = [];
    const collecting = take(sub, 2, (e) => {
      if (e.streamId !== a && e.streamId !== b) return false;
      delivered.push(e);
      return true;
    });
    const held = await heldAppend(a);
    try {
      await store.append(b, [{ type: 'OutOfOrderCommitted', data: {} }], 'no_stream');
      // let the subscription poll at least twice after B committed while A is still open
      const pollsAtB = readAll.mock.calls.length;
      const deadline = Date.now() + 10_000;
      while (readAll.mock.calls.length < pollsAtB + 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(readAll.mock.calls.length).toBeGreaterThanOrEqual(pollsAtB + 2);
      await new Promise((r) => setTimeout(r, 50));
      expect(delivered).toEqual([]);
      await held.commit();
    } catch (err) {
      await held.rollback().catch(() => undefined);
      await sub.stop();
      throw err;
    } finally {
      readAll.mockRestore();
    }
    const got = await collecting;
    expect(got.map((e) => e.streamId)).toEqual([a, b]);
    expect(comparePositions(got[0].position, got[1].position)).toBe(-1);
  });

  it('control: a reader that orders and filters by global position alone does skip the late commit', async () => {
    // the scenario above is strong enough to catch the bug it guards against
    const r = await outOfOrderScenario<bigint>({
      start: BigInt((await pool.query('SELECT coalesce(max(global_position), 0)::text AS gp FROM es_events')).rows[0].gp),
      async poll(cursor) {
        const { rows } = await pool.query<{ stream_id: string; gp: string }>(
          'SELECT stream_id, global_position::text AS gp FROM es_events WHERE global_position > $1 ORDER BY global_position',
          [cursor.toString()],
        );
        return { events: rows.map((x) => ({ streamId: x.stream_id })), cursor: rows.length ? BigInt(rows[rows.length - 1].gp) : cursor };
      },
    });
    expect(r.seenWhileHeld).toEqual([r.b]);
    expect(r.seen).toEqual([r.b]); // A was never seen: skipped for good
  });
});

describe('postgres event store: countsAfter', () => {
  it('answers for every reader what countAfter answers for it: positions, types and caps of their own, from one read of the log', async () => {
    const store = new PostgresEventStore(pool, url);
    try {
      const start = await store.headPosition();
      const [ta, tb, tc] = ['CountsA', 'CountsB', 'CountsC'].map((t) => `${t}${Date.now()}`);
      const positions: Position[] = [start];
      // 30 events in 6 appends, types interleaved
      for (let i = 0; i < 6; i++) {
        const r = await store.append(newStreamId('counts'), Array.from({ length: 5 }, (_, j) => ({ type: [ta, tb, tc][(i + j) % 3], data: {} })), 'no_stream');
        positions.push(r.position);
      }
      await readableUpTo(store, positions[positions.length - 1]);
      const typeSets = [undefined, [ta], [tb, tc], [], [ta, tb, tc]];
      const readers = positions.flatMap((after) => typeSets.map((types) => ({ after, types })));
      for (const cap of [1_000, 7, 3, 1]) {
        const expected = await Promise.all(readers.map((r) => store.countAfter(r.after, r.types, cap)));
        expect(await store.countsAfter(readers, cap), `cap ${cap}`).toEqual(expected);
        // in any order, and alone
        const reversed = [...readers].reverse();
        expect(await store.countsAfter(reversed, cap), `cap ${cap}, reversed`).toEqual([...expected].reverse());
        expect(await store.countsAfter([readers[7]], cap)).toEqual([expected[7]]);
      }
      expect(await store.countsAfter([], 10)).toEqual([]);
      // a cap below the log between the readers: the one read stops before the later readers' events, and they are counted on their own
      expect(await store.countsAfter([{ after: start, types: [ta] }, { after: positions[5], types: undefined }], 6)).toEqual([6, 5]);
    } finally {
      await store.close();
    }
  });
});
