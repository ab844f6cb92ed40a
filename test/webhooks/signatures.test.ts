// Signatures of real deliveries (README "Webhooks"):
// every header is present, X-Service-Signature verifies with an HMAC written here and with the
// README's own example code, the Standard Webhooks headers verify with the `standardwebhooks`
// package, and tampering fails all three.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceSignature, standardSignature, verifyServiceSignature } from '../../src/webhooks/signing.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { type Hit, type Receiver, type Verify, h, independentServiceSignature, readmeVerifier, standardHeaders, startReceiver } from '../support/receivers.ts';
import { until } from '../support/waits.ts';

describe('delivery signatures', () => {
  let server: TestServer;
  let receiver: Receiver;
  let key: string;
  let accountId: string;
  let verifyReadme: Verify;
  let cleanup: () => void;
  let secret: string;
  let endpointId: string;
  let hits: Hit[];

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '200ms,400ms,800ms' });
    ({ key, accountId } = await server.newAccount());
    ({ verify: verifyReadme, cleanup } = await readmeVerifier());

    // real deliveries: contact.created, contact.updated and a ping
    const ep = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: receiver.url } });
    expect(ep.status).toBe(201);
    secret = ep.body.secret;
    endpointId = ep.body.id;
    const c = await server.call('POST', '/v1/contacts', { key, body: { email: 'sig@example.com', first_name: 'Zoë', tags: ['ünïcødé ✓'] } });
    await server.call('PATCH', `/v1/contacts/${c.body.id}`, { key, body: { last_name: 'Ø "quoted" \\ back' } });
    await server.call('POST', `/v1/webhook-endpoints/${endpointId}/test`, { key });
    hits = await until(() => receiver.hits, (l) => l.length >= 3);
  });
  afterAll(async () => {
    cleanup?.();
    await server?.close();
    await receiver?.close();
  });

  it('the published signing test vector', () => {
    const expected = '38dcd345d12a163975f2a8484af858926bb995e425f50d05a5aaeaacf2178698';
    expect(serviceSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 1614265330000, '{"test": 2432232314}')).toBe(expected);
    expect(independentServiceSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', '1614265330000', '{"test": 2432232314}')).toBe(expected);
    // the README example agrees on the vector (with the freshness check widened to accept 2021)
    const headers = { 'x-service-timestamp': '1614265330000', 'x-service-signature': expected };
    expect(verifyReadme('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', headers, '{"test": 2432232314}', Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(verifyReadme('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', headers, '{"test": 2432232315}', Number.MAX_SAFE_INTEGER)).toBe(false);
    // and rejects it as stale with its default tolerance
    expect(verifyReadme('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', headers, '{"test": 2432232314}')).toBe(false);
  });

  it('the Standard Webhooks scheme keys with the decoded bytes after whsec_ (checked against the package)', () => {
    const s = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const ts = Math.floor(Date.now() / 1000);
    const sig = `v1,${standardSignature(s, 'msg_1', ts, '{"a":1}')}`;
    expect(() => new Webhook(s).verify('{"a":1}', { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': sig })).not.toThrow();
  });

  it('every delivery carries all the headers, consistent with each other and the body', () => {
    expect(hits.map((x) => h(x, 'x-service-event')).sort()).toEqual(['contact.created', 'contact.updated', 'ping']);
    for (const hit of hits) {
      const event = h(hit, 'x-service-event');
      expect(hit.json.type).toBe(event);
      expect(hit.json.account_id).toBe(accountId);
      expect(h(hit, 'content-type')).toMatch(/^application\/json/);
      // X-Service-Timestamp is Unix milliseconds; webhook-timestamp is the same instant in seconds
      const ms = h(hit, 'x-service-timestamp');
      expect(ms).toMatch(/^\d{13}$/);
      expect(Math.abs(Number(ms) - hit.at)).toBeLessThan(5 * 60_000);
      expect(h(hit, 'webhook-timestamp')).toBe(String(Math.floor(Number(ms) / 1000)));
      expect(h(hit, 'x-service-signature')).toMatch(/^[0-9a-f]{64}$/);
      // the legacy aliases carry identical values
      expect(h(hit, 'x-legacy-event')).toBe(event);
      expect(h(hit, 'x-legacy-timestamp')).toBe(ms);
      expect(h(hit, 'x-legacy-signature')).toBe(h(hit, 'x-service-signature'));
      // one event id, in the body and both id headers
      expect(h(hit, 'x-service-event-id')).toBe(hit.json.id);
      expect(h(hit, 'webhook-id')).toBe(hit.json.id);
      expect(h(hit, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
    }
  });

  it('X-Service-Signature verifies with an independent HMAC and the README example; tampering fails', () => {
    for (const hit of hits) {
      const ts = h(hit, 'x-service-timestamp');
      expect(h(hit, 'x-service-signature')).toBe(independentServiceSignature(secret, ts, hit.body));
      expect(verifyReadme(secret, hit.headers, hit.body)).toBe(true);
      expect(verifyServiceSignature(secret, { timestamp: ts, signature: h(hit, 'x-service-signature') }, hit.body)).toBe(true);

      const tampered = hit.body.replace(/"type":"/, '"type":"x');
      expect(tampered).not.toBe(hit.body);
      expect(verifyReadme(secret, hit.headers, tampered)).toBe(false);
      expect(verifyReadme(secret, hit.headers, `${hit.body} `)).toBe(false);
      expect(verifyReadme(secret, { ...hit.headers, 'x-service-timestamp': String(Number(ts) + 1) }, hit.body)).toBe(false);
      // another secret: the last data character changed (a fixed replacement would be the same secret one time in 16)
      const other = `${secret.slice(0, -2)}${secret.at(-2) === 'A' ? 'E' : 'A'}=`;
      expect(other).not.toBe(secret);
      expect(verifyReadme(other, hit.headers, hit.body)).toBe(false);
      expect(verifyReadme(secret.slice(6), hit.headers, hit.body)).toBe(false); // keyed with the whole string, prefix included
      expect(verifyReadme(secret, { ...hit.headers, 'x-service-signature': undefined }, hit.body)).toBe(false);
      // a re-parsed and re-serialised body is not the raw body: verify what was received, byte for byte
      if (/[^\x20-\x7e]/.test(hit.body)) expect(verifyReadme(secret, hit.headers, Buffer.from(hit.body, 'utf8').toString('latin1'))).toBe(false);
    }
  });

  it('the raw body is UTF-8 and the signature covers its exact bytes (non-ASCII contact data)', () => {
    const created = hits.find((x) => h(x, 'x-service-event') === 'contact.created')!;
    expect(created.json.data.first_name).toBe('Zoë');
    expect(created.json.data.tags).toEqual(['ünïcødé ✓']);
    const updated = hits.find((x) => h(x, 'x-service-event') === 'contact.updated')!;
    expect(JSON.stringify(updated.json.data)).toContain('Ø \\"quoted\\" \\\\ back');
  });

  it('the Standard Webhooks headers verify with the standardwebhooks package; tampering fails', () => {
    const wh = new Webhook(secret);
    for (const hit of hits) {
      expect(wh.verify(hit.body, standardHeaders(hit))).toEqual(hit.json);
      expect(() => wh.verify(hit.body.replace(/"id":"/, '"id":"x'), standardHeaders(hit))).toThrow();
      expect(() => wh.verify(hit.body, { ...standardHeaders(hit), 'webhook-id': 'evt_other' })).toThrow();
      const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      expect(() => new Webhook(other).verify(hit.body, standardHeaders(hit))).toThrow();
    }
  });
});
