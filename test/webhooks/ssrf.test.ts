import { hostname } from 'node:os';
import { lookup as dnsLookup } from 'node:dns/promises';
// Receivers must be public (README "Webhooks"): with WEBHOOK_ALLOW_PRIVATE unset, URLs that are
// or resolve to loopback, private, CGNAT, link-local, unique-local or metadata addresses are
// refused when an endpoint is saved, and again when a delivery connects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { checkWebhookUrl, guardedLookup, isPublicAddress } from '../../src/webhooks/ssrf.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { type Receiver, startReceiver, until } from './receivers.ts';

const REFUSED = [
  'http://127.0.0.1/',
  'http://2130706433/', // 127.0.0.1 as one decimal number
  'http://0x7f.1/', // 127.0.0.1 in hex, short form
  'http://[::ffff:127.0.0.1]/', // IPv4-mapped IPv6
  'http://10.0.0.1/',
  'http://169.254.169.254/latest', // cloud metadata
  'http://100.64.0.1/', // CGNAT
  'http://[fd00::1]/', // unique local
  'http://[fe80::1]/', // link local
  'http://localhost:8080/',
  'http://localhost.:8080/', // the same host, written with the root dot
  'http://[::1]/',
  'http://0.0.0.0/',
  'http://192.168.1.1/',
  'http://172.16.0.1/',
  'http://metadata.google.internal/',
];

function lookup(host: string, allowPrivate: boolean, options: object = {}) {
  return new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((resolve) =>
    guardedLookup(allowPrivate)(host, options, (err, address) => resolve({ err, address })),
  );
}

describe('SSRF guard', () => {
  let server: TestServer;
  let key: string;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    // WEBHOOK_ALLOW_PRIVATE unset: the production default
    server = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
    ({ key } = await server.newAccount());
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  it.each(REFUSED)('POST %s → 400 naming url', async (url) => {
    const res = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_error');
    expect(res.body.message).toMatch(/^url: /);
    expect(res.body.issues).toEqual([{ path: 'url', message: expect.any(String) }]);
  });

  it('a public URL is accepted without contacting it; PATCH to a private one is refused', async () => {
    // a second account: events of the first must not queue deliveries to example.com
    const { key: k2 } = await server.newAccount();
    const res = await server.call('POST', '/v1/webhook-endpoints', { key: k2, body: { url: 'https://example.com/hook', events: ['form.submitted'] } });
    expect(res.status).toBe(201);
    const patch = await server.call('PATCH', `/v1/webhook-endpoints/${res.body.id}`, { key: k2, body: { url: 'http://[::ffff:10.0.0.1]/x' } });
    expect(patch.status).toBe(400);
    expect(patch.body.issues[0].path).toBe('url');
    const list = await server.call('GET', '/v1/webhook-endpoints', { key: k2 });
    expect(list.body.data[0].url).toBe('https://example.com/hook');
    // credentials in the URL are refused too
    expect((await server.call('POST', '/v1/webhook-endpoints', { key: k2, body: { url: 'https://u:p@example.com/hook' } })).status).toBe(400);
  });

  it('isPublicAddress / checkWebhookUrl classify addresses', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) expect(isPublicAddress(a)).toBe(true);
    for (const a of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '::ffff:8.8.8.8', '10.1.2.3', '100.64.0.1', '169.254.169.254', 'fd00::1', 'fe80::1', '0.0.0.0', '::', 'not-an-ip']) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    expect(checkWebhookUrl('https://example.com/hook', false)).toBeNull();
    expect(checkWebhookUrl('http://127.0.0.1/', true)).toBeNull(); // local development only
  });

  it('guardedLookup refuses a host name that resolves to loopback (connection-time check)', async () => {
    const refused = await lookup('localhost', false);
    expect(refused.err?.code).toBe('EPRIVATEADDRESS');
    expect(refused.err?.message).toMatch(/refusing to connect to localhost: resolves to non-public address/);
    const refusedAll = await lookup('localhost', false, { all: true });
    expect(refusedAll.err?.code).toBe('EPRIVATEADDRESS');
    // allowed when WEBHOOK_ALLOW_PRIVATE=true, in both call shapes net.connect uses
    const allowed = await lookup('localhost', true);
    expect(allowed.err).toBeNull();
    expect(isPublicAddress(allowed.address as string)).toBe(false);
    const allowedAll = await lookup('localhost', true, { all: true });
    expect(Array.isArray(allowedAll.address) && allowedAll.address.length).toBeGreaterThan(0);
  });

  async function sendWithHook(webhookUrl: string) {
    const sent = await server.call('POST', '/v1/messages/send', { key, body: { to: '+14155550123', channel: 'sms', message: 'hi', transactional: true, webhook_url: webhookUrl } });
    expect(sent.status).toBeLessThan(300);
    return sent.body.id as string;
  }
  const hookRows = (messageId: string) =>
    server.engage.pool
      .query(`SELECT * FROM webhook_deliveries WHERE kind = 'message' AND body::jsonb->'data'->>'message_id' = $1 ORDER BY id`, [messageId])
      .then((r) => r.rows);

  it.each([
    ['localhost', (port: number) => `http://localhost:${port}/hook`],
    ['an IP literal', (port: number) => `http://127.0.0.1:${port}/hook`],
    ['an IPv4-mapped IPv6 literal', (port: number) => `http://[::ffff:127.0.0.1]:${port}/hook`],
    ['a decimal IPv4 spelling', (port: number) => `http://2130706433:${port}/hook`],
  ])('a per-message webhook_url that is %s is refused at send time', async (_, urlOf) => {
    const sent = await server.call('POST', '/v1/messages/send', { key, body: { to: '+14155550123', channel: 'sms', message: 'hi', transactional: true, webhook_url: urlOf(receiver.port) } });
    expect(sent.status).toBe(400);
    expect(sent.body.issues.map((i: { path: string }) => i.path)).toEqual(['webhook_url']);
  });

  it('a per-message webhook_url whose host name resolves to loopback is refused at connection time', async () => {
    // the machine's own host name resolves through /etc/hosts to a loopback address: the name
    // passes the send-time check, so only the connection-time lookup can refuse it
    const host = hostname();
    const resolved = await dnsLookup(host);
    expect(isPublicAddress(resolved.address)).toBe(false);
    const messageId = await sendWithHook(`http://${host}:${receiver.port}/hook`);
    // message.queued, .sent and .delivered each get one attempt; the retries are 30 s away
    const rows = await until(() => hookRows(messageId), (r) => r.length === 3 && r.every((d) => d.attempts >= 1), 30_000);
    expect(rows.map((r) => r.event_type).sort()).toEqual(['message.delivered', 'message.queued', 'message.sent']);
    for (const r of rows) {
      expect(r.status).toBe('pending'); // a refusal is a failed attempt, retried on the schedule
      expect(r.last_status_code).toBeNull();
      expect(r.last_error).toMatch(/refusing to connect/);
    }
    const { rows: attempts } = await server.engage.pool.query('SELECT * FROM webhook_attempts WHERE delivery_id = ANY($1)', [rows.map((r) => r.id)]);
    expect(attempts.every((a) => /refusing to connect/.test(a.error))).toBe(true);
    expect(receiver.hits).toEqual([]);
  });
});
