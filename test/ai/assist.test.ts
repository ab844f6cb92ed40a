// POST /v1/account/ai-assist and /ai-write over HTTP with a provider configured: a local server
// speaking the chat-completions wire format answers each action; its failures (500 then success, 429
// with Retry-After, 401, a hang, malformed output) end in the provider's answer or the fallback,
// flagged degraded with the reason; the brand voice reaches the system prompt; bad input is a 400.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ASSIST_ACTIONS } from '../../src/ai/prompts.ts';
import { fixText } from '../../src/ai/text-fallbacks.ts';
import { enableAiAddon, type TestAccount } from '../support/accounts.ts';
import { openAiErrors, startFakeChatCompletions } from '../support/chat-completions.ts';
import { testServerForSuite } from '../support/harness.ts';
import { expectRejected } from '../support/http.ts';

const fake = await startFakeChatCompletions();
afterAll(() => fake.close());
const server = testServerForSuite(fake.env({ AI_TIMEOUT_MS: '500', AI_MAX_RETRIES: '1' }));

let a: TestAccount;
beforeAll(async () => {
  a = await server.newAccount('Acme');
  await enableAiAddon(server, a, 'writer');
});
beforeEach(() => fake.reset());

const assist = (body: unknown, key = a.key) => server.call('POST', '/v1/account/ai-assist', { key, body });
const userPrompt = (i = 0) => fake.requests[i].body.messages[1].content as string;
const systemPrompt = (i = 0) => fake.requests[i].body.messages[0].content as string;

describe('each action asks the provider', () => {
  const INSTRUCTION: Record<string, RegExp> = {
    rewrite: /Rewrite the text so it reads clearly/,
    shorten: /Shorten the text/,
    lengthen: /Expand the text/,
    friendly: /friendly, conversational tone/,
    professional: /professional tone/,
    fix: /Correct spelling, grammar and punctuation only/,
    generate: /Write the message described by this brief/,
    subjects: /Suggest 5 email subject lines/,
  };

  it.each(ASSIST_ACTIONS.filter((a) => a !== 'subjects'))('%s: the text of the reply, degraded false, the model', async (action) => {
    fake.script({ content: `  "Result of ${action}."  ` });
    const input = action === 'generate' ? { brief: 'Our café opens a second shop in Leith' } : { text: 'Our café opens a second shop in Leith.' };
    const res = await assist({ action, ...input, channel: 'email' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ action, text: `Result of ${action}.`, degraded: false, model: fake.model });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].body.model).toBe(fake.model);
    expect(userPrompt()).toMatch(INSTRUCTION[action]);
    expect(userPrompt()).toContain('Our café opens a second shop in Leith');
    expect(userPrompt()).toContain('Channel: email.');
  });

  it('subjects: one per line, numbering and quotes removed, at most five', async () => {
    fake.script({ content: '1. "Second shop, same coffee"\n2. Leith, meet our café\n3. We are growing\n4. A new home in Leith\n5. Come say hello\n6. One too many' });
    const res = await assist({ action: 'subjects', text: 'Our café opens a second shop in Leith.' });
    expect(res.body).toEqual({ action: 'subjects', subjects: ['Second shop, same coffee', 'Leith, meet our café', 'We are growing', 'A new home in Leith', 'Come say hello'], degraded: false, model: fake.model });
    expect(userPrompt()).toMatch(INSTRUCTION.subjects);
  });
});

describe('the brand voice', () => {
  it('goes into the system prompt of the account that set it, and of no other', async () => {
    const b = await server.newAccount('Other');
    const voice = { name: 'Acme Roasters', tone: 'warm and witty', audience: 'home baristas', words_to_use: ['brew'], words_to_avoid: ['cheap', 'deal'], sample: 'Good coffee, no fuss.' };
    expect((await server.call('PUT', '/v1/account/brand-voice', { key: a.key, body: voice })).status).toBe(200);
    fake.script({ content: 'a' }, { content: 'b' });
    await assist({ action: 'rewrite', text: 'Hello.' });
    await assist({ action: 'rewrite', text: 'Hello.' }, b.key);
    const system = systemPrompt(0);
    for (const part of ['Brand: Acme Roasters', 'Tone: warm and witty', 'Audience: home baristas', 'Prefer these words: brew', 'Never use these words: cheap, deal', 'Good coffee, no fuss.']) expect(system).toContain(part);
    expect(systemPrompt(1)).not.toContain('Acme Roasters');
    expect(systemPrompt(1)).not.toContain('brand voice');
    await server.call('PUT', '/v1/account/brand-voice', { key: a.key, body: {} });
  });
});

describe('when the provider fails', () => {
  it('a 500 then a success: retried, not degraded', async () => {
    fake.script(openAiErrors.serverError(), { content: 'Fixed text.' });
    const res = await assist({ action: 'fix', text: 'teh text' });
    expect(res.body).toEqual({ action: 'fix', text: 'Fixed text.', degraded: false, model: fake.model });
    expect(fake.requests).toHaveLength(2);
  });

  it('a 429 with Retry-After: waited for, then answered', async () => {
    fake.script(openAiErrors.rateLimited(1), { content: 'After the wait.' });
    const res = await assist({ action: 'rewrite', text: 'some text' });
    expect(res.body).toMatchObject({ text: 'After the wait.', degraded: false });
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1].at - fake.requests[0].at).toBeGreaterThanOrEqual(950);
  });

  it('a 401: not retried; the fallback answers, degraded, with the reason', async () => {
    fake.script(openAiErrors.unauthorized(), { content: 'never asked' });
    const res = await assist({ action: 'fix', text: 'i recieve teh the mail' });
    expect(res.body).toEqual({ action: 'fix', text: fixText('i recieve teh the mail'), degraded: true, degraded_reason: 'provider_error: HTTP 401 invalid_api_key' });
    expect(res.body.text).toBe('I receive the mail');
    expect(fake.requests).toHaveLength(1);
  });

  it('a hang: every attempt times out, then the fallback answers', async () => {
    fake.script({ hang: true }, { hang: true });
    const res = await assist({ action: 'subjects', text: 'Spring garden workshop on Saturday' });
    expect(res.body).toMatchObject({ action: 'subjects', degraded: true, degraded_reason: 'provider_error: timeout' });
    expect(res.body.subjects.length).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(2);
  });

  it('malformed output (no choices) and an empty subjects reply: the fallback answers', async () => {
    fake.script({ raw: JSON.stringify({ id: 'x', object: 'chat.completion', choices: [] }) });
    expect((await assist({ action: 'shorten', text: 'One sentence. Another one here. And a third one.' })).body).toEqual({
      action: 'shorten',
      text: 'One sentence.',
      degraded: true,
      degraded_reason: 'provider_error: malformed response',
    });
    fake.script({ content: '```\n\n```' });
    expect((await assist({ action: 'subjects', text: 'Coffee tasting night' })).body).toMatchObject({ degraded: true, degraded_reason: 'provider_error: bad output' });
  });
});

describe('ai-write', () => {
  it('asks for JSON and builds the email from it, the HTML escaped', async () => {
    fake.script({ content: '```json\n{"subject": "Leith <opens>", "preheader": "Coffee & cake", "body": "We open on Friday.\\n\\n<script>alert(1)</script> Come by!"}\n```' });
    const res = await server.call('POST', '/v1/account/ai-write', { key: a.key, body: { brief: 'second shop opening in Leith', tone: 'warm', length: 'short', call_to_action: 'Visit us' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subject: 'Leith <opens>', preheader: 'Coffee & cake', degraded: false, model: fake.model });
    expect(res.body.text).toContain('We open on Friday.\n\n<script>alert(1)</script> Come by!');
    expect(res.body.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Come by!');
    expect(res.body.html).not.toContain('<script>');
    expect(res.body.html).toContain('<title>Leith &lt;opens&gt;</title>');
    expect(userPrompt()).toMatch(/about 80 words/);
    expect(userPrompt()).toContain('Call to action: Visit us');
    expect(userPrompt()).toContain('second shop opening in Leith');
  });

  it('a reply that is not the JSON asked for: the fallback draft, degraded (bad output)', async () => {
    fake.script({ content: 'Sure! Here is a lovely email about your shop.' });
    const res = await server.call('POST', '/v1/account/ai-write', { key: a.key, body: { brief: 'second shop opening in Leith' } });
    expect(res.body).toMatchObject({ degraded: true, degraded_reason: 'provider_error: bad output', subject: expect.any(String), preheader: expect.any(String) });
    expect(res.body.model).toBeUndefined();
    expect(res.body.text).toContain('Second shop opening in Leith.');
    expect(res.body.html).toContain('<p style="margin:0 0 16px">Second shop opening in Leith.</p>');
  });
});

describe('validation', () => {
  it('refuses bad input with a 400 naming the field, before asking the provider', async () => {
    expectRejected(await assist({ action: 'summarise', text: 'x' }), 'action');
    expectRejected(await assist({ action: 'rewrite' }), 'text');
    expectRejected(await assist({ action: 'rewrite', text: '   ' }), 'text');
    expectRejected(await assist({ action: 'generate', text: 'x' }), 'brief');
    expectRejected(await assist({ action: 'fix', text: 'x'.repeat(20_001) }), 'text');
    expectRejected(await assist({ action: 'fix', text: 'x', tone: 'warm' }), 'tone');
    expectRejected(await assist({ action: 'fix', text: 'x', channel: 'fax' }), 'channel');
    const write = (body: unknown) => server.call('POST', '/v1/account/ai-write', { key: a.key, body });
    expectRejected(await write({}), 'brief');
    expectRejected(await write({ brief: 'x'.repeat(5_001) }), 'brief');
    expectRejected(await write({ brief: 'x', length: 'epic' }), 'length');
    expect(fake.requests).toHaveLength(0);
    expect((await server.call('POST', '/v1/account/ai-assist', { body: { action: 'fix', text: 'x' } })).status).toBe(401);
  });
});
