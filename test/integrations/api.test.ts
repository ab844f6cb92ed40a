// POST /v1/integrations per README "Integrations": each provider's credentials checked by their shape, sealed in
// the log and shown only as a hint; the API key is tried first, then the session token (a request
// with a failing key and a valid session is served; elsewhere a failing key is a 401).
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';

const server = testServerForSuite();
let a: TestAccount;
let b: TestAccount;
let token: string;
beforeAll(async () => {
  [a, b] = await Promise.all([server.newAccount('Acme'), server.newAccount('Other')]);
  const login = await server.call('POST', '/v1/auth/login', { body: { email: a.email, password: a.password } });
  expect(login.status).toBe(200);
  token = login.body.token;
});

const twilio = { provider: 'twilio', name: 'US numbers', credentials: { account_sid: `AC${'0a'.repeat(16)}`, auth_token: 'f'.repeat(32), from: '+14155550100' } };

describe('creating an integration', () => {
  it('stores the credentials sealed and answers with a hint only', async () => {
    const res = await server.call('POST', '/v1/integrations', { key: a.key, body: twilio });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^int_/), provider: 'twilio', channel: 'sms', name: 'US numbers', credentials: { hint: 'account AC…0a' }, created_at: expect.any(String) });
    const { rows } = await server.engage.pool.query<{ data: string }>('SELECT data::text FROM es_events WHERE stream_id = $1', [`integration-${res.body.id}`]);
    expect(rows).toHaveLength(1);
    expect(rows[0].data).not.toContain('f'.repeat(32));
    expect(rows[0].data).toContain('sealed:v1:');
    const list = await server.call('GET', '/v1/integrations', { key: a.key });
    expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([res.body.id]);
    expect(JSON.stringify(list.body)).not.toContain('f'.repeat(32));
    expect((await server.call('GET', '/v1/integrations', { key: b.key })).body.data).toEqual([]);
  });

  it('checks credentials by the provider: a bad one is a 400 naming credentials.<field>', async () => {
    const bad = await server.call('POST', '/v1/integrations', { key: a.key, body: { provider: 'twilio', credentials: { account_sid: 'nope', auth_token: 'f'.repeat(32) } } });
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((i: { path: string }) => i.path)).toEqual(['credentials.account_sid']);
    const extra = await server.call('POST', '/v1/integrations', { key: a.key, body: { provider: 'sendgrid', credentials: { api_key: 'SG.aaaaaaaaaaaaaaaaaaaa.bbbbbbbbbbbbbbbbbbbb', region: 'eu' } } });
    expect(extra.body.issues.map((i: { path: string }) => i.path)).toEqual(['credentials.region']);
    expect((await server.call('POST', '/v1/integrations', { key: a.key, body: { provider: 'carrier-pigeon', credentials: {} } })).status).toBe(400);
    const smtp = await server.call('POST', '/v1/integrations', { key: a.key, body: { provider: 'smtp', credentials: { url: 'smtps://mailer:s3cret@smtp.acme.test:465' } } });
    expect(smtp.status).toBe(201);
    expect(smtp.body).toMatchObject({ channel: 'email', credentials: { hint: 'smtps://…@smtp.acme.test:465' } });
  });

  it('a hint never shows a credential whole: an SMTP user name (Postmark: the server token) or an account SID shows its first and last 2 characters (a short one, none)', async () => {
    const token = '7b1a3c2e-4f5d-4e6a-9b8c-1d2e3f4a5b6c';
    const postmark = await server.call('POST', '/v1/integrations', { key: a.key, body: { provider: 'smtp', credentials: { url: `smtp://${token}:${token}@smtp.postmarkapp.com:587` } } });
    expect(postmark.status).toBe(201);
    expect(postmark.body.credentials).toEqual({ hint: 'smtp://7b…6c@smtp.postmarkapp.com:587' });
    const sendgrid = await server.call('POST', '/v1/integrations', { key: a.key, body: { provider: 'sendgrid', credentials: { api_key: `SG.${'a'.repeat(22)}.${'b'.repeat(39)}wxyz` } } });
    expect(sendgrid.body.credentials).toEqual({ hint: 'api key …wxyz' });
    const listed = JSON.stringify((await server.call('GET', '/v1/integrations', { key: a.key })).body);
    expect(listed).not.toContain(token.slice(2, -2));
    expect(listed).not.toContain('0a'.repeat(16));
    expect(listed).not.toContain('mailer');
  });

  it('DELETE removes it; another account gets a 404', async () => {
    const created = (await server.call('POST', '/v1/integrations', { key: a.key, body: twilio })).body;
    expect((await server.call('DELETE', `/v1/integrations/${created.id}`, { key: b.key })).status).toBe(404);
    expect((await server.call('DELETE', `/v1/integrations/${created.id}`, { key: a.key })).body).toEqual({ id: created.id, deleted: true });
    expect((await server.call('DELETE', `/v1/integrations/${created.id}`, { key: a.key })).status).toBe(404);
  });
});

describe('API key first, then JWT', () => {
  it('a valid key decides; a failing key falls back to a valid session token; nothing valid is a 401', async () => {
    // both valid: the key is used (b's key with a's session creates b's integration)
    const both = await server.call('POST', '/v1/integrations', { key: b.key, token, body: twilio });
    expect(both.status).toBe(201);
    expect((await server.call('GET', '/v1/integrations', { key: b.key })).body.data.map((i: { id: string }) => i.id)).toContain(both.body.id);
    const fallback = await server.call('POST', '/v1/integrations', { key: 'eng_invalid_key', token, body: twilio });
    expect(fallback.status).toBe(201);
    expect((await server.call('GET', '/v1/integrations', { token })).body.data.map((i: { id: string }) => i.id)).toContain(fallback.body.id);
    expect((await server.call('POST', '/v1/integrations', { key: 'eng_invalid_key', body: twilio })).status).toBe(401);
    expect((await server.call('POST', '/v1/integrations', { key: 'eng_invalid_key', token: 'not.a.jwt', body: twilio })).status).toBe(401);
    // only integrations fall back: elsewhere a failing key is refused even beside a valid session
    expect((await server.call('GET', '/v1/senders', { key: 'eng_invalid_key', token })).status).toBe(401);
  });
});
