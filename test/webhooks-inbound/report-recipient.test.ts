// Issue 8 finding 8: an email feedback report names a recipient; it counts only when that is the
// message's recipient (case-insensitive). A report naming anyone else is acknowledged (it is in
// the 200 {received:n} count) and records nothing: no suppression or bounce signal on that other
// address, and no change to the message either.
import { beforeAll, describe, expect, it } from 'vitest';
import { testServerForSuite } from '../support/harness.ts';
import { timeline } from '../support/messages.ts';
import { until } from '../support/waits.ts';
import { HOLD_SANDBOX, SECRETS, sendAndWaitSent, statusOf } from './helpers.ts';

let key: string;
let accountId: string;
let n = 0;
const email = (tag: string) => `${tag}-${++n}@example.com`;

const smtp = (body: unknown) => server.call('POST', '/v1/webhooks/smtp', { body, headers: { 'x-smtp-feedback-secret': SECRETS.WEBHOOK_SECRET_SMTP } });
const suppressionEvents = (address: string) => server.engage.store.readStream(`suppression-${accountId}:${address}`);
const suppressionRows = async (address: string) =>
  (await server.engage.pool.query('SELECT reason FROM suppressions WHERE account_id = $1 AND address = $2', [accountId, address])).rows;
const bouncesOf = async (contactId: string) => (await server.engage.store.readStream(`contact-${contactId}`)).filter((e) => e.type === 'ContactBounced');

async function newContact(address: string): Promise<string> {
  const res = await server.call('POST', '/v1/contacts', { key, body: { email: address } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

const server = testServerForSuite({ ...SECRETS, ...HOLD_SANDBOX });
beforeAll(async () => {
  ({ key, accountId } = await server.newAccount());
});

describe('email feedback names the message recipient or is ignored', () => {
  it('a complaint naming another address suppresses nobody and leaves the message as it was', async () => {
    const recipient = email('rcpt');
    const victim = email('victim');
    const { id } = await sendAndWaitSent(server, key, { to: recipient, channel: 'email', subject: 's', message: 'm' });
    const before = await timeline(server, key, id);
    const res = await smtp({ type: 'complaint', message_id: id, recipient: victim });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ received: 1 });
    expect(await suppressionEvents(victim)).toEqual([]);
    expect(await suppressionEvents(recipient)).toEqual([]);
    expect(await suppressionRows(victim)).toEqual([]);
    expect(await timeline(server, key, id)).toEqual(before);
    expect((await statusOf(server, key, id)).status).toBe('sent');
    // a later send to the other address is not held back as suppressed
    const next = await server.call('POST', '/v1/messages/send', { key, body: { to: victim, channel: 'email', subject: 's', message: 'm', transactional: false } });
    expect(next.status).toBe(202);
    expect((await statusOf(server, key, next.body.id, 'sent')).status).toBe('sent');
  });

  it('a bounce naming another address neither fails the message nor signals a bounce on that contact', async () => {
    const recipient = email('rcpt');
    const other = email('other');
    const otherContact = await newContact(other);
    const recipientContact = await newContact(recipient);
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to: recipient, channel: 'email', subject: 's', message: 'm' });
    const before = await timeline(server, key, id);
    for (const report of [
      { type: 'bounce', message_id: id, recipient: other, reason: 'mailbox_full', bounce_type: 'soft' },
      { type: 'bounce', provider_message_id: providerMessageId, recipient: other, reason: 'no_such_user', bounce_type: 'hard' },
    ]) {
      const res = await smtp(report);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ received: 1 });
    }
    expect(await bouncesOf(otherContact)).toEqual([]);
    expect(await bouncesOf(recipientContact)).toEqual([]);
    expect(await timeline(server, key, id)).toEqual(before);
    expect((await statusOf(server, key, id)).status).toBe('sent');
  });

  it('in a batch, only the report naming the recipient counts; every report is in the count', async () => {
    const recipient = email('rcpt');
    const other = email('other');
    const { id } = await sendAndWaitSent(server, key, { to: recipient, channel: 'email', subject: 's', message: 'm' });
    const res = await smtp([
      { type: 'complaint', message_id: id, recipient: other },
      { type: 'complaint', message_id: id, recipient: `  ${recipient.toUpperCase()}  ` },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ received: 2 });
    const rows = await until(() => suppressionRows(recipient), (r) => r.length > 0);
    expect(rows).toEqual([{ reason: 'complaint' }]);
    expect(await suppressionEvents(other)).toEqual([]);
    expect((await statusOf(server, key, id, 'delivered')).status).toBe('delivered');
  });

  it('holds also when the read model does not have the message yet (the stream decides)', async () => {
    const recipient = email('rcpt');
    const victim = email('victim');
    const { id } = await sendAndWaitSent(server, key, { to: recipient, channel: 'email', subject: 's', message: 'm' });
    const events = await server.engage.store.readStream(`message-${id}`);
    // the read model lagging behind the stream: its row is gone, the stream has the message
    await server.engage.pool.query('DELETE FROM message_states WHERE id = $1', [id]);
    const res = await smtp({ type: 'complaint', message_id: id, recipient: victim });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ received: 1 });
    expect(await suppressionEvents(victim)).toEqual([]);
    expect(await server.engage.store.readStream(`message-${id}`)).toEqual(events);
    // and a report naming the recipient still counts on that path
    const ok = await smtp({ type: 'bounce', message_id: id, recipient: recipient.toUpperCase(), reason: 'gone' });
    expect(ok.status).toBe(200);
    const after = await server.engage.store.readStream(`message-${id}`);
    expect(after.map((e) => e.type)).toContain('MessageFailed');
  });
});
