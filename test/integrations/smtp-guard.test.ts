// An account's own SMTP server is a connection the account aims (README "Integrations", issue 25
// finding 7): public addresses and SMTP ports only — an IP literal is refused when the integration
// is created, a name is resolved and checked when the connection is made (and the connection goes
// to the checked address), and a refusal fails the message with our words, never a server's reply.
// Adding or removing one reroutes all the account's mail: the settings capability.
import { hostname } from 'node:os';
import { lookup as dnsLookup } from 'node:dns/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { isPublicAddress } from '../../src/webhooks/ssrf.ts';
import { until } from '../support/waits.ts';

// OUTBOUND_ALLOW_PRIVATE (and WEBHOOK_ALLOW_PRIVATE) unset: the production default
const server = testServerForSuite({ DISPATCH_RETRY_BASE_MS: '50', DISPATCH_MAX_ATTEMPTS: '2' });
let a: TestAccount;
beforeAll(async () => {
  a = await server.newAccount('Acme');
});

const integrations = async (account: TestAccount) => (await server.call('GET', '/v1/integrations', { key: account.key })).body.data as { id: string }[];

describe('creating an SMTP integration', () => {
  it.each([
    'smtp://127.0.0.1:2525',
    'smtp://10.0.0.5:587',
    'smtp://192.168.1.10',
    'smtp://169.254.169.254:25',
    'smtps://[::1]:465',
    'smtp://[::ffff:127.0.0.1]:25',
    'smtp://[fd00::1]:587',
    'smtp://2130706433:25', // 127.0.0.1 as one number
    'smtp://localhost:25',
    'smtp://metadata.google.internal:25',
    'smtp://mail.example.com:22', // not an SMTP port
    'smtp://mail.example.com:6379',
    'smtps://user:pass@mail.example.com:8443',
  ])('%s → 400 naming credentials.url, and nothing is stored', async (url) => {
    const before = await integrations(a);
    const res = await server.call('POST', '/v1/integrations', { key: a.key, body: { provider: 'smtp', credentials: { url } } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(['credentials.url']);
    expect(await integrations(a)).toEqual(before);
  });

  it.each(['smtp://mail.example.com', 'smtp://mail.example.com:25', 'smtps://mail.example.com:465', 'smtp://mail.example.com:587', 'smtp://mail.example.com:2525', 'smtp://8.8.8.8:587'])(
    '%s (a public host on an SMTP port) is accepted',
    async (url) => {
      const b = await server.newAccount();
      const res = await server.call('POST', '/v1/integrations', { key: b.key, body: { provider: 'smtp', credentials: { url } } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    },
  );
});

describe('the settings capability', () => {
  it('a write-only or read+write key may not add an integration (403, nothing stored); listing needs read; removing needs settings', async () => {
    const b = await server.newAccount();
    const issue = async (scopes: string[]) => (await server.call('POST', '/v1/account/api-keys', { key: b.key, body: { scopes } })).body.key as string;
    const [writeOnly, readWrite, settings] = await Promise.all([issue(['write']), issue(['read', 'write']), issue(['settings'])]);
    const body = { provider: 'smtp', credentials: { url: 'smtp://mail.example.com:587' } };
    const w = await server.call('POST', '/v1/integrations', { key: writeOnly, body });
    expect(w.status).toBe(403);
    expect(w.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'settings', missing_scopes: ['settings'] });
    const rw = await server.call('POST', '/v1/integrations', { key: readWrite, body });
    expect(rw.body).toMatchObject({ error: 'insufficient_scope', missing_scopes: ['settings'] });
    expect(await integrations(b)).toEqual([]);
    expect((await server.call('GET', '/v1/integrations', { key: writeOnly })).body).toMatchObject({ error: 'insufficient_scope', missing_scopes: ['read'] });

    const created = await server.call('POST', '/v1/integrations', { key: settings, body });
    expect(created.status).toBe(201);
    const del = await server.call('DELETE', `/v1/integrations/${created.body.id}`, { key: readWrite });
    expect(del.body).toMatchObject({ error: 'insufficient_scope', missing_scopes: ['settings'] });
    expect((await integrations(b)).map((i) => i.id)).toEqual([created.body.id]);
    expect((await server.call('DELETE', `/v1/integrations/${created.body.id}`, { key: settings })).status).toBe(200);
  });
});

describe('at connection time', () => {
  it('a host name that resolves to a loopback address is refused: the message fails with our reason, not the network’s', async () => {
    // the machine's own name resolves through /etc/hosts to a loopback address: it passes the
    // check at creation (a name), so only the connection's own lookup can refuse it
    const host = hostname();
    expect(isPublicAddress((await dnsLookup(host)).address)).toBe(false);
    const c = await server.newAccount();
    const created = await server.call('POST', '/v1/integrations', { key: c.key, body: { provider: 'smtp', credentials: { url: `smtp://${host}:2525`, from: 'hi@acme.test' } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await server.caughtUp(['integrations']);
    const sent = await server.call('POST', '/v1/messages/send', { key: c.key, body: { channel: 'email', to: 'reader@inbox.test', subject: 'Hi', message: 'x', transactional: true } });
    expect(sent.status).toBe(202);
    const m = await until(async () => (await server.call('GET', `/v1/messages/${sent.body.id}`, { key: c.key })).body, (x) => x.status === 'failed', 30_000, 100);
    expect(m.reason).toMatch(/not a public address/);
    // nothing of the network's answer (refused, reset, timed out) and no internal address is shown
    expect(m.reason).not.toMatch(/ECONN|EHOST|ETIMEDOUT|127\.0\.0\.1|::1/);
  });
});
