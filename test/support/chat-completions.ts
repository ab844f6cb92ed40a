// A test double of an OpenAI-compatible chat-completions API: a real HTTP server on 127.0.0.1 that
// checks the Bearer key as the real one does, records every request (headers, body, arrival time),
// and answers scripted replies in order: a chat.completion, an error in OpenAI's shape (401, 429
// with Retry-After, 500, 503), a raw body (malformed output), or no answer at all (a hang).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedChatRequest {
  /** Date.now() when the request arrived */
  at: number;
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export type ScriptedReply =
  | { content: string; model?: string }
  | { status: number; error: { message: string; type: string; param: string | null; code: string | null }; headers?: Record<string, string> }
  | { raw: string; status?: number }
  | { hang: true };

/** Errors as OpenAI sends them. */
export const openAiErrors = {
  unauthorized: (): ScriptedReply => ({
    status: 401,
    error: { message: 'Incorrect API key provided: sk-test***********abcd. You can find your API key at https://platform.openai.com/account/api-keys.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
  }),
  rateLimited: (retryAfterSeconds: number): ScriptedReply => ({
    status: 429,
    error: { message: 'Rate limit reached for requests. Please try again in 1s.', type: 'requests', param: null, code: 'rate_limit_exceeded' },
    headers: { 'retry-after': String(retryAfterSeconds) },
  }),
  serverError: (): ScriptedReply => ({ status: 500, error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null } }),
  overloaded: (): ScriptedReply => ({ status: 503, error: { message: 'The engine is currently overloaded, please try again later.', type: 'server_error', param: null, code: null } }),
};

export interface FakeChatCompletions {
  /** the AI_BASE_URL to give engage (…/v1) */
  url: string;
  apiKey: string;
  model: string;
  requests: RecordedChatRequest[];
  /** queues replies, answered in order; once the queue is empty every request gets `fallbackReply` */
  script(...replies: ScriptedReply[]): void;
  /** forgets the queue and the recorded requests */
  reset(): void;
  /** what an empty queue answers */
  fallbackReply: ScriptedReply;
  /** the settings that point engage here, with any others added */
  env(extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

let completionCount = 0;

function completion(content: string, model: string) {
  completionCount++;
  return {
    id: `chatcmpl-fake${completionCount}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 42, completion_tokens: 17, total_tokens: 59 },
  };
}

export async function startFakeChatCompletions(options: { apiKey?: string; model?: string } = {}): Promise<FakeChatCompletions> {
  const apiKey = options.apiKey ?? 'sk-test-fake-key';
  const model = options.model ?? 'fake-gpt-1';
  const requests: RecordedChatRequest[] = [];
  const queue: ScriptedReply[] = [];
  const sockets = new Set<Socket>();

  const fake: FakeChatCompletions = {
    url: '',
    apiKey,
    model,
    requests,
    fallbackReply: { content: 'A scripted default reply.' },
    script: (...replies) => void queue.push(...replies),
    reset() {
      queue.length = 0;
      requests.length = 0;
    },
    env: (extra = {}) => ({ AI_BASE_URL: fake.url, AI_API_KEY: apiKey, AI_MODEL: model, ...extra }),
    close: () =>
      new Promise<void>((resolve) => {
        // hung requests hold their sockets open: end them, or close would wait for ever
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };

  const server = createServer(async (req, res) => {
    const text = await readBody(req);
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* recorded as text */
    }
    requests.push({ at: Date.now(), method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      return sendJson(res, 404, { error: { message: `Invalid URL (${req.method} ${req.url})`, type: 'invalid_request_error', param: null, code: null } });
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      const refused = openAiErrors.unauthorized() as { status: number; error: unknown };
      return sendJson(res, refused.status, { error: refused.error });
    }
    const reply = queue.shift() ?? fake.fallbackReply;
    if ('hang' in reply) return; // never answered: the client's timeout must end it
    if ('raw' in reply) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
      return res.end(reply.raw);
    }
    if ('error' in reply) return sendJson(res, reply.status, { error: reply.error }, reply.headers);
    const asked = (body as { model?: unknown })?.model;
    return sendJson(res, 200, completion(reply.content, reply.model ?? (typeof asked === 'string' ? asked : model)));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
