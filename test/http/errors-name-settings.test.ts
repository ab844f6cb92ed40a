// A refusal that a setting would lift names that setting, so a developer is not left guessing
// (README "Webhooks", "Integrations", "Email domains", "Provider callbacks"). With
// OUTBOUND_ALLOW_PRIVATE unset (the production default), every place that refuses a private or local
// address for a connection an account aims says to set OUTBOUND_ALLOW_PRIVATE=true; the refusals it
// cannot lift (platform addresses, privileged ports) do not. Provider callbacks name the secret
// (and, for the carrier, PUBLIC_BASE_URL) their check depends on; a BIMI logo behind an internal CA
// names OUTBOUND_CA_FILE.
import { hostname } from 'node:os';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { startTestServer, testServerForSuite, type TestServer } from '../support/harness.ts';
import { loopbackCertificate } from '../support/tls.ts';
import { eventually } from '../support/waits.ts';
import { metaSignature, postCarrier, SECRETS } from '../webhooks-inbound/helpers.ts';

const NAMES_SETTING = /set OUTBOUND_ALLOW_PRIVATE=true to allow it \(local development only\)/;
const LOCAL_HOOK = 'http://localhost:4000/hook';
const LOOPBACK_HOOK = 'http://127.0.0.1:4000/hook';
const PRIVATE_HOOK = 'http://10.1.2.3/hook';

const server = testServerForSuite({ ...SECRETS, RATE_LIMITS_ENABLED: 'false' });
let a: TestAccount;

beforeAll(async () => {
  a = await server.newAccount('Settings named');
});

/** The message of the one issue a 400 names at `path`. */
function issueAt(res: { status: number; body: any }, path: string): string {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  const found = (res.body.issues as { path: string; message: string }[]).find((i) => i.path === path);
  expect(found, JSON.stringify(res.body)).toBeDefined();
  return found!.message;
}

describe('a private or local address names OUTBOUND_ALLOW_PRIVATE', () => {
  it('in a send\'s webhook_url: a local name, a loopback and a private address', async () => {
    for (const webhook_url of [LOCAL_HOOK, LOOPBACK_HOOK, PRIVATE_HOOK]) {
      const res = await server.call('POST', '/v1/messages/send', { key: a.key, body: { to: '+14155550123', channel: 'sms', message: 'hi', webhook_url } });
      expect(issueAt(res, 'webhook_url'), webhook_url).toMatch(NAMES_SETTING);
    }
  });

  it('but not for what the setting cannot open: a platform address, a privileged port', async () => {
    for (const webhook_url of ['http://169.254.169.254/latest', 'https://example.com:25/hook']) {
      const res = await server.call('POST', '/v1/messages/send', { key: a.key, body: { to: '+14155550123', channel: 'sms', message: 'hi', webhook_url } });
      expect(issueAt(res, 'webhook_url'), webhook_url).not.toMatch(/OUTBOUND_ALLOW_PRIVATE/);
    }
  });

  it("in a bulk item's webhook_url", async () => {
    const res = await server.call('POST', '/v1/messages/bulk', {
      key: a.key,
      body: { messages: [{ to: '+14155550123', channel: 'sms', message: 'hi', webhook_url: LOCAL_HOOK }, { to: '+14155550124', channel: 'sms', message: 'hi' }] },
    });
    expect(res.status).toBe(202);
    expect(res.body.results[0]).toMatchObject({ index: 0, error: 'validation_error' });
    expect(res.body.results[0].message).toMatch(/webhook_url/);
    expect(res.body.results[0].message).toMatch(NAMES_SETTING);
  });

  it("in a send-by-tag's and a campaign's webhook_url", async () => {
    const byTag = await server.call('POST', '/v1/messages/send-by-tag', { key: a.key, body: { tag: 'vip', channel: 'sms', message: 'hi', webhook_url: LOCAL_HOOK } });
    expect(issueAt(byTag, 'webhook_url')).toMatch(NAMES_SETTING);
    const campaign = await server.call('POST', '/v1/campaigns', {
      key: a.key,
      body: { name: 'c', audience: { list_id: 'lst_01ARZ3NDEKTSV4RRFFQ69G5FAV' }, channel: 'sms', message: 'hi', webhook_url: LOCAL_HOOK },
    });
    expect(issueAt(campaign, 'webhook_url')).toMatch(NAMES_SETTING);
  });

  it("in a webhook endpoint's url, created or changed", async () => {
    const created = await server.call('POST', '/v1/webhook-endpoints', { key: a.key, body: { url: LOCAL_HOOK } });
    expect(issueAt(created, 'url')).toMatch(NAMES_SETTING);
    const ok = await server.call('POST', '/v1/webhook-endpoints', { key: a.key, body: { url: 'https://example.com/hook', events: ['campaign.sent'] } });
    expect(ok.status).toBe(201);
    const patched = await server.call('PATCH', `/v1/webhook-endpoints/${ok.body.id}`, { key: a.key, body: { url: PRIVATE_HOOK } });
    expect(issueAt(patched, 'url')).toMatch(NAMES_SETTING);
  });

  it('in the inbound webhook URL', async () => {
    const res = await server.call('PUT', '/v1/account/inbound', { key: a.key, body: { webhook_url: LOOPBACK_HOOK } });
    expect(issueAt(res, 'webhook_url')).toMatch(NAMES_SETTING);
  });

  it("in a conversation reply's webhook_url", async () => {
    const ours = '+447400123901';
    const customer = '+447400123902';
    const sent = await server.call('POST', '/v1/messages/send', { key: a.key, body: { to: customer, channel: 'sms', message: 'Your order shipped', sender: ours } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    const reply = await postCarrier(server, { MessageSid: `SM${'8'.repeat(32)}`, AccountSid: 'AC1', From: customer, To: ours, Body: 'thanks!', NumMedia: '0' });
    expect(reply.status).toBe(200);
    const conversation = await eventually('the conversation', async () => {
      const list = await server.call('GET', '/v1/conversations', { key: a.key });
      return (list.body.data as { id: string }[])[0];
    }, 30_000, 100);
    const res = await server.call('POST', `/v1/conversations/${conversation!.id}/reply`, { key: a.key, body: { message: 'x', webhook_url: LOCAL_HOOK } });
    expect(issueAt(res, 'webhook_url')).toMatch(NAMES_SETTING);
  });

  it("in a BIMI logo's URL", async () => {
    const d = await server.call('POST', '/v1/account/email-domains', { key: a.key, body: { domain: 'settings-named.acme.test' } });
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    const res = await server.call('PUT', `/v1/account/email-domains/${d.body.id}/bimi`, { key: a.key, body: { logo_url: 'https://127.0.0.1/logo.svg' } });
    expect(issueAt(res, 'logo_url')).toMatch(NAMES_SETTING);
  });

  it("in an SMTP integration's server: a loopback address, and a port from 1024 up", async () => {
    const create = (url: string) => server.call('POST', '/v1/integrations', { key: a.key, body: { provider: 'smtp', credentials: { url } } });
    expect(issueAt(await create('smtp://user:pass@127.0.0.1:587'), 'credentials.url')).toMatch(NAMES_SETTING);
    const highPort = issueAt(await create('smtp://user:pass@mail.example.com:2526'), 'credentials.url');
    expect(highPort).toMatch(/set OUTBOUND_ALLOW_PRIVATE=true to allow any port from 1024 up/);
    // a port below 1024 stays refused whatever the setting says: not named
    expect(issueAt(await create('smtp://user:pass@mail.example.com:22'), 'credentials.url')).not.toMatch(/OUTBOUND_ALLOW_PRIVATE/);
  });

  it('when a delivery is refused at connection time (a host name that resolves to loopback)', async () => {
    // the machine's own name resolves to a loopback or private address (/etc/hosts): it passes the
    // send-time check, so only the connection-time lookup refuses it
    const sent = await server.call('POST', '/v1/messages/send', { key: a.key, body: { to: '+14155550125', channel: 'sms', message: 'hi', transactional: true, webhook_url: `http://${hostname()}:4000/hook` } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    const error = await eventually('a refused attempt', async () => {
      const { rows } = await server.engage.pool.query<{ last_error: string | null }>(
        `SELECT last_error FROM webhook_deliveries WHERE kind = 'message' AND body::jsonb->'data'->>'message_id' = $1 AND attempts >= 1`,
        [sent.body.id],
      );
      return rows[0]?.last_error ?? undefined;
    }, 30_000, 50);
    expect(error).toMatch(/^refusing to connect/);
    expect(error).toMatch(NAMES_SETTING);
  });

  it("when an SMTP integration's server name resolves to a private address at send time", async () => {
    const b = await server.newAccount('Own SMTP');
    const created = await server.call('POST', '/v1/integrations', { key: b.key, body: { provider: 'smtp', credentials: { url: `smtp://user:pass@${hostname()}:587` } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const sent = await server.call('POST', '/v1/messages/send', { key: b.key, body: { to: 'someone@example.com', channel: 'email', subject: 's', message: 'hi', transactional: true } });
    expect(sent.status).toBe(202);
    const failed = await eventually('the message to fail', async () => {
      const m = await server.call('GET', `/v1/messages/${sent.body.id}`, { key: b.key });
      return m.body.status === 'failed' ? m.body : undefined;
    }, 30_000, 50);
    expect(failed.failure_reason ?? failed.reason).toMatch(/^smtp_server_refused: .*set OUTBOUND_ALLOW_PRIVATE=true \(local development only\)$/);
  });
});

describe('provider callbacks name the setting their check depends on', () => {
  it('the sandbox and SMTP feedback secrets', async () => {
    const sandbox = await server.call('POST', '/v1/webhooks/sandbox', { headers: { 'x-sandbox-secret': 'not-the-secret-at-all' }, body: { message_id: 'msg_01ARZ3NDEKTSV4RRFFQ69G5FAV', status: 'delivered' } });
    expect(sandbox.status).toBe(401);
    expect(sandbox.body.message).toMatch(/WEBHOOK_SECRET_SANDBOX/);
    const smtp = await server.call('POST', '/v1/webhooks/smtp', { body: { type: 'delivered', message_id: 'msg_01ARZ3NDEKTSV4RRFFQ69G5FAV', recipient: 'a@example.com' } });
    expect(smtp.status).toBe(401);
    expect(smtp.body.message).toMatch(/WEBHOOK_SECRET_SMTP/);
  });

  it('the carrier signature: WEBHOOK_SECRET_CARRIER and PUBLIC_BASE_URL', async () => {
    const params = { MessageSid: `SM${'9'.repeat(32)}`, MessageStatus: 'delivered', To: '+14155550123', From: '+14155550100' };
    // signed over another URL than the one called: what a proxy in front does
    const res = await postCarrier(server, params, { signUrl: 'https://api.example.com/v1/webhooks/carrier' });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/WEBHOOK_SECRET_CARRIER/);
    expect(res.body.message).toMatch(/set PUBLIC_BASE_URL to the URL the carrier calls/);
  });

  it('the WhatsApp app secret and verify token', async () => {
    const body = JSON.stringify({ object: 'whatsapp_business_account', entry: [] });
    const signed = await server.call('POST', '/v1/webhooks/whatsapp', {
      raw: body,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature('another-app-secret-0123456789', body) },
    });
    expect(signed.status).toBe(401);
    expect(signed.body.message).toMatch(/WEBHOOK_SECRET_WHATSAPP/);
    const verify = await server.call('GET', '/v1/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=wrong-token&hub.challenge=42');
    expect(verify.status).toBe(403);
    expect(verify.body.message).toMatch(/WHATSAPP_VERIFY_TOKEN/);
  });
});

describe('a BIMI logo behind a CA the service does not trust', () => {
  let logos: Server;
  let certificate: ReturnType<typeof loopbackCertificate>;
  let origin: string;
  let private_: TestServer;

  beforeAll(async () => {
    certificate = loopbackCertificate();
    logos = createServer({ key: certificate.key, cert: certificate.cert }, (_req, res) => res.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg/>'));
    await new Promise<void>((resolve) => logos.listen(0, '127.0.0.1', resolve));
    origin = `https://127.0.0.1:${(logos.address() as AddressInfo).port}`;
    // private addresses allowed, no OUTBOUND_CA_FILE: the test's CA is not trusted
    private_ = await startTestServer({ OUTBOUND_ALLOW_PRIVATE: 'true' });
  });
  afterAll(async () => {
    await private_?.close();
    logos?.close();
    certificate?.remove();
  });

  it('names OUTBOUND_CA_FILE', async () => {
    const { key } = await private_.newAccount();
    const d = await private_.call('POST', '/v1/account/email-domains', { key, body: { domain: 'internal-ca.acme.test' } });
    const res = await private_.call('PUT', `/v1/account/email-domains/${d.body.id}/bimi`, { key, body: { logo_url: `${origin}/logo.svg` } });
    expect(issueAt(res, 'logo_url')).toMatch(/^fetch_failed: .*OUTBOUND_CA_FILE/);
  });
});
