// The webhook-endpoints API over real HTTP (README "Webhooks", "API
// conventions"): secrets shown once, the event catalogue, event validation, PATCH of
// url/events/status, delete, account isolation, scopes and the ping.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PLATFORM_EVENTS } from '../../commands/webhook-endpoint.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { type Receiver, h, independentServiceSignature, startReceiver } from '../support/receivers.ts';
import { until } from '../support/waits.ts';

// every event something emits (README "Webhooks")
const CATALOGUE = [
  'contact.created', 'contact.updated', 'contact.unsubscribed', 'contact.bounced',
  'message.delivered', 'message.failed', 'message.received', 'email.opened', 'campaign.sent', 'form.submitted',
];

describe('webhook endpoints API', () => {
  let server: TestServer;
  let a: Receiver;
  let b: Receiver;
  let failing: Receiver;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    [a, b, failing] = await Promise.all([startReceiver(), startReceiver(), startReceiver(() => 500)]);
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '200ms,400ms,800ms' });
    ({ key, accountId } = await server.newAccount());
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all([a, b, failing].map((r) => r?.close()));
  });

  const deliveriesOf = async (endpointId: string) =>
    (await server.engage.pool.query('SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id', [endpointId])).rows;

  it('POST returns 201 with a whsec_ secret (32 random bytes) exactly once; GET never shows it', async () => {
    const res = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: a.url, events: ['contact.created'] } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^we_/), url: a.url, events: ['contact.created'], status: 'active' });
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    const raw = Buffer.from(res.body.secret.slice('whsec_'.length), 'base64');
    expect(raw.length).toBe(32);
    expect(raw.toString('base64')).toBe(res.body.secret.slice('whsec_'.length));

    const other = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: a.url } });
    expect(other.body.secret).not.toBe(res.body.secret); // unique per endpoint

    const list = await server.call('GET', '/v1/webhook-endpoints', { key });
    expect(list.status).toBe(200);
    const mine = list.body.data.find((e: { id: string }) => e.id === res.body.id);
    expect(mine).toMatchObject({ id: res.body.id, url: a.url, events: ['contact.created'], status: 'active' });
    expect(mine).not.toHaveProperty('secret');
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret.slice(6));
    expect(JSON.stringify(list.body)).not.toContain(other.body.secret.slice(6));
    // PATCH does not show it either
    const patched = await server.call('PATCH', `/v1/webhook-endpoints/${res.body.id}`, { key, body: { events: ['contact.created', 'contact.updated'] } });
    expect(patched.status).toBe(200);
    expect(JSON.stringify(patched.body)).not.toContain(res.body.secret.slice(6));
    // nor is it stored in clear in the event log
    const { rows } = await server.engage.pool.query(
      `SELECT data::text AS data FROM es_events WHERE type = 'WebhookEndpointCreated' AND data->>'id' = $1`,
      [res.body.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].data).not.toContain(res.body.secret.slice(6));
  });

  it('GET lists the catalogue of the subscribable events: those something emits', async () => {
    const list = await server.call('GET', '/v1/webhook-endpoints', { key });
    expect(list.body.events.map((e: { name: string }) => e.name).sort()).toEqual([...CATALOGUE].sort());
    expect([...PLATFORM_EVENTS].sort()).toEqual([...CATALOGUE].sort());
    for (const e of list.body.events) expect(typeof e.description).toBe('string');
  });

  it('missing or empty events subscribe to all; duplicates collapse', async () => {
    const missing = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: b.url } });
    const empty = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: b.url, events: [] } });
    expect(missing.status).toBe(201);
    expect(empty.status).toBe(201);
    expect(missing.body.events).toEqual([]);
    expect(empty.body.events).toEqual([]);
    const dup = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: b.url, events: ['contact.updated', 'contact.updated'] } });
    expect(dup.body.events).toEqual(['contact.updated']);

    const contact = await server.call('POST', '/v1/contacts', { key, body: { email: 'all-events@example.com' } });
    expect(contact.status).toBe(201);
    await server.call('PATCH', `/v1/contacts/${contact.body.id}`, { key, body: { first_name: 'Ada' } });
    for (const ep of [missing.body.id, empty.body.id]) {
      const rows = await until(() => deliveriesOf(ep), (r) => r.length >= 2 && r.every((d) => d.status === 'delivered'));
      expect(rows.map((r) => r.event_type).sort()).toEqual(['contact.created', 'contact.updated']);
    }
    // the contact.updated-only endpoint got the update only (its rows were written with the others)
    expect((await deliveriesOf(dup.body.id)).map((r) => r.event_type)).toEqual(['contact.updated']);
  });

  it('unknown event names → 400 naming them and listing the valid ones', async () => {
    const res = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: a.url, events: ['contact.created', 'contact.exploded'] } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_error');
    expect(res.body.message).toContain('contact.exploded');
    for (const name of CATALOGUE) expect(res.body.message).toContain(name);
    expect(res.body.issues[0].path).toBe('events');
    // the same on PATCH
    const ep = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: a.url } });
    const patch = await server.call('PATCH', `/v1/webhook-endpoints/${ep.body.id}`, { key, body: { events: ['ping'] } });
    expect(patch.status).toBe(400);
    expect(patch.body.message).toContain('campaign.sent');
    // form.submitted, which signup forms emit, is offered on POST, PATCH and replay
    const form = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: a.url, events: ['form.submitted'] } });
    expect(form.status).toBe(201);
    expect(form.body.events).toEqual(['form.submitted']);
    expect((await server.call('PATCH', `/v1/webhook-endpoints/${ep.body.id}`, { key, body: { events: ['contact.created', 'form.submitted'] } })).body.events).toEqual(['contact.created', 'form.submitted']);
    const replay = await server.call('POST', `/v1/webhook-endpoints/${ep.body.id}/replay`, { key, body: { from: new Date(Date.now() - 60_000).toISOString(), types: ['form.submitted'] } });
    expect(replay.status).toBe(202);
    // and other bad bodies
    expect((await server.call('POST', '/v1/webhook-endpoints', { key, body: { events: [] } })).status).toBe(400);
    expect((await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: a.url, secret: 'mine' } })).body.issues).toEqual([{ path: 'secret', message: 'unknown field' }]);
    expect((await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: 'ftp://example.com/x' } })).status).toBe(400);
    expect((await server.call('PATCH', `/v1/webhook-endpoints/${ep.body.id}`, { key, body: { status: 'paused' } })).status).toBe(400);
  });

  it('PATCH changes url, events and status; a disabled endpoint gets nothing until re-enabled', async () => {
    const [ra, rb] = await Promise.all([startReceiver(), startReceiver()]);
    try {
      const { key: k2 } = await server.newAccount();
      const moving = await server.call('POST', '/v1/webhook-endpoints', { key: k2, body: { url: ra.url, events: ['contact.created'] } });
      const disabled = await server.call('POST', '/v1/webhook-endpoints', { key: k2, body: { url: ra.url, events: ['contact.created'] } });
      const witness = await server.call('POST', '/v1/webhook-endpoints', { key: k2, body: { url: rb.url, events: ['contact.created'] } });

      const p1 = await server.call('PATCH', `/v1/webhook-endpoints/${moving.body.id}`, { key: k2, body: { url: rb.url, events: ['contact.created', 'contact.updated'] } });
      expect(p1.status).toBe(200);
      expect(p1.body).toMatchObject({ id: moving.body.id, url: rb.url, events: ['contact.created', 'contact.updated'], status: 'active' });
      const p2 = await server.call('PATCH', `/v1/webhook-endpoints/${disabled.body.id}`, { key: k2, body: { status: 'disabled' } });
      expect(p2.status).toBe(200);
      expect(p2.body.status).toBe('disabled');
      const listed = (await server.call('GET', '/v1/webhook-endpoints', { key: k2 })).body.data;
      expect(listed.find((e: { id: string }) => e.id === disabled.body.id).status).toBe('disabled');

      const c1 = await server.call('POST', '/v1/contacts', { key: k2, body: { email: 'patch-1@example.com' } });
      await until(() => deliveriesOf(witness.body.id), (r) => r.length === 1 && r[0].status === 'delivered');
      await until(() => deliveriesOf(moving.body.id), (r) => r.length === 1 && r[0].status === 'delivered');
      // rows for every subscribed endpoint are written in one transaction: none for the disabled one
      expect(await deliveriesOf(disabled.body.id)).toEqual([]);
      expect(ra.hits).toEqual([]); // the old url of `moving` and the disabled endpoint got nothing
      expect(rb.hits.filter((x) => x.json?.data?.id === c1.body.id)).toHaveLength(2);

      const p3 = await server.call('PATCH', `/v1/webhook-endpoints/${disabled.body.id}`, { key: k2, body: { status: 'active' } });
      expect(p3.body.status).toBe('active');
      const c2 = await server.call('POST', '/v1/contacts', { key: k2, body: { email: 'patch-2@example.com' } });
      const rows = await until(() => deliveriesOf(disabled.body.id), (r) => r.length === 1 && r[0].status === 'delivered');
      expect(JSON.parse(rows[0].body).data.id).toBe(c2.body.id);
      expect(ra.hits.map((x) => x.json.data.id)).toEqual([c2.body.id]);
    } finally {
      await Promise.all([ra.close(), rb.close()]);
    }
  });

  it('DELETE removes the endpoint: it disappears from the list and PATCH/DELETE/test answer 404', async () => {
    const ep = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: a.url } });
    const del = await server.call('DELETE', `/v1/webhook-endpoints/${ep.body.id}`, { key });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: ep.body.id, deleted: true });
    const list = await server.call('GET', '/v1/webhook-endpoints', { key });
    expect(list.body.data.map((e: { id: string }) => e.id)).not.toContain(ep.body.id);
    const patch = await server.call('PATCH', `/v1/webhook-endpoints/${ep.body.id}`, { key, body: { status: 'disabled' } });
    expect(patch.status).toBe(404);
    expect(patch.body.error).toBe('not_found');
    expect((await server.call('DELETE', `/v1/webhook-endpoints/${ep.body.id}`, { key })).status).toBe(404);
    expect((await server.call('POST', `/v1/webhook-endpoints/${ep.body.id}/test`, { key })).status).toBe(404);
    expect((await server.call('PATCH', '/v1/webhook-endpoints/we_never', { key, body: { status: 'disabled' } })).status).toBe(404);
  });

  it("another account's endpoint answers 404 exactly like a missing one", async () => {
    const ep = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: a.url } });
    const { key: stranger } = await server.newAccount('Stranger');
    const missing = await server.call('PATCH', '/v1/webhook-endpoints/we_01ARZ3NDEKTSV4RRFFQ69G5FAV', { key: stranger, body: { status: 'disabled' } });
    const foreign = await server.call('PATCH', `/v1/webhook-endpoints/${ep.body.id}`, { key: stranger, body: { status: 'disabled' } });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect((await server.call('DELETE', `/v1/webhook-endpoints/${ep.body.id}`, { key: stranger })).status).toBe(404);
    expect((await server.call('POST', `/v1/webhook-endpoints/${ep.body.id}/test`, { key: stranger })).status).toBe(404);
    expect((await server.call('GET', `/v1/webhook-endpoints/${ep.body.id}/deliveries`, { key: stranger })).status).toBe(404);
    const theirs = await server.call('GET', '/v1/webhook-endpoints', { key: stranger });
    expect(theirs.body.data).toEqual([]);
    // untouched
    const list = await server.call('GET', '/v1/webhook-endpoints', { key });
    expect(list.body.data.find((e: { id: string }) => e.id === ep.body.id).status).toBe('active');
  });

  it('a read-only key may list but gets 403 insufficient_scope (required_scope write) on mutations', async () => {
    const quiet = await startReceiver();
    onTestFinished(() => quiet.close());
    const ep = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: quiet.url } });
    const issued = await server.call('POST', '/v1/account/api-keys', { key, body: { name: 'reader', scopes: ['read'] } });
    expect(issued.status).toBe(201);
    const reader = issued.body.key as string;
    const list = await server.call('GET', '/v1/webhook-endpoints', { key: reader });
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: { id: string }) => e.id)).toContain(ep.body.id);
    expect((await server.call('GET', `/v1/webhook-endpoints/${ep.body.id}/deliveries`, { key: reader })).status).toBe(200);

    const attempts = [
      server.call('POST', '/v1/webhook-endpoints', { key: reader, body: { url: quiet.url } }),
      server.call('PATCH', `/v1/webhook-endpoints/${ep.body.id}`, { key: reader, body: { status: 'disabled' } }),
      server.call('DELETE', `/v1/webhook-endpoints/${ep.body.id}`, { key: reader }),
      server.call('POST', `/v1/webhook-endpoints/${ep.body.id}/test`, { key: reader }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'insufficient_scope', message: expect.any(String), required_scope: 'write', missing_scopes: ['write'] });
    }
    // nothing changed, nothing was pinged
    const after = await server.call('GET', '/v1/webhook-endpoints', { key });
    expect(after.body.data.find((e: { id: string }) => e.id === ep.body.id).status).toBe('active');
    expect(quiet.hits).toEqual([]);
    // the account's per-message secret needs settings
    const secret = await server.call('GET', '/v1/account/webhook-secret', { key: reader });
    expect(secret.status).toBe(403);
    expect(secret.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'settings' });
    expect((await server.call('POST', '/v1/account/webhook-secret/rotate', { key: reader })).status).toBe(403);
    // a key with write may mutate
    const writer = (await server.call('POST', '/v1/account/api-keys', { key, body: { scopes: ['read', 'write'] } })).body.key;
    expect((await server.call('PATCH', `/v1/webhook-endpoints/${ep.body.id}`, { key: writer, body: { status: 'disabled' } })).status).toBe(200);
  });

  it('POST /:id/test delivers a signed ping now and returns the status code and latency', async () => {
    const pinged = await startReceiver();
    onTestFinished(() => pinged.close());
    const ep = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: pinged.url, events: ['campaign.sent'] } });
    const res = await server.call('POST', `/v1/webhook-endpoints/${ep.body.id}/test`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, status_code: 200, error: null });
    expect(Number.isInteger(res.body.latency_ms) && res.body.latency_ms >= 0).toBe(true);
    // delivered before the response: no polling needed
    expect(pinged.hits).toHaveLength(1);
    const ping = pinged.hits[0];
    expect(h(ping, 'x-service-event')).toBe('ping');
    expect(Object.keys(ping.json).sort()).toEqual(['account_id', 'created_at', 'data', 'id', 'type']);
    expect(ping.json).toMatchObject({ type: 'ping', account_id: accountId, id: res.body.event_id });
    expect(new Date(ping.json.created_at).toISOString()).toBe(ping.json.created_at);
    expect(h(ping, 'x-service-signature')).toBe(independentServiceSignature(ep.body.secret, h(ping, 'x-service-timestamp'), ping.body));
    // a ping is not a platform event: no delivery row
    expect(await deliveriesOf(ep.body.id)).toEqual([]);

    const bad = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: failing.url } });
    const res500 = await server.call('POST', `/v1/webhook-endpoints/${bad.body.id}/test`, { key });
    expect(res500.status).toBe(200);
    expect(res500.body).toMatchObject({ ok: false, status_code: 500 });
    expect(typeof res500.body.latency_ms).toBe('number');
    expect(failing.hits).toHaveLength(1);

    // a dead port: no status code, an error, still a 200 answer from the API
    const dead = await startReceiver();
    const deadUrl = dead.url;
    await dead.close();
    const gone = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url: deadUrl } });
    const resDead = await server.call('POST', `/v1/webhook-endpoints/${gone.body.id}/test`, { key });
    expect(resDead.body).toMatchObject({ ok: false, status_code: null, error: expect.any(String) });
  });
});
