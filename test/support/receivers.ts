// Webhook receivers for tests: real HTTP servers on 127.0.0.1 that record what they get and answer
// as a test scripts them, and independent signature checks.
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { type TestServer, whileRunning } from './harness.ts';

export interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** parsed body (undefined if it was not JSON) */
  json: any;
  /** Date.now() when the request had been read */
  at: number;
}

/**
 * Decides the answer to one request. Return a status code, or handle `res` yourself (answer late,
 * redirect, destroy the socket…) and return undefined. Default: 200.
 */
export type Answer = (hit: Hit, res: ServerResponse, req: IncomingMessage) => number | undefined | Promise<number | undefined>;

export interface Receiver {
  url: string;
  port: number;
  hits: Hit[];
  answer: Answer;
  /** hits carrying this header value */
  where(header: string, value: string): Hit[];
  close(): Promise<void>;
}

export async function startReceiver(answer: Answer = () => 200, path = '/hook'): Promise<Receiver> {
  const hits: Hit[] = [];
  const receiver: Receiver = {
    url: '',
    port: 0,
    hits,
    answer,
    where: (header, value) => hits.filter((h) => h.headers[header.toLowerCase()] === value),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const hit: Hit = { path: req.url ?? '', headers: req.headers, body, json, at: Date.now() };
      hits.push(hit);
      try {
        const status = await receiver.answer(hit, res, req);
        if (status !== undefined && !res.headersSent && !res.destroyed) res.writeHead(status, { 'content-type': 'text/plain' }).end('answer');
      } catch {
        res.destroy();
      }
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}${path}`;
  return receiver;
}

/** A receiver for a file or describe block: started before its tests (before the hooks registered after this call), closed after them. */
export function receiverForSuite(answer?: Answer, path?: string): Receiver {
  let started: Receiver | undefined;
  beforeAll(async () => {
    started = await startReceiver(answer, path);
  });
  afterAll(async () => {
    await started?.close();
  });
  return whileRunning(() => started, 'the webhook receiver');
}

/** Adds a webhook endpoint to the account of `key` (all events unless `events` names some); its id. */
export async function addWebhookEndpoint(server: TestServer, key: string, url: string, events?: string[]): Promise<string> {
  const res = await server.call('POST', '/v1/webhook-endpoints', { key, body: { url, ...(events ? { events } : {}) } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** An HMAC written here, independently of src/webhooks/signing.ts, from README "Webhooks". */
export function independentServiceSignature(secret: string, timestamp: string, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
}

export const h = (hit: Hit, name: string): string => {
  const v = hit.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(',') : (v ?? '');
};

/** The Standard Webhooks header triple of a hit, as `new Webhook(secret).verify()` wants it. */
export const standardHeaders = (hit: Hit) => ({
  'webhook-id': h(hit, 'webhook-id'),
  'webhook-timestamp': h(hit, 'webhook-timestamp'),
  'webhook-signature': h(hit, 'webhook-signature'),
});

export type Verify = (secret: string, headers: Record<string, unknown>, rawBody: string, toleranceMs?: number) => boolean;

/** The ```js block between the verify-example markers of README.md, imported as a module. */
export async function readmeVerifier(): Promise<{ verify: Verify; cleanup: () => void }> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const m = /<!-- verify-example:start -->\s*```js\n([\s\S]*?)```\s*<!-- verify-example:end -->/.exec(readme);
  if (!m) throw new Error('README.md has no verify-example block');
  const dir = mkdtempSync(join(tmpdir(), 'engage-verify-'));
  const file = join(dir, 'verify.mjs');
  writeFileSync(file, m[1]);
  const mod = (await import(pathToFileURL(file).href)) as { verifyEngageWebhook?: Verify };
  if (typeof mod.verifyEngageWebhook !== 'function') throw new Error('the README example exports no verifyEngageWebhook');
  return { verify: mod.verifyEngageWebhook, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
