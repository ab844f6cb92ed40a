// Snapshots of long streams (src/eventstore/snapshots.ts, README "Snapshots of long streams"): a
// decider with a codec folds from the last snapshot and the events after it. What is counted here
// is how many events each decision reads from the log; the milliseconds are the bench's
// (`stream-snapshots`).
import pino from 'pino';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ListCommand, listDecider, type ListState } from '../../commands/list.ts';
import { handleCommand } from '../../src/command-handler.ts';
import { type Decider, fold } from '../../src/decider.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { EventStore, NewEvent } from '../../src/eventstore/port.ts';
import { attachSnapshots, readState, StreamSnapshots } from '../../src/eventstore/snapshots.ts';
import { migratedStoreForSuite } from '../support/event-store.ts';
import { newStreamId } from './contract.ts';

const db = migratedStoreForSuite();
const log = pino({ level: 'silent' });
const ACCOUNT = 'acct_snapshots';
const LONG = 100_000;

let snapshots: StreamSnapshots;
let list: string;
const member = (i: number) => `ct_${String(i).padStart(8, '0')}`;

/** How many events each readStream of `store` returned while `run` ran. */
async function eventsRead<T>(store: EventStore, run: () => Promise<T>): Promise<{ result: T; read: number }> {
  const reads = vi.spyOn(store, 'readStream');
  try {
    const result = await run();
    let read = 0;
    for (const r of reads.mock.results) read += (await r.value).length;
    return { result, read };
  } finally {
    reads.mockRestore();
  }
}

const add = (store: EventStore, contactId: string) =>
  handleCommand(store, listDecider, list, { type: 'AddListMember', accountId: ACCOUNT, contactId, contactExists: true, now: new Date() } satisfies ListCommand, {});
const remove = (store: EventStore, contactId: string) =>
  handleCommand(store, listDecider, list, { type: 'RemoveListMember', accountId: ACCOUNT, contactId, contactExists: true, now: new Date() } satisfies ListCommand, {});

async function wholeFold(stream: string): Promise<ListState> {
  return fold(listDecider, (await db.store.readStream(stream)).map((e) => ({ type: e.type, data: e.data }) as never));
}

beforeAll(async () => {
  snapshots = new StreamSnapshots(db.pool, log);
  attachSnapshots(db.store, snapshots);
  // a list of 99,999 members: 100,000 events, appended as the list decider would have (in chunks, at known revisions)
  list = newStreamId('list');
  const at = new Date().toISOString();
  const events: NewEvent[] = [{ type: 'ListCreated', data: { account_id: ACCOUNT, id: list, name: 'long', description: null, created_at: at } }];
  for (let i = 1; i < LONG; i++) events.push({ type: 'ListMemberAdded', data: { account_id: ACCOUNT, id: list, contact_id: member(i), added_at: at } });
  let expected: bigint | 'no_stream' = 'no_stream';
  for (let i = 0; i < events.length; i += 10_000) expected = (await db.store.append(list, events.slice(i, i + 10_000), expected)).nextExpectedRevision;
}, 120_000);

afterEach(async () => {
  await snapshots.flush();
});

describe('a list of 100,000 events', () => {
  it('is folded whole once; each later command reads only the events since the state it was last decided at', async () => {
    snapshots.forget();
    const first = await eventsRead(db.store, () => add(db.store, 'ct_new_1'));
    expect(first.read).toBe(LONG);
    expect(first.result.revision).toBe(BigInt(LONG));
    expect(first.result.state.members.size).toBe(LONG);

    // the next reads the event its state stood at and the ones after it: here, that one alone
    const next = await eventsRead(db.store, () => add(db.store, 'ct_new_2'));
    expect(next.read).toBe(1);
    expect(next.result.events.map((e) => e.type)).toEqual(['ListMemberAdded']);
    // an add of a member who is there (from the middle of the stream) changes nothing: the state is the whole one
    const again = await eventsRead(db.store, () => add(db.store, member(50_000)));
    expect(again.result.events).toEqual([]);
    expect(again.read).toBe(1);
    const removed = await remove(db.store, member(1));
    expect(removed.events.map((e) => e.type)).toEqual(['ListMemberRemoved']);

    // an event appended by another writer (another process) is read and folded in
    await db.store.append(list, [{ type: 'ListMemberRemoved', data: { account_id: ACCOUNT, id: list, contact_id: member(2), removed_at: new Date().toISOString() } }], removed.revision);
    const after = await eventsRead(db.store, () => add(db.store, member(2)));
    expect(after.read).toBe(2);
    expect(after.result.events.map((e) => e.type)).toEqual(['ListMemberAdded']);

    const whole = await wholeFold(list);
    expect(after.result.state.members).toEqual(whole.members);
    expect(whole.members.has(member(1))).toBe(false);
  });

  it('is decided by another process (nothing held) from the stored snapshot and the events after it', async () => {
    await add(db.store, 'ct_new_3');
    await snapshots.flush();
    const { rows } = await db.pool.query<{ revision: string; kind: string }>('SELECT revision, kind FROM stream_snapshots WHERE stream_id = $1', [list]);
    expect(rows[0].kind).toBe('list');
    const stored = BigInt(rows[0].revision);
    expect(stored).toBeGreaterThanOrEqual(BigInt(LONG));

    const other = new PostgresEventStore(db.pool, db.url);
    try {
      attachSnapshots(other, new StreamSnapshots(db.pool, log));
      const head = (await db.store.readStream(list, { direction: 'backwards', maxCount: 1 }))[0].revision;
      const decided = await eventsRead(other, () => add(other, 'ct_new_4'));
      expect(decided.read).toBe(Number(head - stored) + 1);
      expect(decided.result.state.members).toEqual((await wholeFold(list)).members);
    } finally {
      await other.close();
    }
  });

  it('is folded whole when the stored snapshot is not of this log (its event is another) or of another codec version', async () => {
    await snapshots.flush();
    await db.pool.query(`UPDATE stream_snapshots SET position = '1/1' WHERE stream_id = $1`, [list]);
    snapshots.forget();
    const stranger = await eventsRead(db.store, () => add(db.store, 'ct_new_5'));
    expect(stranger.read).toBeGreaterThan(LONG);
    expect(stranger.result.state.members).toEqual((await wholeFold(list)).members);

    await snapshots.flush();
    await db.pool.query(`UPDATE stream_snapshots SET version = version + 1 WHERE stream_id = $1`, [list]);
    snapshots.forget();
    const older = await eventsRead(db.store, () => readState(db.store, listDecider, list));
    expect(older.read).toBeGreaterThan(LONG);
  });

  it('is not held in a process whose cap it passes: the stored snapshot serves it', async () => {
    await add(db.store, 'ct_new_6');
    await snapshots.flush();
    const small = new PostgresEventStore(db.pool, db.url);
    try {
      const capped = new StreamSnapshots(db.pool, log, 1_000);
      attachSnapshots(small, capped);
      const { rows } = await db.pool.query<{ revision: string }>('SELECT revision FROM stream_snapshots WHERE stream_id = $1', [list]);
      const head = (await db.store.readStream(list, { direction: 'backwards', maxCount: 1 }))[0].revision;
      const one = await eventsRead(small, () => add(small, 'ct_new_7'));
      expect(one.read).toBe(Number(head - BigInt(rows[0].revision)) + 1);
      // nothing held: the next reads the stored snapshot's event and every one after it again
      const two = await eventsRead(small, () => add(small, 'ct_new_8'));
      expect(two.read).toBe(one.read + 1);
    } finally {
      await small.close();
    }
  });
});

type Step = { type: 'Stepped'; data: { add?: string; drop?: string } } | { type: 'ContactCreated'; data: { id: string } };
/** A set kept by a stream, snapshotted every 7 events: its state from snapshots must be its whole fold, at every revision. */
const setDecider: Decider<{ add?: string; drop?: string; personal?: boolean }, string[], Step> = {
  initialState: [],
  snapshot: { kind: 'test_set', version: 1, every: 7, encode: (s) => s, decode: (v) => v as string[] },
  evolve: (s, e) => (e.type === 'Stepped' ? [...s.filter((x) => x !== e.data.drop), ...(e.data.add ? [e.data.add] : [])].sort() : s),
  decide: (c) => (c.personal ? [{ type: 'ContactCreated', data: { id: 'ct_x' } }] : [{ type: 'Stepped', data: { add: c.add, drop: c.drop } }]),
};

describe('a snapshotted stream', () => {
  it('decides on the state of its whole fold at every revision, across stored snapshots and other processes', async () => {
    const stream = newStreamId('set');
    const other = new PostgresEventStore(db.pool, db.url);
    const otherSnapshots = new StreamSnapshots(db.pool, log);
    attachSnapshots(other, otherSnapshots);
    try {
      for (let i = 0; i < 60; i++) {
        // two processes take turns unevenly, each with what it holds and what is stored
        const via = i % 3 === 0 ? other : db.store;
        const r = await handleCommand(via, setDecider, stream, { add: `v${i % 11}`, drop: `v${(i * 7) % 11}` }, {});
        const whole = fold(setDecider, (await db.store.readStream(stream)).map((e) => ({ type: e.type, data: e.data }) as Step));
        expect(r.state).toEqual(whole);
        if (i % 10 === 9) {
          await otherSnapshots.flush();
          otherSnapshots.forget();
        }
      }
      await snapshots.flush();
      await otherSnapshots.flush();
      const { rows } = await db.pool.query<{ revision: string }>('SELECT revision FROM stream_snapshots WHERE stream_id = $1', [stream]);
      expect(Number(rows[0].revision)).toBeGreaterThanOrEqual(52);
    } finally {
      await other.close();
    }
  });

  it('is never snapshotted once it holds an event with personal data (a snapshot is not sealed)', async () => {
    const stream = newStreamId('set');
    await handleCommand(db.store, setDecider, stream, { personal: true }, {});
    for (let i = 0; i < 20; i++) await handleCommand(db.store, setDecider, stream, { add: `v${i}` }, {});
    await snapshots.flush();
    const { rowCount } = await db.pool.query('SELECT 1 FROM stream_snapshots WHERE stream_id = $1', [stream]);
    expect(rowCount).toBe(0);
    snapshots.forget();
    const next = await eventsRead(db.store, () => handleCommand(db.store, setDecider, stream, { add: 'last' }, {}));
    expect(next.read).toBe(21);
  });
});
