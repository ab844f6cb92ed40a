// The typed engage client (README "The typed client"): openapi-fetch over the types openapi-typescript
// generates from the service's OpenAPI document (schema.d.ts), with what an API client needs besides:
// credentials, an Idempotency-Key on every POST (the same on each retry), retries of 429 and 503 that
// honour Retry-After, pagination over a cursor, and the verification of signed webhooks.
import createFetchClient, { type Client, type ClientOptions as FetchClientOptions, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };
export { verifyWebhook, type WebhookHeaders, type VerifyWebhookOptions } from './webhooks.js';

/** The error body of every 4xx and 5xx answer: `{error, message}` and what the code adds (`issues`, …). */
export type ApiError = components['schemas']['Error'];

export interface EngageClientOptions {
  /** where the service is, e.g. `http://localhost:3000` */
  baseUrl: string;
  /** an API key (`ek_live_…`), sent as X-API-Key */
  apiKey?: string;
  /** a dashboard session token from POST /v1/auth/login, sent as Authorization: Bearer */
  token?: string;
  /** how many times a 429, a 503 or a failed connection is tried again (default 3) */
  maxRetries?: number;
  /** the longest wait before a retry, in ms, whatever Retry-After says (default 30 s) */
  maxRetryDelayMs?: number;
  /** the fetch to use (default the global one) */
  fetch?: typeof globalThis.fetch;
  /** headers sent on every request */
  headers?: Record<string, string>;
}

/** The paths whose GET answers a page (`{data, next_cursor}`) and takes a `cursor`. */
export type PagedPath = {
  [P in keyof paths]: paths[P] extends { get: { responses: { 200: { content: { 'application/json': { data: unknown[]; next_cursor: string | null } } } } } } ? P : never;
}[keyof paths];

type PageItem<P extends PagedPath> = paths[P] extends { get: { responses: { 200: { content: { 'application/json': { data: (infer I)[] } } } } } } ? I : never;

type PageParams<P extends PagedPath> = paths[P] extends { get: { parameters: infer Params } } ? Params : never;

export interface EngageClient extends Client<paths> {
  /**
   * Every item of a paged list, page after page (`for await (const contact of engage.paginate('/v1/contacts'))`);
   * `params` as for GET (its `query.cursor` is the page to start at). A failed page throws an EngageError.
   */
  paginate<P extends PagedPath>(path: P, params?: PageParams<P>): AsyncIterable<PageItem<P>>;
}

/** A failed answer, as paginate throws it: the status and the API's error body. */
export class EngageError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiError,
  ) {
    super(`${status} ${body.error}: ${body.message}`);
    this.name = 'EngageError';
  }
}

const RETRIED_STATUSES = new Set([429, 503]);

/** The wait Retry-After asks for (seconds, or an HTTP date), in ms; undefined when it says nothing usable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A fetch that tries a request again on 429, 503 or a failed connection, after what Retry-After says
 * (else 0.5 s, 1 s, 2 s, … with jitter). A POST is only retried with an Idempotency-Key, which the
 * client gives every POST, so a retry never makes a second message.
 */
function retryingFetch(base: typeof globalThis.fetch, maxRetries: number, maxDelayMs: number): typeof globalThis.fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const retriable = request.method !== 'POST' || request.headers.has('idempotency-key');
    // a body can be read once: keep it to send again
    const body = request.body ? await request.arrayBuffer() : undefined;
    for (let attempt = 0; ; attempt++) {
      const again = new Request(request, body === undefined ? {} : { body });
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await base(again);
      } catch (err) {
        failure = err;
      }
      const retry = retriable && attempt < maxRetries && (failure !== undefined || RETRIED_STATUSES.has(response!.status));
      if (!retry) {
        if (failure !== undefined) throw failure;
        return response!;
      }
      const asked = response ? retryAfterMs(response.headers.get('retry-after')) : undefined;
      const backoff = 500 * 2 ** attempt * (0.5 + Math.random() / 2);
      await response?.body?.cancel();
      await sleep(Math.min(asked ?? backoff, maxDelayMs));
    }
  };
}

/** A new Idempotency-Key (a UUID). */
export const newIdempotencyKey = (): string => globalThis.crypto.randomUUID();

/**
 * A client of the engage API: `engage.POST('/v1/messages/send', { body })` answers `{ data, error,
 * response }` typed from the OpenAPI document (data on a 2xx, error the API's error body otherwise).
 */
export function createClient(options: EngageClientOptions): EngageClient {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.apiKey) headers['X-API-Key'] = options.apiKey;
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  const fetchOptions: FetchClientOptions = {
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    headers,
    fetch: retryingFetch(options.fetch ?? globalThis.fetch, options.maxRetries ?? 3, options.maxRetryDelayMs ?? 30_000),
  };
  const client = createFetchClient<paths>(fetchOptions);
  // every POST carries an Idempotency-Key (a given one is kept): retried, it is answered once
  const idempotency: Middleware = {
    onRequest({ request }) {
      if (request.method === 'POST' && !request.headers.has('idempotency-key')) request.headers.set('Idempotency-Key', newIdempotencyKey());
      return request;
    },
  };
  client.use(idempotency);

  async function* paginate<P extends PagedPath>(path: P, params?: PageParams<P>): AsyncIterable<PageItem<P>> {
    const given = (params ?? {}) as { query?: Record<string, unknown> };
    let cursor = given.query?.cursor as string | undefined;
    for (;;) {
      const query = { ...(given.query ?? {}), ...(cursor ? { cursor } : {}) };
      const { data, error, response } = await (client.GET as (p: string, init: unknown) => Promise<{ data?: { data: PageItem<P>[]; next_cursor: string | null }; error?: ApiError; response: Response }>)(path, { params: { ...given, query } });
      if (!data) throw new EngageError(response.status, error ?? { error: 'unknown', message: `${response.status} without a body` });
      yield* data.data;
      if (!data.next_cursor) return;
      cursor = data.next_cursor;
    }
  }

  return Object.assign(client, { paginate });
}
