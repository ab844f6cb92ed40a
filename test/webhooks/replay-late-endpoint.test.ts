// A webhook endpoint created after a message was accepted still gets that message's later status
// events (message.delivered, message.failed), with the recipient: the outbox keeps a hook for every
// message, the recipient sealed as the event carries it, and opens it only to build a delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServerForSuite } from '../support/harness.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';
import { until } from '../support/waits.ts';

const server = testServerForSuite({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '200ms,400ms' });
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

describe('an endpoint created after a message was accepted', () => {
  it('gets the message.delivered and message.failed that follow, with the recipient, and nothing is opened before then', async () => {
    const { key } = await server.newAccount('Late listener');
    // scheduled a few seconds ahead: accepted now, with nobody listening; sent (and failed or delivered) later
    const scheduledAt = new Date(Date.now() + 4000).toISOString();
    const send = async (to: string) => {
      const res = await server.call('POST', '/v1/messages/send', { key, body: { to, channel: 'sms', message: 'later', transactional: true, scheduled_at: scheduledAt } });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return res.body.id as string;
    };
    const delivered = await send('+14155550142');
    const rejected = await send('+15005550001');
    await server.caughtUp(['webhook_outbox']);
    // the hook is there, its recipient still sealed (the account had no endpoint: nothing decrypted)
    const { rows: hooks } = await server.engage.pool.query('SELECT message_id, to_address FROM webhook_message_hooks WHERE message_id = ANY($1::text[])', [[delivered, rejected]]);
    expect(hooks.map((r) => r.message_id).sort()).toEqual([delivered, rejected].sort());
    for (const hook of hooks) expect(hook.to_address).toBeNull();

    const ep = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: receiver.url, events: ['message.delivered', 'message.failed'] } });
    expect(ep.status).toBe(201);

    const ofMessage = (id: string) => receiver.hits.filter((x) => x.json?.data?.message_id === id);
    await until(() => receiver.hits, () => ofMessage(delivered).length >= 1 && ofMessage(rejected).length >= 1, 30_000);
    expect(ofMessage(delivered).map((x) => x.json.type)).toEqual(['message.delivered']);
    expect(ofMessage(delivered)[0].json.data).toMatchObject({ message_id: delivered, status: 'delivered', channel: 'sms', to: '+14155550142' });
    expect(ofMessage(rejected).map((x) => x.json.type)).toEqual(['message.failed']);
    expect(ofMessage(rejected)[0].json.data).toMatchObject({ message_id: rejected, status: 'failed', channel: 'sms', to: '+15005550001', reason: 'invalid_number' });
  });
});
