// An append wakes the log readers of its own process at once, in process, and those of other
// processes through a NOTIFY. Its own NOTIFY comes back to its own listener too: that must not wake
// them again, since each wake of the log tail is a read of the log. And a store that listens sends
// no NOTIFY while no other process listens: listening stores say hello, here and bye on the channel
// (README "The write path").
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { EVENT_CHANNEL, PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { migratedStoreForSuite } from '../support/event-store.ts';
import { until } from '../support/waits.ts';

const db = migratedStoreForSuite();
const stores: PostgresEventStore[] = [];

afterAll(async () => {
  for (const s of stores) await s.close();
});

/** Another "process": an event store of its own, listening. */
async function listeningStore(): Promise<PostgresEventStore> {
  const store = new PostgresEventStore(db.pool, db.url);
  stores.push(store);
  await store.listen();
  return store;
}

/** How often the store's readers have been woken since now. */
function wakesOf(store: PostgresEventStore): () => number {
  const from = store.wakeup.ticket();
  return () => store.wakeup.ticket() - from;
}

describe('append notifications', () => {
  it("wake another process's readers once per append, and the appending process's only once (not again by its own NOTIFY)", async () => {
    const a = await listeningStore();
    const b = await listeningStore();
    // each has heard that the other listens
    await until(() => a.listeningPeers() + b.listeningPeers(), (n) => n === 2, 10_000, 5);
    const wakesA = wakesOf(a);
    const wakesB = wakesOf(b);
    const appends = 5;
    for (let i = 1; i <= appends; i++) {
      await a.append(`notified-${randomUUID()}`, [{ type: 'Notified', data: { i } }], 'no_stream');
      // the other process hears of each append (so its NOTIFY has gone out before the next)
      expect(await until(wakesB, (n) => n >= i, 10_000, 5)).toBe(i);
    }
    // a NOTIFY of a third process, after those of a's appends: a's listener gets them in this order
    await db.pool.query(`SELECT pg_notify('${EVENT_CHANNEL}', 'another process')`);
    expect(await until(wakesB, (n) => n >= appends + 1, 10_000, 5)).toBe(appends + 1);
    expect(await until(wakesA, (n) => n >= appends + 1, 10_000, 5)).toBeGreaterThanOrEqual(appends + 1);
    // a: once per append (in process) and once for the other process; its own NOTIFYs woke it no more
    expect(await until(wakesA, (n) => n > appends + 1, 500, 10)).toBe(appends + 1);
    await a.close();
    await b.close();
  });
});

/** Every payload on the event channel from now on, as a raw LISTEN session (no store: it says no hello) hears them. */
async function channelWatch() {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const heard: string[] = [];
  client.on('notification', (n) => heard.push(n.payload ?? ''));
  await client.query(`LISTEN ${EVENT_CHANNEL}`);
  return {
    heard,
    /** the hints of appends heard (not the stores' hello, here and bye) */
    hints: () => heard.filter((p) => !/^(hello|here|bye):/.test(p)),
    /** waits until a payload matching `re` has been heard */
    until: (re: RegExp) => until(() => heard.some((p) => re.test(p)), Boolean, 10_000, 5),
    close: () => client.end(),
  };
}

const append = (store: PostgresEventStore) => store.append(`notified-${randomUUID()}`, [{ type: 'Notified', data: {} }], 'no_stream');

describe('append notifications go only where another process listens', () => {
  it('a listening store alone sends none; with another listening it does; once the other says bye, none again', async () => {
    const watch = await channelWatch();
    const a = await listeningStore();
    await watch.until(/^hello:/);
    for (let i = 0; i < 3; i++) await append(a);
    // b starts listening: a hears its hello and answers, b hears the answer
    const b = await listeningStore();
    await until(() => a.listeningPeers() + b.listeningPeers(), (n) => n === 2, 10_000, 5);
    const quiet = watch.hints().length;
    for (let i = 1; i <= 3; i++) {
      await append(a);
      // (heard before the next append: no two appends share one NOTIFY)
      await until(() => watch.hints().length, (n) => n >= quiet + i, 10_000, 5);
    }
    const told = watch.hints().length;
    // b stops listening: a hears its bye and tells nobody again
    await b.close();
    await until(() => a.listeningPeers(), (n) => n === 0, 10_000, 5);
    for (let i = 0; i < 3; i++) await append(a);
    // a's close waits for any NOTIFY of its appends in flight, then says bye: what came before it is heard first
    await a.close();
    await watch.until(/^bye:/);
    await until(() => watch.heard.filter((p) => p.startsWith('bye:')).length, (n) => n === 2, 10_000, 5);
    expect(quiet).toBe(0);
    expect(told).toBe(3);
    expect(watch.hints()).toHaveLength(3);
    await watch.close();
  });

  it('a store that does not listen (an API process beside a worker) tells on every append', async () => {
    const watch = await channelWatch();
    const api = new PostgresEventStore(db.pool, db.url);
    await append(api);
    await watch.until(/./);
    expect(watch.hints()).toHaveLength(1);
    await api.close();
    await watch.close();
  });
});
