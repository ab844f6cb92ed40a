// Test harness: a fresh database per test file and a real engage server on a random port, with the
// configuration every test starts from.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, inject } from 'vitest';
import type { Clock } from '../../src/clock.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { bulkIntakes } from '../../src/messages/bulk-intake.ts';
import { startServer, type Server } from '../../src/server.ts';
import { newAccount, type TestAccount } from './accounts.ts';
import { TEST_PASSWORD_SCRYPT_N } from './processes.ts';
import { type ApiResponse, type CallOptions, checkedRequest, requestJson } from './http.ts';
import { documentInProcess } from './openapi.ts';

/** Creates an empty database on the test cluster and returns its URL. */
export function freshDatabase(): Promise<string> {
  return newDatabase('');
}

/**
 * Creates a database on the test cluster as a server's first start would leave it before anything
 * is written (migrated, every read model's first generation made; test/support/global-setup.ts) and
 * returns its URL. What a test server starts on unless the test gives it a database.
 */
export function migratedDatabase(): Promise<string> {
  return newDatabase(` TEMPLATE ${inject('migratedTemplate')}`);
}

async function newDatabase(options: string): Promise<string> {
  const admin = inject('adminDatabaseUrl');
  const name = `engage_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}${options}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * What every test server runs with unless the test says otherwise. Quiet hours are off: a run at
 * night must not hold marketing messages. Writes wait for their read models before answering; the
 * service's 2 s is too short on a loaded test machine, and tests assert semantics, not speed.
 */
const TEST_DEFAULTS: Record<string, string> = {
  LOG_LEVEL: 'silent',
  PORT: '0',
  HOST: '127.0.0.1',
  QUIET_HOURS: 'off',
  SANDBOX_DELIVERY_DELAY_MS: '50',
  READ_YOUR_WRITES_TIMEOUT_MS: '15000',
  // scrypt at 2^10, not the service's 2^17 (about a second of CPU per hash here): the suite makes
  // thousands of accounts and logins; test/http/hardening.test.ts checks the cost an operator runs
  PASSWORD_SCRYPT_N: TEST_PASSWORD_SCRYPT_N,
};

export function testConfig(databaseUrl: string, overrides: Record<string, string> = {}): Config {
  return loadConfig({ DATABASE_URL: databaseUrl, ...TEST_DEFAULTS, DASHBOARD_DIR: inject('dashboardDir'), ...overrides });
}

export interface TestServer extends Server {
  databaseUrl: string;
  /** A request whose answer is never a 5xx and whose 4xx carry the flat error body (asserted). */
  call(method: string, path: string, opts?: CallOptions): Promise<ApiResponse>;
  /** A request asserting nothing: for outages, where a 5xx is what the test expects. */
  request(method: string, path: string, opts?: CallOptions): Promise<ApiResponse>;
  newAccount(name?: string): Promise<TestAccount>;
  /**
   * Waits until the read models `names` include every write accepted so far: the barrier before a
   * read that follows a write which does not wait for them (a bulk answers before its messages are
   * in the log, and they are in history later still). Every bulk not yet in the log is appended first.
   */
  caughtUp(names: readonly string[], timeoutMs?: number): Promise<void>;
}

/** `clock`: the time the server lives in, for a test that places events on days it chooses. */
export async function startTestServer(overrides: Record<string, string> = {}, databaseUrl?: string, clock?: Clock): Promise<TestServer> {
  const url = databaseUrl ?? (await migratedDatabase());
  const server = await startServer({ config: testConfig(url, overrides), log: pino({ level: 'silent' }), ...(clock ? { clock } : {}) });
  documentInProcess(server.url, () => server.app.swagger());
  return {
    ...server,
    databaseUrl: url,
    call: (method, path, opts) => checkedRequest(server.url, method, path, opts),
    request: (method, path, opts) => requestJson(server.url, method, path, opts),
    newAccount: (name) => newAccount(server, name),
    async caughtUp(names, timeoutMs = 60_000) {
      // a bulk is answered before its messages are in the log (src/messages/bulk-intake.ts)
      await bulkIntakes(server.engage).settleAll();
      const head = await server.engage.store.headPosition({ includeHeldBack: true });
      if (!(await server.engage.runner.waitFor(names, head, timeoutMs))) throw new Error(`read models ${names.join(', ')} did not reach the head of the log within ${timeoutMs} ms`);
    },
  };
}

/**
 * The test server of a file or describe block: started before its tests (before the hooks
 * registered after this call), closed after them. Use it only inside tests and hooks. `overrides`
 * may be a function, called as the server starts (for settings made from the time it starts at).
 */
export function testServerForSuite(overrides: Record<string, string> | (() => Record<string, string>) = {}): TestServer {
  let started: TestServer | undefined;
  beforeAll(async () => {
    started = await startTestServer(typeof overrides === 'function' ? overrides() : overrides);
  });
  afterAll(async () => {
    await started?.close();
  });
  return whileRunning(() => started, 'the test server');
}

/**
 * Stands for what `current` gives once a suite's hook has started it, so a file can name it at its
 * top; using it before that, or after it is gone, throws saying what (`what`) is not running.
 */
export function whileRunning<T extends object>(current: () => T | undefined, what: string): T {
  const live = (property: PropertyKey): T => {
    const running = current();
    if (!running) throw new Error(`${what} is not running (used outside a test or hook?): .${String(property)}`);
    return running;
  };
  return new Proxy({} as T, {
    get: (_, property) => Reflect.get(live(property), property),
    set: (_, property, value) => Reflect.set(live(property), property, value),
  });
}

/**
 * For a block whose test restarts the service on one database: the test puts the servers it starts
 * in `first` and `second` and empties `first` once it has closed it itself. After the block, a first
 * still open is closed (an error ignored: a test that failed may have left it half closed), then
 * the second.
 */
export function serversAcrossRestart(): { first?: TestServer; second?: TestServer } {
  const servers: { first?: TestServer; second?: TestServer } = {};
  afterAll(async () => {
    await servers.first?.close().catch(() => undefined);
    await servers.second?.close();
  });
  return servers;
}
