// Inbound provider callbacks: secrets that are not configured are generated once and kept in
// service_secrets (the same after a restart); behind a proxy the carrier signature is checked
// against PUBLIC_BASE_URL rather than the address the request reached us at. The signature
// helpers are also checked against the providers' published examples.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carrierSignature } from '../../src/http/routes/providers/carrier.ts';
import { whatsappSignature } from '../../src/http/routes/providers/whatsapp.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { timeline, types } from '../support/messages.ts';
import { HOLD_SANDBOX, metaSignature, postCarrier, sendAndWaitSent, statusOf, twilioSignature } from './helpers.ts';

const PUBLIC = 'https://hooks.example.test/engage';
const NAMES = ['webhook_carrier', 'webhook_sandbox', 'webhook_smtp', 'webhook_whatsapp', 'whatsapp_verify_token'];

describe('signature schemes against the providers’ published examples', () => {
  it('carrier: Twilio’s documented example request', () => {
    // twilio.com/docs/usage/security: auth token 12345, this URL and these parameters
    const params = { CallSid: 'CA1234567890ABCDE', Caller: '+12349013030', Digits: '1234', From: '+12349013030', To: '+18005551212' };
    const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
    expect(twilioSignature('12345', url, params)).toBe('0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
    const asMap = new Map(Object.entries(params).map(([k, v]) => [k, [v]]));
    expect(carrierSignature('12345', url, asMap)).toBe('0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
  });

  it('whatsapp: HMAC-SHA256 hex of the payload with the sha256= prefix', () => {
    const expected = 'sha256=0329a06b62cd16b33eb6792be8c60b158d89a2ee3a876fce9a881ebb488c0914';
    expect(metaSignature('secret', 'test')).toBe(expected);
    expect(whatsappSignature('secret', Buffer.from('test'))).toBe(expected);
  });
});

describe('generated secrets and PUBLIC_BASE_URL', () => {
  let server: TestServer;
  let key: string;
  let stored: Record<string, string>;

  const readSecrets = async (s: TestServer) => {
    const { rows } = await s.engage.pool.query<{ name: string; value: string }>('SELECT name, value FROM service_secrets WHERE name = ANY($1) ORDER BY name', [NAMES]);
    return Object.fromEntries(rows.map((r) => [r.name, r.value]));
  };

  beforeAll(async () => {
    server = await startTestServer({ ...HOLD_SANDBOX, PUBLIC_BASE_URL: PUBLIC });
    ({ key } = await server.newAccount());
    stored = await readSecrets(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('generates a distinct secret per provider and stores it', () => {
    expect(Object.keys(stored)).toEqual(NAMES);
    for (const v of Object.values(stored)) expect(v.length).toBeGreaterThanOrEqual(32);
    expect(new Set(Object.values(stored)).size).toBe(NAMES.length);
  });

  it('accepts the stored sandbox secret and refuses others', async () => {
    const { id } = await sendAndWaitSent(server, key, { to: '+14155550199', channel: 'sms', message: 'x' });
    const bad = await server.call('POST', '/v1/webhooks/sandbox', { body: { message_id: id, status: 'delivered' }, headers: { 'x-sandbox-secret': stored.webhook_smtp } });
    expect(bad.status).toBe(401);
    const good = await server.call('POST', '/v1/webhooks/sandbox', { body: { message_id: id, status: 'delivered' }, headers: { 'x-sandbox-secret': stored.webhook_sandbox } });
    expect(good.status).toBe(200);
    expect((await statusOf(server, key, id, 'delivered')).status).toBe('delivered');
  });

  it('answers the WhatsApp handshake with the stored verify token', async () => {
    const res = await fetch(`${server.url}/v1/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(stored.whatsapp_verify_token)}&hub.challenge=abc`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('abc');
  });

  it('checks the carrier signature against the public URL, with or without the standard port, not the local one', async () => {
    const to = '+14155550198';
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to, channel: 'sms', message: 'x' });
    const params = { MessageSid: providerMessageId, MessageStatus: 'delivered', To: to };
    const local = await postCarrier(server, params, { secret: stored.webhook_carrier, signUrl: `${server.url}/v1/webhooks/carrier` });
    expect(local.status).toBe(401);
    expect(types(await timeline(server, key, id))).not.toContain('MessageDelivered');
    const withPort = await postCarrier(server, params, { secret: stored.webhook_carrier, signUrl: `https://hooks.example.test:443/engage/v1/webhooks/carrier` });
    expect(withPort.status).toBe(200);
    const plain = await postCarrier(server, params, { secret: stored.webhook_carrier, signUrl: `${PUBLIC}/v1/webhooks/carrier` });
    expect(plain.status).toBe(200);
    expect((await statusOf(server, key, id, 'delivered')).status).toBe('delivered');
  });

  it('keeps the generated secrets across a restart on the same database', async () => {
    const url = server.databaseUrl;
    await server.close();
    server = await startTestServer({ ...HOLD_SANDBOX, PUBLIC_BASE_URL: PUBLIC }, url);
    expect(await readSecrets(server)).toEqual(stored);
    // and the restarted server verifies with them: an unknown sid, correctly signed, is a 200 (401 otherwise)
    const params = { MessageSid: 'SM0', MessageStatus: 'delivered' };
    const res = await postCarrier(server, params, { signature: twilioSignature(stored.webhook_carrier, `${PUBLIC}/v1/webhooks/carrier`, params) });
    expect(res.status).toBe(200);
  });
});
