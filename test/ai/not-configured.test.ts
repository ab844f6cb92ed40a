// Without AI_BASE_URL, AI_API_KEY and AI_MODEL the helpers still answer 200 for every action, from
// the deterministic fallback, flagged degraded with reason not_configured; the coach's rule-based
// answer is never cached.
import { beforeAll, describe, expect, it } from 'vitest';
import { ASSIST_ACTIONS } from '../../src/ai/prompts.ts';
import { rewriteText } from '../../src/ai/text-fallbacks.ts';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { runEngage } from '../support/processes.ts';
import { eventually } from '../support/waits.ts';

// a key and a model but no base URL: still not configured
const server = testServerForSuite({ AI_API_KEY: 'sk-unused', AI_MODEL: 'unused' });
let a: TestAccount;
beforeAll(async () => {
  a = await server.newAccount('Offline');
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

  it('ai-recommendations with the coach enabled: rule-based, degraded, and not cached', async () => {
    expect((await runEngage(['ai', 'coach', 'enable', a.accountId], server.databaseUrl)).code).toBe(0);
    await eventually('the coach to show enabled', async () => ((await server.call('GET', '/v1/account/ai-coach-status', { key: a.key })).body.enabled ? true : undefined));
    const first = await server.call('POST', '/v1/account/ai-recommendations', { key: a.key });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ cached: false, degraded: true, degraded_reason: 'not_configured' });
    expect(first.body.recommendations.length).toBeGreaterThanOrEqual(3);
    expect((await server.call('POST', '/v1/account/ai-recommendations', { key: a.key })).body).toMatchObject({ cached: false, degraded: true });
  });
});
