// Issue 8 finding 5: every timestamp the API accepts follows one rule (README "Timestamps"): RFC 3339
// with an offset, a real calendar day and time, an offset within ±14:00, and an instant between
// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z. Anything else is a 400 validation_error naming
// the field — never a 500 from a value Postgres cannot hold (year 0000, offsets beyond ±15:59).
import { beforeAll, describe, expect, it } from 'vitest';
import { testServerForSuite } from '../support/harness.ts';

let key: string;

/** Out of range, an offset beyond ±14:00, or not a real date and time. */
const REFUSED = [
  '0000-01-01T00:00:00Z', // the issue's probe: Postgres has no year 0
  '0000-12-31T23:59:59-14:00', // the instant is in year 1, but Postgres reads the written year 0000 first
  '0001-01-01T00:00:00+00:01', // one minute before the earliest instant
  '9999-12-31T23:59:59-00:01', // one minute after the latest
  '9999-12-31T23:00:00-14:00',
  '2026-01-01T00:00:00+16:00', // beyond what Postgres reads (±15:59)
  '2026-01-01T00:00:00+15:59',
  '2026-01-01T00:00:00-15:00',
  '2026-01-01T00:00:00+14:01',
  '2026-01-01T00:00:00-14:01',
  '2026-01-01T00:00:00+05:60',
  '2025-02-29T00:00:00Z', // not a leap year
  '2026-04-31T00:00:00Z',
  '2026-01-01T24:00:00Z',
  '2026-01-01T23:59:60Z',
  '2026-01-01T10:00:00', // no offset
  '2026-01-01 10:00:00Z',
  '2026-01-01T10:00Z',
  '+002026-01-01T10:00:00Z',
  '10000-01-01T00:00:00Z',
  'yesterday',
];

const ACCEPTED = [
  '0001-01-01T00:00:00Z',
  '0001-01-01T14:00:00+14:00', // 0001-01-01T00:00:00Z exactly
  '9999-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59.999999999Z',
  '2026-01-01T00:00:00+14:00',
  '2026-01-01T00:00:00-14:00',
  '2026-01-01T00:00:00-00:00',
  '2024-02-29T12:30:45.5+05:45',
];

/** A timestamp `days` from now, written with the given offset (the same instant rules apply). */
function ahead(days: number, offset: string): string {
  const t = new Date(Date.now() + days * 86_400_000);
  return `${t.toISOString().slice(0, 19)}${offset}`;
}

const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false' });
beforeAll(async () => {
  ({ key } = await server.newAccount());
});

function expectRefused(res: { status: number; body: any }, path: string, what: string) {
  expect(res.status, `${what} → ${JSON.stringify(res.body)}`).toBe(400);
  expect(res.body.error).toBe('validation_error');
  expect(res.body.issues.map((i: { path: string }) => i.path), what).toContain(path);
}

describe('GET /v1/messages/history from / until', () => {
  it.each(REFUSED)('%s is a 400 naming the filter', async (value) => {
    for (const name of ['from', 'until']) {
      const res = await server.call('GET', `/v1/messages/history?${name}=${encodeURIComponent(value)}`, { key });
      expectRefused(res, name, `${name}=${value}`);
    }
  });

  it.each(ACCEPTED)('%s is accepted', async (value) => {
    for (const name of ['from', 'until']) {
      const res = await server.call('GET', `/v1/messages/history?${name}=${encodeURIComponent(value)}`, { key });
      expect(res.status, `${name}=${value} → ${JSON.stringify(res.body)}`).toBe(200);
    }
  });

  it('the offset is honoured: the same instant written two ways finds the same messages', async () => {
    const sent = await server.call('POST', '/v1/messages/send', { key, body: { to: '+14155550123', channel: 'sms', message: 'hi', transactional: true } });
    expect(sent.status).toBe(202);
    const created = new Date(sent.body.created_at as string);
    const before = new Date(created.getTime() - 60_000);
    // the same instant, one minute before the message, written in UTC+14:00
    const local = new Date(before.getTime() + 14 * 3_600_000).toISOString().slice(0, 19) + '+14:00';
    for (const from of [before.toISOString(), local]) {
      const res = await server.call('GET', `/v1/messages/history?from=${encodeURIComponent(from)}`, { key });
      expect(res.status).toBe(200);
      expect(res.body.data.map((m: { id: string }) => m.id), from).toContain(sent.body.id);
    }
  });
});

describe('scheduled_at', () => {
  const base = { to: '+14155550123', channel: 'sms', message: 'later', transactional: true };

  it('POST /v1/messages/send refuses an offset beyond ±14:00 and out-of-range instants', async () => {
    for (const scheduled_at of [ahead(2, '+15:00'), ahead(2, '-14:30'), '0000-01-01T00:00:00Z', '2026-02-30T10:00:00Z']) {
      const res = await server.call('POST', '/v1/messages/send', { key, body: { ...base, scheduled_at } });
      expectRefused(res, 'scheduled_at', scheduled_at);
    }
    const ok = await server.call('POST', '/v1/messages/send', { key, body: { ...base, scheduled_at: ahead(2, '+14:00') } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
    expect(ok.body.status).toBe('scheduled');
  });

  it('POST /v1/messages/bulk fails exactly the items with such a timestamp', async () => {
    const res = await server.call('POST', '/v1/messages/bulk', {
      key,
      body: { messages: [{ ...base, scheduled_at: ahead(2, '+15:00') }, { ...base, scheduled_at: ahead(2, '+01:00') }, { ...base, scheduled_at: '0000-01-01T00:00:00Z' }] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ accepted: 1, failed: 2 });
    expect(res.body.results[0]).toMatchObject({ index: 0, error: 'validation_error', message: expect.stringMatching(/scheduled_at/) });
    expect(res.body.results[1]).toMatchObject({ index: 1, status: 'scheduled' });
    expect(res.body.results[2]).toMatchObject({ index: 2, error: 'validation_error', message: expect.stringMatching(/scheduled_at/) });
  });

  it('POST /v1/messages/send-by-tag refuses the template’s bad scheduled_at', async () => {
    const res = await server.call('POST', '/v1/messages/send-by-tag', { key, body: { tag: 'nobody-has-this', channel: 'sms', message: 'x', scheduled_at: ahead(2, '+15:00') } });
    expectRefused(res, 'scheduled_at', 'send-by-tag');
  });
});

describe('custom field date values', () => {
  let contactId: string;

  beforeAll(async () => {
    const field = await server.call('POST', '/v1/contacts/fields', { key, body: { key: 'birthday', type: 'date' } });
    expect(field.status, JSON.stringify(field.body)).toBe(201);
    const contact = await server.call('POST', '/v1/contacts', { key, body: { email: 'dates@example.com' } });
    expect(contact.status, JSON.stringify(contact.body)).toBe(201);
    contactId = contact.body.id;
  });

  const BAD_DATES = ['0000-01-01', '2026-02-30', '2025-02-29', '2026-13-01', '10000-01-01', ...REFUSED.filter((v) => v.includes('T') && !v.startsWith('+'))];
  const GOOD_DATES = ['1965-04-02', '0001-01-01', '9999-12-31', '2024-02-29', ...ACCEPTED];

  it.each(BAD_DATES)('%s is a 400 on POST and PATCH', async (value) => {
    const created = await server.call('POST', '/v1/contacts', { key, body: { external_id: `x-${value}`, custom_fields: { birthday: value } } });
    expectRefused(created, 'custom_fields.birthday', `POST ${value}`);
    const patched = await server.call('PATCH', `/v1/contacts/${contactId}`, { key, body: { custom_fields: { birthday: value } } });
    expectRefused(patched, 'custom_fields.birthday', `PATCH ${value}`);
  });

  it.each(GOOD_DATES)('%s is stored as given', async (value) => {
    const patched = await server.call('PATCH', `/v1/contacts/${contactId}`, { key, body: { custom_fields: { birthday: value } } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.custom_fields.birthday).toBe(value);
  });
});
