// The typed client (client/, README "The typed client") against a real service: its types are what
// the service's document generates (so the committed file cannot drift), typed bodies, answers and
// errors, pagination over a cursor, an Idempotency-Key on every POST kept across retries of 429 and
// 503 that wait as Retry-After says, and webhook verification of real deliveries, both signatures.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, EngageError, retryAfterMs, verifyWebhook, type EngageClient } from '../../client/src/index.ts';
import { generateTypes, SCHEMA_FILE } from '../../client/scripts/generate.mjs';
import { testServerForSuite } from '../support/harness.ts';
import { startReceiver, type Receiver } from '../support/receivers.ts';
import { eventually } from '../support/waits.ts';
import type { TestAccount } from '../support/accounts.ts';

const run = promisify(execFile);
const server = testServerForSuite({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '1s,1s,1s' });
let account: TestAccount;
let engage: EngageClient;

beforeAll(async () => {
  account = await server.newAccount('Client test');
  engage = createClient({ baseUrl: server.url, apiKey: account.key });
});

describe('the generated types', () => {
  it("are what openapi-typescript makes of the service's document (regenerate: npm run generate --workspace client)", async () => {
    const doc = (await server.call('GET', '/v1/openapi.json')).body;
    const generated: string = await generateTypes(doc);
    // UPDATE_CLIENT_TYPES=1 writes them instead, as the generate script does from a running service
    if (process.env.UPDATE_CLIENT_TYPES === '1') writeFileSync(SCHEMA_FILE, generated);
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    // (compared whole: a diff this long is unreadable, so the message says what to do)
    expect(generated === committed, 'client/src/schema.ts is not what the service documents: run `npm run generate --workspace client -- <service URL>`').toBe(true);
  });
});

describe('typed requests and answers', () => {
  it('creates a contact and sends a message, each answer typed from the document', async () => {
    const contact = await engage.POST('/v1/contacts', { body: { email: 'typed@example.com', first_name: 'Ada', tags: ['client'] } });
    expect(contact.response.status).toBe(201);
    expect(contact.error).toBeUndefined();
    const id: string = contact.data!.id;
    expect(id).toMatch(/^ct_/);

    const sent = await engage.POST('/v1/messages/send', { body: { channel: 'email', to: 'typed@example.com', subject: 'Receipt', message: 'Thanks for your order', transactional: true } });
    expect(sent.error).toBeUndefined();
    const messageId: string = sent.data!.id;
    const got = await engage.GET('/v1/messages/{id}', { params: { path: { id: messageId } } });
    expect(got.data!.id).toBe(messageId);
    expect(got.data!.channel).toBe('email');
  });

  it("answers the API's error body, typed, with the issues of a validation error", async () => {
    const bad = await engage.POST('/v1/contacts', {
      // @ts-expect-error a number is not an email: the types refuse it before the service does
      body: { email: 42 },
    });
    expect(bad.data).toBeUndefined();
    expect(bad.response.status).toBe(400);
    expect(bad.error!.error).toBe('validation_error');
    expect(bad.error!.issues!.map((i) => i.path)).toContain('email');

    const missing = await engage.GET('/v1/contacts/{id}', { params: { path: { id: 'ct_01ARZ3NDEKTSV4RRFFQ69G5FAV' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error!.error).toBe('not_found');
  });

  it('signs in with a dashboard session token instead of a key', async () => {
    const login = await createClient({ baseUrl: server.url }).POST('/v1/auth/login', { body: { email: account.email, password: account.password } });
    expect(login.response.status).toBe(200);
    const session = createClient({ baseUrl: server.url, token: login.data!.token });
    const me = await session.GET('/v1/account/me');
    expect(me.response.status).toBe(200);
  });
});

describe('pagination', () => {
  it('walks every page of a list with for await, in the order of the pages', async () => {
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      const { data } = await engage.POST('/v1/contacts', { body: { email: `page${i}@example.com`, tags: ['paged'] } });
      made.push(data!.id);
    }
    const seen: string[] = [];
    for await (const contact of engage.paginate('/v1/contacts', { query: { tag: 'paged', limit: 3 } })) seen.push(contact.id);
    // newest first, each once, across three pages
    expect(seen).toEqual([...made].reverse());
  });

  it('throws the API error of a page that fails', async () => {
    const pages = engage.paginate('/v1/contacts', { query: { cursor: 'not-a-cursor-we-issued' } });
    await expect(async () => {
      for await (const _ of pages) void _;
    }).rejects.toThrow(EngageError);
  });
});

/** A proxy in front of the service that answers the first `refusals` requests itself with `status`. */
async function flakyProxy(target: string, refusals: number, status: number, retryAfter: string): Promise<{ url: string; keys: (string | undefined)[]; at: number[]; close(): Promise<void> }> {
  const keys: (string | undefined)[] = [];
  const at: number[] = [];
  let refused = 0;
  const proxy: Server = createServer((req, res) => {
    keys.push(req.headers['idempotency-key'] as string | undefined);
    at.push(Date.now());
    if (refused < refusals) {
      refused++;
      req.resume();
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after': retryAfter });
      res.end(JSON.stringify({ error: status === 429 ? 'rate_limited' : 'unavailable', message: 'try again' }));
      return;
    }
    const upstream = new URL(target);
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    keys,
    at,
    close: () => new Promise((resolve) => proxy.close(() => resolve())),
  };
}

describe('retries and idempotency', () => {
  it('gives a POST an Idempotency-Key and sends it again with the same key after a 429, when Retry-After says', async () => {
    const proxy = await flakyProxy(server.url, 2, 429, '1');
    try {
      const client = createClient({ baseUrl: proxy.url, apiKey: account.key });
      const { data, response } = await client.POST('/v1/contacts', { body: { email: 'retried@example.com' } });
      expect(response.status).toBe(201);
      expect(proxy.keys).toHaveLength(3);
      expect(proxy.keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(new Set(proxy.keys).size).toBe(1);
      // Retry-After: 1 → a second between tries
      expect(proxy.at[1]! - proxy.at[0]!).toBeGreaterThanOrEqual(950);
      // one contact, however many tries
      const listed = await engage.GET('/v1/contacts', { params: { query: { email: 'retried@example.com' } } });
      expect(listed.data!.data.map((c) => c.id)).toEqual([data!.id]);
    } finally {
      await proxy.close();
    }
  });

  it('retries a 503 and gives up after maxRetries, answering the last refusal', async () => {
    const proxy = await flakyProxy(server.url, 10, 503, '0');
    try {
      const client = createClient({ baseUrl: proxy.url, apiKey: account.key, maxRetries: 2 });
      const { error, response } = await client.GET('/v1/contacts');
      expect(response.status).toBe(503);
      expect(error!.error).toBe('unavailable');
      expect(proxy.keys).toHaveLength(3);
    } finally {
      await proxy.close();
    }
  });

  it('keeps an Idempotency-Key the caller gives: the same key and body is answered once', async () => {
    const key = `order-${Date.now()}`;
    const body = { channel: 'email' as const, to: 'once@example.com', subject: 'Receipt', message: 'paid', transactional: true };
    const first = await engage.POST('/v1/messages/send', { body, headers: { 'Idempotency-Key': key } });
    const second = await engage.POST('/v1/messages/send', { body, headers: { 'Idempotency-Key': key } });
    expect(second.data!.id).toBe(first.data!.id);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(10_000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

describe('webhook verification', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it("verifies a per-message delivery with the account's webhook secret, and refuses a changed body, another secret or a stale one", async () => {
    const secret = (await engage.GET('/v1/account/webhook-secret')).data!.secret;
    const sent = await engage.POST('/v1/messages/send', { body: { channel: 'email', to: 'hooked@example.com', subject: 'Receipt', message: 'paid', transactional: true, webhook_url: receiver.url } });
    const hit = await eventually('a delivery', async () => receiver.hits.find((h) => h.json?.data?.message_id === sent.data!.id), 30_000);
    expect(await verifyWebhook({ secret, headers: hit.headers, body: hit.body })).toBe(true);
    // engage's own signature alone (no Standard Webhooks headers)
    const own = Object.fromEntries(Object.entries(hit.headers).filter(([k]) => !k.startsWith('webhook-')));
    expect(await verifyWebhook({ secret, headers: own, body: hit.body })).toBe(true);
    expect(await verifyWebhook({ secret, headers: hit.headers, body: hit.body.replace('"', '" ') })).toBe(false);
    expect(await verifyWebhook({ secret, headers: own, body: `${hit.body} ` })).toBe(false);
    expect(await verifyWebhook({ secret: 'whsec_' + Buffer.alloc(32, 7).toString('base64'), headers: hit.headers, body: hit.body })).toBe(false);
    expect(await verifyWebhook({ secret, headers: hit.headers, body: hit.body, now: new Date(Date.now() + 3_600_000) })).toBe(false);
  });

  it("verifies a platform event with its endpoint's whsec_ secret (Standard Webhooks)", async () => {
    const endpoint = await engage.POST('/v1/webhook-endpoints', { body: { url: receiver.url, events: ['contact.created'] } });
    expect(endpoint.response.status).toBe(201);
    const secret = endpoint.data!.secret;
    expect(secret).toMatch(/^whsec_/);
    const contact = await engage.POST('/v1/contacts', { body: { email: 'platform-event@example.com' } });
    const hit = await eventually('a contact.created delivery', async () => receiver.hits.find((h) => h.json?.type === 'contact.created' && h.json?.data?.id === contact.data!.id), 30_000);
    expect(await verifyWebhook({ secret, headers: new Headers(hit.headers as Record<string, string>), body: new TextEncoder().encode(hit.body) })).toBe(true);
    expect(await verifyWebhook({ secret, headers: hit.headers, body: hit.body.slice(1) })).toBe(false);
  });
});

describe("README's first message with the client", () => {
  it('runs as written (its import and address pointed at this checkout and this service)', async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const block = /<!-- client-example:start -->\s*```ts\n([\s\S]*?)```\s*<!-- client-example:end -->/.exec(readme)?.[1];
    expect(block, 'README has the client example between its markers').toBeDefined();
    expect(block!.trim().split('\n').length).toBeLessThanOrEqual(10);
    const dir = mkdtempSync(path.join(tmpdir(), 'engage-client-example-'));
    try {
      const file = path.join(dir, 'example.mts');
      const client = new URL('../../client/src/index.ts', import.meta.url).pathname;
      writeFileSync(file, block!.replace("'@engage/client'", JSON.stringify(client)).replace('http://localhost:3000', server.url));
      const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, ENGAGE_API_KEY: account.key }, timeout: 60_000 });
      expect(stdout.trim()).toMatch(/^(queued|sending|sent|delivered)$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
