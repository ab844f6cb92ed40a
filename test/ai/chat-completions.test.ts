// The chat-completions client (src/ai/chat-completions.ts) against a local server speaking the wire
// format: what it sends, which failures it retries (timeouts, 429 after Retry-After, 5xx) and which
// it does not (401, malformed answers), and that it answers with a reason instead of throwing.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { chatSettingsOf, type ChatSettings, completeChat, retryAfterMs } from '../../src/ai/chat-completions.ts';
import { openAiErrors, startFakeChatCompletions } from '../support/chat-completions.ts';

const fake = await startFakeChatCompletions();
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const settings = (over: Partial<ChatSettings> = {}): ChatSettings => ({ baseUrl: fake.url, apiKey: fake.apiKey, model: fake.model, timeoutMs: 2_000, maxRetries: 2, ...over });
const ask = { system: 'You are terse.', user: 'Say hi.', temperature: 0.3 };

describe('a successful completion', () => {
  it('POSTs {model, messages:[system, user], temperature} with the Bearer key and reads choices[0].message.content', async () => {
    fake.script({ content: 'Hi!', model: 'fake-gpt-1-2026-01-01' });
    const result = await completeChat(settings(), ask);
    expect(result).toEqual({ ok: true, content: 'Hi!', model: 'fake-gpt-1-2026-01-01' });
    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(sent.headers['content-type']).toMatch(/^application\/json/);
    expect(sent.body).toEqual({ model: fake.model, messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Say hi.' }], temperature: 0.3 });
  });

  it('is configured only when AI_BASE_URL, AI_API_KEY and AI_MODEL are all set', () => {
    const base = { AI_BASE_URL: fake.url, AI_API_KEY: 'k', AI_MODEL: 'm', AI_TIMEOUT_MS: 20_000, AI_MAX_RETRIES: 2 };
    expect(chatSettingsOf(base)).toEqual({ baseUrl: fake.url, apiKey: 'k', model: 'm', timeoutMs: 20_000, maxRetries: 2 });
    for (const missing of ['AI_BASE_URL', 'AI_API_KEY', 'AI_MODEL'] as const) expect(chatSettingsOf({ ...base, [missing]: undefined })).toBeUndefined();
  });
});

describe('retries', () => {
  it('a 500 then a success: retried, and the answer is the second one', async () => {
    fake.script(openAiErrors.serverError(), { content: 'second time lucky' });
    expect(await completeChat(settings(), ask)).toMatchObject({ ok: true, content: 'second time lucky' });
    expect(fake.requests).toHaveLength(2);
  });

  it('503s until the retries are spent: AI_MAX_RETRIES + 1 attempts, then the last reason', async () => {
    fake.script(openAiErrors.overloaded(), openAiErrors.overloaded(), openAiErrors.overloaded(), { content: 'too late' });
    expect(await completeChat(settings({ maxRetries: 2 }), ask)).toEqual({ ok: false, reason: 'HTTP 503 server_error' });
    expect(fake.requests).toHaveLength(3);
  });

  it('a 429 waits for its Retry-After before trying again', async () => {
    fake.script(openAiErrors.rateLimited(1), { content: 'after the wait' });
    expect(await completeChat(settings(), ask)).toMatchObject({ ok: true, content: 'after the wait' });
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1].at - fake.requests[0].at).toBeGreaterThanOrEqual(950);
  });

  it('a 429 asking for longer than the cap is not waited for', async () => {
    fake.script(openAiErrors.rateLimited(60), { content: 'never asked' });
    expect(await completeChat(settings(), ask)).toEqual({ ok: false, reason: 'HTTP 429 rate_limit_exceeded' });
    expect(fake.requests).toHaveLength(1);
  });

  it('a 401 is not retried, and its message (which quotes the key) is not the reason', async () => {
    fake.script(openAiErrors.unauthorized(), { content: 'never asked' });
    const result = await completeChat(settings(), ask);
    expect(result).toEqual({ ok: false, reason: 'HTTP 401 invalid_api_key' });
    expect(fake.requests).toHaveLength(1);
    // the fake refuses a wrong key by itself, as the real API does
    expect(await completeChat(settings({ apiKey: 'sk-wrong' }), ask)).toEqual({ ok: false, reason: 'HTTP 401 invalid_api_key' });
  });

  it('a request that hangs times out per attempt, and is retried', async () => {
    fake.script({ hang: true }, { content: 'answered in time' });
    const started = Date.now();
    expect(await completeChat(settings({ timeoutMs: 300 }), ask)).toMatchObject({ ok: true, content: 'answered in time' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(fake.requests).toHaveLength(2);
    fake.reset();
    fake.script({ hang: true }, { hang: true });
    expect(await completeChat(settings({ timeoutMs: 300, maxRetries: 1 }), ask)).toEqual({ ok: false, reason: 'timeout' });
    expect(fake.requests).toHaveLength(2);
  });

  it('nothing listening: a network error, retried, then the reason', async () => {
    const closed = await startFakeChatCompletions();
    await closed.close();
    expect(await completeChat(settings({ baseUrl: closed.url, maxRetries: 1 }), ask)).toEqual({ ok: false, reason: 'network error' });
  });
});

describe('malformed answers are failures, not retried', () => {
  it.each([
    ['no choices', JSON.stringify({ id: 'x', object: 'chat.completion', choices: [] })],
    ['empty content', JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: '  ' }, finish_reason: 'stop' }] })],
    ['null content', JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'stop' }] })],
    ['not JSON', '<html>gateway</html>'],
  ])('%s', async (_, raw) => {
    fake.script({ raw }, { content: 'never asked' });
    expect(await completeChat(settings(), ask)).toEqual({ ok: false, reason: 'malformed response' });
    expect(fake.requests).toHaveLength(1);
  });
});

describe('Retry-After', () => {
  it('reads seconds, an HTTP date and retry-after-ms', () => {
    const now = Date.parse('2026-05-01T10:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).toBe(2_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Fri, 01 May 2026 10:00:03 GMT' }), now)).toBe(3_000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '150', 'retry-after': '9' }), now)).toBe(150);
    expect(retryAfterMs(new Headers({}), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
  });
});
