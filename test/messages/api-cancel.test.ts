// DELETE /v1/messages/:id, POST /v1/messages/:id/resend and GET /v1/messages/:id/timeline over HTTP
// (README "Messaging"): cancelling scheduled and queued messages, the
// 409 not_cancellable body, the scheduler never queueing a cancelled message, the cancel/dispatch
// race decided atomically, resend as a new message, and the timeline of a message.
import { beforeAll, describe, expect, it } from 'vitest';
import { messageDecider, messageStream } from '../../commands/message.ts';
import { handleCommand } from '../../src/command-handler.ts';
import type { EventStore } from '../../src/eventstore/port.ts';
import { readyAccount, type TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { sleep, until } from '../support/waits.ts';

// a loaded machine must not turn read-your-writes into a flaky read: wait for the read model as long as it takes
const SETTLE_MS = '60000';
type Account = TestAccount;
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

function expectNotCancellable(res: { status: number; body: any }, status: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(409);
  expect(res.body).toEqual({ error: 'not_cancellable', message: expect.any(String), status });
}

describe('with the workers running', () => {
  let acct: Account;
  let other: Account;

  async function send(body: Record<string, unknown>, k = acct.key) {
    const res = await server.call('POST', '/v1/messages/send', { key: k, body });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body as { id: string; status: string; created_at: string; scheduled_at: string | null };
  }
  const get = (id: string, k = acct.key) => server.call('GET', `/v1/messages/${id}`, { key: k });
  const statusOf = async (id: string) => (await get(id)).body.status as string;

  const server = testServerForSuite({ READ_YOUR_WRITES_TIMEOUT_MS: SETTLE_MS });
  beforeAll(async () => {
    acct = await readyAccount(server, 'Canceller');
    other = await readyAccount(server, 'Someone else');
  });

  describe('DELETE /v1/messages/:id', () => {
    it('cancels a message scheduled an hour ahead: 200 cancelled, and GET and history show it cancelled', async () => {
      const msg = await send({ to: '+14155550130', channel: 'sms', message: 'later', scheduled_at: inAnHour() });
      expect(msg.status).toBe('scheduled');
      const res = await server.call('DELETE', `/v1/messages/${msg.id}`, { key: acct.key });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ id: msg.id, status: 'cancelled', cancelled_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
      const got = await get(msg.id);
      expect(got.body).toMatchObject({ id: msg.id, status: 'cancelled', cancelled_at: res.body.cancelled_at, scheduled_at: msg.scheduled_at });
      const cancelled = await server.call('GET', '/v1/messages/history?status=cancelled', { key: acct.key });
      expect(cancelled.body.data.map((x: { id: string }) => x.id)).toContain(msg.id);
      const scheduled = await server.call('GET', '/v1/messages/history?status=scheduled', { key: acct.key });
      expect(scheduled.body.data.map((x: { id: string }) => x.id)).not.toContain(msg.id);
    });

    it('answers 409 not_cancellable with status cancelled when cancelling again', async () => {
      const msg = await send({ to: '+14155550131', channel: 'sms', message: 'later', scheduled_at: inAnHour() });
      expect((await server.call('DELETE', `/v1/messages/${msg.id}`, { key: acct.key })).status).toBe(200);
      expectNotCancellable(await server.call('DELETE', `/v1/messages/${msg.id}`, { key: acct.key }), 'cancelled');
      const timeline = await server.call('GET', `/v1/messages/${msg.id}/timeline`, { key: acct.key });
      expect(timeline.body.events.filter((e: { type: string }) => e.type === 'MessageCancelled')).toHaveLength(1);
    });

    it('the scheduler never queues a cancelled message, while it does queue and deliver its uncancelled twin', async () => {
      const at = new Date(Date.now() + 2_000).toISOString();
      const cancelled = await send({ to: '+14155550132', channel: 'sms', message: 'soon', scheduled_at: at });
      const twin = await send({ to: '+14155550133', channel: 'sms', message: 'soon', scheduled_at: at });
      expect((await server.call('DELETE', `/v1/messages/${cancelled.id}`, { key: acct.key })).status).toBe(200);

      // the twin proves the scheduler and dispatcher ran past scheduled_at
      expect(await until(() => statusOf(twin.id), (s) => s === 'delivered', 60_000)).toBe('delivered');
      // and a forced scheduler round finds nothing due
      expect(await server.workers.messaging!.scheduler.queueDue()).toBe(0);

      expect(await statusOf(cancelled.id)).toBe('cancelled');
      const timeline = await server.call('GET', `/v1/messages/${cancelled.id}/timeline`, { key: acct.key });
      expect(timeline.body.events.map((e: { type: string }) => e.type)).toEqual(['MessageAccepted', 'MessageCancelled']);
    });

    it('answers 409 not_cancellable naming the status for a delivered or failed message', async () => {
      const ok = await send({ to: '+14155550134', channel: 'sms', message: 'now' });
      expect(await until(() => statusOf(ok.id), (s) => s === 'delivered', 60_000)).toBe('delivered');
      expectNotCancellable(await server.call('DELETE', `/v1/messages/${ok.id}`, { key: acct.key }), 'delivered');

      const bad = await send({ to: '+15005550001', channel: 'sms', message: 'rejected by the sandbox' });
      expect(await until(() => statusOf(bad.id), (s) => s === 'failed', 60_000)).toBe('failed');
      expectNotCancellable(await server.call('DELETE', `/v1/messages/${bad.id}`, { key: acct.key }), 'failed');
      expect(await statusOf(ok.id)).toBe('delivered');
    });

    it("answers 404 for an unknown id and for another account's message, which stays scheduled", async () => {
      for (const id of ['msg_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'nope']) {
        const res = await server.call('DELETE', `/v1/messages/${id}`, { key: acct.key });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
      }
      const theirs = await send({ to: '+14155550135', channel: 'sms', message: 'theirs', scheduled_at: inAnHour() }, other.key);
      const res = await server.call('DELETE', `/v1/messages/${theirs.id}`, { key: acct.key });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('not_found');
      expect((await get(theirs.id, other.key)).body.status).toBe('scheduled');
    });

    it('accepts a dashboard session', async () => {
      const login = await server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: acct.password } });
      const msg = await send({ to: '+14155550136', channel: 'sms', message: 'later', scheduled_at: inAnHour() });
      const res = await server.call('DELETE', `/v1/messages/${msg.id}`, { token: login.body.token });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('cancelled');
    });
  });

  describe('POST /v1/messages/:id/resend', () => {
    it('creates a new message to the same recipient with the same content, marked resend_of', async () => {
      const original = await send({
        to: 'Carol@Example.com',
        channel: 'email',
        message: 'plain 👋',
        htmlmessage: '<p>html 👋</p>',
        subject: 'Receipt',
        reply_to: 'billing@example.com',
        from_name: 'Billing',
        headers: { 'X-Order': '42' },
        transactional: true,
        category: 'transactional',
        webhook_url: 'https://hooks.example.com/r',
      });
      const res = await server.call('POST', `/v1/messages/${original.id}/resend`, { key: acct.key });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body).toMatchObject({ id: expect.stringMatching(/^msg_/), status: 'queued', channel: 'email', to: 'carol@example.com', resend_of: original.id });
      expect(res.body.id).not.toBe(original.id);

      const [a, b] = [(await get(original.id)).body, (await get(res.body.id)).body];
      expect(b.resend_of).toBe(original.id);
      expect(a.resend_of).toBeNull();
      for (const field of ['to', 'channel', 'message', 'htmlmessage', 'subject', 'reply_to', 'from_name', 'headers', 'transactional', 'category', 'webhook_url']) {
        expect(b[field], field).toEqual(a[field]);
      }
      const hist = await server.call('GET', `/v1/messages/history?to=${encodeURIComponent('carol@example.com')}`, { key: acct.key });
      expect(hist.body.data.map((x: { id: string }) => x.id)).toEqual([res.body.id, original.id]);
    });

    it('resends a cancelled scheduled message as a new message for now, leaving the original cancelled', async () => {
      const msg = await send({ to: '+14155550137', channel: 'sms', message: 'try again', scheduled_at: inAnHour() });
      await server.call('DELETE', `/v1/messages/${msg.id}`, { key: acct.key });
      const res = await server.call('POST', `/v1/messages/${msg.id}/resend`, { key: acct.key });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'queued', scheduled_at: null, to: '+14155550137', resend_of: msg.id });
      expect(await statusOf(msg.id)).toBe('cancelled');
    });

    it("answers 404 for another account's message or an unknown id, and creates nothing", async () => {
      const theirs = await send({ to: '+14155550138', channel: 'sms', message: 'private' }, other.key);
      const before = (await server.call('GET', '/v1/messages/history?limit=500', { key: acct.key })).body.data.length;
      for (const id of [theirs.id, 'msg_01ARZ3NDEKTSV4RRFFQ69G5FAV']) {
        const res = await server.call('POST', `/v1/messages/${id}/resend`, { key: acct.key });
        expect(res.status).toBe(404);
        expect(res.body.error).toBe('not_found');
      }
      const after = (await server.call('GET', '/v1/messages/history?limit=500', { key: acct.key })).body.data;
      expect(after.length).toBe(before);
      expect(after.some((x: { message: string }) => x.message === 'private')).toBe(false);
    });

    it('rejects a body with fields', async () => {
      const msg = await send({ to: '+14155550139', channel: 'sms', message: 'x' });
      const res = await server.call('POST', `/v1/messages/${msg.id}/resend`, { key: acct.key, body: { to: '+14155550140' } });
      expect(res.status).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain('to');
    });
  });

  describe('GET /v1/messages/:id/timeline', () => {
    it('lists a scheduled-then-cancelled message: type, status, at, reason, details, revision, position', async () => {
      const at = inAnHour();
      const msg = await send({ to: '+14155550141', channel: 'sms', message: 'timeline', scheduled_at: at });
      const del = await server.call('DELETE', `/v1/messages/${msg.id}`, { key: acct.key });
      const res = await server.call('GET', `/v1/messages/${msg.id}/timeline`, { key: acct.key });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: msg.id, status: 'cancelled' });
      const [accepted, cancelled] = res.body.events;
      expect(res.body.events).toHaveLength(2);
      expect(accepted).toMatchObject({ type: 'MessageAccepted', status: 'scheduled', at: msg.created_at, reason: null, revision: 0, details: { scheduled_at: new Date(at).toISOString() } });
      expect(cancelled).toMatchObject({ type: 'MessageCancelled', status: 'cancelled', at: del.body.cancelled_at, reason: null, revision: 1, details: { previous_status: 'scheduled' } });
      for (const e of res.body.events) {
        expect(Object.keys(e)).toEqual(expect.arrayContaining(['type', 'status', 'at', 'reason', 'details', 'revision', 'position']));
        expect(e.position).toMatch(/^\d+\/\d+$/);
        expect(e.actor).toMatch(/^key_/);
      }
      const pos = (p: string) => BigInt(p.split('/')[0]);
      expect(pos(cancelled.position)).toBeGreaterThan(pos(accepted.position));
    });

    it('lists a delivered message with its provider details, and a failed one with its reason', async () => {
      const msg = await send({ to: '+14155550142', channel: 'sms', message: 'deliver me' });
      await until(() => statusOf(msg.id), (s) => s === 'delivered', 60_000);
      const res = await server.call('GET', `/v1/messages/${msg.id}/timeline`, { key: acct.key });
      expect(res.body.status).toBe('delivered');
      const events = res.body.events as any[];
      expect(events.map((e) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
      expect(events.map((e) => e.status)).toEqual(['queued', null, 'sent', 'delivered']);
      expect(events.map((e) => e.revision)).toEqual([0, 1, 2, 3]);
      expect(events[2].details).toMatchObject({ provider: 'sandbox', provider_message_id: `sbx_${msg.id}` });
      expect(events[1].details).toMatchObject({ attempt: 1 });

      const bad = await send({ to: '+15005550001', channel: 'sms', message: 'x' });
      await until(() => statusOf(bad.id), (s) => s === 'failed', 60_000);
      const failed = await server.call('GET', `/v1/messages/${bad.id}/timeline`, { key: acct.key });
      const last = failed.body.events.at(-1);
      expect(last).toMatchObject({ type: 'MessageFailed', status: 'failed', reason: 'invalid_number' });
    });

    it("answers 404 for another account's message and for an unknown id", async () => {
      const theirs = await send({ to: '+14155550143', channel: 'sms', message: 'x', scheduled_at: inAnHour() }, other.key);
      for (const id of [theirs.id, 'msg_01ARZ3NDEKTSV4RRFFQ69G5FAV']) {
        const res = await server.call('GET', `/v1/messages/${id}/timeline`, { key: acct.key });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
      }
    });
  });
});

describe('with the workers stopped (nothing is dispatched)', () => {
  let acct: Account;

  async function send(body: Record<string, unknown>) {
    const res = await server.call('POST', '/v1/messages/send', { key: acct.key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body as { id: string; status: string };
  }

  /** Lets another writer append to the message's stream right after the cancel has read it. */
  function interleave(store: EventStore, messageId: string, competitor: () => Promise<unknown>) {
    const original = store.readStream.bind(store);
    let fired = false;
    store.readStream = (async (...args: Parameters<EventStore['readStream']>) => {
      const read = await original(...args);
      if (!fired && args[0] === messageStream(messageId)) {
        fired = true;
        await competitor();
      }
      return read;
    }) as EventStore['readStream'];
    return () => {
      store.readStream = original;
      return fired;
    };
  }

  const server = testServerForSuite({ WORKERS_ENABLED: 'false', READ_YOUR_WRITES_TIMEOUT_MS: SETTLE_MS });
  beforeAll(async () => {
    acct = await readyAccount(server);
  });

  it('has no workers: a queued message stays queued', async () => {
    expect(server.workers.messaging).toBeUndefined();
    const msg = await send({ to: '+14155550150', channel: 'sms', message: 'q' });
    await sleep(300);
    expect((await server.call('GET', `/v1/messages/${msg.id}`, { key: acct.key })).body.status).toBe('queued');
  });

  it('cancels a queued message not yet picked up', async () => {
    const msg = await send({ to: '+14155550151', channel: 'sms', message: 'queued' });
    expect(msg.status).toBe('queued');
    const res = await server.call('DELETE', `/v1/messages/${msg.id}`, { key: acct.key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('cancelled');
    const timeline = await server.call('GET', `/v1/messages/${msg.id}/timeline`, { key: acct.key });
    expect(timeline.body.events.at(-1)).toMatchObject({ type: 'MessageCancelled', details: { previous_status: 'queued' } });
  });

  it('answers 409 not_cancellable for a queued message a dispatcher has already claimed', async () => {
    const msg = await send({ to: '+14155550152', channel: 'sms', message: 'claimed' });
    await handleCommand(server.engage.store, messageDecider, messageStream(msg.id), { type: 'Claim', worker: 'test', now: new Date(), leaseMs: 60_000 }, { actor: 'test' });
    expectNotCancellable(await server.call('DELETE', `/v1/messages/${msg.id}`, { key: acct.key }), 'queued');
  });

  it('when a dispatcher claims the message between the cancel reading and appending, the cancel loses with 409 (not a 500)', async () => {
    const msg = await send({ to: '+14155550153', channel: 'sms', message: 'race' });
    const restore = interleave(server.engage.store, msg.id, () =>
      handleCommand(server.engage.store, messageDecider, messageStream(msg.id), { type: 'Claim', worker: 'racer', now: new Date(), leaseMs: 60_000 }, { actor: 'racer' }),
    );
    const res = await server.call('DELETE', `/v1/messages/${msg.id}`, { key: acct.key });
    expect(restore()).toBe(true);
    expectNotCancellable(res, 'queued');
    const timeline = await server.call('GET', `/v1/messages/${msg.id}/timeline`, { key: acct.key });
    expect(timeline.body.events.map((e: { type: string }) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching']);
  });

  it('when the scheduler queues the message between the cancel reading and appending, the cancel still wins', async () => {
    const msg = await send({ to: '+14155550154', channel: 'sms', message: 'race', scheduled_at: inAnHour() });
    const restore = interleave(server.engage.store, msg.id, () =>
      handleCommand(server.engage.store, messageDecider, messageStream(msg.id), { type: 'QueueDue', now: new Date() }, { actor: 'scheduler' }),
    );
    const res = await server.call('DELETE', `/v1/messages/${msg.id}`, { key: acct.key });
    expect(restore()).toBe(true);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('cancelled');
    const timeline = await server.call('GET', `/v1/messages/${msg.id}/timeline`, { key: acct.key });
    expect(timeline.body.events.map((e: { type: string }) => e.type)).toEqual(['MessageAccepted', 'MessageQueued', 'MessageCancelled']);
    expect(timeline.body.events[2].details).toMatchObject({ previous_status: 'queued' });
    expect(timeline.body.events[1]).toMatchObject({ status: 'queued', reason: 'due' });
  });
});
