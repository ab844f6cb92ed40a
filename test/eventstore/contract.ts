// The event store contract: one suite that every adapter of the port must pass.
// Each test uses its own streams (and, where it reads the global log, its own event types or a
// head position taken first), so the suite also runs against a server other things write to.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EventStore,
  type NewEvent,
  type Position,
  type RecordedEvent,
  type Subscription,
  WrongExpectedVersionError,
  comparePositions,
  positionToString,
  registerUpcaster,
} from '../../src/eventstore/port.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function tag(): string {
  return randomUUID().replaceAll('-', '').slice(0, 16);
}

export function newStreamId(category = 'contract'): string {
  return `${category}-${tag()}`;
}

function ev(type: string, data: Record<string, unknown> = {}, metadata?: NewEvent['metadata']): NewEvent {
  return metadata ? { type, data, metadata } : { type, data };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject, but it resolved');
}

function expectIncreasing(events: readonly RecordedEvent[]): void {
  for (let i = 1; i < events.length; i++) {
    expect(comparePositions(events[i - 1].position, events[i].position), `position ${i} after ${i - 1}`).toBe(-1);
  }
}

/**
 * Collects the first `n` events from a subscription that match `keep`, then stops it; rejects
 * (after stopping) if they do not arrive within `timeoutMs`.
 */
export async function take(
  sub: Subscription,
  n: number,
  keep: (e: RecordedEvent) => boolean = () => true,
  timeoutMs = 15_000,
): Promise<RecordedEvent[]> {
  const got: RecordedEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`subscription delivered ${got.length} of ${n} events in ${timeoutMs} ms`)), timeoutMs);
  });
  const collect = (async () => {
    for await (const e of sub) {
      if (!keep(e)) continue;
      got.push(e);
      if (got.length >= n) break;
    }
    return got;
  })();
  collect.catch(() => undefined); // a failure after the timeout won must not be unhandled
  try {
    return await Promise.race([collect, timeout]);
  } finally {
    clearTimeout(timer);
    await sub.stop();
  }
}

/**
 * Waits until `position` is readable in the global log and returns the head then. Readers may lag
 * a committed append: on Postgres they stop below the oldest transaction still open anywhere in
 * the cluster, so the log only becomes readable up to an append once those have finished.
 */
export async function readableUpTo(store: EventStore, position: Position, timeoutMs = 15_000): Promise<Position> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const head = await store.headPosition();
    if (comparePositions(head, position) >= 0) return head;
    if (Date.now() > deadline) throw new Error(`head ${positionToString(head)} did not reach ${positionToString(position)} in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Reads the global log after `after` page by page (maxCount `page`), checkpointing at every event. */
async function readAllPaged(store: EventStore, after: Position, page: number, keep: (e: RecordedEvent) => boolean) {
  const out: RecordedEvent[] = [];
  let cursor = after;
  for (let i = 0; i < 10_000; i++) {
    const batch = await store.readAll({ after: cursor, maxCount: page });
    expect(batch.length).toBeLessThanOrEqual(page);
    if (batch.length === 0) return out;
    for (const e of batch) {
      expect(comparePositions(e.position, cursor)).toBe(1);
      cursor = e.position;
      if (keep(e)) out.push(e);
    }
  }
  throw new Error('readAllPaged did not reach the end of the log');
}

export function eventStoreContract(
  name: EventStore['kind'],
  makeStore: () => Promise<EventStore>,
  options: { skip?: boolean } = {},
): void {
  (options.skip ? describe.skip : describe)(`event store contract: ${name}`, () => {
    let store: EventStore;

    beforeAll(async () => {
      store = await makeStore();
      expect(store.kind).toBe(name);
    });

    afterAll(async () => {
      await store?.close();
    });

    describe('append and readStream', () => {
      it('appends events and reads them back with ids, revisions, positions and metadata', async () => {
        const s = newStreamId();
        const givenId = randomUUID();
        const meta = { accountId: 'acc_1', actor: 'key_1', requestId: 'req_1', correlationId: 'cor_1', causationId: 'cau_1' };
        const result = await store.append(
          s,
          [
            { ...ev('ContractCreated', { name: 'Ada', n: 1, nested: { list: [1, 2, 3] } }, meta), id: givenId },
            ev('ContractRenamed', { name: 'Grace' }, meta),
            ev('ContractRenamed', { name: 'Hopper' }),
          ],
          'no_stream',
        );
        expect(result.nextExpectedRevision).toBe(2n);

        const events = await store.readStream(s);
        expect(events.map((e) => e.revision)).toEqual([0n, 1n, 2n]);
        expect(events.map((e) => e.type)).toEqual(['ContractCreated', 'ContractRenamed', 'ContractRenamed']);
        expect(events.map((e) => e.data)).toEqual([{ name: 'Ada', n: 1, nested: { list: [1, 2, 3] } }, { name: 'Grace' }, { name: 'Hopper' }]);
        expect(events.every((e) => e.streamId === s)).toBe(true);
        expect(events[0].id).toBe(givenId);
        for (const e of events) {
          expect(e.id).toMatch(UUID);
          expect(e.createdAt).toBeInstanceOf(Date);
          expect(Math.abs(e.createdAt.getTime() - Date.now())).toBeLessThan(5 * 60_000);
        }
        expect(new Set(events.map((e) => e.id)).size).toBe(3);
        expect(events[0].metadata).toMatchObject({ ...meta, schemaVersion: 1 });
        expect(events[1].metadata).toMatchObject({ ...meta, schemaVersion: 1 });
        expect(events[2].metadata).toEqual({ schemaVersion: 1 });
        expectIncreasing(events);

        // the append reports the position of its last event, as the global log shows it
        await readableUpTo(store, result.position);
        const fromAll = await store.readAll({ after: events[1].position, maxCount: 1 });
        expect(fromAll.map((e) => e.id)).toEqual([events[2].id]);
        expect(result.position).toEqual(fromAll[0].position);
      });

      it('reads a missing stream as empty', async () => {
        expect(await store.readStream(newStreamId())).toEqual([]);
        expect(await store.readStream(newStreamId(), { direction: 'backwards' })).toEqual([]);
      });

      it('rejects an append of no events', async () => {
        const err = await rejection(store.append(newStreamId(), []));
        expect(err).toBeInstanceOf(Error);
      });

      it('reads backwards, from a revision and up to maxCount', async () => {
        const s = newStreamId();
        await store.append(s, Array.from({ length: 10 }, (_, i) => ev('ContractCounted', { i })), 'no_stream');
        const revs = (es: RecordedEvent[]) => es.map((e) => Number(e.revision));

        expect(revs(await store.readStream(s))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        expect((await store.readStream(s)).map((e) => e.data.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        expect(revs(await store.readStream(s, { direction: 'backwards' }))).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
        expect(revs(await store.readStream(s, { direction: 'backwards', fromRevision: 5n }))).toEqual([5, 4, 3, 2, 1, 0]);
        expect(revs(await store.readStream(s, { direction: 'backwards', maxCount: 2 }))).toEqual([9, 8]);
        expect(revs(await store.readStream(s, { direction: 'backwards', fromRevision: 3n, maxCount: 2 }))).toEqual([3, 2]);
        expect(revs(await store.readStream(s, { fromRevision: 3n, maxCount: 4 }))).toEqual([3, 4, 5, 6]);
        expect(revs(await store.readStream(s, { fromRevision: 7n }))).toEqual([7, 8, 9]);
        expect(revs(await store.readStream(s, { maxCount: 1 }))).toEqual([0]);
        expect(revs(await store.readStream(s, { fromRevision: 10n }))).toEqual([]);
      });
    });

    describe('expected revision', () => {
      it('no_stream: the first append wins, the second is a WrongExpectedVersionError', async () => {
        const s = newStreamId();
        await store.append(s, [ev('ContractA')], 'no_stream');
        const err = await rejection(store.append(s, [ev('ContractB')], 'no_stream'));
        expect(err).toBeInstanceOf(WrongExpectedVersionError);
        expect((err as WrongExpectedVersionError).streamId).toBe(s);
        expect((err as WrongExpectedVersionError).actual).toBe(0n);
        expect((await store.readStream(s)).map((e) => e.type)).toEqual(['ContractA']);
      });

      it('exact revision: current succeeds, stale or future fails, missing stream fails', async () => {
        const s = newStreamId();
        const first = await store.append(s, [ev('ContractA'), ev('ContractB')], 'no_stream');
        expect(first.nextExpectedRevision).toBe(1n);
        const second = await store.append(s, [ev('ContractC')], 1n);
        expect(second.nextExpectedRevision).toBe(2n);

        const stale = await rejection(store.append(s, [ev('ContractStale')], 1n));
        expect(stale).toBeInstanceOf(WrongExpectedVersionError);
        expect((stale as WrongExpectedVersionError).expected).toBe(1n);
        expect((stale as WrongExpectedVersionError).actual).toBe(2n);
        expect(await rejection(store.append(s, [ev('ContractFuture')], 5n))).toBeInstanceOf(WrongExpectedVersionError);
        expect(await rejection(store.append(newStreamId(), [ev('ContractMissing')], 0n))).toBeInstanceOf(WrongExpectedVersionError);

        const third = await store.append(s, [ev('ContractD')], 2n);
        expect(third.nextExpectedRevision).toBe(3n);
        expect((await store.readStream(s)).map((e) => e.type)).toEqual(['ContractA', 'ContractB', 'ContractC', 'ContractD']);
      });

      it('any: appends to a missing stream and to an existing one', async () => {
        const s = newStreamId();
        expect((await store.append(s, [ev('ContractA')], 'any')).nextExpectedRevision).toBe(0n);
        expect((await store.append(s, [ev('ContractB'), ev('ContractC')], 'any')).nextExpectedRevision).toBe(2n);
        expect((await store.append(s, [ev('ContractD')])).nextExpectedRevision).toBe(3n);
        expect((await store.readStream(s)).map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n]);
      });

      it('stream_exists: fails on a missing stream, succeeds on an existing one', async () => {
        const s = newStreamId();
        const err = await rejection(store.append(s, [ev('ContractA')], 'stream_exists'));
        expect(err).toBeInstanceOf(WrongExpectedVersionError);
        expect(await store.readStream(s)).toEqual([]);
        await store.append(s, [ev('ContractA')], 'no_stream');
        expect((await store.append(s, [ev('ContractB')], 'stream_exists')).nextExpectedRevision).toBe(1n);
        expect((await store.readStream(s)).map((e) => e.type)).toEqual(['ContractA', 'ContractB']);
      });
    });

    describe('concurrency', () => {
      it('20 parallel appends at the same expected revision: exactly one wins, nothing lost or duplicated', async () => {
        const s = newStreamId();
        await store.append(s, [ev('ContractStarted')], 'no_stream');
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, (_, n) => store.append(s, [ev('ContractRaced', { n }), ev('ContractRacedTwice', { n })], 0n)),
        );
        const won = results.flatMap((r, n) => (r.status === 'fulfilled' ? [{ n, r: r.value }] : []));
        const lost = results.filter((r) => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(won[0].r.nextExpectedRevision).toBe(2n);
        expect(lost).toHaveLength(19);
        for (const r of lost) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError);

        const events = await store.readStream(s);
        expect(events.map((e) => e.revision)).toEqual([0n, 1n, 2n]);
        expect(events.map((e) => e.type)).toEqual(['ContractStarted', 'ContractRaced', 'ContractRacedTwice']);
        expect(events[1].data).toEqual({ n: won[0].n });
        expect(events[2].data).toEqual({ n: won[0].n });
      });

      it('20 parallel no_stream appends: exactly one creates the stream', async () => {
        const s = newStreamId();
        const results = await Promise.allSettled(Array.from({ length: 20 }, (_, n) => store.append(s, [ev('ContractCreated', { n })], 'no_stream')));
        const won = results.flatMap((r, n) => (r.status === 'fulfilled' ? [n] : []));
        expect(won).toHaveLength(1);
        for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(WrongExpectedVersionError);
        const events = await store.readStream(s);
        expect(events).toHaveLength(1);
        expect(events[0].data).toEqual({ n: won[0] });
      });

      it('20 parallel appends with any: all land, revisions contiguous, each event exactly once', async () => {
        const s = newStreamId();
        const results = await Promise.all(Array.from({ length: 20 }, (_, n) => store.append(s, [ev('ContractPiled', { n })], 'any')));
        expect(results.map((r) => Number(r.nextExpectedRevision)).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
        const events = await store.readStream(s);
        expect(events.map((e) => Number(e.revision))).toEqual(Array.from({ length: 20 }, (_, i) => i));
        expect(events.map((e) => e.data.n as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
        expectIncreasing(events);
        // each append's reported revision holds that append's own event
        for (const [n, r] of results.entries()) expect(events[Number(r.nextExpectedRevision)].data).toEqual({ n });
      });
    });

    describe('readAll', () => {
      it('returns events in log order, strictly after `after`, pageable by maxCount', async () => {
        const head = await store.headPosition();
        const a = newStreamId();
        const b = newStreamId();
        await store.append(a, [ev('ContractOrdered', { k: 'a0' }), ev('ContractOrdered', { k: 'a1' })], 'no_stream');
        await store.append(b, [ev('ContractOrdered', { k: 'b0' })], 'no_stream');
        const last = await store.append(a, [ev('ContractOrdered', { k: 'a2' })], 1n);
        await readableUpTo(store, last.position);
        const ours = (e: RecordedEvent) => e.streamId === a || e.streamId === b;

        const all = (await store.readAll({ after: head })).filter(ours);
        expect(all.map((e) => e.data.k)).toEqual(['a0', 'a1', 'b0', 'a2']);
        expectIncreasing(all);
        expect(all.every((e) => comparePositions(e.position, head) > 0)).toBe(true);

        // `after` is exclusive: starting at a1's position yields b0 next, never a1 again
        expect((await store.readAll({ after: all[1].position })).filter(ours).map((e) => e.data.k)).toEqual(['b0', 'a2']);
        expect((await store.readAll({ after: all[3].position })).filter(ours)).toEqual([]);

        const limited = await store.readAll({ after: head, maxCount: 2 });
        expect(limited).toHaveLength(2);
        expectIncreasing(limited);

        // paging one event at a time visits each event exactly once, in order
        for (const page of [1, 3]) {
          const paged = await readAllPaged(store, head, page, ours);
          expect(paged.map((e) => e.id)).toEqual(all.map((e) => e.id));
        }

        // events read from $all carry the same ids, revisions and positions as the stream read
        const fromStream = await store.readStream(a);
        expect(fromStream.map((e) => [e.id, e.revision])).toEqual(all.filter((e) => e.streamId === a).map((e) => [e.id, e.revision]));
        expect(fromStream.map((e) => e.position)).toEqual(all.filter((e) => e.streamId === a).map((e) => e.position));
      });

      it('filters by event type; the filtered events keep their log order', async () => {
        const head = await store.headPosition();
        const t1 = `ContractTypeOne${tag()}`;
        const t2 = `ContractTypeTwo${tag()}`;
        const t3 = `ContractTypeThree${tag()}`;
        const s = newStreamId();
        await store.append(s, [ev(t1, { i: 0 }), ev(t2, { i: 1 }), ev(t3, { i: 2 }), ev(t1, { i: 3 })], 'no_stream');
        const last = await store.append(newStreamId(), [ev(t2, { i: 4 })], 'no_stream');
        await readableUpTo(store, last.position);

        const one = await store.readAll({ after: head, types: [t1] });
        expect(one.map((e) => e.data.i)).toEqual([0, 3]);
        const two = await store.readAll({ after: head, types: [t1, t2] });
        expect(two.map((e) => e.data.i)).toEqual([0, 1, 3, 4]);
        expectIncreasing(two);
        expect(await store.readAll({ after: head, types: [`ContractNever${tag()}`] })).toEqual([]);
        expect(await store.readAll({ after: head, types: [] })).toEqual([]);
        // maxCount counts returned (matching) events, and `after` stays exclusive with a filter
        expect((await store.readAll({ after: head, types: [t1, t2], maxCount: 3 })).map((e) => e.data.i)).toEqual([0, 1, 3]);
        expect((await store.readAll({ after: one[0].position, types: [t1, t2] })).map((e) => e.data.i)).toEqual([1, 3, 4]);
      });

      it('headPosition is the position of the newest event', async () => {
        const before = await store.headPosition();
        const r1 = await store.append(newStreamId(), [ev('ContractHead')], 'no_stream');
        const afterOne = await readableUpTo(store, r1.position);
        expect(comparePositions(afterOne, before)).toBe(1);
        expect(afterOne).toEqual(r1.position);
        const r2 = await store.append(newStreamId(), [ev('ContractHead'), ev('ContractHead')], 'no_stream');
        const afterTwo = await readableUpTo(store, r2.position);
        expect(afterTwo).toEqual(r2.position);
        expect(await store.readAll({ after: afterTwo })).toEqual([]);
      });

      it('countAfter counts readable events after a position, by type, up to a cap', async () => {
        const head = await store.headPosition();
        const ta = `ContractCountA${tag()}`;
        const tb = `ContractCountB${tag()}`;
        await store.append(newStreamId(), Array.from({ length: 5 }, () => ev(ta)), 'no_stream');
        const last = await store.append(newStreamId(), Array.from({ length: 3 }, () => ev(tb)), 'no_stream');
        await readableUpTo(store, last.position);
        expect(await store.countAfter(head, [ta], 100)).toBe(5);
        expect(await store.countAfter(head, [tb], 100)).toBe(3);
        expect(await store.countAfter(head, [ta, tb], 100)).toBe(8);
        expect(await store.countAfter(head, [ta, tb], 6)).toBe(6);
        expect(await store.countAfter(head, [tb], 2)).toBe(2);
        expect(await store.countAfter(head, undefined, 1000)).toBeGreaterThanOrEqual(8);
        expect(await store.countAfter(head, undefined, 4)).toBe(4);
        expect(await store.countAfter(head, [], 10)).toBe(0);
        expect(await store.countAfter(last.position, [ta, tb], 100)).toBe(0);
      });
    });

    describe('appendMany', () => {
      it('appends to many streams, each checked on its own expected revision', async () => {
        const fresh = Array.from({ length: 20 }, () => newStreamId());
        const existing = Array.from({ length: 6 }, () => newStreamId());
        for (const s of existing) await store.append(s, [ev('ContractSeeded')], 'no_stream');
        const batch = [
          ...fresh.map((streamId, i) => ({ streamId, events: [ev('ContractBatched', { i }), ev('ContractBatched', { i, second: true })], expected: 'no_stream' as const })),
          { streamId: existing[0], events: [ev('ContractBatched', { e: 0 })], expected: 0n },
          { streamId: existing[1], events: [ev('ContractBatched', { e: 1 })], expected: 'stream_exists' as const },
          { streamId: existing[2], events: [ev('ContractBatched', { e: 2 })], expected: 'any' as const },
          { streamId: existing[3], events: [ev('ContractBatched', { e: 3 }), ev('ContractBatched', { e: 3.5 })] },
          { streamId: existing[4], events: [ev('ContractBatched', { e: 4 })], expected: 0n },
          { streamId: existing[5], events: [ev('ContractBatched', { e: 5 })], expected: 'stream_exists' as const },
        ];
        const results = await store.appendMany(batch);
        expect(results).toHaveLength(batch.length);
        expect(results.slice(0, 20).map((r) => r.nextExpectedRevision)).toEqual(fresh.map(() => 1n));
        expect(results.slice(20).map((r) => r.nextExpectedRevision)).toEqual([1n, 1n, 1n, 2n, 1n, 1n]);
        for (const [i, b] of batch.entries()) {
          const events = await store.readStream(b.streamId);
          const appended = events.slice(-b.events.length);
          expect(appended.map((e) => e.data)).toEqual(b.events.map((e) => e.data));
          expect(results[i].position).toEqual(appended[appended.length - 1].position);
        }
        expect(await store.appendMany([])).toEqual([]);
      });

      it('rejects a batch naming the same stream twice', async () => {
        const s = newStreamId();
        const err = await rejection(store.appendMany([{ streamId: s, events: [ev('ContractA')] }, { streamId: s, events: [ev('ContractB')] }]));
        expect(err).toBeInstanceOf(Error);
        expect(await store.readStream(s)).toEqual([]);
      });

      it('declares whether it is atomic across streams (postgres: one transaction; esdb: stream by stream)', () => {
        expect(store.atomicAppendMany).toBe(name === 'postgres');
      });

      it('a conflict on one stream: nothing written when atomic, else the streams before it stay written and the rest are not', async () => {
        const head = await store.headPosition();
        const existing = newStreamId();
        await store.append(existing, [ev('ContractSeeded'), ev('ContractSeeded')], 'no_stream');
        const fresh = Array.from({ length: 6 }, () => newStreamId());
        const err = await rejection(
          store.appendMany([
            ...fresh.slice(0, 3).map((streamId) => ({ streamId, events: [ev('ContractDoomed')], expected: 'no_stream' as const })),
            { streamId: existing, events: [ev('ContractDoomed')], expected: 0n }, // stale: the stream is at 1
            ...fresh.slice(3).map((streamId) => ({ streamId, events: [ev('ContractDoomed')], expected: 'any' as const })),
          ]),
        );
        expect(err).toBeInstanceOf(WrongExpectedVersionError);
        expect((err as WrongExpectedVersionError).streamId).toBe(existing);
        expect((await store.readStream(existing)).map((e) => e.type)).toEqual(['ContractSeeded', 'ContractSeeded']);
        // the streams after the conflicting one are never written
        for (const s of fresh.slice(3)) expect(await store.readStream(s)).toEqual([]);
        if (store.atomicAppendMany) {
          for (const s of fresh) expect(await store.readStream(s)).toEqual([]);
          expect(await store.readAll({ after: head, types: ['ContractDoomed'] })).toEqual([]);
          // and no stream was left half-created: no_stream still holds for every fresh stream
          for (const s of fresh) expect((await store.append(s, [ev('ContractAfter')], 'no_stream')).nextExpectedRevision).toBe(0n);
        } else {
          for (const s of fresh.slice(0, 3)) expect((await store.readStream(s)).map((e) => e.type)).toEqual(['ContractDoomed']);
        }
      });
    });

    describe('idempotent re-append (the same event ids at the same place)', () => {
      /** events with ids chosen by the caller, as a retry needs them */
      const withIds = (...types: string[]): NewEvent[] => types.map((type, i) => ({ ...ev(type, { i }), id: randomUUID() }));

      it('exact revision: the same events again return the original result and write nothing, also once the stream moved on', async () => {
        const s = newStreamId();
        await store.append(s, withIds('ContractA'), 'no_stream');
        const events = withIds('ContractB', 'ContractC');
        const first = await store.append(s, events, 0n);
        expect(first.nextExpectedRevision).toBe(2n);
        expect(await store.append(s, events, 0n)).toEqual(first);
        expect((await store.readStream(s)).map((e) => e.type)).toEqual(['ContractA', 'ContractB', 'ContractC']);
        // another writer appended after them: a late retry still finds them at their place
        await store.append(s, withIds('ContractD'), 2n);
        expect(await store.append(s, events, 0n)).toEqual(first);
        const stored = await store.readStream(s);
        expect(stored.map((e) => e.type)).toEqual(['ContractA', 'ContractB', 'ContractC', 'ContractD']);
        expect(stored.slice(1, 3).map((e) => e.id)).toEqual(events.map((e) => e.id));
        expect(first.position).toEqual(stored[2].position);
      });

      it('no_stream: the events that created the stream, appended again, return the original result', async () => {
        const s = newStreamId();
        const events = withIds('ContractCreated', 'ContractRenamed');
        const first = await store.append(s, events, 'no_stream');
        expect(first.nextExpectedRevision).toBe(1n);
        expect(await store.append(s, events, 'no_stream')).toEqual(first);
        const one = withIds('ContractCreated');
        const single = newStreamId();
        const created = await store.append(single, one, 'no_stream');
        expect(await store.append(single, one, 'no_stream')).toEqual(created);
        expect((await store.readStream(s)).map((e) => e.id)).toEqual(events.map((e) => e.id));
        expect((await store.readStream(single)).map((e) => e.id)).toEqual(one.map((e) => e.id));
      });

      it('any: a retry right after a lost acknowledgement writes nothing twice', async () => {
        const s = newStreamId();
        await store.append(s, withIds('ContractSeeded'), 'no_stream');
        const events = withIds('ContractA', 'ContractB');
        const first = await store.append(s, events, 'any');
        expect(first.nextExpectedRevision).toBe(2n);
        expect(await store.append(s, events, 'any')).toEqual(first);
        const one = withIds('ContractC');
        const single = await store.append(s, one, 'any');
        expect(single.nextExpectedRevision).toBe(3n);
        expect(await store.append(s, one, 'any')).toEqual(single);
        expect((await store.readStream(s)).map((e) => e.type)).toEqual(['ContractSeeded', 'ContractA', 'ContractB', 'ContractC']);
      });

      it('appendMany: a batch sent again returns the original results; a batch re-sent after a partial write completes it', async () => {
        const [a, b, c] = [newStreamId(), newStreamId(), newStreamId()];
        await store.append(b, withIds('ContractSeeded'), 'no_stream');
        await store.append(c, withIds('ContractSeeded'), 'no_stream');
        const batch = [
          { streamId: a, events: withIds('ContractBatched', 'ContractBatched'), expected: 'no_stream' as const },
          { streamId: b, events: withIds('ContractBatched'), expected: 0n },
          { streamId: c, events: withIds('ContractBatched', 'ContractBatched'), expected: 'any' as const },
        ];
        const first = await store.appendMany(batch);
        expect(first.map((r) => r.nextExpectedRevision)).toEqual([1n, 1n, 2n]);
        expect(await store.appendMany(batch)).toEqual(first);
        expect((await store.readStream(a)).map((e) => e.revision)).toEqual([0n, 1n]);
        expect((await store.readStream(b)).map((e) => e.revision)).toEqual([0n, 1n]);
        expect((await store.readStream(c)).map((e) => e.revision)).toEqual([0n, 1n, 2n]);

        // what a store that is not atomic across streams may leave behind: the first stream written,
        // the second not; the very same batch again writes the second and answers for the first
        const [d, e] = [newStreamId(), newStreamId()];
        const partial = [
          { streamId: d, events: withIds('ContractBatched'), expected: 'no_stream' as const },
          { streamId: e, events: withIds('ContractBatched', 'ContractBatched'), expected: 'no_stream' as const },
        ];
        const landed = await store.append(d, partial[0].events, 'no_stream');
        const completed = await store.appendMany(partial);
        expect(completed[0]).toEqual(landed);
        expect(completed[1].nextExpectedRevision).toBe(1n);
        expect((await store.readStream(d)).map((x) => x.id)).toEqual(partial[0].events.map((x) => x.id));
        expect((await store.readStream(e)).map((x) => x.id)).toEqual(partial[1].events.map((x) => x.id));
        expect(completed[1].position).toEqual((await store.readStream(e))[1].position);
      });

      it('the same ids at another place still conflict, naming the stream, and write nothing', async () => {
        const s = newStreamId();
        const a = withIds('ContractA');
        const b = withIds('ContractB');
        await store.append(s, a, 'no_stream');
        await store.append(s, b, 0n);
        const expectConflict = async (p: Promise<unknown>, streamId = s) => {
          const err = await rejection(p);
          expect(err).toBeInstanceOf(WrongExpectedVersionError);
          expect((err as WrongExpectedVersionError).streamId).toBe(streamId);
        };
        await expectConflict(store.append(s, b, 'no_stream')); // revision 0 holds A, not B
        await expectConflict(store.append(s, a, 0n)); // revision 1 holds B, not A
        await expectConflict(store.append(s, b, 5n)); // the stream is at 1
        const missing = newStreamId();
        await expectConflict(store.append(missing, b, 0n), missing); // ids known elsewhere, not in this stream
        expect(await store.readStream(missing)).toEqual([]);
        const fresh = newStreamId();
        await expectConflict(
          store.appendMany([
            { streamId: fresh, events: withIds('ContractX'), expected: 'no_stream' },
            { streamId: s, events: b, expected: 'no_stream' },
          ]),
        );
        const stored = await store.readStream(s);
        expect(stored.map((e) => e.id)).toEqual([...a, ...b].map((e) => e.id));
        if (store.atomicAppendMany) expect(await store.readStream(fresh)).toEqual([]);
      });
    });

    describe('subscribeToAll', () => {
      it('delivers history, then live events, and resumes after a stored position', async () => {
        const head = await store.headPosition();
        const s = newStreamId();
        const ours = (e: RecordedEvent) => e.streamId === s;
        await store.append(s, [ev('ContractSubscribed', { i: 0 }), ev('ContractSubscribed', { i: 1 })], 'no_stream');
        await store.append(s, [ev('ContractSubscribed', { i: 2 })], 1n);

        const sub = store.subscribeToAll({ after: head });
        const collecting = take(sub, 5, ours);
        // live: appended after the subscription started (and, give or take, after it caught up)
        await new Promise((r) => setTimeout(r, 300));
        await store.append(s, [ev('ContractSubscribed', { i: 3 })], 2n);
        await store.append(s, [ev('ContractSubscribed', { i: 4 })], 3n);
        const got = await collecting;
        expect(got.map((e) => e.data.i)).toEqual([0, 1, 2, 3, 4]);
        expect(got.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n]);
        expectIncreasing(got);
        const fromStream = await store.readStream(s);
        expect(got.map((e) => e.id)).toEqual(fromStream.map((e) => e.id));
        expect(got.map((e) => e.position)).toEqual(fromStream.map((e) => e.position));

        // resume after a stored checkpoint: the event at the checkpoint is not delivered again
        const resumed = await take(store.subscribeToAll({ after: got[2].position }), 2, ours);
        expect(resumed.map((e) => e.data.i)).toEqual([3, 4]);
      });

      it('filters by type', async () => {
        const head = await store.headPosition();
        const wanted = `ContractSubWanted${tag()}`;
        const s = newStreamId();
        await store.append(s, [ev(wanted, { i: 0 }), ev('ContractSubOther', { i: 1 }), ev(wanted, { i: 2 })], 'no_stream');
        const got = await take(store.subscribeToAll({ after: head, types: [wanted] }), 2);
        expect(got.map((e) => [e.type, e.data.i])).toEqual([[wanted, 0], [wanted, 2]]);
      });

      it('stop() ends a subscription that is waiting for events', async () => {
        const sub = store.subscribeToAll({ after: await store.headPosition(), types: [`ContractNothing${tag()}`] });
        const it = sub[Symbol.asyncIterator]();
        const next = it.next();
        await new Promise((r) => setTimeout(r, 200));
        await sub.stop();
        const result = await Promise.race([next, new Promise((r) => setTimeout(() => r('still waiting'), 5000))]);
        expect(result).toEqual({ done: true, value: undefined });
      });
    });

    describe('upcasting', () => {
      it('upcasts events stored with an older schemaVersion when they are read', async () => {
        const type = `ContractUpcast${tag()}`;
        const s = newStreamId();
        const before = await store.headPosition();
        // stored before any upcaster exists: schemaVersion 1
        await store.append(s, [ev(type, { fullName: 'Ada Lovelace' })], 'no_stream');
        // and one explicitly written in the old shape after a newer version exists
        registerUpcaster(type, 3, (data, from) => {
          if (from === 1) {
            const [first, last] = String(data.fullName).split(' ');
            data = { first, last, middle: null };
          }
          return { ...data, middle: data.middle ?? '' };
        });
        await store.append(s, [ev(type, { fullName: 'Grace Hopper' }, { schemaVersion: 1 })], 0n);
        await store.append(s, [ev(type, { first: 'Alan', middle: 'M', last: 'Turing' }, { schemaVersion: 2 })], 1n);
        // written at the current version: stored as 3 and read as is
        const last = await store.append(s, [ev(type, { first: 'Edsger', last: 'Dijkstra', middle: 'W' })], 2n);
        await readableUpTo(store, last.position);

        const expected = [
          { first: 'Ada', last: 'Lovelace', middle: '' },
          { first: 'Grace', last: 'Hopper', middle: '' },
          { first: 'Alan', middle: 'M', last: 'Turing' },
          { first: 'Edsger', last: 'Dijkstra', middle: 'W' },
        ];
        const events = await store.readStream(s);
        expect(events.map((e) => e.data)).toEqual(expected);
        expect(events.map((e) => e.metadata.schemaVersion)).toEqual([1, 1, 2, 3]);
        expect((await store.readStream(s, { direction: 'backwards' })).map((e) => e.data)).toEqual([...expected].reverse());

        const head = events[0].position;
        const all = await store.readAll({ after: before, types: [type] });
        expect(all.map((e) => e.data)).toEqual(expected);
        const sub = await take(store.subscribeToAll({ after: head, types: [type] }), 3);
        expect(sub.map((e) => e.data)).toEqual(expected.slice(1));
      });
    });
  });
}
