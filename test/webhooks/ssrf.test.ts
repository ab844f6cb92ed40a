import { hostname } from 'node:os';
import { lookup as dnsLookup } from 'node:dns/promises';
// Receivers must be public (README "Webhooks"): with WEBHOOK_ALLOW_PRIVATE unset, URLs that are
// or resolve to loopback, private, CGNAT, link-local, unique-local or metadata addresses are
// refused when an endpoint is saved, and again when a delivery connects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { DeliveryClient } from '../../src/webhooks/delivery.ts';
import { checkWebhookUrl, guardedLookup, isPublicAddress } from '../../src/webhooks/ssrf.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';
import { until } from '../support/waits.ts';

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
  // issue 8 finding 9: IPv4 embedded in IPv6, platform addresses, privileged ports
  'http://[::127.0.0.1]/', // IPv4-compatible (::/96, deprecated): refused whatever it embeds
  'http://[::10.0.0.1]/',
  'http://[::8.8.8.8]/',
  'http://[::ffff:0:10.0.0.1]/', // RFC 6145 IPv4-translated, of a private address
  'http://[64:ff9b::127.0.0.1]/', // NAT64 (RFC 6052) of loopback
  'http://[64:ff9b::169.254.169.254]/', // NAT64 of the metadata address
  'http://[64:ff9b:1::8.8.8.8]/', // the local-use NAT64 prefix (RFC 8215)
  'http://[2002:7f00:1::]/', // 6to4 of 127.0.0.1
  'http://[2002:a9fe:a9fe::1]/', // 6to4 of 169.254.169.254
  'http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/', // Teredo, client 10.0.0.1 (obfuscated)
  'http://[2001:0:a00:1:8000:63bf:f7f7:f7f7]/', // Teredo, server 10.0.0.1 (client 8.8.8.8)
  'http://168.63.129.16/', // Azure platform (WireServer): a public unicast address
  'http://[::ffff:168.63.129.16]/',
  'http://[64:ff9b::168.63.129.16]/',
  'http://100.100.100.200/', // Alibaba Cloud metadata
  'http://192.0.0.192/', // Oracle Cloud metadata
  'http://[fd00:ec2::254]/', // AWS IMDS over IPv6
  'http://169.254.170.2/v2/credentials', // AWS ECS task credentials
  'https://example.com:22/', // privileged ports other than 80 and 443
  'http://example.com:25/',
  'https://example.com:0/',
  'https://example.com:1023/',
  'https://example.com:444/',
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
    const res = await server.call('POST', '/v1/webhook-endpoints', { key: k2, body: { url: 'https://example.com/hook', events: ['campaign.sent'] } });
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
    for (const a of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.1.2.3', '100.64.0.1', '169.254.169.254', 'fd00::1', 'fe80::1', '0.0.0.0', '::', 'not-an-ip']) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    expect(checkWebhookUrl('https://example.com/hook', false)).toBeNull();
    expect(checkWebhookUrl('http://127.0.0.1/', true)).toBeNull(); // local development only
  });

  it('an IPv6 address that embeds an IPv4 address is as public as the IPv4 address it embeds; ::/96 never is', () => {
    // public embeddings: NAT64 of a public address is how an IPv6-only host reaches an IPv4-only receiver
    for (const a of ['::ffff:8.8.8.8', '::ffff:0:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7']) {
      expect(isPublicAddress(a), a).toBe(true);
    }
    for (const a of [
      '::127.0.0.1', '::8.8.8.8', '::7f00:1', '::ffff:10.0.0.1', '::ffff:0:192.168.0.1', '64:ff9b::10.0.0.1', '64:ff9b::100.64.0.1',
      '64:ff9b:1::808:808', '2002:c0a8:101::', '2002:0a00:0001::1', '2001:0:4136:e378:8000:63bf:f5ff:fffe', '2001:0:7f00:1:8000:63bf:f7f7:f7f7', '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '::ffff:168.63.129.16', '64:ff9b::a83f:8110', '2002:a83f:8110::',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });

  it('known cloud platform and metadata addresses are refused, even with WEBHOOK_ALLOW_PRIVATE=true', () => {
    for (const a of ['168.63.129.16', '169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192', 'fd00:ec2::254', 'fd20:ce::254']) {
      expect(isPublicAddress(a), a).toBe(false);
      const url = a.includes(':') ? `http://[${a}]/` : `http://${a}/`;
      expect(checkWebhookUrl(url, false), url).toEqual(expect.any(String));
      expect(checkWebhookUrl(url, true), `${url} (private allowed)`).toEqual(expect.any(String));
    }
    expect(checkWebhookUrl('http://metadata.google.internal/', true)).toEqual(expect.any(String));
    // its neighbours are ordinary addresses
    expect(isPublicAddress('168.63.129.17')).toBe(true);
  });

  it('ports below 1024 other than 80 and 443 are refused, also with WEBHOOK_ALLOW_PRIVATE=true', () => {
    for (const url of ['https://example.com/', 'http://example.com/', 'https://example.com:443/', 'http://example.com:80/', 'https://example.com:80/', 'http://example.com:443/', 'https://example.com:1024/', 'https://example.com:8443/', 'http://example.com:65535/']) {
      expect(checkWebhookUrl(url, false), url).toBeNull();
    }
    for (const url of ['https://example.com:0/', 'https://example.com:1/', 'http://example.com:22/', 'http://example.com:25/', 'https://example.com:465/', 'https://example.com:1023/']) {
      expect(checkWebhookUrl(url, false), url).toMatch(/port/);
      expect(checkWebhookUrl(url, true), `${url} (private allowed)`).toMatch(/port/);
    }
    expect(checkWebhookUrl('http://127.0.0.1:22/', true)).toMatch(/port/);
    expect(checkWebhookUrl('http://127.0.0.1:8080/', true)).toBeNull();
  });

  it('guardedLookup refuses embedded and platform addresses (an IP literal resolves to itself)', async () => {
    for (const host of ['::127.0.0.1', '168.63.129.16', '::ffff:10.0.0.1', '64:ff9b::7f00:1']) {
      const refused = await lookup(host, false, { all: true });
      expect(refused.err?.code, host).toBe('EPRIVATEADDRESS');
    }
    // platform addresses stay refused when private ones are allowed
    for (const host of ['168.63.129.16', '169.254.169.254']) {
      const refused = await lookup(host, true);
      expect(refused.err?.code, host).toBe('EPRIVATEADDRESS');
    }
    expect((await lookup('127.0.0.1', true)).err).toBeNull();
  });

  it('at connection time, a stored URL with a privileged port or a platform address is refused without connecting', async () => {
    // URLs stored before the rule existed reach the delivery client unchecked; it checks again
    const client = new DeliveryClient(2_000, true);
    try {
      for (const url of [`http://127.0.0.1:22/hook`, 'http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/latest', 'http://168.63.129.16/machine']) {
        const res = await client.post(url, 'whsec_x', 'evt_1', 'ping', '{}', new Date());
        expect(res.ok, url).toBe(false);
        expect(res.error, url).toMatch(/^refusing to connect/);
        expect(res.latencyMs, url).toBe(0);
      }
    } finally {
      await client.close();
    }
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
    ['an IPv4-compatible IPv6 literal', (port: number) => `http://[::127.0.0.1]:${port}/hook`],
    ['on a privileged port', () => 'https://example.com:25/hook'],
    ['a platform address', () => 'http://168.63.129.16/hook'],
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
