import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyServiceSignature } from '../../src/webhooks/signing.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { until } from '../support/waits.ts';

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

describe('outbound webhooks', () => {
  let server: TestServer;
  let receiver: Server;
  let url: string;
  const received: Received[] = [];
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  });
  afterAll(async () => {
    await server?.close();
    receiver?.close();
  });

  it('delivers contact.created to a subscribed endpoint, verifiable with both schemes', async () => {
    const { key } = await server.newAccount();
    const ep = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url, events: ['contact.created'] } });
    expect(ep.status).toBe(201);
    expect(ep.body.secret).toMatch(/^whsec_/);
    const contact = await server.call('POST', '/v1/contacts', { key, body: { email: 'hook@example.com' } });
    const got = await until(() => received.filter((r) => r.headers['x-service-event'] === 'contact.created'), (l) => l.length > 0);
    expect(got).toHaveLength(1);
    const r = got[0];
    const payload = JSON.parse(r.body);
    expect(payload).toMatchObject({ type: 'contact.created', data: { id: contact.body.id, email: 'hook@example.com' } });
    expect(verifyServiceSignature(ep.body.secret, { timestamp: String(r.headers['x-service-timestamp']), signature: String(r.headers['x-service-signature']) }, r.body)).toBe(true);
    expect(r.headers['x-legacy-signature']).toBe(r.headers['x-service-signature']);
    const wh = new Webhook(ep.body.secret);
    expect(() =>
      wh.verify(r.body, { 'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']) }),
    ).not.toThrow();
  });

  it('posts per-message status updates to the message webhook_url', async () => {
    const { key } = await server.newAccount();
    const secret = (await server.call('GET', '/v1/account/webhook-secret', { key })).body.secret;
    const sent = await server.call('POST', '/v1/messages/send', { key, body: { to: '+14155550123', channel: 'sms', message: 'hi', webhook_url: `${url}?m=1` } });
    const mine = () => received.filter((r) => JSON.parse(r.body).data?.message_id === sent.body.id);
    const got = await until(mine, (l) => l.some((r) => r.headers['x-service-event'] === 'message.delivered'));
    // deliveries may arrive in any order (they are sent concurrently); created_at orders them
    const ordered = [...got].sort((a, b) => JSON.parse(a.body).created_at.localeCompare(JSON.parse(b.body).created_at));
    expect(ordered.map((r) => r.headers['x-service-event'])).toEqual(['message.queued', 'message.sent', 'message.delivered']);
    for (const r of got) {
      expect(verifyServiceSignature(secret, { timestamp: String(r.headers['x-service-timestamp']), signature: String(r.headers['x-service-signature']) }, r.body)).toBe(true);
    }
  });
});
