// Without AI_BASE_URL, AI_API_KEY and AI_MODEL the helpers still answer 200 for every action, from
// the deterministic fallback, flagged degraded with reason not_configured; the coach's rule-based
// answer is recorded for its UTC day like a provider's (README "AI helpers"), so it is made once a day.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSIST_ACTIONS } from '../../src/ai/prompts.ts';
import { rewriteText } from '../../src/ai/text-fallbacks.ts';
import { addDays, dayOf } from '../../src/analytics/range.ts';
import { noonOf, SettableClock } from '../analytics/helpers.ts';
import { enableAiAddon, type TestAccount } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { expectRejected } from '../support/http.ts';

// the clock never runs ahead of the wall clock: the coach's first day is yesterday, its second today
const YESTERDAY = addDays(dayOf(new Date()), -1);
const clock = new SettableClock();
let server: TestServer;
let a: TestAccount;
beforeAll(async () => {
  // a key and a model but no base URL: still not configured
  server = await startTestServer({ AI_API_KEY: 'sk-unused', AI_MODEL: 'unused' }, undefined, clock);
  a = await server.newAccount('Offline');
  await enableAiAddon(server, a, 'writer');
});
afterAll(async () => {
  await server?.close();
});

describe('no provider configured', () => {
  it.each(ASSIST_ACTIONS)('ai-assist %s answers from the fallback, degraded: not_configured', async (action) => {
    const body = action === 'generate' ? { action, brief: 'our bakery now opens at 7 on weekdays' } : { action, text: 'our bakery   now opens at 7 on weekdays. come early!' };
    const res = await server.call('POST', '/v1/account/ai-assist', { key: a.key, body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ action, degraded: true, degraded_reason: 'not_configured' });
    expect(res.body.model).toBeUndefined();
    if (action === 'subjects') expect(res.body.subjects.length).toBeGreaterThan(0);
    else expect(res.body.text.length).toBeGreaterThan(0);
    if (action === 'rewrite') expect(res.body.text).toBe(rewriteText(body.text!));
  });

  it('ai-write answers a whole email from the fallback', async () => {
    const res = await server.call('POST', '/v1/account/ai-write', { key: a.key, body: { brief: 'our bakery now opens at 7 on weekdays', length: 'long' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ subject: expect.any(String), preheader: expect.any(String), html: expect.stringContaining('<!doctype html>'), text: expect.stringContaining('Our bakery now opens at 7 on weekdays.'), degraded: true, degraded_reason: 'not_configured' });
  });

  it('ai-recommendations with the coach enabled: rule-based and degraded, recorded for its UTC day like a provider answer', async () => {
    clock.set(noonOf(YESTERDAY));
    await enableAiAddon(server, a, 'coach');
    const first = await server.call('POST', '/v1/account/ai-recommendations', { key: a.key });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ day: YESTERDAY, cached: false, degraded: true, degraded_reason: 'not_configured' });
    expect(first.body.model).toBeUndefined();
    expect(first.body.recommendations.length).toBeGreaterThanOrEqual(3);
    // later calls that day answer the recorded one: the same advice, made at the same time
    const second = await server.call('POST', '/v1/account/ai-recommendations', { key: a.key });
    expect(second.body).toEqual({ ...first.body, cached: true });
    const recorded = await server.engage.pool.query('SELECT type FROM es_events WHERE stream_id = $1 AND type = $2', [`ai-${a.accountId}`, 'AiRecommendationsGenerated']);
    expect(recorded.rows).toHaveLength(1);

    // the next UTC day is made anew, and then cached in its turn
    clock.set(new Date());
    const next = await server.call('POST', '/v1/account/ai-recommendations', { key: a.key });
    expect(next.body).toMatchObject({ day: dayOf(clock.now()), cached: false, degraded: true, degraded_reason: 'not_configured' });
    expect(next.body.generated_at).not.toBe(first.body.generated_at);
    expect((await server.call('POST', '/v1/account/ai-recommendations', { key: a.key })).body).toEqual({ ...next.body, cached: true });
  });

  it('ai-recommendations takes no body fields: an unknown one is a 400 naming it; no body or {} is fine', async () => {
    expectRejected(await server.call('POST', '/v1/account/ai-recommendations', { key: a.key, body: { x: 1 } }), 'x');
    expect((await server.call('POST', '/v1/account/ai-recommendations', { key: a.key, body: {} })).status).toBe(200);
    expect((await server.call('POST', '/v1/account/ai-recommendations', { key: a.key })).status).toBe(200);
  });
});
