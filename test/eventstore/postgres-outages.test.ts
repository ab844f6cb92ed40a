// Catch-up reading and notifications through connection loss (issue 7, defects 5 and 6): a
// subscription resumes from its position by itself, and the NOTIFY listener reconnects however long
// the outage. The outage is a TCP proxy that drops every connection and refuses new ones.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/pool.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { migratedStoreForSuite } from '../support/event-store.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

const db = migratedStoreForSuite();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A pino logger whose lines land in `lines` (parsed). */
function capturingLog() {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

/** An outage: every connection through the proxy dropped, new ones refused, for `ms`. */
async function outage(proxy: TcpProxy, ms: number, during?: () => Promise<void>) {
  proxy.refuse(true);
  await during?.();
  await sleep(ms);
  proxy.refuse(false);
}

describe('catch-up subscription through connection loss', () => {
  it('resumes from its last position after its connections drop, without loss, repeat or end, and says so in the log', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(db.url).port) });
    const proxiedPool = createPool(proxy.rewrite(db.url), 4);
    const { log, lines } = capturingLog();
    const store = new PostgresEventStore(proxiedPool, proxy.rewrite(db.url), { log });
    const type = `Outage${randomUUID().slice(0, 8)}`;
    const sub = store.subscribeToAll({ after: await db.store.headPosition(), types: [type] });
    const got: RecordedEvent[] = [];
    let ended = false;
    let failed: unknown;
    const consuming = (async () => {
      try {
        for await (const e of sub) got.push(e);
        ended = true;
      } catch (err) {
        failed = err;
      }
    })();
    try {
      const stream = `outage-${randomUUID()}`;
      for (let i = 0; i < 5; i++) await db.store.append(stream, [{ type, data: { i } }]);
      for (let t = 0; got.length < 5 && t < 200; t++) await sleep(25);
      expect(got).toHaveLength(5);
      // 2.5 s down: events keep arriving on a connection the subscription cannot reach
      await outage(proxy, 2_500, async () => {
        for (let i = 5; i < 10; i++) await db.store.append(stream, [{ type, data: { i } }]);
      });
      for (let i = 10; i < 15; i++) await db.store.append(stream, [{ type, data: { i } }]);
      for (let t = 0; got.length < 15 && t < 600; t++) await sleep(25);
      expect(failed).toBeUndefined();
      expect(ended).toBe(false);
      expect(got.map((e) => (e.data as { i: number }).i)).toEqual(Array.from({ length: 15 }, (_, i) => i));
      expect(lines.some((l) => l.level === 40 && /catch-up subscription: read failed/.test(l.msg))).toBe(true);
    } finally {
      await sub.stop();
      await consuming;
      await store.close();
      await proxiedPool.end();
      await proxy.close();
    }
  });
});

describe('NOTIFY listener through connection loss', () => {
  /** true once a NOTIFY sent on a direct connection wakes `store` (twice in a row, so a reconnect's own wake-up does not count) */
  async function notificationsArrive(store: PostgresEventStore, withinMs: number): Promise<boolean> {
    const deadline = Date.now() + withinMs;
    let inARow = 0;
    while (Date.now() < deadline) {
      const ticket = store.wakeup.ticket();
      await db.pool.query(`SELECT pg_notify('engage_events', '')`);
      await store.wakeup.wait(ticket, 300);
      inARow = store.wakeup.ticket() !== ticket ? inARow + 1 : 0;
      if (inARow >= 2) return true;
      await sleep(100);
    }
    return false;
  }

  it('reconnects after an outage longer than 3 s, and keeps doing so for as long as the process lives', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(db.url).port) });
    const { log, lines } = capturingLog();
    const store = new PostgresEventStore(db.pool, proxy.rewrite(db.url), { log });
    try {
      await store.listen();
      expect(await notificationsArrive(store, 5_000)).toBe(true);
      await outage(proxy, 4_500);
      expect(await notificationsArrive(store, 15_000)).toBe(true);
      // and again: the listener did not use up some budget of retries
      await outage(proxy, 3_500);
      expect(await notificationsArrive(store, 15_000)).toBe(true);
      expect(lines.some((l) => l.level === 40 && /listener lost its connection/.test(l.msg))).toBe(true);
      expect(lines.some((l) => /listener reconnected/.test(l.msg))).toBe(true);
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  it('starts listening once Postgres can be reached, when it could not be at start', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(db.url).port) });
    const store = new PostgresEventStore(db.pool, proxy.rewrite(db.url));
    try {
      proxy.refuse(true);
      await store.listen();
      await sleep(1_000);
      proxy.refuse(false);
      expect(await notificationsArrive(store, 15_000)).toBe(true);
    } finally {
      await store.close();
      await proxy.close();
    }
  });
});
