// Inbound provider callbacks (README "Provider callbacks"): the SMS/RCS/voice carrier's Twilio-style status
// callback (form-encoded, X-Carrier-Signature over the full URL and the sorted parameters) and the
// WhatsApp Cloud API webhook (X-Hub-Signature-256 over the raw body, GET verification handshake).
// No PUBLIC_BASE_URL here: the signed URL is derived from the Host header the client sent.
import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { testServerForSuite } from '../support/harness.ts';
import { expectUnsupportedMediaType } from '../support/http.ts';
import { timeline, types } from '../support/messages.ts';
import {
  HOLD_SANDBOX, SECRETS, metaSignature, postCarrier, postWhatsApp, sendAndWaitSent, statusOf, twilioSignature, whatsappPayload,
} from './helpers.ts';

let key: string;
let n = 0;
const phone = () => `+1628555${String(1000 + ++n).slice(-4)}`;

const server = testServerForSuite({ ...SECRETS, ...HOLD_SANDBOX });
beforeAll(async () => {
  ({ key } = await server.newAccount());
});

/** The parameters Twilio sends with a message status callback. */
function statusParams(sid: string, status: string, to: string, extra: Record<string, string> = {}) {
  return {
    AccountSid: 'AC00000000000000000000000000000000',
    ApiVersion: '2010-04-01',
    From: '+15017122661',
    MessageSid: sid,
    MessageStatus: status,
    SmsSid: sid,
    SmsStatus: status,
    To: to,
    ...extra,
  };
}

/** The callback was taken ({received: 1}) and moved the message to delivered, recorded as from `provider` with its data. */
async function expectDeliveredBy(res: { status: number; body: any }, id: string, provider: string, providerData: Record<string, unknown>) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toEqual({ received: 1 });
  expect((await statusOf(server, key, id, 'delivered')).status).toBe('delivered');
  const last = (await timeline(server, key, id)).at(-1)!;
  expect(last).toMatchObject({ type: 'MessageDelivered', actor: `provider:${provider}`, details: { provider, provider_data: providerData } });
}

describe('POST /v1/webhooks/carrier', () => {
  it('a correctly signed delivered callback moves a sent message to delivered, with the carrier data in the timeline', async () => {
    const to = phone();
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to, channel: 'sms', message: 'hi' });
    const res = await postCarrier(server, statusParams(providerMessageId, 'delivered', to));
    await expectDeliveredBy(res, id, 'carrier', { message_sid: providerMessageId, message_status: 'delivered', to, from: '+15017122661' });
  });

  it('undelivered arrives as failed with the error code and message as the reason', async () => {
    const to = phone();
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to, channel: 'rcs', message: 'hi' });
    const res = await postCarrier(server, statusParams(providerMessageId, 'undelivered', to, { ErrorCode: '30003', ErrorMessage: 'Unreachable destination handset' }));
    expect(res.status).toBe(200);
    const failed = await statusOf(server, key, id, 'failed');
    expect(failed).toMatchObject({ status: 'failed', reason: 'undelivered:30003 Unreachable destination handset' });
    const last = (await timeline(server, key, id)).at(-1)!;
    expect(last).toMatchObject({
      type: 'MessageFailed',
      reason: 'undelivered:30003 Unreachable destination handset',
      details: { provider: 'carrier', stage: 'report', provider_data: { message_status: 'undelivered', error_code: '30003', error_message: 'Unreachable destination handset' } },
    });
  });

  it('failed arrives as failed with the error code as the reason', async () => {
    const to = phone();
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to, channel: 'sms', message: 'hi' });
    expect((await postCarrier(server, statusParams(providerMessageId, 'failed', to, { ErrorCode: '30008' }))).status).toBe(200);
    expect(await statusOf(server, key, id, 'failed')).toMatchObject({ status: 'failed', reason: 'failed:30008' });
  });

  it('a voice call status callback (CallSid, CallStatus) reports the call', async () => {
    const to = phone();
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to, channel: 'voice', message: 'your code is 1234' });
    const res = await postCarrier(server, { AccountSid: 'AC0', CallSid: providerMessageId, CallStatus: 'no-answer', To: to, From: '+15017122661' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await statusOf(server, key, id, 'failed')).toMatchObject({ status: 'failed', reason: 'no-answer' });
  });

  it('intermediate statuses are acknowledged and change nothing', async () => {
    const to = phone();
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to, channel: 'sms', message: 'hi' });
    const before = await timeline(server, key, id);
    for (const status of ['queued', 'sending', 'sent', 'accepted']) {
      const res = await postCarrier(server, statusParams(providerMessageId, status, to));
      expect(res.status, status).toBe(200);
    }
    expect(await timeline(server, key, id)).toEqual(before);
    expect((await statusOf(server, key, id)).status).toBe('sent');
  });

  it('the signature covers the full URL including its query string', async () => {
    const to = phone();
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to, channel: 'sms', message: 'hi' });
    const params = statusParams(providerMessageId, 'delivered', to);
    const path = '/v1/webhooks/carrier?region=us1';
    // signed over the URL without the query: refused
    const wrong = await postCarrier(server, params, { path, signUrl: `${server.url}/v1/webhooks/carrier` });
    expect(wrong.status).toBe(401);
    expect(types(await timeline(server, key, id))).not.toContain('MessageDelivered');
    const right = await postCarrier(server, params, { path });
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    expect((await statusOf(server, key, id, 'delivered')).status).toBe('delivered');
  });

  it('a bad, missing or tampered signature is 401 and changes nothing', async () => {
    const to = phone();
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to, channel: 'sms', message: 'hi' });
    const params = statusParams(providerMessageId, 'delivered', to);
    const before = await timeline(server, key, id);
    const signedDelivered = twilioSignature(SECRETS.WEBHOOK_SECRET_CARRIER, `${server.url}/v1/webhooks/carrier`, params);
    const attempts = [
      () => postCarrier(server, params, { secret: 'another-carrier-token-0000000000' }),
      () => postCarrier(server, params, { signature: '' }),
      // a valid signature of the delivered report, replayed with the status changed to failed
      () => postCarrier(server, { ...params, MessageStatus: 'failed' }, { signature: signedDelivered }),
      // signed over another host than the one the request was sent to
      () => postCarrier(server, params, { signUrl: 'https://evil.example.com/v1/webhooks/carrier' }),
      // a sha256 signature instead of sha1
      () => postCarrier(server, params, { signature: metaSignature(SECRETS.WEBHOOK_SECRET_CARRIER, JSON.stringify(params)) }),
    ];
    for (const attempt of attempts) {
      const res = await attempt();
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: 'unauthorized' });
    }
    expect(await timeline(server, key, id)).toEqual(before);
    expect((await statusOf(server, key, id)).status).toBe('sent');
  });

  it('an unknown MessageSid answers 2xx and changes nothing', async () => {
    const to = phone();
    const { id } = await sendAndWaitSent(server, key, { to, channel: 'sms', message: 'hi' });
    const before = await timeline(server, key, id);
    const res = await postCarrier(server, statusParams('SM00000000000000000000000000000000', 'delivered', to));
    expect(res.status).toBe(200);
    expect(await timeline(server, key, id)).toEqual(before);
  });

  it('a repeated callback answers 2xx and records exactly one MessageDelivered', async () => {
    const to = phone();
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to, channel: 'sms', message: 'hi' });
    const params = statusParams(providerMessageId, 'delivered', to);
    const results = await Promise.all([postCarrier(server, params), postCarrier(server, params), postCarrier(server, params)]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await postCarrier(server, statusParams(providerMessageId, 'undelivered', to, { ErrorCode: '30005' }))).status).toBe(200);
    const events = await timeline(server, key, id);
    expect(types(events).filter((t) => t === 'MessageDelivered')).toHaveLength(1);
    expect(types(events)).not.toContain('MessageFailed');
  });

  it('a signed callback without MessageSid or MessageStatus is 400; a JSON body is 415', async () => {
    const missing = await postCarrier(server, { AccountSid: 'AC0', MessageStatus: 'delivered' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('validation_error');
    expect(missing.body.issues.map((i: { path: string }) => i.path)).toContain('MessageSid');
    const json = await server.call('POST', '/v1/webhooks/carrier', { body: { MessageSid: 'SM1', MessageStatus: 'delivered' }, headers: { 'x-carrier-signature': 'x' } });
    expectUnsupportedMediaType(json);
  });
});

describe('/v1/webhooks/whatsapp', () => {
  it('answers the verification handshake with the challenge when the token matches', async () => {
    const ok = await fetch(`${server.url}/v1/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${SECRETS.WHATSAPP_VERIFY_TOKEN}&hub.challenge=1158201444`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await ok.text()).toBe('1158201444');
    const wrong = await server.call('GET', '/v1/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1158201444');
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ error: 'forbidden' });
    const mode = await server.call('GET', `/v1/webhooks/whatsapp?hub.mode=unsubscribe&hub.verify_token=${SECRETS.WHATSAPP_VERIFY_TOKEN}&hub.challenge=1`);
    expect(mode.status).toBe(400);
    expect(mode.body.error).toBe('validation_error');
  });

  it('a signed delivered status moves a sent message to delivered, with the status data in the timeline', async () => {
    const to = phone();
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to, channel: 'whatsapp', message: 'hi' });
    const raw = JSON.stringify(whatsappPayload({ statuses: [{ id: providerMessageId, status: 'delivered', timestamp: '1750000000', recipient_id: to.slice(1) }] }));
    const res = await postWhatsApp(server, raw);
    await expectDeliveredBy(res, id, 'whatsapp', { status: 'delivered', timestamp: '1750000000', recipient_id: to.slice(1) });
  });

  it('a failed status fails the message with the error as the reason; the signature is over the raw bytes as sent', async () => {
    const to = phone();
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to, channel: 'whatsapp', message: 'hi' });
    // pretty-printed, with non-ASCII text: a signature over a re-serialised body would not match
    const raw = JSON.stringify(
      whatsappPayload({ statuses: [{ id: providerMessageId, status: 'failed', timestamp: '1750000001', recipient_id: to.slice(1), errors: [{ code: 131026, title: 'Message undeliverable – Empfänger' }] }] }),
      null,
      2,
    );
    const res = await postWhatsApp(server, raw);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await statusOf(server, key, id, 'failed')).toMatchObject({ status: 'failed', reason: 'failed:131026 Message undeliverable – Empfänger' });
    expect((await timeline(server, key, id)).at(-1)).toMatchObject({ type: 'MessageFailed', details: { provider_data: { error_code: 131026 } } });
  });

  it('sent is acknowledged and ignored; read after delivered and repeated reports record exactly one MessageDelivered', async () => {
    const to = phone();
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to, channel: 'whatsapp', message: 'hi' });
    const before = await timeline(server, key, id);
    expect((await postWhatsApp(server, JSON.stringify(whatsappPayload({ statuses: [{ id: providerMessageId, status: 'sent', timestamp: '1' }] })))).status).toBe(200);
    expect(await timeline(server, key, id)).toEqual(before);
    const delivered = JSON.stringify(whatsappPayload({ statuses: [{ id: providerMessageId, status: 'delivered', timestamp: '2' }] }));
    for (const raw of [delivered, delivered, JSON.stringify(whatsappPayload({ statuses: [{ id: providerMessageId, status: 'read', timestamp: '3' }] }))]) {
      expect((await postWhatsApp(server, raw)).status).toBe(200);
    }
    const events = await timeline(server, key, id);
    expect(types(events).filter((t) => t === 'MessageDelivered')).toHaveLength(1);
    expect(events.length).toBe(before.length + 1);
  });

  it('reports every status of a batch, across entries', async () => {
    const a = await sendAndWaitSent(server, key, { to: phone(), channel: 'whatsapp', message: 'a' });
    const b = await sendAndWaitSent(server, key, { to: phone(), channel: 'whatsapp', message: 'b' });
    const one = whatsappPayload({ statuses: [{ id: a.providerMessageId, status: 'delivered', timestamp: '1' }] });
    const two = whatsappPayload({ statuses: [{ id: b.providerMessageId, status: 'failed', timestamp: '1', errors: [{ code: 131047, title: 'Re-engagement message' }] }] });
    const raw = JSON.stringify({ object: 'whatsapp_business_account', entry: [...one.entry, ...two.entry] });
    const res = await postWhatsApp(server, raw);
    expect(res.body).toEqual({ received: 2 });
    expect((await statusOf(server, key, a.id, 'delivered')).status).toBe('delivered');
    expect(await statusOf(server, key, b.id, 'failed')).toMatchObject({ reason: 'failed:131047 Re-engagement message' });
  });

  it('a bad, missing or stale signature is 401 and changes nothing', async () => {
    const to = phone();
    const { id, providerMessageId } = await sendAndWaitSent(server, key, { to, channel: 'whatsapp', message: 'hi' });
    const before = await timeline(server, key, id);
    const raw = JSON.stringify(whatsappPayload({ statuses: [{ id: providerMessageId, status: 'delivered', timestamp: '1' }] }));
    const tampered = raw.replace('"delivered"', '"failed"');
    for (const [body, signature] of [
      [raw, null],
      [raw, metaSignature('another-app-secret-000000000000', raw)],
      [tampered, metaSignature(SECRETS.WEBHOOK_SECRET_WHATSAPP, raw)],
      [raw, metaSignature(SECRETS.WEBHOOK_SECRET_WHATSAPP, raw).replace('sha256=', '')],
      [raw, `sha1=${metaSignature(SECRETS.WEBHOOK_SECRET_WHATSAPP, raw).slice(7)}`],
    ] as const) {
      const res = await postWhatsApp(server, body, { signature });
      expect(res.status, String(signature)).toBe(401);
      expect(res.body).toMatchObject({ error: 'unauthorized' });
    }
    expect(await timeline(server, key, id)).toEqual(before);
  });

  it('an unknown message id answers 2xx; a malformed but signed body is 400', async () => {
    const res = await postWhatsApp(server, JSON.stringify(whatsappPayload({ statuses: [{ id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBJDQjZCMzlEQUE4OTJBMTE4RTUA', status: 'delivered', timestamp: '1' }] })));
    expect(res.status).toBe(200);
    for (const raw of ['{"object":', JSON.stringify({ object: 'page', entry: [] }), JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: [{ value: { statuses: [{ status: 'delivered' }] } }] }] })]) {
      const bad = await postWhatsApp(server, raw);
      expect(bad.status, raw).toBe(400);
      expect(bad.body.error).toBe('validation_error');
    }
  });
});

describe('odd requests never cause a 5xx', () => {
  it('answers every one of them with 2xx or 4xx', async () => {
    const signedWa = (raw: string) => postWhatsApp(server, raw);
    const signedCarrier = (raw: string) =>
      server.call('POST', '/v1/webhooks/carrier', {
        raw,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-carrier-signature': twilioSignature(SECRETS.WEBHOOK_SECRET_CARRIER, `${server.url}/v1/webhooks/carrier`, Object.fromEntries(new URLSearchParams(raw))),
        },
      });
    const sandboxRaw = (raw: string, headers: Record<string, string> = {}) =>
      server.call('POST', '/v1/webhooks/sandbox', { raw, headers: { 'x-sandbox-secret': SECRETS.WEBHOOK_SECRET_SANDBOX, ...headers } });
    const attempts = [
      () => sandboxRaw('null'),
      () => sandboxRaw('"delivered"'),
      () => sandboxRaw(''),
      () => sandboxRaw('\u0000\xff', { 'content-type': 'application/json' }),
      () => sandboxRaw(JSON.stringify(Array.from({ length: 1001 }, () => ({ message_id: 'msg_x', status: 'delivered' })))),
      () => sandboxRaw(JSON.stringify({ message_id: 'x'.repeat(5000), status: 'delivered' })),
      () => sandboxRaw(JSON.stringify({ message_id: { $ne: null }, status: 'delivered' })),
      () => server.call('POST', '/v1/webhooks/sandbox', { raw: '{}', headers: { 'x-sandbox-secret': SECRETS.WEBHOOK_SECRET_SANDBOX, 'content-type': 'application/x-www-form-urlencoded' } }),
      () => server.call('POST', '/v1/webhooks/smtp', { body: { type: 'bounce', message_id: '<>', recipient: 'a@b.co' }, headers: { 'x-smtp-feedback-secret': SECRETS.WEBHOOK_SECRET_SMTP } }),
      () => signedCarrier(''),
      () => signedCarrier('MessageSid=&MessageStatus='),
      // a repeated name is signed with each of its values (Twilio's scheme), but which one counts is ambiguous: 400
      () =>
        server.call('POST', '/v1/webhooks/carrier', {
          raw: 'MessageSid=SM1&MessageStatus=delivered&MessageStatus=failed',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-carrier-signature': createHmac('sha1', SECRETS.WEBHOOK_SECRET_CARRIER)
              .update(`${server.url}/v1/webhooks/carrier` + 'MessageSidSM1' + 'MessageStatusdelivered' + 'MessageStatusfailed')
              .digest('base64'),
          },
        }),
      () => signedCarrier('MessageSid=SM1&MessageStatus=%E0%A4%A'),
      () => signedCarrier(`MessageSid=${'S'.repeat(10_000)}&MessageStatus=delivered`),
      () => signedWa(''),
      () => signedWa('[]'),
      () => signedWa('{"object":"whatsapp_business_account","entry":null}'),
      () => signedWa('{"object":"whatsapp_business_account","entry":[{"changes":[{"value":{"statuses":[{"id":"w1","status":"failed","errors":[{"code":{}}]}]}}]}]}'),
      () => signedWa('{"object":"whatsapp_business_account","entry":[{"changes":[{"value":{"statuses":[{"id":"w1","status":"failed","errors":[]}]}}]}]}'),
      () => server.call('GET', '/v1/webhooks/whatsapp'),
      () => server.call('GET', '/v1/webhooks/whatsapp?hub.mode=subscribe&hub.mode=subscribe&hub.verify_token=a&hub.challenge=b'),
      () => server.call('POST', '/v1/webhooks/whatsapp', { raw: '{}', headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=' } }),
    ];
    const statuses: number[] = [];
    for (const attempt of attempts) statuses.push((await attempt()).status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    // and each was judged: 200 only for the well-formed ones that name no message we know
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 400, 415, 200, 400, 400, 400, 200, 400, 400, 400, 400, 400, 200, 400, 400, 401]);
  });
});
