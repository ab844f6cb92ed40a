// An append wakes the log readers of its own process at once, in process, and those of other
// processes through a NOTIFY. Its own NOTIFY comes back to its own listener too: that must not wake
// them again, since each wake of the log tail is a read of the log (README "The write path").
import { randomUUID } from 'node:crypto';
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
  });
});
