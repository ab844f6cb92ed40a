// The suppression list API (README "Suppressions and unsubscribes"): GET
// /v1/account/unsubscribes/api/list (the read capability), POST /v1/account/unsubscribes and DELETE
// /v1/account/unsubscribes/:address (write); addresses normalised as the dispatcher hashes them, so a
// suppression added here stops the messages it should.
import { describe, expect, it } from 'vitest';
import { suppressionDecider, suppressionStream } from '../../commands/suppression.ts';
import { handleCommand } from '../../src/command-handler.ts';
import { addressHasher } from '../../src/personal-data/address-hash.ts';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { expectRejected } from '../support/http.ts';
import { until } from '../support/waits.ts';

const LIST = '/v1/account/unsubscribes/api/list';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('the suppression list', () => {
  const server = testServerForSuite();

  const scopedKey = async (ownerKey: string, scopes: string[]) => {
    const res = await server.call('POST', '/v1/account/api-keys', { key: ownerKey, body: { name: scopes.join('+'), scopes } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.key as string;
  };
  const send = async (key: string, body: Record<string, unknown>) => {
    const res = await server.call('POST', '/v1/messages/send', { key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.id as string;
  };
  const finalStatus = (key: string, id: string) =>
    until(async () => (await server.call('GET', `/v1/messages/${id}`, { key })).body, (m) => m.status === 'delivered' || m.status === 'failed');

  it('adds suppressions (normalised), answers 200 unchanged for one that exists, lists them and removes them', async () => {
    const { key } = await readyAccount(server);
    const email = await server.call('POST', '/v1/account/unsubscribes', { key, body: { email: '  Ada@Example.COM ' } });
    expect(email.status, JSON.stringify(email.body)).toBe(201);
    expect(email.body).toEqual({ address: 'ada@example.com', channel: 'email', reason: 'manual', source: 'api', created_at: expect.stringMatching(ISO) });
    const phone = await server.call('POST', '/v1/account/unsubscribes', { key, body: { phone: '+1 (415) 555-0123', reason: 'stop' } });
    expect(phone.status).toBe(201);
    expect(phone.body).toMatchObject({ address: '+14155550123', channel: 'phone', reason: 'stop', source: 'api' });

    // already suppressed: 200, and the suppression stays as it was (its reason too)
    const again = await server.call('POST', '/v1/account/unsubscribes', { key, body: { email: 'ADA@example.com', reason: 'unsubscribe' } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(email.body);

    const listed = await server.call('GET', LIST, { key });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ data: [phone.body, email.body], next_cursor: null });
    expect((await server.call('GET', `${LIST}?reason=stop`, { key })).body.data).toEqual([phone.body]);
    expect((await server.call('GET', `${LIST}?address=${encodeURIComponent('ADA@example.com')}`, { key })).body.data).toEqual([email.body]);
    expect((await server.call('GET', `${LIST}?address=${encodeURIComponent('+1 415 555 0123')}`, { key })).body.data).toEqual([phone.body]);
    expect((await server.call('GET', `${LIST}?reason=complaint`, { key })).body.data).toEqual([]);

    const removed = await server.call('DELETE', `/v1/account/unsubscribes/${encodeURIComponent('Ada@example.com')}`, { key });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ address: 'ada@example.com', channel: 'email', deleted: true });
    expect((await server.call('GET', LIST, { key })).body.data).toEqual([phone.body]);
    const removedPhone = await server.call('DELETE', `/v1/account/unsubscribes/${encodeURIComponent('+14155550123')}`, { key });
    expect(removedPhone.status).toBe(200);
    expect((await server.call('GET', LIST, { key })).body.data).toEqual([]);
    // not suppressed (any more): 404
    const gone = await server.call('DELETE', `/v1/account/unsubscribes/${encodeURIComponent('ada@example.com')}`, { key });
    expect(gone.status).toBe(404);
    expect(gone.body.error).toBe('not_found');
    // suppressed again after a removal
    expect((await server.call('POST', '/v1/account/unsubscribes', { key, body: { email: 'ada@example.com' } })).status).toBe(201);
  });

  it('pages newest first with a cursor', async () => {
    const { key } = await readyAccount(server);
    const added: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await server.call('POST', '/v1/account/unsubscribes', { key, body: { email: `page${i}@example.com` } });
      expect(res.status).toBe(201);
      added.push(res.body.address);
    }
    const seen: { address: string; created_at: string }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await server.call('GET', `${LIST}?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { key });
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.data);
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.map((s) => s.address).sort()).toEqual([...added].sort());
    // newest first (added one after the other: their times never go up down the list)
    for (let i = 1; i < seen.length; i++) expect(seen[i].created_at <= seen[i - 1].created_at).toBe(true);
    expect(seen[0].address).toBe(added.at(-1));
    expect(seen.at(-1)!.address).toBe(added[0]);
    expect((await server.call('GET', `${LIST}?limit=50`, { key })).body.next_cursor).toBeNull();
  });

  it('pages through suppressions made at the same instant without skipping or repeating one', async () => {
    const { key, accountId } = await readyAccount(server);
    const hash = await addressHasher(server.engage.pool);
    const now = new Date('2026-05-01T12:00:00.000Z');
    let last;
    for (let i = 0; i < 5; i++) {
      const address = `tie${i}@example.com`;
      const stream = suppressionStream(accountId, hash(address));
      last = await handleCommand(server.engage.store, suppressionDecider, stream, { type: 'Suppress', accountId, addressHash: hash(address), address, reason: 'manual', source: 'test', now }, { accountId, actor: 'test' });
    }
    await server.engage.runner.waitFor(['suppressions'], last!.position!, 15_000);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await server.call('GET', `${LIST}?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key });
      seen.push(...res.body.data.map((s: { address: string; created_at: string }) => `${s.address} ${s.created_at}`));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen.sort()).toEqual([0, 1, 2, 3, 4].map((i) => `tie${i}@example.com ${now.toISOString()}`));
  });

  it('needs the read capability to list and write to change; another account sees and removes nothing of it', async () => {
    const owner = await readyAccount(server);
    const writeOnly = await scopedKey(owner.key, ['write']);
    const readOnly = await scopedKey(owner.key, ['read']);
    const denied = await server.call('GET', LIST, { key: writeOnly });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'read' });
    expect((await server.call('GET', LIST, { key: readOnly })).status).toBe(200);
    const noWrite = await server.call('POST', '/v1/account/unsubscribes', { key: readOnly, body: { email: 'x@example.com' } });
    expect(noWrite.status).toBe(403);
    expect(noWrite.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'write' });
    expect((await server.call('DELETE', '/v1/account/unsubscribes/x%40example.com', { key: readOnly })).status).toBe(403);
    expect((await server.call('POST', '/v1/account/unsubscribes', { key: writeOnly, body: { email: 'mine@example.com' } })).status).toBe(201);
    expect((await server.call('GET', LIST)).status).toBe(401);

    // a dashboard session reads it too
    const login = await server.call('POST', '/v1/auth/login', { body: { email: owner.email, password: owner.password } });
    expect((await server.call('GET', LIST, { token: login.body.token })).body.data).toHaveLength(1);

    const other = await readyAccount(server);
    expect((await server.call('GET', LIST, { key: other.key })).body).toEqual({ data: [], next_cursor: null });
    expect((await server.call('GET', `${LIST}?address=mine%40example.com`, { key: other.key })).body.data).toEqual([]);
    expect((await server.call('DELETE', '/v1/account/unsubscribes/mine%40example.com', { key: other.key })).status).toBe(404);
    // its own suppression of the same address is its own
    expect((await server.call('POST', '/v1/account/unsubscribes', { key: other.key, body: { email: 'mine@example.com' } })).status).toBe(201);
    expect((await server.call('DELETE', '/v1/account/unsubscribes/mine%40example.com', { key: other.key })).status).toBe(200);
    expect((await server.call('GET', LIST, { key: owner.key })).body.data.map((s: { address: string }) => s.address)).toEqual(['mine@example.com']);
  });

  it('refuses bad input with 400s naming the field', async () => {
    const { key } = await readyAccount(server);
    const post = (body: unknown) => server.call('POST', '/v1/account/unsubscribes', { key, body });
    expectRejected(await post({}), 'email');
    expectRejected(await post({ email: 'a@example.com', phone: '+14155550123' }), 'email');
    expectRejected(await post({ email: 'not an email' }), 'email');
    expectRejected(await post({ phone: '12' }), 'phone');
    expectRejected(await post({ email: 'a@example.com', reason: 'bounce' }), 'reason');
    expectRejected(await post({ email: 'a@example.com', reason: 'erasure' }), 'reason');
    expectRejected(await post({ email: 'a@example.com', source: 'me' }), 'source');
    expectRejected(await server.call('GET', `${LIST}?limit=501`, { key }), 'limit');
    expectRejected(await server.call('GET', `${LIST}?limit=0`, { key }), 'limit');
    expectRejected(await server.call('GET', `${LIST}?reason=whim`, { key }), 'reason');
    expectRejected(await server.call('GET', `${LIST}?address=nobody`, { key }), 'address');
    expectRejected(await server.call('GET', `${LIST}?cursor=not-a-cursor`, { key }), 'cursor');
    expectRejected(await server.call('GET', `${LIST}?sort=asc`, { key }), 'sort');
    expectRejected(await server.call('DELETE', '/v1/account/unsubscribes/nobody', { key }), 'address');
    expectRejected(await server.call('DELETE', `/v1/account/unsubscribes/${encodeURIComponent('a@b')}`, { key }), 'address');
    expect((await server.call('GET', LIST, { key })).body.data).toEqual([]);
  });

  it('an erasure’s suppression cannot be removed (409); manual and stop suppressions block transactional messages too', async () => {
    const { key } = await readyAccount(server);
    expect((await server.call('POST', '/v1/account/erasures', { key, body: { email: 'erased@example.com' } })).status).toBe(200);
    // the erasure answers once its suppression is readable (read-your-writes, no waiting here)
    expect((await server.call('GET', LIST, { key })).body.data).toEqual([expect.objectContaining({ address: null, reason: 'erasure' })]);
    const refused = await server.call('DELETE', '/v1/account/unsubscribes/erased%40example.com', { key });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('conflict');
    expect(refused.body.message).toMatch(/erased/);
    // adding it again changes nothing: the erasure's suppression stays
    const readd = await server.call('POST', '/v1/account/unsubscribes', { key, body: { email: 'erased@example.com' } });
    expect(readd.status).toBe(200);
    expect(readd.body).toMatchObject({ address: null, reason: 'erasure' });

    // the hash the API writes is the one the dispatcher checks: formatted input, E.164 and mixed-case sends
    expect((await server.call('POST', '/v1/account/unsubscribes', { key, body: { phone: '+1 415-555-0177', reason: 'stop' } })).status).toBe(201);
    expect((await server.call('POST', '/v1/account/unsubscribes', { key, body: { email: 'Manual@Example.com' } })).status).toBe(201);
    expect((await server.call('POST', '/v1/account/unsubscribes', { key, body: { email: 'optout@example.com', reason: 'unsubscribe' } })).status).toBe(201);
    const toStop = await send(key, { to: '+14155550177', channel: 'sms', message: 'code 1234', transactional: true });
    const toManual = await send(key, { to: 'MANUAL@example.com', channel: 'email', subject: 'Receipt', message: 'receipt', category: 'transactional' });
    const optoutReceipt = await send(key, { to: 'optout@example.com', channel: 'email', subject: 'Receipt', message: 'receipt', transactional: true });
    const optoutPromo = await send(key, { to: 'optout@example.com', channel: 'email', subject: 'Sale', message: 'sale' });
    expect(await finalStatus(key, toStop)).toMatchObject({ status: 'failed', reason: 'suppressed' });
    expect(await finalStatus(key, toManual)).toMatchObject({ status: 'failed', reason: 'suppressed' });
    expect(await finalStatus(key, optoutReceipt)).toMatchObject({ status: 'delivered' });
    expect(await finalStatus(key, optoutPromo)).toMatchObject({ status: 'failed', reason: 'suppressed' });

    // lifted by the API, the address gets messages again
    expect((await server.call('DELETE', `/v1/account/unsubscribes/${encodeURIComponent('+14155550177')}`, { key })).status).toBe(200);
    const after = await send(key, { to: '+14155550177', channel: 'sms', message: 'code 5678', transactional: true });
    expect(await finalStatus(key, after)).toMatchObject({ status: 'delivered' });
  });
});
