// POST /v1/messages/bulk and POST /v1/messages/send-by-tag over HTTP (README "Messaging",
// "Webhooks", "API conventions"): per-item results in index order, per-item options and webhook_url, the
// 10,000-item bound, body shape errors; send-by-tag addressing, skipping, tag and account isolation.
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { expectRejected } from '../support/http.ts';

// a loaded machine must not turn read-your-writes (contacts for send-by-tag) into a flaky read
const SETTLE_MS = '60000';
let key: string;

const SMS = { to: '+14155550123', channel: 'sms', message: 'hello' } as const;

async function bulk(body: unknown, opts: { key?: string; raw?: string; headers?: Record<string, string> } = {}) {
  return server.call('POST', '/v1/messages/bulk', { key: opts.key ?? key, body, raw: opts.raw, headers: opts.headers });
}

/**
 * Every message of the account matching `query`, following next_cursor to the end, once history has
 * every message stored so far (a bulk answers before its messages are in history).
 */
async function historyAll(k: string, query = '') {
  await server.caughtUp(['messages']);
  const out: any[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const res: { status: number; body: any } = await server.call('GET', `/v1/messages/history?limit=500${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: k });
    expect(res.status).toBe(200);
    out.push(...res.body.data);
    cursor = res.body.next_cursor;
    if (!cursor) return out;
  }
  throw new Error('history did not end');
}

// accepted messages stay queued: nothing here is about dispatch, and 10,000 sandbox sends are noise
const server = testServerForSuite({ WORKERS_ENABLED: 'false', READ_YOUR_WRITES_TIMEOUT_MS: SETTLE_MS });
beforeAll(async () => {
  ({ key } = await readyAccount(server));
});

describe('POST /v1/messages/bulk', () => {
  it('accepts the valid items and reports the invalid ones as failed, every item by index in order', async () => {
    const future = new Date(Date.now() + 3600_000).toISOString();
    const items: unknown[] = [
      { ...SMS, message: 'first', webhook_url: 'https://hooks.example.com/a' },
      { ...SMS, to: '415 555 0123' }, // national format
      { to: 'alice@example.com', channel: 'email', message: 'text', subject: 's', webhook_url: 'https://hooks.example.com/b' },
      { ...SMS, mesage: 'typo' }, // unknown field
      { to: 'alice@example.com', channel: 'email', message: 'x', headers: { 'Reply-To': 'evil@example.com' } },
      { ...SMS, reply_to: 'a@example.com' }, // email-only on sms
      42,
      null,
      'a string',
      { ...SMS, message: 'later', scheduled_at: future },
      { ...SMS, webhook_url: 'ftp://example.com/hook' },
      { to: 'alice@example.com', channel: 'email', htmlmessage: '<p>no text</p>' },
      { ...SMS, channel: 'fax' },
      { ...SMS, message: 'last' },
    ];
    const res = await bulk({ messages: items });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(['accepted', 'failed', 'results']);
    expect(res.body.accepted).toBe(4);
    expect(res.body.failed).toBe(10);
    expect(res.body.results.map((r: { index: number }) => r.index)).toEqual(items.map((_, i) => i));

    const ok = [0, 2, 9, 13];
    for (const [i, r] of (res.body.results as any[]).entries()) {
      if (ok.includes(i)) {
        expect(r, `item ${i}`).toEqual({ index: i, id: expect.stringMatching(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/), status: i === 9 ? 'scheduled' : 'queued' });
      } else {
        expect(r, `item ${i}`).toEqual({ index: i, error: 'validation_error', message: expect.any(String) });
      }
    }
    // each failure says which field was wrong
    const failures = res.body.results as { message?: string }[];
    expect(failures[1].message).toMatch(/\bto\b/);
    expect(failures[3].message).toContain('mesage');
    expect(failures[4].message).toContain('headers.Reply-To');
    expect(failures[5].message).toContain('reply_to');
    expect(failures[10].message).toContain('webhook_url');
    expect(failures[11].message).toMatch(/\bmessage\b/);
    expect(failures[12].message).toContain('channel');

    // accepted items are stored with their own webhook_url
    const ids = new Set(ok.map((i) => res.body.results[i].id));
    expect(ids.size).toBe(4);
    const first = await server.call('GET', `/v1/messages/${res.body.results[0].id}`, { key });
    expect(first.body).toMatchObject({ message: 'first', webhook_url: 'https://hooks.example.com/a', status: 'queued' });
    const second = await server.call('GET', `/v1/messages/${res.body.results[2].id}`, { key });
    expect(second.body).toMatchObject({ channel: 'email', webhook_url: 'https://hooks.example.com/b' });
    const later = await server.call('GET', `/v1/messages/${res.body.results[9].id}`, { key });
    expect(later.body).toMatchObject({ status: 'scheduled', scheduled_at: new Date(future).toISOString(), webhook_url: null });
  });

  it('validates the per-send options (transactional, reply_to, from_name, headers) on each item', async () => {
    const email = { to: 'bob@example.com', channel: 'email', message: 'text', subject: 'Receipt' };
    const items = [
      { ...email, transactional: true, reply_to: 'billing@example.com', from_name: 'Billing', headers: { 'X-Order': '42' } },
      { ...email, transactional: 'true' },
      { ...email, reply_to: 'not-an-address' },
      { ...email, from_name: 'Billing\r\nBcc: x@example.com' },
      { ...email, headers: { 'dkim-signature': 'v=1' } },
      { ...email, headers: { 'X-Bad Name': 'v' } },
      { ...email, headers: { 'X-Long': 'x'.repeat(999) } },
      { ...SMS, from_name: 'Billing' },
      { ...SMS, headers: { 'X-Order': '42' } },
      { ...SMS, transactional: false },
    ];
    const res = await bulk({ messages: items });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ accepted: 2, failed: 8 });
    const r = res.body.results as any[];
    expect(r[0].id).toBeDefined();
    expect(r[9].id).toBeDefined();
    const expected = ['transactional', 'reply_to', 'from_name', 'headers.dkim-signature', 'headers.X-Bad Name', 'headers.X-Long', 'from_name', 'headers'];
    expected.forEach((field, j) => {
      expect(r[j + 1], `item ${j + 1}`).toMatchObject({ index: j + 1, error: 'validation_error' });
      expect(r[j + 1].message, `item ${j + 1}`).toContain(field);
      expect(r[j + 1].id).toBeUndefined();
    });
    const got = await server.call('GET', `/v1/messages/${r[0].id}`, { key });
    expect(got.body).toMatchObject({ transactional: true, reply_to: 'billing@example.com', from_name: 'Billing', headers: { 'X-Order': '42' } });
  });

  it('answers 202 with everything failed when no item is valid, and stores nothing', async () => {
    const acct = await readyAccount(server);
    const res = await bulk({ messages: [{ to: 'x', channel: 'sms', message: 'a' }, {}] }, { key: acct.key });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ accepted: 0, failed: 2 });
    expect(await historyAll(acct.key)).toEqual([]);
  });

  it('rejects a body that is not {messages: [...]} with 400', async () => {
    for (const raw of ['[]', '[{"to":"+14155550123","channel":"sms","message":"x"}]', '"messages"', '42']) {
      const res = await bulk(undefined, { raw });
      expect(res.status, raw).toBe(400);
      expect(res.body.error).toBe('validation_error');
    }
    expectRejected(await bulk({}), 'messages');
    expectRejected(await bulk({ messages: { 0: SMS } }), 'messages');
    expectRejected(await bulk({ messages: 'all of them' }), 'messages');
    expectRejected(await bulk({ messages: null }), 'messages');
    expectRejected(await bulk({ messages: [SMS], webhook_url: 'https://hooks.example.com' }), 'webhook_url');
  });

  it('rejects an empty messages array with 400', async () => {
    expectRejected(await bulk({ messages: [] }), 'messages');
  });

  it('rejects 10,001 messages with 400 and stores none of them', async () => {
    const acct = await readyAccount(server);
    const res = await bulk({ messages: Array.from({ length: 10_001 }, () => SMS) }, { key: acct.key });
    expectRejected(res, 'messages');
    expect(await historyAll(acct.key)).toEqual([]);
  });

  it('accepts 10,000 valid messages in one call, and history finds every one', async () => {
    const acct = await readyAccount(server);
    const messages = Array.from({ length: 10_000 }, (_, i) => ({ to: '+14155550123', channel: 'sms', message: `bulk #${i}`, ...(i % 2 ? { webhook_url: `https://hooks.example.com/${i}` } : {}) }));
    const res = await bulk({ messages }, { key: acct.key });
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(10_000);
    expect(res.body.failed).toBe(0);
    expect(res.body.results).toHaveLength(10_000);
    const ids = (res.body.results as { index: number; id: string; status: string }[]).map((r, i) => {
      expect(r.index).toBe(i);
      expect(r.status).toBe('queued');
      return r.id;
    });
    expect(new Set(ids).size).toBe(10_000);

    const history = await historyAll(acct.key);
    expect(history).toHaveLength(10_000);
    expect(new Set(history.map((m) => m.id))).toEqual(new Set(ids));
    // each item kept its own content and webhook_url
    const byId = new Map(history.map((m) => [m.id, m]));
    for (const i of [0, 1, 4_999, 5_000, 5_001, 9_999]) {
      expect(byId.get(ids[i])).toMatchObject({ message: `bulk #${i}`, webhook_url: i % 2 ? `https://hooks.example.com/${i}` : null });
    }
  });

  it('answers once its messages are stored: each is readable by id and by timeline before history lists it', async () => {
    const acct = await readyAccount(server);
    // An open transaction holding a transaction id holds every catch-up reader back (README: readers
    // held back), so the read model cannot apply the bulk until it ends: the answer cannot wait for it.
    const holder = new pg.Client({ connectionString: server.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_current_xact_id()');
      const res = await bulk({ messages: [{ ...SMS, message: 'first' }, { to: 'ada@example.com', channel: 'email', message: 'second', subject: 'Hi' }] }, { key: acct.key });
      expect(res.status).toBe(202);
      const [first, second] = (res.body.results as { id: string }[]).map((r) => r.id);
      const listed = await server.call('GET', '/v1/messages/history', { key: acct.key });
      expect(listed.body.data).toEqual([]); // not in the read model yet

      const one = await server.call('GET', `/v1/messages/${first}`, { key: acct.key });
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ id: first, status: 'queued', channel: 'sms', to: '+14155550123', message: 'first', attempts: 0 });
      expect(typeof one.body.created_at).toBe('string');
      const email = await server.call('GET', `/v1/messages/${second}`, { key: acct.key });
      expect(email.body).toMatchObject({ id: second, channel: 'email', to: 'ada@example.com', subject: 'Hi' });
      // another account's key does not see it through the stream either
      expect((await server.call('GET', `/v1/messages/${first}`, { key })).status).toBe(404);

      const timeline = await server.call('GET', `/v1/messages/${first}/timeline`, { key: acct.key });
      expect(timeline.body.events.map((e: { type: string }) => e.type)).toEqual(['MessageAccepted']);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    // and history lists both once the read model has them, the same as the by-id reads showed
    const history = await historyAll(acct.key);
    expect(history.map((m) => [m.message, m.status]).sort()).toEqual([['first', 'queued'], ['second', 'queued']]);
  });

  it('replays a bulk request with the same Idempotency-Key without accepting it twice', async () => {
    const acct = await readyAccount(server);
    const body = { messages: [SMS, { ...SMS, message: 'two' }] };
    const first = await bulk(body, { key: acct.key, headers: { 'idempotency-key': 'bulk-1' } });
    const again = await bulk(body, { key: acct.key, headers: { 'idempotency-key': 'bulk-1' } });
    expect(first.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(await historyAll(acct.key)).toHaveLength(2);
  });
});

describe('POST /v1/messages/send-by-tag', () => {
  let a: Awaited<ReturnType<typeof readyAccount>>;
  let b: Awaited<ReturnType<typeof readyAccount>>;
  const contacts: Record<string, { id: string; email: string | null; phone: string | null }> = {};

  async function contact(k: string, name: string, body: Record<string, unknown>) {
    const res = await server.call('POST', '/v1/contacts', { key: k, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    contacts[name] = res.body;
    return res.body;
  }

  async function byTag(body: Record<string, unknown>, k = a.key) {
    return server.call('POST', '/v1/messages/send-by-tag', { key: k, body });
  }

  beforeAll(async () => {
    a = await readyAccount(server, 'Tag sender');
    b = await readyAccount(server, 'Other account');
    await contact(a.key, 'both', { email: 'both@example.com', phone: '+14155550101', tags: ['vip'] });
    await contact(a.key, 'emailOnly', { email: 'email-only@example.com', tags: ['vip', 'news'] });
    await contact(a.key, 'phoneOnly', { phone: '+14155550102', tags: ['news', 'vip'] });
    await contact(a.key, 'noAddress', { external_id: 'crm-1', tags: ['vip'] });
    await contact(a.key, 'untagged', { email: 'untagged@example.com', phone: '+14155550103', tags: ['news'] });
    await contact(a.key, 'otherCase', { email: 'case@example.com', tags: ['VIP'] });
    const gone = await contact(a.key, 'deleted', { email: 'deleted@example.com', phone: '+14155550105', tags: ['vip'] });
    expect((await server.call('DELETE', `/v1/contacts/${gone.id}`, { key: a.key })).status).toBeLessThan(300);
    // another account: same tag, and the same addresses as account A's contacts
    await contact(b.key, 'otherAccount', { email: 'other@example.com', phone: '+14155550104', tags: ['vip'] });
    await contact(b.key, 'otherAccountSameEmail', { email: 'untagged@example.com', tags: ['vip'] });
  });

  it('sends one email to each tagged contact with an email, and reports the others as skipped', async () => {
    const res = await byTag({ tag: 'vip', channel: 'email', message: 'Hello VIP', subject: 'News' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ accepted: 2, failed: 0, skipped: 2 });
    const sent = (res.body.results as { contact_id: string; id: string; status: string }[]).map((r) => r.contact_id).sort();
    expect(sent).toEqual([contacts.both.id, contacts.emailOnly.id].sort());
    for (const r of res.body.results) expect(r).toMatchObject({ id: expect.stringMatching(/^msg_/), status: 'queued' });
    const skipped = (res.body.skipped_contacts as { contact_id: string; reason: string }[]).map((s) => s.contact_id).sort();
    expect(skipped).toEqual([contacts.phoneOnly.id, contacts.noAddress.id].sort());

    // each message is addressed from its contact
    for (const r of res.body.results) {
      const got = await server.call('GET', `/v1/messages/${r.id}`, { key: a.key });
      const c = Object.values(contacts).find((x) => x.id === r.contact_id)!;
      expect(got.body).toMatchObject({ channel: 'email', to: c.email, message: 'Hello VIP', subject: 'News' });
    }
    const all = await historyAll(a.key, '&channel=email');
    expect(all.map((m) => m.to).sort()).toEqual(['both@example.com', 'email-only@example.com']);
  });

  it('addresses phone channels from the phone field', async () => {
    for (const channel of ['sms', 'whatsapp']) {
      const res = await byTag({ tag: 'vip', channel, message: `Hi on ${channel}` });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ accepted: 2, skipped: 2 });
      const skipped = (res.body.skipped_contacts as { contact_id: string }[]).map((s) => s.contact_id).sort();
      expect(skipped).toEqual([contacts.emailOnly.id, contacts.noAddress.id].sort());
      const msgs = await historyAll(a.key, `&channel=${channel}`);
      expect(msgs.map((m) => m.to).sort()).toEqual(['+14155550101', '+14155550102']);
    }
  });

  it('never sends to contacts without the tag, deleted contacts, or another account’s contacts', async () => {
    const mine = await historyAll(a.key);
    const addresses = new Set(mine.map((m) => m.to));
    for (const never of ['untagged@example.com', '+14155550103', 'case@example.com', 'deleted@example.com', '+14155550105', 'other@example.com', '+14155550104']) {
      expect(addresses.has(never), never).toBe(false);
    }
    expect(await historyAll(b.key)).toEqual([]);
  });

  it('accepts nothing for a tag no contact carries', async () => {
    const res = await byTag({ tag: 'nobody-has-this', channel: 'sms', message: 'x' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ accepted: 0, failed: 0, skipped: 0, results: [] });
  });

  it('rejects an invalid template with 400 naming the field, instead of failing every recipient', async () => {
    expectRejected(await byTag({ tag: 'vip', channel: 'sms', message: 'x', subject: 'not on sms' }), 'subject');
    expectRejected(await byTag({ tag: 'vip', channel: 'email', message: 'x', headers: { Bcc: 'x@example.com' } }), 'headers.Bcc');
    expectRejected(await byTag({ tag: 'vip', channel: 'email', message: 'x', reply_to: 'nope' }), 'reply_to');
    expectRejected(await byTag({ tag: 'vip', channel: 'sms', message: 'x', scheduled_at: '2001-01-01T00:00:00Z' }), 'scheduled_at');
    expectRejected(await byTag({ tag: 'vip', channel: 'sms', message: 'x', webhook_url: 'javascript:alert(1)' }), 'webhook_url');
    expectRejected(await byTag({ tag: 'vip', channel: 'email', htmlmessage: '<p>x</p>' }), 'message');
    expectRejected(await byTag({ tag: 'vip', channel: 'sms', message: 'x', to: '+14155550123' }), 'to');
    expectRejected(await byTag({ channel: 'sms', message: 'x' }), 'tag');
    expectRejected(await byTag({ tag: 'vip', channel: 'fax', message: 'x' }), 'channel');
    // nothing was accepted by any of these
    const sms = await historyAll(a.key, '&channel=sms');
    expect(sms.every((m) => m.message !== 'x')).toBe(true);
  });

  it('schedules every recipient when the template has a future scheduled_at', async () => {
    const at = new Date(Date.now() + 3600_000);
    at.setUTCMilliseconds(0);
    const res = await byTag({ tag: 'vip', channel: 'voice', message: 'scheduled call', scheduled_at: at.toISOString() });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ accepted: 2, skipped: 2 });
    for (const r of res.body.results) {
      expect(r.status).toBe('scheduled');
      const got = await server.call('GET', `/v1/messages/${r.id}`, { key: a.key });
      expect(got.body).toMatchObject({ status: 'scheduled', scheduled_at: at.toISOString(), channel: 'voice' });
    }
  });

  it('accepts only an API key: a dashboard session gets 401', async () => {
    const login = await server.call('POST', '/v1/auth/login', { body: { email: a.email, password: a.password } });
    expect(login.status).toBe(200);
    const res = await server.call('POST', '/v1/messages/send-by-tag', { token: login.body.token, body: { tag: 'vip', channel: 'sms', message: 'from session' } });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
    const none = await server.call('POST', '/v1/messages/send-by-tag', { body: { tag: 'vip', channel: 'sms', message: 'x' } });
    expect(none.status).toBe(401);
    const msgs = await historyAll(a.key);
    expect(msgs.some((m) => m.message === 'from session')).toBe(false);
  });
});
