// What is delivered (README "Webhooks"):
// platform events reach subscribed endpoints as {id, type, created_at, account_id, data}; a
// per-message webhook_url gets the message's status changes as {id, type, created_at, data},
// signed with the account's secret, which rotation replaces for later deliveries.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { type Hit, type Receiver, h, independentServiceSignature, readmeVerifier, standardHeaders, startReceiver } from '../support/receivers.ts';
import { until } from '../support/waits.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('platform events and per-message webhooks', () => {
  let server: TestServer;
  let all: Receiver;
  let onlyCreated: Receiver;
  let perMessage: Receiver;
  let key: string;
  let accountId: string;
  let allEp: { id: string; secret: string };
  let onlyEp: { id: string; secret: string };

  beforeAll(async () => {
    [all, onlyCreated, perMessage] = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '200ms,400ms,800ms' });
    ({ key, accountId } = await server.newAccount());
    allEp = (await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: all.url } })).body;
    onlyEp = (await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: onlyCreated.url, events: ['contact.created'] } })).body;
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all([all, onlyCreated, perMessage].map((r) => r?.close()));
  });

  const ofType = (r: Receiver, type: string) => r.hits.filter((x) => x.json?.type === type);
  const send = async (body: Record<string, unknown>) => {
    const res = await server.call('POST', '/v1/messages/send', { key, body: { transactional: true, ...body } });
    expect(res.status).toBeLessThan(300);
    return res.body.id as string;
  };
  function expectEndpointPayload(hit: Hit, type: string) {
    expect(Object.keys(hit.json).sort()).toEqual(['account_id', 'created_at', 'data', 'id', 'type']);
    expect(hit.json).toMatchObject({ type, account_id: accountId, id: expect.stringMatching(/^evt_/) });
    expect(hit.json.created_at).toMatch(ISO);
    expect(h(hit, 'x-service-event')).toBe(type);
    expect(h(hit, 'x-service-signature')).toBe(independentServiceSignature(allEp.secret, h(hit, 'x-service-timestamp'), hit.body));
    expect(() => new Webhook(allEp.secret).verify(hit.body, standardHeaders(hit))).not.toThrow();
  }

  it('contact.created, contact.updated, contact.bounced, message.delivered and message.failed reach a subscribed endpoint', async () => {
    const contact = await server.call('POST', '/v1/contacts', { key, body: { email: 'bounce@sandbox.engage.test', first_name: 'Bo' } });
    expect(contact.status).toBe(201);
    const contactId = contact.body.id as string;
    const patched = await server.call('PATCH', `/v1/contacts/${contactId}`, { key, body: { last_name: 'Unce' } });
    expect(patched.status).toBe(200);
    const delivered = await send({ to: '+14155550199', channel: 'sms', message: 'ok' });
    const rejected = await send({ to: '+15005550001', channel: 'sms', message: 'no' });
    const bounced = await send({ to: 'bounce@sandbox.engage.test', channel: 'email', subject: 'hi', message: 'hello' });

    await until(
      () => all.hits,
      () => ['contact.created', 'contact.updated', 'contact.bounced', 'message.delivered'].every((t) => ofType(all, t).length >= 1) && ofType(all, 'message.failed').length >= 2,
      30_000,
    );

    const [created] = ofType(all, 'contact.created');
    expectEndpointPayload(created, 'contact.created');
    expect(created.json.data).toMatchObject({ id: contactId, email: 'bounce@sandbox.engage.test', first_name: 'Bo' });

    const updated = ofType(all, 'contact.updated');
    expect(updated).toHaveLength(1);
    expectEndpointPayload(updated[0], 'contact.updated');
    expect(updated[0].json.data.id).toBe(contactId);
    expect(JSON.stringify(updated[0].json.data)).toContain('Unce');

    const [bounce] = ofType(all, 'contact.bounced');
    expectEndpointPayload(bounce, 'contact.bounced');
    expect(bounce.json.data).toMatchObject({ contact_id: contactId, email: 'bounce@sandbox.engage.test', message_id: bounced });

    const [ok] = ofType(all, 'message.delivered');
    expectEndpointPayload(ok, 'message.delivered');
    expect(ok.json.data).toMatchObject({ message_id: delivered, status: 'delivered', channel: 'sms', to: '+14155550199', provider_message_id: expect.any(String) });

    const failed = ofType(all, 'message.failed');
    expect(failed.map((x) => x.json.data.message_id).sort()).toEqual([rejected, bounced].sort());
    for (const f of failed) expectEndpointPayload(f, 'message.failed');
    const rej = failed.find((x) => x.json.data.message_id === rejected)!;
    expect(rej.json.data).toMatchObject({ status: 'failed', channel: 'sms', to: '+15005550001', reason: 'invalid_number' });
    const bnc = failed.find((x) => x.json.data.message_id === bounced)!;
    expect(bnc.json.data).toMatchObject({ status: 'failed', channel: 'email', to: 'bounce@sandbox.engage.test', reason: 'bounced' });

    // the contact.created-only endpoint: the rows of every event were written in the transactions
    // that wrote the all-events endpoint's, which are all delivered — so nothing more is coming
    const { rows } = await server.engage.pool.query('SELECT event_type, status FROM webhook_deliveries WHERE endpoint_id = $1', [onlyEp.id]);
    expect(rows.map((r) => r.event_type)).toEqual(['contact.created']);
    await until(() => onlyCreated.hits, (l) => l.length >= 1);
    expect(onlyCreated.hits.map((x) => x.json.type)).toEqual(['contact.created']);
    expect(onlyCreated.hits[0].json.data.id).toBe(contactId);
    // signed with its own secret, not the other endpoint's
    const hit = onlyCreated.hits[0];
    expect(h(hit, 'x-service-signature')).toBe(independentServiceSignature(onlyEp.secret, h(hit, 'x-service-timestamp'), hit.body));
    expect(h(hit, 'x-service-signature')).not.toBe(independentServiceSignature(allEp.secret, h(hit, 'x-service-timestamp'), hit.body));
    // one event reaching two endpoints keeps one id
    expect(hit.json.id).toBe(created.json.id);
  });

  async function perMessageHits(messageId: string, types: string[]) {
    const mine = () => perMessage.hits.filter((x) => x.json?.data?.message_id === messageId);
    const got = await until(mine, (l) => types.every((t) => l.some((x) => x.json.type === t)), 30_000);
    return Object.fromEntries(got.map((x) => [x.json.type as string, x])) as Record<string, Hit>;
  }
  function expectMessagePayload(hit: Hit, type: string, secret: string) {
    expect(Object.keys(hit.json).sort()).toEqual(['created_at', 'data', 'id', 'type']);
    expect(hit.json.type).toBe(type);
    expect(hit.json.id).toMatch(/^evt_/);
    expect(hit.json.created_at).toMatch(ISO);
    expect(h(hit, 'x-service-event')).toBe(type);
    expect(h(hit, 'x-service-event-id')).toBe(hit.json.id);
    const allowed = ['message_id', 'status', 'channel', 'to', 'reason', 'provider_message_id'];
    for (const k of Object.keys(hit.json.data)) expect(allowed).toContain(k);
    expect(hit.json.data.status).toBe(type.slice('message.'.length));
    expect(h(hit, 'x-service-signature')).toBe(independentServiceSignature(secret, h(hit, 'x-service-timestamp'), hit.body));
    expect(h(hit, 'x-legacy-signature')).toBe(h(hit, 'x-service-signature'));
  }

  it('concurrent first reads of the account secret all answer the one secret that is kept', async () => {
    // the first read issues the secret: a read that loses that race must answer the winner's, not its own
    for (let i = 0; i < 8; i++) {
      const acct = await server.newAccount();
      const first = await Promise.all([1, 2, 3].map(() => server.call('GET', '/v1/account/webhook-secret', { key: acct.key })));
      const kept = (await server.call('GET', '/v1/account/webhook-secret', { key: acct.key })).body.secret;
      expect(first.map((r) => r.body.secret)).toEqual([kept, kept, kept]);
    }
  });

  it('a per-message webhook_url gets queued, sent and delivered, signed with the account secret', async () => {
    const secretRes = await server.call('GET', '/v1/account/webhook-secret', { key });
    expect(secretRes.status).toBe(200);
    const secret = secretRes.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect((await server.call('GET', '/v1/account/webhook-secret', { key })).body.secret).toBe(secret); // stable until rotated

    const id = await send({ to: '+14155550123', channel: 'sms', message: 'hi', webhook_url: `${perMessage.url}?m=ok` });
    const got = await perMessageHits(id, ['message.queued', 'message.sent', 'message.delivered']);
    expect(Object.keys(got).sort()).toEqual(['message.delivered', 'message.queued', 'message.sent']);
    for (const [type, hit] of Object.entries(got)) {
      expectMessagePayload(hit, type, secret);
      expect(hit.json.data).toMatchObject({ message_id: id, channel: 'sms', to: '+14155550123' });
      expect(hit.path).toBe('/hook?m=ok');
    }
    expect(got['message.delivered'].json.data.provider_message_id).toEqual(expect.any(String));
    expect(got['message.queued'].json.data).not.toHaveProperty('reason');
    // created_at follows the message's history (arrival order is not promised)
    const at = (t: string) => got[t].json.created_at;
    expect(at('message.queued') <= at('message.sent') && at('message.sent') <= at('message.delivered')).toBe(true);
    // the README's verifier accepts them, and refuses them under another secret
    const { verify, cleanup } = await readmeVerifier();
    try {
      for (const hit of Object.values(got)) {
        expect(verify(secret, hit.headers, hit.body)).toBe(true);
        expect(verify(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, hit.headers, hit.body)).toBe(false);
      }
    } finally {
      cleanup();
    }
  });

  it('the sandbox reject number gets queued and failed (with the reason), never sent', async () => {
    const secret = (await server.call('GET', '/v1/account/webhook-secret', { key })).body.secret;
    const id = await send({ to: '+15005550001', channel: 'sms', message: 'no', webhook_url: perMessage.url });
    const got = await perMessageHits(id, ['message.queued', 'message.failed']);
    expectMessagePayload(got['message.failed'], 'message.failed', secret);
    expect(got['message.failed'].json.data).toMatchObject({ message_id: id, status: 'failed', channel: 'sms', to: '+15005550001', reason: 'invalid_number' });
    // every row of this message is settled and none is message.sent
    const { rows } = await server.engage.pool.query(`SELECT event_type FROM webhook_deliveries WHERE kind = 'message' AND body::jsonb->'data'->>'message_id' = $1`, [id]);
    expect(rows.map((r) => r.event_type).sort()).toEqual(['message.failed', 'message.queued']);
  });

  it('the account secret needs settings; rotating it changes the secret used for later deliveries', async () => {
    const reader = (await server.call('POST', '/v1/account/api-keys', { key, body: { scopes: ['read', 'write'] } })).body.key;
    const denied = await server.call('GET', '/v1/account/webhook-secret', { key: reader });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: 'insufficient_scope', message: expect.any(String), required_scope: 'settings', missing_scopes: ['settings'] });
    expect((await server.call('POST', '/v1/account/webhook-secret/rotate', { key: reader })).status).toBe(403);
    const settings = (await server.call('POST', '/v1/account/api-keys', { key, body: { scopes: ['settings'] } })).body.key;

    const old = (await server.call('GET', '/v1/account/webhook-secret', { key: settings })).body.secret;
    const rotated = await server.call('POST', '/v1/account/webhook-secret/rotate', { key: settings });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(old);
    expect(Buffer.from(fresh.slice(6), 'base64')).toHaveLength(32);
    expect((await server.call('GET', '/v1/account/webhook-secret', { key })).body.secret).toBe(fresh);

    const id = await send({ to: '+14155550177', channel: 'sms', message: 'after rotation', webhook_url: perMessage.url });
    const got = await perMessageHits(id, ['message.queued', 'message.sent', 'message.delivered']);
    for (const [type, hit] of Object.entries(got)) {
      expectMessagePayload(hit, type, fresh);
      expect(h(hit, 'x-service-signature')).not.toBe(independentServiceSignature(old, h(hit, 'x-service-timestamp'), hit.body));
    }
    // endpoint secrets are separate: rotation does not touch them
    const c = await server.call('POST', '/v1/contacts', { key, body: { email: 'after-rotation@example.com' } });
    const ep = await until(() => all.hits.filter((x) => x.json?.data?.id === c.body.id), (l) => l.length === 1);
    expect(h(ep[0], 'x-service-signature')).toBe(independentServiceSignature(allEp.secret, h(ep[0], 'x-service-timestamp'), ep[0].body));
  });

  it('a per-message delivery retried after a rotation is signed with the new secret', async () => {
    const old = (await server.call('GET', '/v1/account/webhook-secret', { key })).body.secret as string;
    // the first request is answered 500 only once the rotation is done: its retry is claimed after it
    let release!: () => void;
    const rotated = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    const flaky = await startReceiver(async () => {
      if (!first) return 200;
      first = false;
      await rotated;
      return 500;
    });
    try {
      const id = await send({ to: '+14155550166', channel: 'sms', message: 'retried', webhook_url: flaky.url });
      const [failed] = await until(() => flaky.hits, (l) => l.length >= 1);
      expect(failed.json.data.message_id).toBe(id);
      expectMessagePayload(failed, failed.json.type, old);

      const fresh = (await server.call('POST', '/v1/account/webhook-secret/rotate', { key })).body.secret as string;
      expect(fresh).not.toBe(old);
      release();
      const again = await until(() => flaky.where('x-service-event-id', failed.json.id), (l) => l.length >= 2, 30_000);
      expect(again[1].body).toBe(failed.body);
      expectMessagePayload(again[1], failed.json.type, fresh);
    } finally {
      release();
      await flaky.close();
    }
  });
});
