// A double opt-in nobody confirms (README "Signup forms"): once its link has run out, the sweep
// destroys the submission's key and records its expiry; what was entered then reads as erased, and
// the link answers 410. A submission still within its time is left alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIRM_LINK_TTL_MS, expireSubmissions } from '../../src/forms/service.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { ManualClock } from '../support/rate-limits.ts';

const clock = new ManualClock(Date.now());
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, undefined, clock);
});
afterAll(async () => {
  await server?.close();
});

async function submitted(key: string, formId: string, email: string): Promise<{ link: string; submissionId: string }> {
  expect((await server.call('POST', `/v1/forms/${formId}/submit`, { body: { email } })).status).toBe(202);
  // the answer waits for the forms read model, not for message history
  await server.caughtUp(['messages']);
  const message = (await server.call('GET', `/v1/messages/history?to=${encodeURIComponent(email)}`, { key })).body.data[0];
  const link = new URL(/https?:\/\/\S+\/f\/confirm\/[A-Za-z0-9._-]+/.exec(message.message)![0]).pathname;
  return { link, submissionId: link.split('.')[1]! };
}

describe('a submission nobody confirmed', () => {
  it('is erased by the sweep once its link has expired; a newer one is not', async () => {
    const acct = await server.newAccount();
    const list = await server.call('POST', '/v1/lists', { key: acct.key, body: { name: 'News' } });
    const form = await server.call('POST', '/v1/forms', { key: acct.key, body: { name: 'News', fields: [{ name: 'email' }], list_id: list.body.id, consent_text: 'I agree.' } });
    const old = await submitted(acct.key, form.body.id, 'late@example.com');
    clock.advance(CONFIRM_LINK_TTL_MS - 60_000);
    const newer = await submitted(acct.key, form.body.id, 'newer@example.com');
    clock.advance(2 * 60_000);
    await server.caughtUp(['forms']);

    expect(await expireSubmissions(server.engage)).toBe(1);
    const events = await server.engage.store.readStream(`formsubmission-${old.submissionId}`);
    expect(events.map((e) => e.type)).toEqual(['FormSubmitted', 'FormSubmissionExpired']);
    expect((events[0]!.data as { fields: unknown }).fields).toEqual({});
    const expired = await fetch(`${server.url}${old.link}`, { method: 'POST', body: 'confirm=yes', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(expired.status).toBe(410);
    expect((await server.call('GET', '/v1/contacts?email=late%40example.com', { key: acct.key })).body.data).toEqual([]);

    // the newer one still works
    const confirmed = await fetch(`${server.url}${newer.link}`, { method: 'POST', body: 'confirm=yes', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(confirmed.status).toBe(200);
    expect((await server.call('GET', '/v1/contacts?email=newer%40example.com', { key: acct.key })).body.data).toHaveLength(1);
    await server.caughtUp(['forms']);
    expect(await expireSubmissions(server.engage)).toBe(0);
  });
});
