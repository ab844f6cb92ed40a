// Test harness: a fresh database per test file and a real engage server on a random port.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { inject } from 'vitest';
import { createAccount } from '../../src/accounts.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { startServer, type Server } from '../../src/server.ts';

/** Creates an empty database on the test cluster and returns its URL. */
export async function freshDatabase(): Promise<string> {
  const admin = inject('adminDatabaseUrl');
  const name = `engage_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

export function testConfig(databaseUrl: string, overrides: Record<string, string> = {}): Config {
  // quiet hours are off unless a test turns them on: a run at night must not hold marketing messages
  return loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', PORT: '0', HOST: '127.0.0.1', QUIET_HOURS: 'off', SANDBOX_DELIVERY_DELAY_MS: '50', ...overrides });
}

export interface TestServer extends Server {
  databaseUrl: string;
  /** fetch against the server, JSON in and out */
  call(method: string, path: string, opts?: { key?: string; token?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  newAccount(name?: string): Promise<{ accountId: string; key: string; userId: string; email: string; password: string }>;
}

export async function startTestServer(overrides: Record<string, string> = {}, databaseUrl?: string): Promise<TestServer> {
  const url = databaseUrl ?? (await freshDatabase());
  const server = await startServer({ config: testConfig(url, overrides), log: pino({ level: 'silent' }) });
  const call: TestServer['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers['x-api-key'] = opts.key;
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const res = await fetch(`${server.url}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    ...server,
    databaseUrl: url,
    call,
    async newAccount(name = 'Test account') {
      const email = `owner-${randomBytes(5).toString('hex')}@example.com`;
      const password = 'correct horse battery';
      const created = await createAccount(server.engage, { name, email, password });
      // a loaded machine may take a while; a key that is not yet visible would fail tests confusingly
      if (!(await server.engage.runner.waitFor(['auth'], created.position, 60_000))) throw new Error('newAccount: the auth read model did not catch up within 60 s');
      return { accountId: created.account_id, key: created.api_key, userId: created.user_id, email, password };
    },
  };
}
