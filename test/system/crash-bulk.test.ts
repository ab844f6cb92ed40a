// Whole-system crash: `engage serve` (API and workers in one process) is SIGKILLed in the middle of
// dispatching a bulk of 2,000 messages that each carry a webhook_url, while status callbacks are in
// flight; a new process on the same database finishes the work. Every accepted message reaches
// exactly one terminal status (read model and event stream agree), and every status callback
// arrives at least once — a callback sent again after the crash is the same event (same id, same
// body).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedDatabase } from '../support/harness.ts';
import { requestJson } from '../support/http.ts';
import { type EngageProcess, killAllEngageProcesses, printedApiKey, startEngage, TEST_APPLICATION_NAME, untilOtherSessionsEnd } from '../support/processes.ts';
import { type Hit, type Receiver, h, startReceiver } from '../support/receivers.ts';
import { type StreamSummary, countOf, streamsOf } from '../support/streams.ts';
import { eventually } from '../support/waits.ts';

const N = 2000;
const CANCELS = 20;
const TERMINAL = ['MessageDelivered', 'MessageFailed', 'MessageCancelled'];
/** the per-message callback each event becomes (projections/webhook-outbox.ts) */
const CALLBACK_OF: Record<string, string> = { MessageQueued: 'message.queued', MessageSent: 'message.sent', MessageDelivered: 'message.delivered', MessageFailed: 'message.failed' };

const ENV = {
  QUIET_HOURS: 'off',
  RATE_LIMITS_ENABLED: 'false',
  // the first process's sent messages are delivered (terminal) only a minute later, so the kill
  // always finds work outstanding however fast dispatch runs and however long the bulk's own answer
  // takes on a loaded machine (12 s on CI, while every message was sent meanwhile); the second
  // process reports at once what the first owed (resumed reports) and delivers its own quickly
  SANDBOX_DELIVERY_DELAY_MS: '60000',
  // a dead process's claims come free after a second; small batches, so the kill lands mid-dispatch
  DISPATCH_LEASE_MS: '1000',
  DISPATCH_BATCH_SIZE: '100',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_PER_HOST_CONCURRENCY: '64',
  // callbacks in flight at the kill are sent again once their lease (here 6 s, default 60 s) ends
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_LEASE_MS: '6000',
  WEBHOOK_RETRY_DELAYS: '200ms,500ms,1s,2s,5s',
};

/** What each message is expected to end as: some recipients fail on purpose (README: sandbox test recipients). */
function bulkItems(receiverUrl: string) {
  return Array.from({ length: N }, (_, i) => {
    const to = i % 100 === 1 ? '+15005550001' : i % 100 === 2 ? '+15005550003' : `+1415${String(6_000_000 + i)}`;
    return { to, channel: 'sms', message: `crash bulk ${i}`, transactional: true, webhook_url: receiverUrl };
  });
}
const expectedEnd = (to: string): { status: string; reason?: string } =>
  to === '+15005550001' ? { status: 'failed', reason: 'invalid_number' } : to === '+15005550003' ? { status: 'failed', reason: 'undelivered' } : { status: 'delivered' };

interface Settled {
  ids: string[];
  to: Map<string, string>;
  cancelled: Set<string>;
  streams: Map<string, StreamSummary>;
  rows: Map<string, { status: string; reason: string | null; delivered_at: Date | null; failed_at: Date | null; cancelled_at: Date | null }>;
  /** callback event ids the receiver had received but not answered when the process died */
  inFlightAtKill: Set<string>;
  hits: Hit[];
}

describe('kill -9 of engage serve mid-bulk, then a restart on the same data', () => {
  let receiver: Receiver;
  let db: pg.Pool;
  let result: Settled;
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    const t0 = Date.now();
    // the receiver answers at once while open; while closed it holds every request (the attempt
    // stays in flight, received but unacknowledged) until opened again
    let open = true;
    const waiting: (() => void)[] = [];
    const inFlight = new Set<string>();
    receiver = await startReceiver(async (hit) => {
      if (!open) {
        inFlight.add(h(hit, 'x-service-event-id'));
        while (!open) await new Promise<void>((release) => waiting.push(release));
      }
      return 200;
    });
    const setOpen = (v: boolean) => {
      open = v;
      if (v) for (const release of waiting.splice(0)) release();
    };

    const databaseUrl = await migratedDatabase();
    db = new pg.Pool({ connectionString: databaseUrl, max: 4, application_name: TEST_APPLICATION_NAME });
    const first: EngageProcess = await startEngage('serve', databaseUrl, ENV);
    const key = printedApiKey(first);

    const bulk = await requestJson(first.url!, 'POST', '/v1/messages/bulk', { key, body: { messages: bulkItems(receiver.url) } });
    expect(bulk.status, JSON.stringify(bulk.body).slice(0, 500)).toBe(202);
    expect(bulk.body.accepted).toBe(N);
    const ids: string[] = bulk.body.results.map((r: { id: string }) => r.id);
    const to = new Map(ids.map((id, i) => [id, bulkItems('')[i].to]));
    timings.bulkAcceptedS = (Date.now() - t0) / 1000;

    // cancel a few from the end of the bulk (dispatched last): 200 cancelled, or 409 if already claimed
    const cancelled = new Set<string>();
    await Promise.all(
      ids.slice(-CANCELS).map(async (id) => {
        const res = await requestJson(first.url!, 'DELETE', `/v1/messages/${id}`, { key });
        if (res.status === 200) cancelled.add(id);
        else expect(res.body, `cancel ${id}`).toMatchObject({ error: 'not_cancellable' });
      }),
    );

    // mid-dispatch and mid-callbacks: some messages sent and their callbacks flowing, then the
    // receiver stops answering so that attempts are in flight when the process dies
    const sentCount = async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM es_events WHERE type = 'MessageSent'`)).rows[0].n;
    await eventually('dispatch and callbacks under way', async () => ((await sentCount()) >= 200 && receiver.hits.length >= 200 ? true : undefined), 60_000, 20);
    setOpen(false);
    await eventually('callbacks in flight at the receiver', async () => (inFlight.size >= 16 ? true : undefined), 30_000, 10);
    await first.kill();
    timings.killedAtS = (Date.now() - t0) / 1000;
    const inFlightAtKill = new Set(inFlight);
    // statements it had sent still commit: read what it left only once its sessions are gone
    await untilOtherSessionsEnd(db);

    const atKill = await streamsOf(db, ids);
    const sentBefore = [...atKill.values()].filter((s) => countOf(s.types, 'MessageSent') > 0).length;
    const terminalBefore = [...atKill.values()].filter((s) => s.types.some((t) => TERMINAL.includes(t))).length;
    expect(sentBefore, 'some messages were sent before the kill').toBeGreaterThan(0);
    expect(terminalBefore, 'the kill landed mid-dispatch: messages were still waiting').toBeLessThan(N - CANCELS);
    const { rows: deliveriesAtKill } = await db.query<{ event_id: string; status: string }>(`SELECT event_id, status FROM webhook_deliveries WHERE kind = 'message'`);
    const stateAtKill = new Map(deliveriesAtKill.map((d) => [d.event_id, d.status]));
    for (const eventId of inFlightAtKill) expect(stateAtKill.get(eventId), `${eventId} was in flight at the kill`).toBe('pending');
    timings.sentAtKill = sentBefore;
    timings.terminalAtKill = terminalBefore;
    timings.callbacksDeliveredAtKill = deliveriesAtKill.filter((d) => d.status === 'delivered').length;

    // the same data, a new process; the receiver answers again
    setOpen(true);
    const second = await startEngage('serve', databaseUrl, { ...ENV, SANDBOX_DELIVERY_DELAY_MS: '200' });
    timings.restartedAtS = (Date.now() - t0) / 1000;
    expect(second.output().stdout, 'no new account on a restart').not.toContain('API key:');

    // settled: every message terminal, the outbox has a row for every callback event, and all of them are delivered
    let last = '';
    const streams = await eventually(
      'every message terminal and every status callback delivered',
      async () => {
        const { rows: statuses } = await db.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM messages WHERE id = ANY($1) GROUP BY status`, [ids]);
        const { rows: deliveries } = await db.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE kind = 'message' GROUP BY status`);
        last = `messages ${JSON.stringify(statuses)}, callbacks ${JSON.stringify(deliveries)}`;
        const terminal = statuses.filter((r) => ['delivered', 'failed', 'cancelled'].includes(r.status)).reduce((a, r) => a + r.n, 0);
        if (terminal !== N || deliveries.some((d) => d.status !== 'delivered')) return undefined;
        const s = await streamsOf(db, ids);
        const expected = [...s.values()].reduce((a, x) => a + callbackEvents(x).length, 0);
        return deliveries.reduce((a, d) => a + d.n, 0) === expected ? s : undefined;
      },
      150_000,
      500,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; last seen: ${last}\nsecond process stderr:\n${second.output().stderr.slice(-3000)}`);
    });
    timings.settledAfterRestartS = (Date.now() - t0) / 1000 - timings.restartedAtS;
    const { rows } = await db.query(`SELECT id, status, reason, delivered_at, failed_at, cancelled_at FROM messages WHERE id = ANY($1)`, [ids]);
    result = { ids, to, cancelled, streams, rows: new Map(rows.map((r) => [r.id, r])), inFlightAtKill, hits: [...receiver.hits] };
    timings.totalS = (Date.now() - t0) / 1000;
    console.log('crash-bulk timings', JSON.stringify(timings));
  }, 240_000);

  afterAll(async () => {
    await killAllEngageProcesses();
    await receiver?.close();
    await db?.end();
  });

  it('every accepted message has exactly one terminal status in the read model, the one its recipient calls for', () => {
    const { ids, to, cancelled, rows } = result;
    expect(rows.size).toBe(N);
    for (const id of ids) {
      const row = rows.get(id)!;
      const want = cancelled.has(id) ? { status: 'cancelled' } : expectedEnd(to.get(id)!);
      expect(row.status, id).toBe(want.status);
      if (want.reason) expect(row.reason, id).toBe(want.reason);
      const stamps = [row.delivered_at, row.failed_at, row.cancelled_at].filter((x) => x !== null);
      expect(stamps, `${id}: one terminal timestamp`).toHaveLength(1);
    }
  });

  it('every message stream holds exactly one terminal event, last, and at most one MessageSent', () => {
    const { ids, to, cancelled, streams } = result;
    expect(streams.size).toBe(N);
    const terminalType = { delivered: 'MessageDelivered', failed: 'MessageFailed', cancelled: 'MessageCancelled' } as Record<string, string>;
    for (const id of ids) {
      const s = streams.get(id)!;
      const terminals = s.types.filter((t) => TERMINAL.includes(t));
      const want = cancelled.has(id) ? 'cancelled' : expectedEnd(to.get(id)!).status;
      expect(terminals, `${id}: ${s.types.join(',')}`).toEqual([terminalType[want]]);
      expect(s.types[s.types.length - 1], `${id}: ${s.types.join(',')}`).toBe(terminalType[want]);
      // sent once (a report that needed a send), or never (rejected at send, cancelled)
      const sends = countOf(s.types, 'MessageSent');
      expect(sends, `${id}: ${s.types.join(',')}`).toBe(want === 'cancelled' || to.get(id) === '+15005550001' ? 0 : 1);
    }
  });

  it('every status callback arrived; a callback sent again after the crash carries the same event id and body', () => {
    const { ids, streams, hits, inFlightAtKill, cancelled } = result;
    const expected = new Map<string, { messageId: string; type: string }>();
    for (const id of ids) for (const c of callbackEvents(streams.get(id)!)) expected.set(c.eventId, { messageId: id, type: c.type });

    const byEvent = new Map<string, Hit[]>();
    for (const hit of hits) {
      const eventId = h(hit, 'x-service-event-id');
      expect(hit.json?.id, 'the body id is the header id').toBe(eventId);
      expect(hit.json?.type).toBe(h(hit, 'x-service-event'));
      byEvent.set(eventId, [...(byEvent.get(eventId) ?? []), hit]);
    }
    // nothing missing, nothing invented
    expect([...expected.keys()].filter((e) => !byEvent.has(e)), 'callbacks that never arrived').toEqual([]);
    expect([...byEvent.keys()].filter((e) => !expected.has(e)), 'callbacks for no recorded event').toEqual([]);
    for (const [eventId, got] of byEvent) {
      const want = expected.get(eventId)!;
      expect(new Set(got.map((x) => x.body)).size, `${eventId}: every copy has the same body`).toBe(1);
      expect(got[0].json.type, eventId).toBe(want.type);
      expect(got[0].json.data.message_id, eventId).toBe(want.messageId);
    }
    // what was in flight at the kill was sent again, as the same event
    for (const eventId of inFlightAtKill) expect(byEvent.get(eventId)!.length, eventId).toBeGreaterThanOrEqual(2);
    // each message's terminal status reached its webhook_url (cancelled messages have none to send)
    const terminalCallbacks = new Map<string, number>();
    for (const c of expected.values()) {
      if (c.type === 'message.delivered' || c.type === 'message.failed') terminalCallbacks.set(c.messageId, (terminalCallbacks.get(c.messageId) ?? 0) + 1);
    }
    for (const id of ids) expect(terminalCallbacks.get(id) ?? 0, id).toBe(cancelled.has(id) ? 0 : 1);
    const duplicates = [...byEvent.values()].filter((x) => x.length > 1).length;
    console.log(`crash-bulk callbacks: ${byEvent.size} events, ${hits.length} requests, ${duplicates} events delivered more than once`);
  });
});

/** The per-message callbacks a message stream calls for: one per status event, identified by `evt_<event id>`. */
function callbackEvents(s: StreamSummary): { eventId: string; type: string }[] {
  const out: { eventId: string; type: string }[] = [];
  for (const e of s.events) {
    const type = e.type === 'MessageAccepted' ? (e.data.status === 'queued' ? 'message.queued' : undefined) : CALLBACK_OF[e.type];
    if (type) out.push({ eventId: `evt_${e.id}`, type });
  }
  return out;
}
