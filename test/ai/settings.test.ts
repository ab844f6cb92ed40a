// The account's AI settings over HTTP and the operator CLI: the brand voice (set, read, cleared,
// checked), the writer and coach add-ons (requested by the customer, switched by `engage ai`), and
// the coach's recommendations: 403 until enabled, asked of the provider once a day and then served
// from the read model (the fake counts the requests), the rules' answer to a failed provider not
// recorded. Accounts never see each other's settings.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { enableAiAddon, type TestAccount } from '../support/accounts.ts';
import { startFakeChatCompletions } from '../support/chat-completions.ts';
import { testServerForSuite } from '../support/harness.ts';
import { expectRejected } from '../support/http.ts';
import { killAllEngageProcesses, runEngage } from '../support/processes.ts';
import { eventually } from '../support/waits.ts';

const fake = await startFakeChatCompletions();
afterAll(async () => {
  await killAllEngageProcesses();
  await fake.close();
});
const server = testServerForSuite(fake.env({ AI_TIMEOUT_MS: '2000', AI_MAX_RETRIES: '0' }));

let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  [a, b] = await Promise.all([server.newAccount('Acme'), server.newAccount('Other')]);
});
beforeEach(() => fake.reset());

const eventsOf = async (accountId: string) =>
  (await server.engage.pool.query<{ type: string }>('SELECT type FROM es_events WHERE stream_id = $1 ORDER BY stream_revision', [`ai-${accountId}`])).rows.map((r) => r.type);

describe('brand voice', () => {
  const voice = { name: 'Acme', tone: 'warm', audience: 'home cooks', style_notes: 'Short sentences.', words_to_use: ['fresh'], words_to_avoid: ['cheap'], sample: 'Cook well, eat well.' };

  it('is null until set; PUT sets the whole profile; another account still has none', async () => {
    expect((await server.call('GET', '/v1/account/brand-voice', { key: a.key })).body).toEqual({ brand_voice: null });
    const put = await server.call('PUT', '/v1/account/brand-voice', { key: a.key, body: voice });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ brand_voice: voice });
    expect((await server.call('GET', '/v1/account/brand-voice', { key: a.key })).body).toEqual({ brand_voice: voice });
    expect((await server.call('GET', '/v1/account/brand-voice', { key: b.key })).body).toEqual({ brand_voice: null });
    // the same profile again records nothing
    const before = (await eventsOf(a.accountId)).length;
    await server.call('PUT', '/v1/account/brand-voice', { key: a.key, body: voice });
    expect(await eventsOf(a.accountId)).toHaveLength(before);
  });

  it('null or {} clears it', async () => {
    await server.call('PUT', '/v1/account/brand-voice', { key: a.key, body: voice });
    const cleared = await server.call('PUT', '/v1/account/brand-voice', { key: a.key, raw: 'null', headers: { 'content-type': 'application/json' } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ brand_voice: null });
    expect((await server.call('GET', '/v1/account/brand-voice', { key: a.key })).body).toEqual({ brand_voice: null });
    await server.call('PUT', '/v1/account/brand-voice', { key: a.key, body: { tone: 'dry' } });
    expect((await server.call('PUT', '/v1/account/brand-voice', { key: a.key, body: {} })).body).toEqual({ brand_voice: null });
    expect((await server.call('GET', '/v1/account/brand-voice', { key: a.key })).body).toEqual({ brand_voice: null });
    expect(await eventsOf(a.accountId)).toContain('BrandVoiceCleared');
  });

  it('refuses unknown fields and values over the limits', async () => {
    const put = (body: unknown) => server.call('PUT', '/v1/account/brand-voice', { key: a.key, body });
    expectRejected(await put({ tone: 'warm', colour: 'blue' }), 'colour');
    expectRejected(await put({ tone: 'x'.repeat(201) }), 'tone');
    expectRejected(await put({ words_to_use: 'fresh' }), 'words_to_use');
    expectRejected(await put({ words_to_avoid: Array.from({ length: 51 }, (_, i) => `w${i}`) }), 'words_to_avoid');
    expectRejected(await put({ sample: 'x'.repeat(5_001) }), 'sample');
  });
});

describe('the writer and coach add-ons', () => {
  it('a request answers 202 requested; asking again changes nothing; the status shows it', async () => {
    expect((await server.call('GET', '/v1/account/ai-writer-status', { key: a.key })).body).toEqual({ status: 'none', requested_at: null, enabled: false });
    const asked = await server.call('POST', '/v1/account/ai-writer-request', { key: a.key, body: { note: 'for our newsletter' } });
    expect(asked.status).toBe(202);
    expect(asked.body).toEqual({ status: 'requested', requested_at: expect.any(String) });
    const again = await server.call('POST', '/v1/account/ai-writer-request', { key: a.key, body: {} });
    expect(again.body).toEqual(asked.body);
    expect((await eventsOf(a.accountId)).filter((t) => t === 'AiWriterRequested')).toHaveLength(1);
    expect((await server.call('GET', '/v1/account/ai-writer-status', { key: a.key })).body).toEqual({ status: 'requested', requested_at: asked.body.requested_at, enabled: false });
    // the coach is a separate add-on, and the other account asked for nothing
    expect((await server.call('GET', '/v1/account/ai-coach-status', { key: a.key })).body.status).toBe('none');
    expect((await server.call('GET', '/v1/account/ai-writer-status', { key: b.key })).body.status).toBe('none');
    expectRejected(await server.call('POST', '/v1/account/ai-writer-request', { key: a.key, body: { note: 'x', urgent: true } }), 'urgent');
  });

  it('`engage ai writer enable|disable` switches it; the customer sees it; an unknown account is refused', async () => {
    const enabled = await runEngage(['ai', 'writer', 'enable', a.accountId, '--json'], server.databaseUrl);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(JSON.parse(enabled.stdout)).toMatchObject({ account_id: a.accountId, addon: 'writer', status: 'enabled', enabled: true });
    const status = await eventually('the writer to show enabled', async () => {
      const res = await server.call('GET', '/v1/account/ai-writer-status', { key: a.key });
      return res.body.enabled ? res.body : undefined;
    });
    expect(status).toEqual({ status: 'enabled', requested_at: expect.any(String), enabled: true });
    const asked = await server.call('POST', '/v1/account/ai-writer-request', { key: a.key, body: {} });
    expect(asked.body.status).toBe('enabled');

    const disabled = await runEngage(['ai', 'writer', 'disable', a.accountId], server.databaseUrl);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(disabled.stdout).toContain('is off');
    await eventually('the writer to show off', async () => ((await server.call('GET', '/v1/account/ai-writer-status', { key: a.key })).body.status === 'none' ? true : undefined));

    const missing = await runEngage(['ai', 'coach', 'enable', 'acct_01ARZ3NDEKTSV4RRFFQ69G5FAV'], server.databaseUrl);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/account not found/);
  });

  it('ai-write answers 403 forbidden until the writer is enabled (none, then requested), and again once it is disabled', async () => {
    const w = await server.newAccount('Writer');
    const write = () => server.call('POST', '/v1/account/ai-write', { key: w.key, body: { brief: 'our spring sale starts Monday' } });
    const refused = await write();
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('forbidden');
    expect((await server.call('POST', '/v1/account/ai-writer-request', { key: w.key, body: {} })).body.status).toBe('requested');
    expect((await write()).status).toBe(403);
    // the coach is another add-on: enabling it does not open the writer
    await enableAiAddon(server, w, 'coach');
    expect((await write()).status).toBe(403);
    expect(fake.requests).toHaveLength(0);

    await enableAiAddon(server, w, 'writer');
    fake.script({ content: JSON.stringify({ subject: 'Spring sale', preheader: 'From Monday', body: 'Our spring sale starts Monday.' }) });
    const written = await write();
    expect(written.status).toBe(200);
    expect(written.body).toMatchObject({ subject: 'Spring sale', degraded: false, model: fake.model });

    expect((await runEngage(['ai', 'writer', 'disable', w.accountId], server.databaseUrl)).code).toBe(0);
    await eventually('the writer to show off', async () => ((await server.call('GET', '/v1/account/ai-writer-status', { key: w.key })).body.status === 'none' ? true : undefined));
    expect((await write()).status).toBe(403);
    expect(fake.requests).toHaveLength(1);
  });
});

const RECOMMENDATIONS = {
  recommendations: [
    { title: 'Welcome new contacts', detail: 'Send a welcome email within a day.', priority: 'high' },
    { title: 'Add SMS reminders', detail: 'Remind people of appointments by SMS.', priority: 'medium' },
    { title: 'Clean your list', detail: 'Remove contacts who never open.', priority: 'urgent!' },
  ],
};

describe('ai-recommendations', () => {
  const recommend = (key: string) => server.call('POST', '/v1/account/ai-recommendations', { key });

  it('403 until the coach is enabled; then asked once a day and cached; other accounts still 403', async () => {
    const c = await server.newAccount('Coached');
    const refused = await recommend(c.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('forbidden');
    expect((await server.call('POST', '/v1/account/ai-coach-request', { key: c.key, body: { note: 'yes please' } })).body.status).toBe('requested');
    expect((await recommend(c.key)).status).toBe(403);
    expect(fake.requests).toHaveLength(0);

    const enabled = await runEngage(['ai', 'coach', 'enable', c.accountId], server.databaseUrl);
    expect(enabled.code, enabled.stderr).toBe(0);
    await eventually('the coach to show enabled', async () => ((await server.call('GET', '/v1/account/ai-coach-status', { key: c.key })).body.enabled ? true : undefined));
    expect((await server.call('GET', '/v1/account/ai-coach-status', { key: c.key })).body).toEqual({ status: 'enabled', requested_at: expect.any(String), enabled: true });

    expect((await server.call('POST', '/v1/contacts', { key: c.key, body: { email: 'ann@example.com' } })).status).toBe(201);
    fake.script({ content: JSON.stringify(RECOMMENDATIONS) });
    const first = await recommend(c.key);
    expect(first.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(first.body).toEqual({
      day: today,
      recommendations: [
        { title: 'Welcome new contacts', detail: 'Send a welcome email within a day.', priority: 'high' },
        { title: 'Add SMS reminders', detail: 'Remind people of appointments by SMS.', priority: 'medium' },
        { title: 'Clean your list', detail: 'Remove contacts who never open.', priority: 'medium' },
      ],
      generated_at: expect.any(String),
      cached: false,
      degraded: false,
      model: fake.model,
    });
    expect(fake.requests).toHaveLength(1);
    // the snapshot of the account is what the coach advises on
    expect(fake.requests[0].body.messages[1].content).toContain('"contacts": 1');

    const second = await recommend(c.key);
    expect(second.body).toEqual({ ...first.body, cached: true });
    expect(fake.requests).toHaveLength(1);
    expect((await eventsOf(c.accountId)).filter((t) => t === 'AiRecommendationsGenerated')).toHaveLength(1);

    expect((await recommend(b.key)).status).toBe(403);
    expect(fake.requests).toHaveLength(1);
  });

  it('the rules\' answer to a provider that failed is given but not recorded: the next call asks the provider again', async () => {
    const d = await server.newAccount('Degraded');
    await enableAiAddon(server, d, 'coach');

    fake.script({ content: 'I think you should send more email.' });
    const degraded = await recommend(d.key);
    expect(degraded.body).toMatchObject({ cached: false, degraded: true, degraded_reason: 'provider_error: bad output' });
    expect(degraded.body.recommendations[0].title).toBe('Send your first campaign');
    expect(degraded.body.recommendations.length).toBeGreaterThanOrEqual(3);

    fake.script({ content: JSON.stringify(RECOMMENDATIONS) });
    expect((await recommend(d.key)).body).toMatchObject({ cached: false, degraded: false });
    expect((await recommend(d.key)).body).toMatchObject({ cached: true, degraded: false });
    expect(fake.requests).toHaveLength(2);
    expect((await eventsOf(d.accountId)).filter((t) => t === 'AiRecommendationsGenerated')).toHaveLength(1);
  });

  it('fewer than 3 recommendations from the provider are bad output: the rules answer', async () => {
    const e = await server.newAccount('Too few');
    await enableAiAddon(server, e, 'coach');
    fake.script({ content: JSON.stringify({ recommendations: RECOMMENDATIONS.recommendations.slice(0, 2) }) });
    expect((await recommend(e.key)).body).toMatchObject({ cached: false, degraded: true, degraded_reason: 'provider_error: bad output' });
  });
});
