// Webhook replay over HTTP (README "Webhook replay"): a replay re-delivers the account's platform
// events from a window of the log (times or positions) to one endpoint — the event's original id,
// signed with the endpoint's secret, marked as a replay — only the types the endpoint subscribes to
// and the caller asked for; the job reports its progress and refuses what it cannot do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { type Hit, type Receiver, h, independentServiceSignature, startReceiver } from '../support/receivers.ts';
import { until } from '../support/waits.ts';

const server = testServerForSuite({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '200ms,400ms' });
let live: Receiver;
let replayed: Receiver;
let a: TestAccount;
let b: TestAccount;
let liveEp: { id: string; secret: string };
let windowStart: string;
const contacts: string[] = [];
let message: string;

const contactIdOf = (hit: Hit) => (hit.json?.type === 'message.delivered' ? hit.json.data.message_id : hit.json?.data?.id);

async function replayDone(key: string, endpointId: string, replayId: string) {
  const res = await until(() => server.call('GET', `/v1/webhook-endpoints/${endpointId}/replays/${replayId}`, { key }), (r) => r.body.status === 'completed' || r.body.status === 'cancelled', 30_000);
  expect(res.body.status).toBe('completed');
  return res.body;
}

beforeAll(async () => {
  [live, replayed] = await Promise.all([startReceiver(), startReceiver()]);
  a = await server.newAccount('Replaying');
  b = await server.newAccount('Other');
  liveEp = (await server.call('POST', '/v1/webhook-endpoints', { key: a.key, body: { url: live.url } })).body;
  windowStart = new Date(Date.now() - 1).toISOString();
  for (const name of ['Ann', 'Bob', 'Cy']) {
    const res = await server.call('POST', '/v1/contacts', { key: a.key, body: { email: `${name.toLowerCase()}@example.com`, first_name: name } });
    expect(res.status).toBe(201);
    contacts.push(res.body.id);
    // the other account's events lie in the same window
    expect((await server.call('POST', '/v1/contacts', { key: b.key, body: { email: `${name.toLowerCase()}@other.example.com` } })).status).toBe(201);
  }
  expect((await server.call('PATCH', `/v1/contacts/${contacts[0]}`, { key: a.key, body: { last_name: 'Updated' } })).status).toBe(200);
  message = (await server.call('POST', '/v1/messages/send', { key: a.key, body: { to: '+14155550111', channel: 'sms', message: 'hi', transactional: true } })).body.id;
  await until(() => live.hits, (l) => l.length >= 5 && l.some((x) => x.json.type === 'message.delivered'), 30_000);
});
afterAll(async () => {
  await Promise.all([live, replayed].map((r) => r?.close()));
});

describe('a replay to a new endpoint', () => {
  it("delivers the window's events of its types with their original ids, signed with its own secret and marked as a replay", async () => {
    const ep = (await server.call('POST', '/v1/webhook-endpoints', { key: a.key, body: { url: replayed.url, events: ['contact.created', 'message.delivered'] } })).body;
    const started = await server.call('POST', `/v1/webhook-endpoints/${ep.id}/replay`, { key: a.key, body: { from: windowStart } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      id: expect.stringMatching(/^rpl_/), endpoint_id: ep.id, status: 'scanning', from: expect.stringMatching(/^\d+\/\d+$/), until: expect.stringMatching(/^\d+\/\d+$/),
      from_input: windowStart, until_input: null, types: ['contact.created', 'message.delivered'], completed_at: null,
    });
    const done = await replayDone(a.key, ep.id, started.body.id);
    expect(done).toMatchObject({ found: 4, delivered: 4, failed: 0, pending: 0, completed_at: expect.any(String) });

    const hits = await until(() => replayed.hits, (l) => l.length >= 4);
    expect(hits.map((x) => x.json.type).sort()).toEqual(['contact.created', 'contact.created', 'contact.created', 'message.delivered']);
    expect(hits.map(contactIdOf).sort()).toEqual([...contacts, message].sort());
    for (const hit of hits) {
      // the same delivery the live endpoint got: same id and body
      const original = live.hits.find((x) => x.json.id === hit.json.id);
      expect(original, `a live delivery of ${hit.json.id}`).toBeDefined();
      expect(hit.body).toBe(original!.body);
      expect(h(hit, 'x-service-event-id')).toBe(hit.json.id);
      expect(h(hit, 'webhook-id')).toBe(hit.json.id);
      expect(h(hit, 'x-service-replay')).toBe(started.body.id);
      expect(h(hit, 'x-legacy-replay')).toBe(started.body.id);
      expect(h(hit, 'x-service-signature')).toBe(independentServiceSignature(ep.secret, h(hit, 'x-service-timestamp'), hit.body));
    }
    // live deliveries carry no replay marker
    expect(live.hits.every((x) => x.headers['x-service-replay'] === undefined)).toBe(true);
    expect(hits.find((x) => x.json.type === 'message.delivered')!.json.data).toMatchObject({ message_id: message, to: '+14155550111', status: 'delivered' });

    const list = await server.call('GET', `/v1/webhook-endpoints/${ep.id}/replays`, { key: a.key });
    expect(list.body).toEqual({ data: [done], next_cursor: null });
    // the deliveries list shows them as the replay's
    const deliveries = await server.call('GET', `/v1/webhook-endpoints/${ep.id}/deliveries`, { key: a.key });
    expect(deliveries.body.data).toHaveLength(4);
    expect(deliveries.body.data.every((d: { replay_id: string }) => d.replay_id === started.body.id)).toBe(true);
  });

  it('types and log positions narrow the window; a replay to an endpoint that got them live delivers them again', async () => {
    const history = async (id: string) => (await server.call('GET', `/v1/contacts/${id}/history`, { key: a.key })).body.data as { position: string; type: string }[];
    const second = (await history(contacts[1]))[0].position;
    const third = (await history(contacts[2]))[0].position;
    const before = live.hits.length;
    const res = await server.call('POST', `/v1/webhook-endpoints/${liveEp.id}/replay`, { key: a.key, body: { from: second, until: third, types: ['contact.created', 'contact.updated'] } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ from: second, until: third, from_input: second, until_input: third, types: ['contact.created', 'contact.updated'] });
    expect(await replayDone(a.key, liveEp.id, res.body.id)).toMatchObject({ found: 2, delivered: 2 });
    const again = (await until(() => live.hits.slice(before), (l) => l.length >= 2)).filter((x) => h(x, 'x-service-replay') === res.body.id);
    expect(again.map((x) => x.json.data.id).sort()).toEqual([contacts[1], contacts[2]].sort());
    expect(h(again[0], 'x-service-signature')).toBe(independentServiceSignature(liveEp.secret, h(again[0], 'x-service-timestamp'), again[0].body));

    const updates = await server.call('POST', `/v1/webhook-endpoints/${liveEp.id}/replay`, { key: a.key, body: { from: windowStart, types: ['contact.updated'] } });
    expect(await replayDone(a.key, liveEp.id, updates.body.id)).toMatchObject({ found: 1, delivered: 1 });
  });

  it('message.failed of a message accepted before the endpoint existed, whose hook the outbox never kept, is read from its stream', async () => {
    const failed = (await server.call('POST', '/v1/messages/send', { key: b.key, body: { to: '+15005550001', channel: 'sms', message: 'no', transactional: true } })).body.id;
    await until(() => server.call('GET', `/v1/messages/${failed}`, { key: b.key }), (r) => r.body.status === 'failed');
    await server.caughtUp(['webhook_outbox']);
    // as for a message accepted before every message had a hook
    await server.engage.pool.query('DELETE FROM webhook_message_hooks WHERE message_id = $1', [failed]);
    const receiver = await startReceiver();
    try {
      const ep = (await server.call('POST', '/v1/webhook-endpoints', { key: b.key, body: { url: receiver.url, events: ['message.failed'] } })).body;
      const res = await server.call('POST', `/v1/webhook-endpoints/${ep.id}/replay`, { key: b.key, body: { from: windowStart } });
      expect(await replayDone(b.key, ep.id, res.body.id)).toMatchObject({ found: 1, delivered: 1 });
      const [hit] = await until(() => receiver.hits, (l) => l.length >= 1);
      expect(hit.json).toMatchObject({ type: 'message.failed', data: { message_id: failed, to: '+15005550001', status: 'failed', reason: 'invalid_number' } });
    } finally {
      await receiver.close();
    }
  });
});

describe('what a replay refuses', () => {
  const replay = (endpointId: string, body: unknown, key = a.key) => server.call('POST', `/v1/webhook-endpoints/${endpointId}/replay`, { key, body });
  const issuePaths = (res: { body: { issues?: { path: string }[] } }) => res.body.issues?.map((i) => i.path);

  it('a bad time or position, an empty window, an unknown or unsubscribed type: 400 naming the field', async () => {
    for (const [body, field] of [
      [{ from: 'yesterday' }, 'from'],
      [{ from: '2026-13-01T00:00:00Z' }, 'from'],
      [{ from: windowStart, until: '12/x' }, 'until'],
      [{ from: new Date(Date.now() + 3_600_000).toISOString() }, 'from'],
      [{ from: windowStart, until: '2000-01-01T00:00:00Z' }, 'until'],
      [{ from: windowStart, types: ['contact.exploded'] }, 'types'],
      [{ from: windowStart, types: [] }, 'types'],
      [{ from: windowStart, nope: 1 }, undefined],
      [{}, 'from'],
    ] as const) {
      const res = await replay(liveEp.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('validation_error');
      if (field) expect(issuePaths(res), JSON.stringify(body)).toContain(field);
    }
    const history = (await server.call('GET', `/v1/contacts/${contacts[2]}/history`, { key: a.key })).body.data;
    const reversed = await replay(liveEp.id, { from: history[0].position, until: '1/1' });
    expect(reversed.status).toBe(400);
    expect(issuePaths(reversed)).toEqual(['from']);
    const narrow = (await server.call('POST', '/v1/webhook-endpoints', { key: a.key, body: { url: live.url, events: ['campaign.sent'] } })).body;
    const unsubscribed = await replay(narrow.id, { from: windowStart, types: ['contact.created'] });
    expect(unsubscribed.status).toBe(400);
    expect(issuePaths(unsubscribed)).toEqual(['types']);
  });

  it("another account's endpoint or replay is a 404; a disabled endpoint a 409; a read-only key a 403", async () => {
    expect((await replay(liveEp.id, { from: windowStart }, b.key)).status).toBe(404);
    const mine = await replay(liveEp.id, { from: windowStart, types: ['contact.updated'] });
    expect((await server.call('GET', `/v1/webhook-endpoints/${liveEp.id}/replays/${mine.body.id}`, { key: b.key })).status).toBe(404);
    expect((await server.call('GET', `/v1/webhook-endpoints/${liveEp.id}/replays`, { key: b.key })).status).toBe(404);
    expect((await server.call('POST', `/v1/webhook-endpoints/${liveEp.id}/replays/${mine.body.id}/cancel`, { key: b.key })).status).toBe(404);
    expect((await server.call('GET', `/v1/webhook-endpoints/${liveEp.id}/replays/rpl_01ARZ3NDEKTSV4RRFFQ69G5FAV`, { key: a.key })).status).toBe(404);

    const off = (await server.call('POST', '/v1/webhook-endpoints', { key: a.key, body: { url: live.url } })).body;
    expect((await server.call('PATCH', `/v1/webhook-endpoints/${off.id}`, { key: a.key, body: { status: 'disabled' } })).status).toBe(200);
    const disabled = await replay(off.id, { from: windowStart });
    expect(disabled.status).toBe(409);
    expect(disabled.body).toMatchObject({ error: 'conflict', status: 'disabled' });

    const reader = (await server.call('POST', '/v1/account/api-keys', { key: a.key, body: { scopes: ['read'] } })).body.key;
    const denied = await replay(liveEp.id, { from: windowStart }, reader);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'write', missing_scopes: ['write'] });
    expect((await server.call('GET', `/v1/webhook-endpoints/${liveEp.id}/replays`, { key: reader })).status).toBe(200);
  });
});
