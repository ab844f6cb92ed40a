import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.ts';

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the life of a message through the sandbox', () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer();
    ({ key } = await server.newAccount());
  });
  afterAll(async () => {
    await server?.close();
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
