// POST /v1/messages/send over HTTP (README "Messaging"; README "API conventions"): the 202 record, every validation rule naming its field, `to` per channel, scheduling,
// webhook URLs, content stored intact, Idempotency-Key replay.
import { beforeAll, describe, expect, it } from 'vitest';
import type { MessageAcceptedData } from '../../commands/message.ts';
import { newId } from '../../src/ids.ts';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { expectRejected } from '../support/http.ts';

// a loaded machine must not turn read-your-writes into a flaky read: wait for the read model as long as it takes
const SETTLE_MS = '60000';
let key: string;
let accountId: string;

const SMS = { to: '+14155550123', channel: 'sms', message: 'hello' } as const;
const EMAIL = { to: 'alice@example.com', channel: 'email', message: 'plain text', subject: 'Hi' } as const;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MSG_ID = /^msg_[0-9A-HJKMNP-TV-Z]{26}$/;

async function send(body: unknown, opts: { headers?: Record<string, string>; raw?: string } = {}) {
  // (server.call asserts that a malformed request is never a server error)
  return server.call('POST', '/v1/messages/send', { key, body, ...opts });
}

async function storedCount() {
  const h = await server.call('GET', '/v1/messages/history?limit=500', { key });
  return h.body.data.length as number;
}

// nothing here needs dispatching; the stored record stays exactly as accepted
const server = testServerForSuite({ WORKERS_ENABLED: 'false', READ_YOUR_WRITES_TIMEOUT_MS: SETTLE_MS });
beforeAll(async () => {
  ({ key, accountId } = await readyAccount(server));
});

describe('POST /v1/messages/send: accepted', () => {
  it('answers 202 with id (msg_ prefix), status, channel, to, scheduled_at and created_at', async () => {
    const before = Date.now();
    const res = await send(SMS);
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(['channel', 'created_at', 'id', 'scheduled_at', 'status', 'to']);
    expect(res.body.id).toMatch(MSG_ID);
    expect(res.body).toMatchObject({ status: 'queued', channel: 'sms', to: '+14155550123', scheduled_at: null });
    expect(res.body.created_at).toMatch(ISO_MS);
    expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 1000);

    // readable at once, with the same fields
    const got = await server.call('GET', `/v1/messages/${res.body.id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: res.body.id, status: 'queued', channel: 'sms', to: '+14155550123', message: 'hello', created_at: res.body.created_at });
  });

  it('accepts every channel with a recipient of its kind', async () => {
    const cases = [
      { channel: 'sms', to: '+14155550123' },
      { channel: 'rcs', to: '+14155550124' },
      { channel: 'whatsapp', to: '+447911123456' },
      { channel: 'voice', to: '+14155550125' },
      { channel: 'email', to: 'bob@example.org' },
      { channel: 'push', to: 'fcm:dGVzdC10b2tlbi0xMjM0NTY3OA_-.' },
    ];
    for (const c of cases) {
      const res = await send({ ...c, message: `on ${c.channel}` });
      expect(res.status, `${c.channel}: ${JSON.stringify(res.body)}`).toBe(202);
      expect(res.body).toMatchObject({ channel: c.channel, to: c.to, status: 'queued' });
    }
  });

  it('accepts an email with htmlmessage, subject, reply_to, from_name and safe headers, and keeps them', async () => {
    const res = await send({
      ...EMAIL,
      htmlmessage: '<p>Hello <b>there</b></p>',
      reply_to: 'support@example.com',
      from_name: 'Example Support',
      headers: { 'X-Campaign': 'spring-2026', 'X-Entity-Ref-ID': 'abc-123' },
      transactional: true,
      category: 'transactional',
    });
    expect(res.status).toBe(202);
    const got = await server.call('GET', `/v1/messages/${res.body.id}`, { key });
    expect(got.body).toMatchObject({
      channel: 'email',
      to: 'alice@example.com',
      message: 'plain text',
      htmlmessage: '<p>Hello <b>there</b></p>',
      subject: 'Hi',
      reply_to: 'support@example.com',
      from_name: 'Example Support',
      headers: { 'X-Campaign': 'spring-2026', 'X-Entity-Ref-ID': 'abc-123' },
      transactional: true,
      category: 'transactional',
    });
  });
});

describe('POST /v1/messages/send: transactional', () => {
  const record = async (id: string) => (await server.call('GET', `/v1/messages/${id}`, { key })).body;
  const listed = async (id: string) => (await server.call('GET', '/v1/messages/history?limit=500', { key })).body.data.find((m: { id: string }) => m.id === id);
  const accepted = async (id: string) => {
    const [first] = await server.engage.store.readStream(`message-${id}`, { maxCount: 1 });
    return first!.data as { transactional: boolean; category?: string };
  };

  it('category "transactional" makes a message transactional, and its record, its history entry and its event say so', async () => {
    const res = await send({ ...SMS, category: 'transactional' });
    expect(res.status).toBe(202);
    const id = res.body.id;
    expect(await record(id)).toMatchObject({ transactional: true, category: 'transactional' });
    expect(await listed(id)).toMatchObject({ transactional: true, category: 'transactional' });
    expect(await accepted(id)).toMatchObject({ transactional: true, category: 'transactional' });
  });

  it('transactional: true is transactional whatever the category; neither makes a marketing message', async () => {
    const flagged = (await send({ ...SMS, transactional: true, category: 'receipts' })).body.id;
    expect(await record(flagged)).toMatchObject({ transactional: true, category: 'receipts' });
    const marketing = (await send({ ...SMS, category: 'newsletter' })).body.id;
    expect(await record(marketing)).toMatchObject({ transactional: false, category: 'newsletter' });
    expect(await listed(marketing)).toMatchObject({ transactional: false });
    expect(await accepted(marketing)).toMatchObject({ transactional: false });
  });

  it('a message accepted before its event said so (transactional: false, category "transactional") reads transactional too', async () => {
    const id = newId('message');
    const data: MessageAcceptedData = { id, account_id: accountId, channel: 'sms', to: '+14155550123', message: 'Your code is 1234', transactional: false, category: 'transactional', status: 'queued', created_at: new Date().toISOString() };
    const written = await server.engage.store.append(`message-${id}`, [{ type: 'MessageAccepted', data }], 'no_stream');
    expect(await server.engage.runner.waitFor(['messages'], written.position, 60_000)).toBe(true);
    expect(await record(id)).toMatchObject({ transactional: true, category: 'transactional' });
    expect(await listed(id)).toMatchObject({ transactional: true });
  });
});

describe('POST /v1/messages/send: required fields', () => {
  for (const field of ['to', 'channel', 'message'] as const) {
    it(`rejects a body without ${field}, naming it`, async () => {
      const { [field]: _omit, ...body } = SMS;
      expectRejected(await send(body), field);
    });
  }

  it('rejects an empty message', async () => {
    expectRejected(await send({ ...SMS, message: '' }), 'message');
  });

  it('rejects htmlmessage without message (message is the text/plain alternative), naming message', async () => {
    expectRejected(await send({ to: 'alice@example.com', channel: 'email', subject: 's', htmlmessage: '<p>x</p>' }), 'message');
    expectRejected(await send({ to: 'alice@example.com', channel: 'email', subject: 's', htmlmessage: '<p>x</p>', message: '' }), 'message');
  });

  it('rejects a body that is not a JSON object', async () => {
    for (const raw of ['[]', '"text"', '42', 'null']) {
      const res = await send(undefined, { raw });
      expect(res.status, raw).toBe(400);
      expect(res.body.error).toBe('validation_error');
    }
    const broken = await send(undefined, { raw: '{"to": ' });
    expect(broken.status).toBe(400);
    expect(broken.body.error).toBe('validation_error');
  });

  it('rejects fields of the wrong type, naming them', async () => {
    expectRejected(await send({ ...SMS, message: 42 }), 'message');
    expectRejected(await send({ ...SMS, to: ['+14155550123'] }), 'to');
    expectRejected(await send({ ...SMS, transactional: 'yes' }), 'transactional');
    expectRejected(await send({ ...EMAIL, headers: { 'X-A': 1 } }), 'headers.X-A');
    expectRejected(await send({ ...EMAIL, headers: ['X-A: 1'] }), 'headers');
  });

  it('rejects an unknown body field, naming it (typos and mass assignment)', async () => {
    expectRejected(await send({ ...SMS, mesage: 'typo' }), 'mesage');
    expectRejected(await send({ ...SMS, status: 'delivered' }), 'status');
    expectRejected(await send({ ...SMS, account_id: 'acct_01ARZ3NDEKTSV4RRFFQ69G5FAV' }), 'account_id');
    expectRejected(await send({ ...SMS, id: 'msg_01ARZ3NDEKTSV4RRFFQ69G5FAV' }), 'id');
  });

  it('rejects an unknown channel, naming channel', async () => {
    for (const channel of ['fax', 'SMS', '', 'telegram']) expectRejected(await send({ ...SMS, channel }), 'channel');
  });
});

describe('POST /v1/messages/send: email-only fields', () => {
  const emailOnly: Record<string, unknown> = {
    htmlmessage: '<p>x</p>',
    subject: 'Hello',
    reply_to: 'support@example.com',
    from_name: 'Support',
    headers: { 'X-Campaign': 'a' },
  };
  for (const channel of ['sms', 'whatsapp', 'push'] as const) {
    for (const [field, value] of Object.entries(emailOnly)) {
      it(`rejects ${field} on ${channel}, naming it`, async () => {
        const to = channel === 'push' ? 'device-token-123456' : '+14155550123';
        expectRejected(await send({ to, channel, message: 'x', [field]: value }), field);
      });
    }
  }

  it('rejects a reply_to that is not an email address', async () => {
    expectRejected(await send({ ...EMAIL, reply_to: 'not an address' }), 'reply_to');
    expectRejected(await send({ ...EMAIL, reply_to: 'a@example.com\r\nBcc: victim@example.com' }), 'reply_to');
  });

  it('rejects line breaks in from_name and subject (header injection)', async () => {
    expectRejected(await send({ ...EMAIL, from_name: 'Support\r\nBcc: victim@example.com' }), 'from_name');
    expectRejected(await send({ ...EMAIL, subject: 'Hello\r\nBcc: victim@example.com' }), 'subject');
    expectRejected(await send({ ...EMAIL, subject: 'Hello\nthere' }), 'subject');
  });
});

describe('POST /v1/messages/send: headers', () => {
  const RESERVED = [
    'From', 'To', 'Cc', 'Bcc', 'Subject', 'Reply-To', 'Sender', 'Return-Path', 'Message-ID', 'Date', 'MIME-Version', 'Content-Type',
    'Content-Transfer-Encoding', 'DKIM-Signature', 'Received', 'Authentication-Results', 'List-Unsubscribe', 'List-Unsubscribe-Post',
  ];

  for (const name of RESERVED) {
    const spellings = [name, name.toLowerCase(), name.toUpperCase()];
    it(`rejects the reserved header ${name} in any case, naming it`, async () => {
      for (const spelled of spellings) {
        expectRejected(await send({ ...EMAIL, headers: { [spelled]: 'x' } }), `headers.${spelled}`);
      }
    });
  }

  it('names the reserved header even beside allowed ones', async () => {
    const res = await send({ ...EMAIL, headers: { 'X-Fine': 'ok', 'lIsT-uNsUbScRiBe': '<mailto:x@example.com>' } });
    expectRejected(res, 'headers.lIsT-uNsUbScRiBe');
    expect(res.body.issues.map((i: { path: string }) => i.path)).not.toContain('headers.X-Fine');
  });

  it('rejects header names outside [A-Za-z0-9-]{1,64}', async () => {
    for (const name of ['X Custom', 'X-Custom:', 'X_Custom', 'X-Ünicode', 'x'.repeat(65), '']) {
      expectRejected(await send({ ...EMAIL, headers: { [name]: 'v' } }), `headers.${name}`);
    }
  });

  it('rejects header values with CR or LF, or longer than 998 characters', async () => {
    for (const value of ['a\r\nBcc: victim@example.com', 'a\nb', 'a\rb', 'x'.repeat(999)]) {
      expectRejected(await send({ ...EMAIL, headers: { 'X-Custom': value } }), 'headers.X-Custom');
    }
    // the boundary itself is allowed
    const ok = await send({ ...EMAIL, headers: { 'X-Custom': 'x'.repeat(998), ['X-' + 'a'.repeat(62)]: 'v' } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
  });
});

describe('POST /v1/messages/send: `to` per channel', () => {
  it('normalises an international phone number with spaces or dashes to E.164 (+14155550123)', async () => {
    for (const to of ['+1 415-555-0123', '+1 (415) 555-0123', ' +14155550123 ', '+1.415.555.0123']) {
      const res = await send({ ...SMS, to });
      expect(res.status, `${to}: ${JSON.stringify(res.body)}`).toBe(202);
      expect(res.body.to).toBe('+14155550123');
    }
    const uk = await send({ ...SMS, channel: 'whatsapp', to: '+44 7911 123456' });
    expect(uk.status).toBe(202);
    expect(uk.body.to).toBe('+447911123456');
  });

  it('rejects national formats without a country code, and non-numbers, on every phone channel', async () => {
    for (const channel of ['sms', 'rcs', 'whatsapp', 'voice']) {
      for (const to of ['415 555 0123', '(415) 555-0123', '4155550123', '07700 900123', '+1415555', '+999123456789', 'alice@example.com', 'not a number']) {
        expectRejected(await send({ channel, to, message: 'x' }), 'to');
      }
    }
  });

  it('takes an email address for email, lowercased; rejects anything else', async () => {
    const ok = await send({ ...EMAIL, to: '  Alice.Smith+tag@Example.COM ' });
    expect(ok.status).toBe(202);
    expect(ok.body.to).toBe('alice.smith+tag@example.com');
    for (const to of ['not-an-email', 'a@b', 'a b@example.com', '@example.com', 'alice@', '+14155550123', 'Alice <alice@example.com>', 'alice@example.com\r\nBcc: x@example.com', `${'a'.repeat(250)}@example.com`]) {
      expectRejected(await send({ ...EMAIL, to }), 'to');
    }
  });

  it('takes a device token for push; rejects short tokens and tokens with spaces or other characters', async () => {
    const ok = await send({ channel: 'push', to: 'APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx', message: 'x' });
    expect(ok.status).toBe(202);
    expect(ok.body.to).toBe('APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx');
    for (const to of ['short', 'token with spaces 123', 'token<script>1234', '']) expectRejected(await send({ channel: 'push', to, message: 'x' }), 'to');
  });
});

describe('POST /v1/messages/send: scheduled_at', () => {
  it('makes a message with a future scheduled_at scheduled, and returns the time in UTC', async () => {
    const at = new Date(Date.now() + 60 * 60_000);
    at.setUTCMilliseconds(0);
    const res = await send({ ...SMS, scheduled_at: at.toISOString() });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('scheduled');
    expect(res.body.scheduled_at).toBe(at.toISOString());

    // an offset is converted to UTC
    const local = new Date(at.getTime() + 3 * 60 * 60_000);
    const withOffset = `${local.toISOString().slice(0, 19)}+03:00`;
    const off = await send({ ...SMS, scheduled_at: withOffset });
    expect(off.status).toBe(202);
    expect(off.body).toMatchObject({ status: 'scheduled', scheduled_at: at.toISOString() });

    const got = await server.call('GET', `/v1/messages/${res.body.id}`, { key });
    expect(got.body).toMatchObject({ status: 'scheduled', scheduled_at: at.toISOString() });
  });

  it('rejects a scheduled_at in the past', async () => {
    expectRejected(await send({ ...SMS, scheduled_at: new Date(Date.now() - 60_000).toISOString() }), 'scheduled_at');
    expectRejected(await send({ ...SMS, scheduled_at: '2001-01-01T00:00:00Z' }), 'scheduled_at');
  });

  it('rejects a scheduled_at that is not an RFC 3339 timestamp', async () => {
    for (const v of ['tomorrow', '2030-02-30T10:00:00Z', '2030-13-01T00:00:00Z', '2030-01-01', '2030-01-01T10:00:00', '1893456000', '', 'null']) {
      expectRejected(await send({ ...SMS, scheduled_at: v }), 'scheduled_at');
    }
    expectRejected(await send({ ...SMS, scheduled_at: 1893456000000 }), 'scheduled_at');
  });

  it('rejects a scheduled_at more than a year ahead', async () => {
    expectRejected(await send({ ...SMS, scheduled_at: new Date(Date.now() + 400 * 24 * 3600_000).toISOString() }), 'scheduled_at');
  });
});

describe('POST /v1/messages/send: webhook_url', () => {
  it('accepts an absolute http or https URL and keeps it', async () => {
    for (const url of ['https://hooks.example.com/status?x=1', 'http://hooks.example.com:8080/cb']) {
      const res = await send({ ...SMS, webhook_url: url });
      expect(res.status).toBe(202);
      const got = await server.call('GET', `/v1/messages/${res.body.id}`, { key });
      expect(got.body.webhook_url).toBe(url);
    }
  });

  it('rejects relative, non-http(s) and malformed URLs, naming webhook_url', async () => {
    for (const url of ['ftp://example.com/hook', '/relative/path', 'hooks.example.com/cb', 'javascript:alert(1)', 'data:text/plain,hi', 'file:///etc/passwd', 'http://', 'https:// spaced.example.com', '']) {
      expectRejected(await send({ ...SMS, webhook_url: url }), 'webhook_url');
    }
  });
});

describe('POST /v1/messages/send: content is stored and returned intact', () => {
  it('keeps emoji, other scripts and SQL metacharacters byte for byte', async () => {
    const texts = [
      'Hi 👋🏽 café — 日本語 — עברית — 👨‍👩‍👧‍👦',
      "Robert'); DROP TABLE messages;-- \" ` \\ %_ $1 ?",
      'back\\slash and "quotes" and \ttab and\nnew line',
      '<script>alert(1)</script> &amp;',
    ];
    for (const message of texts) {
      const res = await send({ ...SMS, message });
      expect(res.status).toBe(202);
      const got = await server.call('GET', `/v1/messages/${res.body.id}`, { key });
      expect(got.body.message).toBe(message);
    }
    const html = '<p>Ünïcödé 🎉 \'quoted\'; DELETE FROM x;</p>';
    const email = await send({ ...EMAIL, htmlmessage: html, subject: 'Grüße 🎉 \'; --' });
    const got = await server.call('GET', `/v1/messages/${email.body.id}`, { key });
    expect(got.body).toMatchObject({ htmlmessage: html, subject: 'Grüße 🎉 \'; --' });
  });

  it('rejects NUL characters in any text field with 400, never a server error', async () => {
    const count = await storedCount();
    expectRejected(await send({ ...SMS, message: 'a\u0000b' }), 'message');
    expectRejected(await send({ ...EMAIL, htmlmessage: '<p>\u0000</p>' }), 'htmlmessage');
    expectRejected(await send({ ...EMAIL, subject: 'x\u0000' }), 'subject');
    expectRejected(await send({ ...EMAIL, from_name: 'x\u0000' }), 'from_name');
    expectRejected(await send({ ...EMAIL, headers: { 'X-A': 'x\u0000' } }), 'headers.X-A');
    expectRejected(await send({ ...SMS, category: 'x\u0000' }), 'category');
    expectRejected(await send({ ...SMS, to: '+14155550123\u0000' }), 'to');
    expect(await storedCount()).toBe(count);
  });

  it('rejects unpaired UTF-16 surrogates (not valid Unicode text) with 400, never a server error', async () => {
    // JSON can carry "\ud83d" alone; it is not text and cannot be stored
    const res = await send(undefined, { raw: '{"to":"+14155550123","channel":"sms","message":"half an emoji \\ud83d"}' });
    expectRejected(res, 'message');
    const low = await send(undefined, { raw: '{"to":"a@example.com","channel":"email","message":"x","subject":"\\udc00 alone"}' });
    expectRejected(low, 'subject');
    const header = await send(undefined, { raw: '{"to":"a@example.com","channel":"email","message":"x","headers":{"X-A":"\\ud800"}}' });
    expectRejected(header, 'headers.X-A');
    // a correctly escaped pair is an emoji and is fine
    const pair = await send(undefined, { raw: '{"to":"+14155550123","channel":"sms","message":"\\ud83d\\ude00"}' });
    expect(pair.status).toBe(202);
    const got = await server.call('GET', `/v1/messages/${pair.body.id}`, { key });
    expect(got.body.message).toBe('😀');
  });

  it('rejects a message over 100,000 characters', async () => {
    expectRejected(await send({ ...SMS, message: 'x'.repeat(100_001) }), 'message');
  });
});

describe('POST /v1/messages/send: Idempotency-Key', () => {
  it('replays the same message id for the same key and body, and stores one message', async () => {
    const body = { ...SMS, to: '+14155550199', message: 'idempotent' };
    const first = await send(body, { headers: { 'idempotency-key': 'send-once-1' } });
    expect(first.status).toBe(202);
    const again = await send(body, { headers: { 'idempotency-key': 'send-once-1' } });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    const history = await server.call('GET', `/v1/messages/history?to=${encodeURIComponent('+14155550199')}`, { key });
    expect(history.body.data.map((m: { id: string }) => m.id)).toEqual([first.body.id]);

    // a different key is a different message
    const other = await send(body, { headers: { 'idempotency-key': 'send-once-2' } });
    expect(other.status).toBe(202);
    expect(other.body.id).not.toBe(first.body.id);

    // the same key with a different body is a conflict
    const conflict = await send({ ...body, message: 'changed' }, { headers: { 'idempotency-key': 'send-once-1' } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe('conflict');
  });
});

describe('POST /v1/messages/send: authentication', () => {
  it('needs an API key or a session', async () => {
    const res = await server.call('POST', '/v1/messages/send', { body: SMS });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
    const bad = await server.call('POST', '/v1/messages/send', { key: 'ek_live_nope', body: SMS });
    expect(bad.status).toBe(401);
  });

  it('accepts a dashboard session (key or login)', async () => {
    const acct = await readyAccount(server);
    const login = await server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: acct.password } });
    expect(login.status).toBe(200);
    const res = await server.call('POST', '/v1/messages/send', { token: login.body.token, body: SMS });
    expect(res.status).toBe(202);
    const got = await server.call('GET', `/v1/messages/${res.body.id}`, { key: acct.key });
    expect(got.status).toBe(200);
  });
});
