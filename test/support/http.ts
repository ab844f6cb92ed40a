// HTTP against a running engage: the raw JSON request, and the checks every API answer must pass
// (never a 5xx; every 4xx the flat {error, message} body).
import { expect } from 'vitest';
import { checkAnswerAgainstDocument } from './openapi.ts';

export interface CallOptions {
  /** sent as X-API-Key */
  key?: string;
  /** a dashboard session, sent as Authorization: Bearer */
  token?: string;
  /** sent as JSON */
  body?: unknown;
  /** sent as it is (wins over body) */
  raw?: string;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  /** parsed JSON, or the text when it was not JSON, or null when empty */
  body: any;
  headers: Headers;
}

/**
 * One request, asserting only that the answer is what the service's OpenAPI document says it
 * answers (status and body): for outages and for anything a test must see as it came.
 */
export async function requestJson(baseUrl: string, method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  await checkAnswerAgainstDocument(baseUrl, method, path, { status: res.status, contentType: res.headers.get('content-type'), body: parsed, text });
  return { status: res.status, body: parsed, headers: res.headers };
}

const shown = (body: unknown) => String(JSON.stringify(body)).slice(0, 1000);

/** Never a 5xx, and every 4xx carries the flat error body with a non-empty message. */
export function expectNoServerError(res: ApiResponse, request: string): void {
  expect(res.status, `${request} → ${res.status} ${shown(res.body)}`).toBeLessThan(500);
  if (res.status < 400) return;
  expect(typeof res.body?.error, `error code of ${request}: ${shown(res.body)}`).toBe('string');
  expect(typeof res.body?.message, `message of ${request}: ${shown(res.body)}`).toBe('string');
  expect(res.body.message.length, `message of ${request}`).toBeGreaterThan(0);
}

/** A request that must pass expectNoServerError. */
export async function checkedRequest(baseUrl: string, method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse> {
  const res = await requestJson(baseUrl, method, path, opts);
  expectNoServerError(res, `${method} ${path}`);
  return res;
}

/** Asserts a 415 unsupported_media_type naming the Content-Type header (README "API conventions"). */
export function expectUnsupportedMediaType(res: { status: number; body: any }): void {
  expect(res.status, shown(res.body)).toBe(415);
  expect(res.body.error).toBe('unsupported_media_type');
  expect(typeof res.body.message).toBe('string');
  expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(['Content-Type']);
}

/** Asserts a 400 validation_error whose issues name `path`, every issue with a message. */
export function expectRejected(res: { status: number; body: any }, path: string): void {
  expect(res.status, shown(res.body)).toBe(400);
  expect(res.body.error).toBe('validation_error');
  expect(typeof res.body.message).toBe('string');
  expect(Array.isArray(res.body.issues)).toBe(true);
  const paths: string[] = res.body.issues.map((i: { path: string }) => i.path);
  expect(paths, `issues ${JSON.stringify(res.body.issues)} should name ${path}`).toContain(path);
  for (const i of res.body.issues) expect(typeof i.message).toBe('string');
}
