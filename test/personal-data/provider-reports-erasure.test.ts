// What providers tell us about a message (issue 25, finding 8): bounce diagnostics, SMTP replies,
// carrier and WhatsApp error texts and their callback data name the recipient, so they are the
// recipient's personal data: sealed under the recipient address's key and erased with it — in the
// message, its timeline, `engage streams show`, webhook deliveries, every table, every rebuild —
// while the failure's category (bounced, undelivered, failed…) stays readable for reports and billing.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { messageStream } from '../../commands/message.ts';
import { analyticsProjection } from '../../projections/analytics.ts';
import { billingProjection } from '../../projections/billing.ts';
import { messagesProjection } from '../../projections/messages.ts';
import { readyAccount, type TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { everyTableAsText, foundIn } from '../support/tables.ts';
import { timeline } from '../support/messages.ts';
import { runEngage } from '../support/processes.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { addWebhookEndpoint, receiverForSuite } from '../support/receivers.ts';
import { eventually } from '../support/waits.ts';
import { HOLD_SANDBOX, SECRETS, postCarrier, postWhatsApp, sendAndWaitSent, statusOf, whatsappPayload } from '../webhooks-inbound/helpers.ts';

const server = testServerForSuite({ ...SECRETS, ...HOLD_SANDBOX, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '100ms,200ms' });
const receiver = receiverForSuite();

function smtpFeedback(body: Record<string, unknown>) {
  return server.call('POST', '/v1/webhooks/smtp', { body, headers: { 'x-smtp-feedback-secret': SECRETS.WEBHOOK_SECRET_SMTP } });
}

function carrierStatus(sid: string, status: string, to: string, extra: Record<string, string> = {}) {
  return postCarrier(server, { AccountSid: 'AC00000000000000000000000000000000', From: '+15017122661', MessageSid: sid, MessageStatus: status, To: to, ...extra });
}

describe('provider reports about a message, and the erasure of its recipient', () => {
  let acct: TestAccount;
  const tag = randomBytes(5).toString('hex');
  const n = parseInt(tag.slice(0, 8), 16);
  const email = `bounce.me.${tag}@example.com`;
  const phone = `+1415${4 + (n % 5)}${2 + (Math.floor(n / 8) % 8)}${String(Math.floor(n / 64) % 100_000).padStart(5, '0')}`;
  // distinctive words of each diagnostic: found anywhere after the erasure, they were not erased
  const words = { bounce: `Mailbox${tag}Unknown`, carrier: `Handset${tag}Off`, whatsapp: `Recipient${tag}Blocked`, smtp: `Accepted${tag}Queue` };
  const ids: Record<'bounced' | 'emailDelivered' | 'smsFailed' | 'smsDelivered' | 'whatsappFailed', string> = {} as never;
  let contactId: string;
  let endpointId: string;

  beforeAll(async () => {
    acct = await readyAccount(server);
    endpointId = await addWebhookEndpoint(server, acct.key, receiver.url);
    const contact = await server.call('POST', '/v1/contacts', { key: acct.key, body: { email, phone, first_name: `Ada${tag}` } });
    expect(contact.status, JSON.stringify(contact.body)).toBe(201);
    contactId = contact.body.id;
    const send = (body: Record<string, unknown>) => sendAndWaitSent(server, acct.key, { message: 'hello', transactional: true, webhook_url: receiver.url, ...body });

    // an email bounced with a diagnostic naming the mailbox
    const bounced = await send({ to: email, channel: 'email', subject: 'hi' });
    ids.bounced = bounced.id;
    expect((await smtpFeedback({ type: 'bounce', message_id: bounced.id, recipient: email, reason: `550 5.1.1 <${email}>: ${words.bounce}`, bounce_type: 'hard' })).status).toBe(200);
    // an email delivered, with the SMTP reply
    const delivered = await send({ to: email, channel: 'email', subject: 'hi' });
    ids.emailDelivered = delivered.id;
    expect((await smtpFeedback({ type: 'delivered', message_id: delivered.id, recipient: email, reason: `250 2.0.0 ${words.smtp} for <${email}>` })).status).toBe(200);
    // an sms the carrier failed (not billed: credited) and one it delivered, both naming the number
    const smsFailed = await send({ to: phone, channel: 'sms' });
    ids.smsFailed = smsFailed.id;
    expect((await carrierStatus(smsFailed.providerMessageId, 'failed', phone, { ErrorCode: '30008', ErrorMessage: `${words.carrier} at ${phone}` })).status).toBe(200);
    const smsDelivered = await send({ to: phone, channel: 'sms' });
    ids.smsDelivered = smsDelivered.id;
    expect((await carrierStatus(smsDelivered.providerMessageId, 'delivered', phone)).status).toBe(200);
    // a WhatsApp message failed, with the recipient's number and the error details
    const whatsapp = await send({ to: phone, channel: 'whatsapp' });
    ids.whatsappFailed = whatsapp.id;
    const raw = JSON.stringify(whatsappPayload({ statuses: [{
      id: whatsapp.providerMessageId, status: 'failed', timestamp: '1750000001', recipient_id: phone.slice(1),
      errors: [{ code: 131026, title: 'Message undeliverable', error_data: { details: `${words.whatsapp} ${phone.slice(1)}` } }],
    }] }));
    expect((await postWhatsApp(server, raw)).status).toBe(200);
    for (const [id, status] of [[ids.bounced, 'failed'], [ids.emailDelivered, 'delivered'], [ids.smsFailed, 'failed'], [ids.smsDelivered, 'delivered'], [ids.whatsappFailed, 'failed']]) {
      expect((await statusOf(server, acct.key, id, status)).status, id).toBe(status);
    }
  }, 120_000);

  it('stores what providers said sealed, and shows it in full until the erasure', async () => {
    const { rows } = await server.engage.pool.query<{ t: string }>('SELECT data::text AS t FROM es_events WHERE stream_id = ANY($1::text[])', [Object.values(ids).map(messageStream)]);
    const log = rows.map((r) => r.t).join('\n');
    expect([email, phone, phone.slice(1), ...Object.values(words)].filter((v) => log.includes(v))).toEqual([]);
    // the category stays readable in the log: reports and billing group by it
    expect(log).toContain('"reason": "bounced"');
    // what the API shows is unchanged while the recipient is not erased
    expect((await statusOf(server, acct.key, ids.bounced)).reason).toBe(`bounced:550 5.1.1 <${email}>: ${words.bounce}`);
    expect((await statusOf(server, acct.key, ids.smsFailed)).reason).toBe(`failed:30008 ${words.carrier} at ${phone}`);
    expect((await statusOf(server, acct.key, ids.whatsappFailed)).reason).toBe('failed:131026 Message undeliverable');
    const last = (await timeline(server, acct.key, ids.smsDelivered)).at(-1)!;
    expect(last).toMatchObject({ type: 'MessageDelivered', details: { provider_data: { to: phone } } });
    const whatsappFailed = (await timeline(server, acct.key, ids.whatsappFailed)).at(-1)!;
    expect(whatsappFailed).toMatchObject({ type: 'MessageFailed', reason: 'failed:131026 Message undeliverable', details: { provider_data: { recipient_id: phone.slice(1) } } });
    // the webhook for the failure carried the full reason
    const hit = await eventually('the message.failed webhook of the bounce', async () =>
      receiver.hits.find((h) => h.json?.type === 'message.failed' && h.json?.data?.message_id === ids.bounced));
    expect(hit.json.data.reason).toBe(`bounced:550 5.1.1 <${email}>: ${words.bounce}`);
  });

  it('after the erasure: no trace in the messages, timelines, streams show, webhook deliveries, any table, or a rebuild; categories and billing intact', async () => {
    const before = (await server.call('GET', '/v1/account/balance/transactions?limit=100', { key: acct.key })).body;
    const erased = await server.call('POST', `/v1/contacts/${contactId}/erase`, { key: acct.key, body: {} });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    const values = [email, phone, phone.slice(1), ...Object.values(words)];

    const outputs = new Map<string, string>();
    for (const [name, id] of Object.entries(ids)) {
      const m = await server.call('GET', `/v1/messages/${id}`, { key: acct.key });
      outputs.set(`GET /v1/messages/${name}`, JSON.stringify(m.body));
      outputs.set(`timeline of ${name}`, JSON.stringify(await timeline(server, acct.key, id)));
      const shown = await runEngage(['streams', 'show', messageStream(id), '--json'], server.databaseUrl);
      expect(shown.code, shown.stderr).toBe(0);
      outputs.set(`engage streams show ${name}`, shown.stdout);
    }
    const deliveries = await server.call('GET', `/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`, { key: acct.key });
    outputs.set('endpoint deliveries', JSON.stringify(deliveries.body));
    for (const [where, text] of await everyTableAsText(server.engage.pool)) outputs.set(where, text);
    expect(foundIn(outputs, values)).toEqual([]);
    // the failure's category is still there
    expect((await statusOf(server, acct.key, ids.bounced)).reason).toBe('bounced');
    expect((await statusOf(server, acct.key, ids.smsFailed)).reason).toBe('failed');
    expect((await statusOf(server, acct.key, ids.whatsappFailed)).reason).toBe('failed');

    // rebuilt from the log, the read models that group by reason agree, and still nothing is found
    const deliverability = (await server.call('GET', '/v1/account/channel-deliverability', { key: acct.key })).body;
    for (const p of [messagesProjection, billingProjection, analyticsProjection]) await rebuildAndWait(server, p);
    expect((await server.call('GET', '/v1/account/balance/transactions?limit=100', { key: acct.key })).body).toEqual(before);
    expect((await server.call('GET', '/v1/account/channel-deliverability', { key: acct.key })).body).toEqual(deliverability);
    // the carrier's `failed` is not billed by carriers: credited back; the refund names the category only
    expect(JSON.stringify(before)).toContain('failed (failed)');
    expect((await statusOf(server, acct.key, ids.bounced)).reason).toBe('bounced');
    expect(foundIn(await everyTableAsText(server.engage.pool), values)).toEqual([]);
  }, 180_000);

  it("a message's own webhook_url, in an account with no endpoint, hears the whole reason; after the erasure its delivery row keeps only the category", async () => {
    const quiet = await readyAccount(server);
    const address = `quiet.${tag}@example.com`;
    const diagnostic = `Quiet${tag}Mailbox`;
    const { id } = await sendAndWaitSent(server, quiet.key, { to: address, channel: 'email', subject: 'hi', message: 'hello', transactional: true, webhook_url: receiver.url });
    expect((await smtpFeedback({ type: 'bounce', message_id: id, recipient: address, reason: `550 <${address}> ${diagnostic}` })).status).toBe(200);
    const hit = await eventually('the message.failed webhook', async () => receiver.hits.find((h) => h.json?.type === 'message.failed' && h.json?.data?.message_id === id));
    expect(hit.json.data).toMatchObject({ status: 'failed', to: address, reason: `bounced:550 <${address}> ${diagnostic}` });
    const erased = await server.call('POST', '/v1/account/erasures', { key: quiet.key, body: { email: address } });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    const { rows } = await server.engage.pool.query<{ body: string }>(`SELECT body FROM webhook_deliveries WHERE event_type = 'message.failed' AND body LIKE $1`, [`%${id}%`]);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.body).data).toMatchObject({ to: '[erased]', reason: 'bounced' });
    expect(foundIn(await everyTableAsText(server.engage.pool), [address, diagnostic])).toEqual([]);
  }, 60_000);

  it('reads a failure written before the split (the whole reason in `reason`, unsealed) as before; an erasure blanks it in the read model, rebuilt or not', async () => {
    const old = await readyAccount(server);
    const address = `old.${tag}@example.com`;
    const { id } = await sendAndWaitSent(server, old.key, { to: address, channel: 'email', subject: 'hi', message: 'hello', transactional: true });
    const events = await server.engage.store.readStream(messageStream(id));
    // as the service wrote it before: no reason_text, nothing sealed (the store underneath seals nothing)
    const inner = (server.engage.store as unknown as { inner: typeof server.engage.store }).inner;
    await inner.append(messageStream(id), [{ type: 'MessageFailed', data: { id, account_id: old.accountId, at: new Date().toISOString(), reason: `bounced:550 Old${tag}Words`, stage: 'report', provider: 'smtp' } }], events.at(-1)!.revision);
    expect((await statusOf(server, old.key, id, 'failed')).reason).toBe(`bounced:550 Old${tag}Words`);
    expect((await timeline(server, old.key, id)).at(-1)).toMatchObject({ type: 'MessageFailed', reason: `bounced:550 Old${tag}Words` });
    await rebuildAndWait(server, messagesProjection);
    expect((await statusOf(server, old.key, id)).reason).toBe(`bounced:550 Old${tag}Words`);
    expect((await server.call('POST', '/v1/account/erasures', { key: old.key, body: { email: address } })).status).toBe(200);
    expect((await statusOf(server, old.key, id)).reason).toBe('bounced');
    await rebuildAndWait(server, messagesProjection);
    expect((await statusOf(server, old.key, id)).reason).toBe('bounced');
  }, 120_000);
});
