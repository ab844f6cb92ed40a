// Sending policy, applied by the dispatcher before any provider call: suppressed recipients fail,
// marketing messages respect the per-recipient daily cap and the recipient's quiet hours, and
// transactional messages (transactional: true or category "transactional") bypass both.
import { beforeAll, describe, expect, it } from 'vitest';
import { suppressRecipient } from '../../src/messages/suppressions.ts';
import { readyAccount, type TestAccount } from '../support/accounts.ts';
import { testServerForSuite, type TestServer } from '../support/harness.ts';
import { timeline, type TimelineEvent } from '../support/messages.ts';
import { eventually } from '../support/waits.ts';

/**
 * For one describe block: a server started with `overrides` (made as it starts, before the block's
 * tests) and a ready account on it, with helpers to send and read messages as that account.
 */
function policySuite(overrides: () => Record<string, string>) {
  const server = testServerForSuite(overrides);
  let account: TestAccount | undefined;
  beforeAll(async () => {
    account = await readyAccount(server);
  });
  return helpers(server, () => account!);
}

function helpers(server: TestServer, account: () => TestAccount) {
  return {
    server,
    get key() {
      return account().key;
    },
    get accountId() {
      return account().accountId;
    },
    async send(body: Record<string, unknown>): Promise<string> {
      const res = await server.call('POST', '/v1/messages/send', { key: account().key, body });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      return res.body.id;
    },
    async get(id: string) {
      return (await server.call('GET', `/v1/messages/${id}`, { key: account().key })).body;
    },
    timeline: (id: string) => timeline(server, account().key, id),
    /** waits until the message's last event is one of `types`, and the read model has it too */
    async settled(id: string, types: string[]): Promise<TimelineEvent[]> {
      return eventually(`${id} to reach ${types.join('|')}`, async () => {
        const res = await server.call('GET', `/v1/messages/${id}/timeline`, { key: account().key });
        const events: TimelineEvent[] = res.body.events;
        const last = events[events.length - 1];
        if (!types.includes(last.type)) return undefined;
        const { rows } = await server.engage.pool.query<{ revision: string }>('SELECT revision::text FROM messages WHERE id = $1', [id]);
        return rows[0]?.revision === String(last.revision) ? events : undefined;
      });
    },
    calls: () => server.workers.messaging!.providers.sandbox.calls,
    async notBefore(id: string): Promise<Date | null> {
      const { rows } = await server.engage.pool.query<{ not_before: Date | null }>('SELECT not_before FROM messages WHERE id = $1', [id]);
      return rows[0].not_before;
    },
  };
}

describe('suppressions and the marketing cap', () => {
  const h = policySuite(() => ({ MARKETING_CAP_PER_DAY: '2' }));

  it('fails a message to a suppressed recipient without calling the provider, and the timeline says why', async () => {
    for (const address of ['+14155550160', 'suppressed@example.com']) {
      // (manual: an unsubscribe blocks marketing only, test/unsubscribes/one-click.test.ts)
      const r = await suppressRecipient(h.server.engage, { accountId: h.accountId, address, reason: 'manual', source: 'test' }, { accountId: h.accountId, actor: 'test' });
      await h.server.engage.runner.waitFor(['suppressions'], r.position!, 5000);
    }
    const ids = [
      await h.send({ to: '+14155550160', channel: 'sms', message: 'promo' }),
      // a suppression other than an unsubscribe is not a marketing rule: transactional messages to the address fail too
      await h.send({ to: 'Suppressed@Example.com', channel: 'email', subject: 'receipt', message: 'receipt', transactional: true }),
    ];
    // a recipient that is not suppressed goes through
    const fine = await h.send({ to: '+14155550161', channel: 'sms', message: 'promo' });
    for (const id of ids) {
      const events = await h.settled(id, ['MessageFailed', 'MessageDelivered']);
      expect(events.map((e) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageFailed']);
      expect(events[2]).toMatchObject({ status: 'failed', reason: 'suppressed' });
      expect(events[2].details).toMatchObject({ stage: 'policy' });
      expect(await h.get(id)).toMatchObject({ status: 'failed', reason: 'suppressed', sent_at: null });
      expect(h.calls().has(id), 'the provider was called for a suppressed recipient').toBe(false);
    }
    await h.settled(fine, ['MessageDelivered']);
  });

  it('holds the third marketing message to one recipient in 24 h (one bulk); transactional ones bypass the cap', async () => {
    const contact = await h.server.call('POST', '/v1/contacts', { key: h.key, body: { phone: '+14155550170', timezone: 'UTC', first_name: 'Capped' } });
    expect(contact.status).toBe(201);
    const bulk = await h.server.call('POST', '/v1/messages/bulk', {
      key: h.key,
      body: { messages: [1, 2, 3].map((n) => ({ to: '+14155550170', channel: 'sms', message: `offer ${n}` })) },
    });
    expect(bulk.body.accepted).toBe(3);
    const [m1, m2, m3] = bulk.body.results.map((r: { id: string }) => r.id);
    await h.settled(m1, ['MessageDelivered']);
    await h.settled(m2, ['MessageDelivered']);
    const held = await h.settled(m3, ['MessageHeld']);
    expect(held.map((e) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageHeld']);
    expect(held[2]).toMatchObject({ reason: 'marketing_cap' });
    const firstSent = Date.parse((await h.get(m1)).sent_at);
    const until = Date.parse(held[2].details.until);
    // held until the oldest of the two sends is 24 h old
    expect(Math.abs(until - (firstSent + 24 * 3600_000))).toBeLessThan(2000);
    expect(await h.get(m3)).toMatchObject({ status: 'queued', reason: 'marketing_cap', sent_at: null });
    expect((await h.notBefore(m3))!.getTime()).toBe(until);
    expect(h.calls().has(m3)).toBe(false);

    // transactional messages to the same recipient are not capped, either way of saying so
    const t1 = await h.send({ to: '+14155550170', channel: 'sms', message: 'your code is 1234', transactional: true });
    const t2 = await h.send({ to: '+14155550170', channel: 'sms', message: 'your receipt', category: 'transactional' });
    for (const id of [t1, t2]) {
      const events = await h.settled(id, ['MessageDelivered', 'MessageHeld']);
      expect(events.map((e) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
    }
    // and they do not use up the cap: a fourth marketing message is still held
    const m4 = await h.send({ to: '+14155550170', channel: 'sms', message: 'offer 4' });
    expect((await h.settled(m4, ['MessageHeld', 'MessageDelivered'])).at(-1)).toMatchObject({ type: 'MessageHeld', reason: 'marketing_cap' });
  });

  it('shows a held message’s hold where it is known, once dispatched: GET and history carry held {reason, until}; a message sent carries none', async () => {
    const send = await h.server.call('POST', '/v1/messages/send', { key: h.key, body: { to: '+14155550173', channel: 'sms', message: 'sale 0' } });
    // nothing sent to the recipient yet: nothing will hold it
    expect(send.body).not.toHaveProperty('held');
    const bulk = await h.server.call('POST', '/v1/messages/bulk', {
      key: h.key,
      body: { messages: [1, 2].map((n) => ({ to: '+14155550173', channel: 'sms', message: `sale ${n}` })) },
    });
    expect(bulk.body.accepted).toBe(2);
    const ids: string[] = [send.body.id, ...bulk.body.results.map((r: { id: string }) => r.id)];
    const ends = await Promise.all(ids.map((id) => h.settled(id, ['MessageDelivered', 'MessageHeld'])));
    const heldAt = ends.findIndex((events) => events.at(-1)!.type === 'MessageHeld');
    expect(heldAt, 'one of the three is held by the cap of 2').toBeGreaterThanOrEqual(0);
    const until = ends[heldAt]!.at(-1)!.details.until as string;

    const held = await h.get(ids[heldAt]!);
    expect(held).toMatchObject({ status: 'queued', reason: 'marketing_cap', held: { reason: 'marketing_cap', until } });
    for (const id of ids.filter((_, i) => i !== heldAt)) expect(await h.get(id)).toMatchObject({ status: 'delivered', held: null });
    const history = await h.server.call('GET', `/v1/messages/history?to=${encodeURIComponent('+14155550173')}`, { key: h.key });
    expect(history.body.data.find((m: { id: string }) => m.id === ids[heldAt])).toMatchObject({ held: { reason: 'marketing_cap', until } });
  });

  it("says in a send's answer that the marketing cap will hold it, until the oldest of the day's sends is 24 h old; a transactional send is not held", async () => {
    const to = '+14155550174';
    const first = await h.send({ to, channel: 'sms', message: 'deal 1' });
    await h.settled(first, ['MessageDelivered']);
    const second = await h.send({ to, channel: 'sms', message: 'deal 2' });
    const delivered = await h.settled(second, ['MessageDelivered']);
    // two sent in 24 h, the cap: the third would wait until the first is a day old
    const third = await h.server.call('POST', '/v1/messages/send', { key: h.key, body: { to, channel: 'sms', message: 'deal 3' } });
    expect(third.status).toBe(202);
    expect(third.body.held).toMatchObject({ reason: 'marketing_cap' });
    const firstSent = Date.parse((await h.timeline(first)).find((e) => e.type === 'MessageSent')!.at);
    const until = Date.parse(third.body.held.until);
    expect(Math.abs(until - (firstSent + 24 * 3600_000))).toBeLessThan(5_000);
    expect(until).toBeLessThan(Date.parse(delivered.at(-1)!.at) + 24 * 3600_000);
    // and the dispatcher holds it so
    const held = await h.settled(third.body.id, ['MessageHeld', 'MessageDelivered']);
    expect(held.at(-1)).toMatchObject({ type: 'MessageHeld', reason: 'marketing_cap' });
    const receipt = await h.server.call('POST', '/v1/messages/send', { key: h.key, body: { to, channel: 'sms', message: 'your receipt', transactional: true } });
    expect(receipt.status).toBe(202);
    expect(receipt.body).not.toHaveProperty('held');
  });

  it('caps three marketing messages sent one by one in quick succession (separate dispatch rounds) too', async () => {
    const ids = await Promise.all([1, 2, 3].map((n) => h.send({ to: '+14155550171', channel: 'sms', message: `flash ${n}` })));
    const ends = await Promise.all(ids.map((id) => h.settled(id, ['MessageDelivered', 'MessageHeld'])));
    const outcome = ends.map((events) => events.at(-1)!.type).sort();
    expect(outcome).toEqual(['MessageDelivered', 'MessageDelivered', 'MessageHeld']);
    expect(ids.filter((id) => h.calls().has(id))).toHaveLength(2);
  });
});

describe('the marketing cap across dispatch rounds the read model has not caught up with', () => {
  // one message a round: each round decides right after the one before recorded its send
  const h = policySuite(() => ({ MARKETING_CAP_PER_DAY: '2', DISPATCH_BATCH_SIZE: '1' }));

  it('counts the sends of the rounds just before: of four marketing messages to one recipient two go out; other recipients and transactional ones are not held', async () => {
    const bulk = await h.server.call('POST', '/v1/messages/bulk', {
      key: h.key,
      body: {
        messages: [
          ...[1, 2, 3, 4].map((n) => ({ to: '+14155550172', channel: 'sms', message: `deal ${n}` })),
          ...[1, 2].map((n) => ({ to: `+1415555018${n}`, channel: 'sms', message: 'deal' })),
          { to: '+14155550172', channel: 'sms', message: 'your code is 1234', transactional: true },
        ],
      },
    });
    expect(bulk.body.accepted).toBe(7);
    const ids: string[] = bulk.body.results.map((r: { id: string }) => r.id);
    const ends = await Promise.all(ids.map((id) => h.settled(id, ['MessageDelivered', 'MessageHeld'])));
    const last = ends.map((events) => events.at(-1)!);
    expect(last.slice(0, 4).map((e) => e.type).sort()).toEqual(['MessageDelivered', 'MessageDelivered', 'MessageHeld', 'MessageHeld']);
    expect(last.slice(0, 4).filter((e) => e.type === 'MessageHeld').every((e) => e.reason === 'marketing_cap')).toBe(true);
    expect(last.slice(4).map((e) => e.type)).toEqual(['MessageDelivered', 'MessageDelivered', 'MessageDelivered']);
    expect(ids.slice(0, 4).filter((id) => h.calls().has(id))).toHaveLength(2);
  });
});

/** The message was claimed, then held for quiet hours until `until` (its timeline says so). */
async function expectHeldForQuietHours(h: ReturnType<typeof helpers>, id: string, until: Date): Promise<void> {
  const held = await h.settled(id, ['MessageHeld', 'MessageDelivered']);
  expect(held.map((e) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageHeld']);
  expect(held[2]).toMatchObject({ reason: 'quiet_hours' });
  expect(held[2].details.until).toBe(until.toISOString());
  expect((await h.get(id)).held).toEqual({ reason: 'quiet_hours', until: until.toISOString() });
}

/** "HH:MM" of a time in UTC */
const hhmm = (d: Date) => d.toISOString().slice(11, 16);

/**
 * Settings for quiet hours in UTC from half an hour before the server starts until the first minute
 * boundary at least `endsInMs` after; the default time zone is twelve hours ahead, outside them.
 * `end()` is when they end.
 */
function quietHoursFromStart(endsInMs: number) {
  let end: Date | undefined;
  return {
    overrides() {
      const now = Date.now();
      end = new Date(Math.ceil((now + endsInMs) / 60_000) * 60_000);
      return { QUIET_HOURS: `${hhmm(new Date(now - 30 * 60_000))}-${hhmm(end)}`, DEFAULT_TIMEZONE: 'Etc/GMT-12' };
    },
    end: () => end!,
  };
}

describe('quiet hours', () => {
  // quiet hours until the next minute boundary at least 15 s away, so a held message is released
  // within the test; only a contact whose own time zone is UTC is in them
  const quietHours = quietHoursFromStart(15_000);
  const h = policySuite(quietHours.overrides);

  it('holds a marketing message to a contact in quiet hours until they end, sends transactional at once, then releases the held one', async () => {
    const contact = await h.server.call('POST', '/v1/contacts', { key: h.key, body: { phone: '+14155550180', timezone: 'UTC', first_name: 'Sleeper' } });
    expect(contact.status).toBe(201);
    const sent = await h.server.call('POST', '/v1/messages/send', { key: h.key, body: { to: '+14155550180', channel: 'sms', message: 'late offer' } });
    // the answer says it will wait for the end of the recipient's quiet hours
    expect(sent.body.held).toEqual({ reason: 'quiet_hours', until: quietHours.end().toISOString() });
    const marketing: string = sent.body.id;
    const code = await h.server.call('POST', '/v1/messages/send', { key: h.key, body: { to: '+14155550180', channel: 'sms', message: 'your code', transactional: true } });
    expect(code.body).not.toHaveProperty('held');
    const transactional: string = code.body.id;
    // no contact: the account's time zone applies, where it is not quiet
    const elsewhere = await h.send({ to: '+14155550181', channel: 'sms', message: 'offer' });

    await expectHeldForQuietHours(h, marketing, quietHours.end());
    expect(await h.get(marketing)).toMatchObject({ status: 'queued', reason: 'quiet_hours' });
    expect((await h.notBefore(marketing))!.toISOString()).toBe(quietHours.end().toISOString());
    expect(h.calls().has(marketing)).toBe(false);

    expect((await h.settled(transactional, ['MessageDelivered', 'MessageHeld'])).map((e) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
    expect((await h.settled(elsewhere, ['MessageDelivered', 'MessageHeld'])).map((e) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);

    // quiet hours end: the held message goes out then, not before
    const released = await eventually(
      'the held message to be delivered after quiet hours',
      async () => {
        const events = await h.timeline(marketing);
        return events.at(-1)!.type === 'MessageDelivered' ? events : undefined;
      },
      Math.max(0, quietHours.end().getTime() - Date.now()) + 30_000,
      200,
    );
    expect(released.map((e) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageHeld', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
    expect(Date.parse(released[3].at)).toBeGreaterThanOrEqual(quietHours.end().getTime());
    // a hold is not a delivery attempt
    expect(released[3].details.attempt).toBe(1);
    expect(h.calls().get(marketing)).toBe(1);
  }, 120_000);
});

describe('quiet hours in the account’s time zone', () => {
  // quiet hours until an hour from now in UTC
  const quietHours = quietHoursFromStart(60 * 60_000);
  const h = policySuite(quietHours.overrides);

  it('applies to a recipient without a contact time zone; a contact’s own time zone wins; an account without one falls back to DEFAULT_TIMEZONE', async () => {
    const set = await h.server.call('PATCH', '/v1/account/settings', { key: h.key, body: { timezone: 'UTC' } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    // a contact without a time zone, and a recipient that is no contact: the account's UTC, quiet
    expect((await h.server.call('POST', '/v1/contacts', { key: h.key, body: { phone: '+14155550190', first_name: 'No zone' } })).status).toBe(201);
    // a contact of its own time zone (twelve hours ahead): not quiet
    expect((await h.server.call('POST', '/v1/contacts', { key: h.key, body: { phone: '+14155550192', timezone: 'Etc/GMT-12' } })).status).toBe(201);
    const quiet = [await h.send({ to: '+14155550190', channel: 'sms', message: 'offer' }), await h.send({ to: '+14155550191', channel: 'sms', message: 'offer' })];
    const ownZone = await h.send({ to: '+14155550192', channel: 'sms', message: 'offer' });

    for (const id of quiet) {
      await expectHeldForQuietHours(h, id, quietHours.end());
      expect(h.calls().has(id)).toBe(false);
    }
    expect((await h.settled(ownZone, ['MessageDelivered', 'MessageHeld'])).map((e) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);

    // another account, without a time zone: DEFAULT_TIMEZONE, not quiet
    const other = await readyAccount(h.server);
    const res = await h.server.call('POST', '/v1/messages/send', { key: other.key, body: { to: '+14155550191', channel: 'sms', message: 'offer' } });
    expect(res.status).toBe(202);
    const otherEvents = await eventually(`${res.body.id} to be decided`, async () => {
      const events: TimelineEvent[] = (await h.server.call('GET', `/v1/messages/${res.body.id}/timeline`, { key: other.key })).body.events;
      return ['MessageDelivered', 'MessageHeld'].includes(events.at(-1)!.type) ? events : undefined;
    });
    expect(otherEvents.map((e) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
  }, 120_000);
});
