// Every provider callback route against bad values in every field (issue 25, finding 16): NUL,
// unpaired surrogates, huge strings, wrong types, NUL in keys. Correctly signed, so each value gets
// past authentication to the parsing and storing behind it; whatever it is, the answer is a 2xx or a
// 4xx with the flat error body, never a 5xx, and the service keeps working afterwards.
import { beforeAll, describe, expect, it } from 'vitest';
import { testServerForSuite } from '../support/harness.ts';
import { HOLD_SANDBOX, metaSignature, postCarrier, SECRETS, sendAndWaitSent, whatsappPayload } from './helpers.ts';

const server = testServerForSuite({ ...SECRETS, ...HOLD_SANDBOX });
let key: string;
/** a message the reports can be about: so a bad value reaches the write of a report, not only the look-up */
let known: { id: string; providerMessageId: string };

beforeAll(async () => {
  ({ key } = await server.newAccount());
  known = await sendAndWaitSent(server, key, { to: '+447400123777', channel: 'sms', message: 'hi' });
});

const BAD_STRINGS = ['\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '\udc00\ud800', 'x'.repeat(1_000_000), ''];
const BAD_VALUES: unknown[] = [...BAD_STRINGS, 0, -1, 1e308, true, null, {}, [], ['\u0000'], { '\u0000': '\ud800' }];

/** `base` with the value at `path` (dot-separated; numbers index arrays) replaced by `value`. */
function withValue(base: unknown, path: string, value: unknown): unknown {
  const copy = structuredClone(base) as any;
  const keys = path.split('.');
  let at = copy;
  for (const k of keys.slice(0, -1)) at = at[k];
  at[keys.at(-1)!] = value;
  return copy;
}

/** Every path to a leaf value of `doc`. */
function leafPaths(doc: unknown, prefix = ''): string[] {
  if (doc === null || typeof doc !== 'object') return [prefix];
  return Object.entries(doc).flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k));
}

async function expectNo5xx(what: string, send: () => Promise<{ status: number; body: any }>) {
  // server.call already fails on a 5xx or a 4xx without the flat error body; the status is kept for the message
  const res = await send();
  expect(res.status, `${what} → ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(500);
}

const postJson = (path: string, raw: string, headers: Record<string, string>) => server.call('POST', path, { raw, headers: { 'content-type': 'application/json', ...headers } });

describe('POST /v1/webhooks/sandbox and /v1/webhooks/smtp', () => {
  it('a bad value in any field, or a bad key, is a 2xx or a 4xx', async () => {
    const routes: { path: string; headers: Record<string, string>; base: Record<string, unknown> }[] = [
      { path: '/v1/webhooks/sandbox', headers: { 'x-sandbox-secret': SECRETS.WEBHOOK_SECRET_SANDBOX }, base: { message_id: known.id, provider_message_id: known.providerMessageId, status: 'failed', reason: 'because' } },
      {
        path: '/v1/webhooks/smtp', headers: { 'x-smtp-feedback-secret': SECRETS.WEBHOOK_SECRET_SMTP },
        base: { type: 'bounce', message_id: known.id, provider_message_id: known.providerMessageId, recipient: 'someone@example.com', reason: 'mailbox full', bounce_type: 'hard' },
      },
    ];
    for (const route of routes) {
      for (const path of leafPaths(route.base)) {
        for (const value of BAD_VALUES) {
          const doc = withValue(route.base, path, value);
          await expectNo5xx(`${route.path} ${path}=${JSON.stringify(value).slice(0, 40)}`, () => postJson(route.path, JSON.stringify(doc), route.headers));
          await expectNo5xx(`${route.path} [${path}=…]`, () => postJson(route.path, JSON.stringify([doc]), route.headers));
        }
      }
      await expectNo5xx(`${route.path} NUL key`, () => postJson(route.path, JSON.stringify({ ...route.base, 'reason\u0000': 'x' }), route.headers));
      await expectNo5xx(`${route.path} not an object`, () => postJson(route.path, '"\\u0000"', route.headers));
    }
  });
});

describe('POST /v1/webhooks/carrier', () => {
  it('a bad value in any parameter, of a status callback or an inbound message, is a 2xx or a 4xx', async () => {
    const status = { AccountSid: 'AC1', MessageSid: known.providerMessageId, MessageStatus: 'undelivered', ErrorCode: '30003', ErrorMessage: 'Unreachable', To: '+447400123777', From: '+15017122661' };
    const call = { AccountSid: 'AC1', CallSid: known.providerMessageId, CallStatus: 'failed', To: '+447400123777', From: '+15017122661' };
    const inbound = { AccountSid: 'AC1', MessageSid: 'SM0000000000000000000000000000fuzz', From: '+447400123777', To: '+15017122661', Body: 'hello' };
    for (const base of [status, call, inbound]) {
      for (const name of Object.keys(base)) {
        for (const value of BAD_STRINGS) {
          await expectNo5xx(`carrier ${name}=${JSON.stringify(value).slice(0, 40)}`, () => postCarrier(server, { ...base, [name]: value }));
        }
      }
      await expectNo5xx('carrier NUL in a parameter name', () => postCarrier(server, { ...base, 'Body\u0000': 'x' }));
    }
    // the one the review found: a signed MessageSid of a lone NUL
    const res = await postCarrier(server, { ...status, MessageSid: '\u0000' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_error');
  });
});

describe('POST /v1/webhooks/whatsapp', () => {
  it('a bad value in any field of a status or an inbound message, or a bad key, is a 2xx or a 4xx', async () => {
    const base = whatsappPayload({
      statuses: [{ id: known.providerMessageId, status: 'failed', timestamp: '1764000000', recipient_id: '447400123777', errors: [{ code: 131026, title: 'Undeliverable', message: 'x', error_data: { details: 'y' } }] }],
      messages: [{
        from: '447400123777', id: 'wamid.fuzz', timestamp: '1764000000', type: 'interactive', text: { body: 'hi' }, button: { text: 'b' },
        interactive: { button_reply: { title: 't' }, list_reply: { title: 'l' } }, image: { caption: 'c' }, video: { caption: 'v' }, document: { caption: 'd' },
      }],
    });
    const post = (raw: string) => postJson('/v1/webhooks/whatsapp', raw, { 'x-hub-signature-256': metaSignature(SECRETS.WEBHOOK_SECRET_WHATSAPP, raw) });
    for (const path of leafPaths(base)) {
      for (const value of BAD_VALUES) {
        await expectNo5xx(`whatsapp ${path}=${JSON.stringify(value).slice(0, 40)}`, () => post(JSON.stringify(withValue(base, path, value))));
      }
    }
    await expectNo5xx('whatsapp NUL key', () => post(JSON.stringify(withValue(base, 'entry.0.changes.0.value.metadata', { '\u0000': '\ud800', display_phone_number: '1555\u00000783881' }))));
    await expectNo5xx('whatsapp deeply nested', () => post(`{"object":"whatsapp_business_account","entry":[],"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`));
  });

  it('the verification handshake with bad query values is a 2xx or a 4xx', async () => {
    for (const value of BAD_STRINGS.filter((v) => v.length < 10_000)) {
      const q = new URLSearchParams({ 'hub.mode': 'subscribe', 'hub.verify_token': value, 'hub.challenge': value }).toString();
      await expectNo5xx(`whatsapp verify ${JSON.stringify(value)}`, () => server.call('GET', `/v1/webhooks/whatsapp?${q}`));
      await expectNo5xx(`whatsapp verify challenge ${JSON.stringify(value)}`, () => server.call('GET', `/v1/webhooks/whatsapp?${new URLSearchParams({ 'hub.mode': 'subscribe', 'hub.verify_token': SECRETS.WHATSAPP_VERIFY_TOKEN, 'hub.challenge': value })}`));
    }
  });

  it('afterwards the service still records a genuine report', async () => {
    const fresh = await sendAndWaitSent(server, key, { to: '+447400123778', channel: 'sms', message: 'hi' });
    const res = await postJson('/v1/webhooks/sandbox', JSON.stringify({ provider_message_id: fresh.providerMessageId, status: 'delivered' }), { 'x-sandbox-secret': SECRETS.WEBHOOK_SECRET_SANDBOX });
    expect(res.status).toBe(200);
    const health = (await server.call('GET', '/health')).body;
    expect(health.projections.filter((p: any) => p.status === 'failed')).toEqual([]);
  });
});
