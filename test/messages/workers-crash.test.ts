// The dispatcher's crash guarantee, constructed deterministically: a claim left by a dispatcher that
// died between claiming and calling the provider blocks everyone until its lease ends, then the
// message is reclaimed and sent exactly once. And a provider report that overtakes the
// dispatcher's own record of `sent` still leaves exactly one MessageSent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageDecider, messageStream } from '../../commands/message.ts';
import type { ChannelProvider, OutboundMessage, SendOutcome } from '../../src/channels/port.ts';
import { handleCommand } from '../../src/command-handler.ts';
import { type Messaging, startMessaging } from '../../src/workers/messaging.ts';
import { readyAccount } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { timeline, type TimelineEvent } from '../support/messages.ts';
import { eventually } from '../support/waits.ts';

describe('a dispatcher that died between claim and provider call', () => {
  let server: TestServer;
  let key: string;
  let messaging: Messaging | undefined;
  beforeAll(async () => {
    // no workers of its own: the test decides when the real dispatcher starts
    server = await startTestServer({ WORKERS_ENABLED: 'false' });
    ({ key } = await readyAccount(server));
  });
  afterAll(async () => {
    await messaging?.stop();
    await server?.close();
  });

  it('blocks cancel and every dispatcher until its lease ends; then the message is reclaimed and sent once', async () => {
    const res = await server.call('POST', '/v1/messages/send', { key, body: { to: '+14155550177', channel: 'sms', message: 'orphaned claim', transactional: true } });
    expect(res.status).toBe(202);
    const id: string = res.body.id;

    // the dead worker's claim, appended exactly as a dispatcher appends it (decider, expected revision)
    const dead = await handleCommand(
      server.engage.store,
      messageDecider,
      messageStream(id),
      { type: 'Claim', worker: 'dead-host:4242:zzzzzz', now: new Date(), leaseMs: 1500 },
      { actor: 'dispatcher' },
    );
    expect(dead.events.map((e) => e.type)).toEqual(['MessageDispatching']);
    const leaseUntil = Date.parse((dead.events[0].data as { lease_until: string }).lease_until);
    await server.engage.runner.waitFor(['messages'], dead.position!, 5000);

    // picked up: no longer cancellable
    const del = await server.call('DELETE', `/v1/messages/${id}`, { key });
    expect(del.status).toBe(409);
    expect(del.body).toMatchObject({ error: 'not_cancellable', status: 'queued' });

    messaging = await startMessaging(server.engage);
    const calls = messaging.providers.sandbox.calls;
    // watch the provider: when is the message first handed over?
    let firstCallAt: number | undefined;
    await eventually(
      'the message to be handed to the provider',
      async () => {
        if (calls.has(id)) firstCallAt ??= Date.now();
        return firstCallAt;
      },
      30_000,
      5,
    );
    expect(firstCallAt!, 'handed to the provider while the dead claim was still live').toBeGreaterThanOrEqual(leaseUntil);

    await eventually('delivered', async () => ((await server.call('GET', `/v1/messages/${id}`, { key })).body.status === 'delivered' ? true : undefined));
    const events = await timeline(server, key, id);
    expect(events.map((e) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
    expect(events[1].details).toMatchObject({ worker: 'dead-host:4242:zzzzzz', attempt: 1 });
    expect(events[2].details).toMatchObject({ worker: messaging.dispatcher.worker, attempt: 2 });
    expect(Date.parse(events[2].at)).toBeGreaterThanOrEqual(leaseUntil);
    expect(calls.get(id)).toBe(1);
    const row = await server.call('GET', `/v1/messages/${id}`, { key });
    expect(row.body).toMatchObject({ status: 'delivered', attempts: 2, provider: 'sandbox', provider_message_id: `sbx_${id}` });
  });
});

describe('a provider report that overtakes the dispatcher', () => {
  const SECRET = 'sandbox-callback-secret-for-tests';
  let server: TestServer;
  let key: string;
  let messaging: Messaging | undefined;
  const handed: string[] = [];
  beforeAll(async () => {
    server = await startTestServer({ WORKERS_ENABLED: 'false', WEBHOOK_SECRET_SANDBOX: SECRET });
    ({ key } = await readyAccount(server));
    // A carrier whose status callback reaches our webhook endpoint (real HTTP) before its API call
    // returns: the report is recorded while the dispatcher has not yet recorded `sent`.
    const carrier: ChannelProvider = {
      name: 'fast-callback-carrier',
      async send(m: OutboundMessage): Promise<SendOutcome> {
        handed.push(m.id);
        const status = m.to === '+14155550199' ? 'undelivered' : 'delivered';
        const cb = await fetch(`${server.url}/v1/webhooks/sandbox`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-sandbox-secret': SECRET },
          body: JSON.stringify({ message_id: m.id, provider_message_id: `fcc_${m.id}`, status }),
        });
        if (cb.status !== 200) throw new Error(`callback answered ${cb.status}: ${await cb.text()}`);
        return { kind: 'accepted', providerMessageId: `fcc_${m.id}` };
      },
    };
    messaging = await startMessaging(server.engage, { sms: carrier });
  });
  afterAll(async () => {
    await messaging?.stop();
    await server?.close();
  });

  it('still records exactly one MessageSent, before the report, and the message counts as sent', async () => {
    const bulk = await server.call('POST', '/v1/messages/bulk', {
      key,
      body: {
        messages: [
          { to: '+14155550198', channel: 'sms', message: 'a', transactional: true },
          { to: '+14155550199', channel: 'sms', message: 'b', transactional: true },
        ],
      },
    });
    expect(bulk.body.accepted).toBe(2);
    const [ok, bad] = bulk.body.results.map((r: { id: string }) => r.id);
    await eventually('both settled', async () => {
      const a = await server.call('GET', `/v1/messages/${ok}`, { key });
      const b = await server.call('GET', `/v1/messages/${bad}`, { key });
      return a.body.status === 'delivered' && b.body.status === 'failed' ? true : undefined;
    });
    // the dispatcher has recorded its own outcome by now (or found it recorded)
    await eventually('the dispatcher to finish', async () => (messaging!.dispatcher.isDispatching(ok) || messaging!.dispatcher.isDispatching(bad) ? undefined : true));

    const a = await timeline(server, key, ok);
    expect(a.map((e) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
    const b = await timeline(server, key, bad);
    expect(b.map((e) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent', 'MessageFailed']);
    expect(b[3]).toMatchObject({ reason: 'undelivered' });
    expect(b[3].details).toMatchObject({ stage: 'report' });
    expect(handed.filter((x) => x === ok)).toHaveLength(1);
    expect(handed.filter((x) => x === bad)).toHaveLength(1);
    // sent_at is what the marketing cap counts
    const row = await server.call('GET', `/v1/messages/${ok}`, { key });
    expect(row.body.sent_at).not.toBeNull();
  });
});
