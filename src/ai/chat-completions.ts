// The one client of an OpenAI-compatible chat-completions API (README "AI helpers"): a bounded
// attempt per try, retries on what may pass (timeouts, network errors, 429, 5xx) and never a throw:
// callers get the content or a short reason, and answer with their fallback on the reason.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';

export interface ChatSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  maxRetries: number;
}

export interface ChatRequest {
  system: string;
  user: string;
  temperature: number;
}

export type ChatResult = { ok: true; content: string; model: string } | { ok: false; reason: string };

/** The provider settings when all three of AI_BASE_URL, AI_API_KEY and AI_MODEL are set. */
export function chatSettingsOf(config: Pick<Config, 'AI_BASE_URL' | 'AI_API_KEY' | 'AI_MODEL' | 'AI_TIMEOUT_MS' | 'AI_MAX_RETRIES'>): ChatSettings | undefined {
  if (!config.AI_BASE_URL || !config.AI_API_KEY || !config.AI_MODEL) return undefined;
  return { baseUrl: config.AI_BASE_URL, apiKey: config.AI_API_KEY, model: config.AI_MODEL, timeoutMs: config.AI_TIMEOUT_MS, maxRetries: config.AI_MAX_RETRIES };
}

/** A Retry-After longer than this is not waited for: the caller is a person waiting on a request. */
export const RETRY_AFTER_CAP_MS = 5_000;
const BACKOFF_BASE_MS = 250;
const BACKOFF_CAP_MS = 2_000;

type Attempt = { ok: true; content: string; model: string } | { ok: false; reason: string; retry: boolean; waitMs?: number };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Retry-After (seconds or an HTTP date) or OpenAI's retry-after-ms, in milliseconds. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The error code of an OpenAI-shaped error body ({error:{code|type}}), safe to show: never its message, which may quote the key. */
function errorCodeOf(body: unknown): string | undefined {
  const error = (body as { error?: { code?: unknown; type?: unknown } } | null)?.error;
  const code = typeof error?.code === 'string' ? error.code : typeof error?.type === 'string' ? error.type : undefined;
  return code && /^[\w.-]{1,60}$/.test(code) ? code : undefined;
}

/** choices[0].message.content of a chat.completion, when it is there and not empty. */
function contentOf(body: unknown): string | undefined {
  const content = (body as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]?.message?.content;
  return typeof content === 'string' && content.trim() !== '' ? content : undefined;
}

async function attempt(settings: ChatSettings, request: ChatRequest, log?: Logger): Promise<Attempt> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${settings.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${settings.apiKey}` },
      body: JSON.stringify({
        model: settings.model,
        messages: [
          { role: 'system', content: request.system },
          { role: 'user', content: request.user },
        ],
        temperature: request.temperature,
      }),
      // one deadline for the whole attempt: connecting, the headers and the body
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    text = await res.text();
  } catch (err) {
    const name = (err as Error)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') return { ok: false, reason: 'timeout', retry: true };
    log?.warn({ err: { message: (err as Error)?.message, cause: String((err as { cause?: unknown })?.cause ?? '') } }, 'AI provider unreachable');
    return { ok: false, reason: 'network error', retry: true };
  }
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = undefined;
  }
  if (res.ok) {
    const content = contentOf(body);
    // a malformed answer will not improve by asking again
    if (content === undefined) return { ok: false, reason: 'malformed response', retry: false };
    const model = (body as { model?: unknown }).model;
    return { ok: true, content, model: typeof model === 'string' && model ? model : settings.model };
  }
  const code = errorCodeOf(body);
  const reason = `HTTP ${res.status}${code ? ` ${code}` : ''}`;
  if (res.status === 429) {
    const wait = retryAfterMs(res.headers);
    // asked to come back later than we would wait: give up now rather than hold the request
    if (wait !== undefined && wait > RETRY_AFTER_CAP_MS) return { ok: false, reason, retry: false };
    return { ok: false, reason, retry: true, waitMs: wait };
  }
  if (res.status >= 500) return { ok: false, reason, retry: true };
  log?.warn({ status: res.status, code }, 'AI provider refused the request');
  return { ok: false, reason, retry: false };
}

/** One chat completion: the first answer, or the reason of the last failure once retries are spent. Never throws. */
export async function completeChat(settings: ChatSettings, request: ChatRequest, log?: Logger): Promise<ChatResult> {
  for (let tries = 0; ; tries++) {
    const result = await attempt(settings, request, log);
    if (result.ok) return result;
    if (!result.retry || tries >= settings.maxRetries) return { ok: false, reason: result.reason };
    const backoff = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** tries) + Math.floor(Math.random() * 100);
    await sleep(result.waitMs ?? backoff);
  }
}
