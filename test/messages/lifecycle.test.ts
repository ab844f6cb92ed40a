import { beforeAll, describe, expect, it } from 'vitest';
import { testServerForSuite } from '../support/harness.ts';
import { until } from '../support/waits.ts';

describe('the life of a message through the sandbox', () => {
  let key: string;
  const server = testServerForSuite();
  beforeAll(async () => {
    ({ key } = await server.newAccount());
  });

  it('accepts a send with 202 and reaches delivered', async () => {
    const res = await server.call('POST', '/v1/messages/send', { key, body: { to: '+14155550123', channel: 'sms', message: 'hello' } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'queued', channel: 'sms', to: '+14155550123', scheduled_at: null });
    const done = await until(() => server.call('GET', `/v1/messages/${res.body.id}`, { key }), (r) => r.body.status === 'delivered');
    expect(done.body.status).toBe('delivered');
    expect(done.body.provider_message_id).toBe(`sbx_${res.body.id}`);
    const timeline = await server.call('GET', `/v1/messages/${res.body.id}/timeline`, { key });
    expect(timeline.body.events.map((e: { type: string }) => e.type)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
  });

  it('fails a sandbox reject number with its reason', async () => {
    const res = await server.call('POST', '/v1/messages/send', { key, body: { to: '+15005550001', channel: 'sms', message: 'x' } });
    const done = await until(() => server.call('GET', `/v1/messages/${res.body.id}`, { key }), (r) => r.body.status === 'failed');
    expect(done.body).toMatchObject({ status: 'failed', reason: 'invalid_number' });
  });

  it('accepts a bulk with invalid items counted as failed', async () => {
    const res = await server.call('POST', '/v1/messages/bulk', {
      key,
      body: { messages: [{ to: '+14155550123', channel: 'sms', message: 'a' }, { to: 'nope', channel: 'sms', message: 'b' }, { to: 'a@b.co', channel: 'email', message: 'c', subject: 's' }] },
    });
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(2);
    expect(res.body.failed).toBe(1);
    expect(res.body.results[1]).toMatchObject({ index: 1, error: 'validation_error' });
    expect(res.body.results[1].message).toContain('to');
  });
});
