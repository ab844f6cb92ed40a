// Inbound provider callbacks (README "Provider callbacks"): the sandbox report
// endpoint and the SMTP email feedback endpoint, both authenticated by a shared-secret header.
// Messages are held at `sent` (sandbox auto-delivery far in the future), so every change seen
// here can only come from the callback under test.
import { beforeAll, describe, expect, it } from 'vitest';
import { testServerForSuite } from '../support/harness.ts';
import { expectUnsupportedMediaType } from '../support/http.ts';
import { timeline, types } from '../support/messages.ts';
import { until } from '../support/waits.ts';
import { HOLD_SANDBOX, SECRETS, UNKNOWN_MESSAGE_ID, sendAndWaitSent, statusOf } from './helpers.ts';

let key: string;
let accountId: string;
let n = 0;
const phone = () => `+1415555${String(1000 + ++n).slice(-4)}`;
const email = (tag: string) => `${tag}-${++n}@example.com`;

const sandbox = (body: unknown, secret: string | null = SECRETS.WEBHOOK_SECRET_SANDBOX, raw?: string) =>
  server.call('POST', '/v1/webhooks/sandbox', { body, raw, headers: secret === null ? {} : { 'x-sandbox-secret': secret } });
const smtp = (body: unknown, secret: string | null = SECRETS.WEBHOOK_SECRET_SMTP) =>
  server.call('POST', '/v1/webhooks/smtp', { body, headers: secret === null ? {} : { 'x-smtp-feedback-secret': secret } });

const server = testServerForSuite({ ...SECRETS, ...HOLD_SANDBOX });
beforeAll(async () => {
  ({ key, accountId } = await server.newAccount());
});

describe('POST /v1/webhooks/sandbox', () => {
  it('a report with the right secret moves a sent message to delivered, with the provider data in the timeline', async () => {
    const { id } = await sendAndWaitSent(server, key, { to: phone(), channel: 'sms', message: 'hi' });
    const res = await sandbox({ message_id: id, status: 'delivered' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ received: 1 });
    expect((await statusOf(server, key, id, 'delivered')).status).toBe('delivered');
    const events = await timeline(server, key, id);
    expect(types(events)).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
    expect(events[3]).toMatchObject({ status: 'delivered', actor: 'provider:sandbox', details: { provider: 'sandbox', provider_data: { callback: 'sandbox', status: 'delivered' } } });
  });

  it('finds the message by provider_message_id and records failed with the reason', async () => {
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to: phone(), channel: 'sms', message: 'hi' });
    const res = await sandbox({ provider_message_id: providerMessageId, status: 'failed', reason: 'carrier_rejected' });
    expect(res.status).toBe(200);
    const failed = await statusOf(server, key, id, 'failed');
    expect(failed).toMatchObject({ status: 'failed', reason: 'carrier_rejected' });
    const last = (await timeline(server, key, id)).at(-1)!;
    expect(last).toMatchObject({ type: 'MessageFailed', reason: 'carrier_rejected', details: { provider: 'sandbox', stage: 'report', provider_data: { status: 'failed', reason: 'carrier_rejected' } } });
  });

  it('undelivered arrives as failed with the reason undelivered when none is given', async () => {
    const { id } = await sendAndWaitSent(server, key, { to: phone(), channel: 'sms', message: 'hi' });
    expect((await sandbox({ message_id: id, status: 'undelivered' })).status).toBe(200);
    expect(await statusOf(server, key, id, 'failed')).toMatchObject({ status: 'failed', reason: 'undelivered' });
  });

  it('a missing or wrong secret is 401 and changes nothing', async () => {
    const { id } = await sendAndWaitSent(server, key, { to: phone(), channel: 'sms', message: 'hi' });
    const before = await timeline(server, key, id);
    for (const secret of [null, 'wrong-secret', SECRETS.WEBHOOK_SECRET_SMTP, `${SECRETS.WEBHOOK_SECRET_SANDBOX}x`]) {
      const res = await sandbox({ message_id: id, status: 'delivered' }, secret);
      expect(res.status, String(secret)).toBe(401);
      expect(res.body).toMatchObject({ error: 'unauthorized' });
      expect(typeof res.body.message).toBe('string');
    }
    expect(await timeline(server, key, id)).toEqual(before);
    expect((await statusOf(server, key, id)).status).toBe('sent');
  });

  it('an unknown message id answers 2xx and changes nothing', async () => {
    const { id } = await sendAndWaitSent(server, key, { to: phone(), channel: 'sms', message: 'hi' });
    const before = await timeline(server, key, id);
    for (const body of [
      { message_id: UNKNOWN_MESSAGE_ID, status: 'delivered' },
      { message_id: 'not-one-of-ours', status: 'failed' },
      { provider_message_id: 'sbx_nobody', status: 'delivered' },
    ]) {
      const res = await sandbox(body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.body).toEqual({ received: 1 });
    }
    expect(await server.engage.store.readStream(`message-${UNKNOWN_MESSAGE_ID}`)).toEqual([]);
    expect(await timeline(server, key, id)).toEqual(before);
  });

  it('a repeated report answers 2xx and records exactly one MessageDelivered; a late contrary report changes nothing', async () => {
    const { id } = await sendAndWaitSent(server, key, { to: phone(), channel: 'sms', message: 'hi' });
    for (let i = 0; i < 3; i++) expect((await sandbox({ message_id: id, status: 'delivered' })).status).toBe(200);
    // the same report twice in one callback
    expect((await sandbox([{ message_id: id, status: 'delivered' }, { message_id: id, status: 'delivered' }])).body).toEqual({ received: 2 });
    expect((await sandbox({ message_id: id, status: 'failed', reason: 'late' })).status).toBe(200);
    const events = await timeline(server, key, id);
    expect(types(events).filter((t) => t === 'MessageDelivered')).toHaveLength(1);
    expect(types(events)).not.toContain('MessageFailed');
    expect((await statusOf(server, key, id, 'delivered')).status).toBe('delivered');
  });

  it('a malformed body is 400 validation_error naming the problem; another content type is 415', async () => {
    const cases: [unknown, string | undefined, string][] = [
      [undefined, '{"message_id":', '(body)'],
      [{ message_id: 'msg_x', status: 'bounced' }, undefined, 'status'],
      [{ message_id: 'msg_x', status: 'delivered', colour: 'red' }, undefined, 'colour'],
      [{ status: 'delivered' }, undefined, 'message_id'],
      [[], undefined, '(body)'],
    ];
    for (const [body, raw, path] of cases) {
      const res = await sandbox(body, SECRETS.WEBHOOK_SECRET_SANDBOX, raw);
      expect(res.status, JSON.stringify(body ?? raw)).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    const text = await server.call('POST', '/v1/webhooks/sandbox', {
      raw: 'status=delivered',
      headers: { 'content-type': 'text/plain', 'x-sandbox-secret': SECRETS.WEBHOOK_SECRET_SANDBOX },
    });
    expectUnsupportedMediaType(text);
  });

  it('needs no API key and is not rate limited like public endpoints', async () => {
    // 130 callbacks from one address within a minute: beyond the 120 per minute of the public group
    const statuses: number[] = [];
    for (let round = 0; round < 13; round++) {
      const results = await Promise.all(Array.from({ length: 10 }, () => sandbox({ message_id: UNKNOWN_MESSAGE_ID, status: 'delivered' })));
      statuses.push(...results.map((r) => r.status));
    }
    expect(statuses).toHaveLength(130);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });
});

describe('POST /v1/webhooks/smtp', () => {
  it('a bounce fails the message with bounced:<reason> and records one ContactBounced on the contact with that email', async () => {
    const address = email('bounce');
    const contact = await server.call('POST', '/v1/contacts', { key, body: { email: address.toUpperCase(), first_name: 'Bo' } });
    expect(contact.status, JSON.stringify(contact.body)).toBe(201);
    const { id } = await sendAndWaitSent(server, key, { to: address, channel: 'email', subject: 's', message: 'hello' });
    const report = { type: 'bounce', message_id: id, recipient: address, reason: 'mailbox_does_not_exist', bounce_type: 'hard' };
    const res = await smtp(report);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ received: 1 });
    expect(await statusOf(server, key, id, 'failed')).toMatchObject({ status: 'failed', reason: 'bounced:mailbox_does_not_exist' });
    const last = (await timeline(server, key, id)).at(-1)!;
    expect(last).toMatchObject({
      type: 'MessageFailed',
      reason: 'bounced:mailbox_does_not_exist',
      actor: 'provider:smtp',
      details: { provider: 'smtp', stage: 'report', provider_data: { feedback: 'bounce', bounce_type: 'hard', recipient: address } },
    });
    const bounced = async () => (await server.engage.store.readStream(`contact-${contact.body.id}`)).filter((e) => e.type === 'ContactBounced');
    const events = await bounced();
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ account_id: accountId, id: contact.body.id, email: address, message_id: id, reason: 'bounced:mailbox_does_not_exist' });
    // the provider repeats itself: still one bounce signal, the message unchanged
    expect((await smtp(report)).status).toBe(200);
    expect(await bounced()).toHaveLength(1);
    expect(types(await timeline(server, key, id)).filter((t) => t === 'MessageFailed')).toHaveLength(1);
  });

  it('a complaint suppresses the recipient without failing the message, and a later marketing send fails as suppressed', async () => {
    const address = email('complaint');
    const { id } = await sendAndWaitSent(server, key, { to: address, channel: 'email', subject: 'sale', message: 'buy', transactional: false });
    expect((await smtp({ type: 'delivered', message_id: id, recipient: address })).status).toBe(200);
    expect((await statusOf(server, key, id, 'delivered')).status).toBe('delivered');
    const res = await smtp({ type: 'complaint', message_id: id, recipient: address.toUpperCase(), reason: 'abuse' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // the message stays delivered, with one delivery and no failure in its history
    const events = await timeline(server, key, id);
    expect(types(events).filter((t) => t === 'MessageDelivered')).toHaveLength(1);
    expect(types(events)).not.toContain('MessageFailed');
    expect((await statusOf(server, key, id)).status).toBe('delivered');
    const row = await until(
      () => server.engage.pool.query('SELECT reason, source, message_id FROM suppressions WHERE account_id = $1 AND address = $2', [accountId, address]),
      (r) => r.rows.length > 0,
    );
    expect(row.rows).toEqual([{ reason: 'complaint', source: 'smtp', message_id: id }]);
    const next = await server.call('POST', '/v1/messages/send', { key, body: { to: address, channel: 'email', subject: 'sale 2', message: 'buy more' } });
    expect(next.status).toBe(202);
    expect(await statusOf(server, key, next.body.id, 'failed')).toMatchObject({ status: 'failed', reason: 'suppressed' });
  });

  it('a complaint about a sent message completes it as delivered (it arrived), never failed', async () => {
    const address = email('complaint-sent');
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to: address, channel: 'email', subject: 's', message: 'm' });
    expect((await smtp({ type: 'complaint', provider_message_id: providerMessageId, recipient: address })).status).toBe(200);
    expect((await statusOf(server, key, id, 'delivered')).status).toBe('delivered');
    expect(types(await timeline(server, key, id))).not.toContain('MessageFailed');
  });

  it('finds the message by the Message-ID header we set (<msg_…@from-domain>)', async () => {
    const address = email('mid');
    const { id } = await sendAndWaitSent(server, key, { to: address, channel: 'email', subject: 's', message: 'm' });
    const res = await smtp({ type: 'delivered', message_id: `<${id}@engage.local>`, recipient: address });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await statusOf(server, key, id, 'delivered')).status).toBe('delivered');
    expect((await timeline(server, key, id)).at(-1)).toMatchObject({ type: 'MessageDelivered', details: { provider: 'smtp', provider_data: { feedback: 'delivered' } } });
  });

  it('a missing or wrong secret is 401 and changes nothing', async () => {
    const address = email('nosecret');
    const { id } = await sendAndWaitSent(server, key, { to: address, channel: 'email', subject: 's', message: 'm' });
    const before = await timeline(server, key, id);
    for (const secret of [null, 'nope', SECRETS.WEBHOOK_SECRET_SANDBOX]) {
      const res = await smtp({ type: 'complaint', message_id: id, recipient: address }, secret);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('unauthorized');
    }
    expect(await timeline(server, key, id)).toEqual(before);
    const { rows } = await server.engage.pool.query('SELECT 1 FROM suppressions WHERE account_id = $1 AND address = $2', [accountId, address]);
    expect(rows).toEqual([]);
    expect(await server.engage.store.readStream(`suppression-${accountId}:${address}`)).toEqual([]);
  });

  it('feedback about an unknown message answers 2xx and suppresses nobody', async () => {
    const address = email('unknown');
    const res = await smtp({ type: 'complaint', message_id: UNKNOWN_MESSAGE_ID, recipient: address });
    expect(res.status).toBe(200);
    expect(await server.engage.store.readStream(`suppression-${accountId}:${address}`)).toEqual([]);
    expect(await server.engage.store.readStream(`message-${UNKNOWN_MESSAGE_ID}`)).toEqual([]);
  });

  it('a malformed feedback body is 400', async () => {
    for (const [body, path] of [
      [{ type: 'bounce', message_id: 'msg_x' }, 'recipient'],
      [{ type: 'opened', message_id: 'msg_x', recipient: 'a@b.co' }, 'type'],
      [{ type: 'bounce', recipient: 'a@b.co' }, 'message_id'],
      [{ type: 'bounce', message_id: 'msg_x', recipient: 'not an address' }, 'recipient'],
      [{ type: 'bounce', message_id: 'msg_x', recipient: 'a@b.co', bounce_type: 'medium' }, 'bounce_type'],
    ] as const) {
      const res = await smtp(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
  });
});
