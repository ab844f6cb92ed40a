// `engage serve`: the API and the workers in one process, on an embedded or given Postgres.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { anyAccountExists } from '../projections/auth.ts';
import { warnWhenPasswordsCheap } from './accounts/passwords.ts';
import { createAccount } from './accounts/service.ts';
import { type Engage, type OpenOptions, openEngage } from './context.ts';
import { buildApp } from './http/app.ts';
import { bulkIntakes } from './messages/bulk-intake.ts';
import { Authenticator } from './http/plugins/auth.ts';
import { type CounterStore, createCounterStore } from './http/plugins/rate-limit.ts';
import { serviceSecret } from './service-secrets.ts';
import { startWorkers, type Workers } from './workers/index.ts';
import { rememberListeningPort, warnWhenLinksUnusable } from './suppressions/unsubscribe-links.ts';
import { ensureProjection } from './read-models/generations.ts';

export interface Server {
  engage: Engage;
  app: FastifyInstance;
  workers: Workers;
  url: string;
  close(): Promise<void>;
}

export interface ServerOptions extends OpenOptions {
  port?: number;
  host?: string;
  /** run the scheduler, dispatcher and webhook sender in this process (default true) */
  workers?: boolean;
  /** the rate-limit logs; default: in Redis when REDIS_URL is set, else in this process's memory (on the service's clock) */
  counters?: CounterStore;
}

export async function startServer(options: ServerOptions = {}): Promise<Server> {
  // runProjections: false serves the API while other processes (`engage worker`) keep the read models;
  // the tables and views must still exist here, and reads-after-writes wait on projection_state
  const engage = await openEngage({ ...options, runProjections: options.runProjections ?? true });
  if (options.runProjections === false) {
    for (const p of engage.runner.projections) await ensureProjection(engage.pool, p);
    // the runner elsewhere announces its checkpoints: read-your-writes waits end on them
    await engage.runner.follow(engage.connectionString);
  }
  const authenticator = new Authenticator(engage.pool, await serviceSecret(engage.pool, 'jwt', engage.config.JWT_SECRET));
  const counters = options.counters ?? (await createCounterStore(engage.config.REDIS_URL, engage.clock));
  const app = await buildApp({ engage, authenticator, counters });
  const workers = options.workers === false ? { stop: async () => undefined } : await startWorkers(engage);
  await app.listen({ port: options.port ?? engage.config.PORT, host: options.host ?? engage.config.HOST });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : engage.config.PORT;
  // unsubscribe links name this server when PUBLIC_BASE_URL is unset (PORT 0 picks the port only now)
  rememberListeningPort(engage, port);
  warnWhenLinksUnusable(engage);
  warnWhenPasswordsCheap(engage.config.PASSWORD_SCRYPT_N, engage.log);
  return {
    engage,
    app,
    workers,
    url: `http://127.0.0.1:${port}`,
    async close() {
      await app.close();
      // the bulks this process accepted and is appending: finished (or left for another process's sweeper)
      await bulkIntakes(engage).stop();
      await workers.stop();
      await counters.close?.();
      await engage.close();
    },
  };
}

/** Where the first start leaves the owner's dashboard password when its output is not a terminal. */
export const firstStartPasswordFile = (engage: Engage) => path.resolve(engage.config.ENGAGE_DATA_DIR, 'first-start-password');

/**
 * On first start with no account, create one and print its key once. The owner's dashboard password
 * is printed only on a terminal: other output (a container's, a service manager's) is kept in logs,
 * so there it goes to a file only this user may read (README "Security notes").
 */
export async function bootstrapFirstAccount(engage: Engage, print: (line: string) => void, terminal = process.stdout.isTTY === true): Promise<void> {
  const { rows } = await engage.pool.query(`SELECT 1 FROM es_streams WHERE stream_id LIKE 'account-%' LIMIT 1`).catch(() => ({ rows: [] as unknown[] }));
  if (engage.store.kind === 'postgres' && rows.length > 0) return;
  if (engage.store.kind !== 'postgres' && (await anyAccountExists(engage.pool))) return;
  const password = randomBytes(12).toString('base64url');
  const created = await createAccount(engage, { name: 'My account', email: 'owner@engage.local', password });
  await engage.runner.waitFor(['auth'], created.position, 5000);
  print('');
  print('  First start: created an account for you. This key is shown once — keep it safe.');
  print(`    account:   ${created.account_id}`);
  print(`    API key:   ${created.api_key}`);
  if (terminal) print(`    dashboard: owner@engage.local / ${password}`);
  else print(`    dashboard: owner@engage.local, ${savedPassword(firstStartPasswordFile(engage), password)}`);
  print("  More accounts: npx engage accounts create --name NAME --email EMAIL (asks for the owner's password)");
  print('');
}

/** Writes the password to `file` (mode 0600) and says where it is, or why it is not shown. */
function savedPassword(file: string, password: string): string {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${password}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    return `password in ${file} (only this user may read it; delete it once you have it)`;
  } catch (error) {
    return `password not shown (this output is not a terminal and ${file} could not be written: ${(error as Error).message}); create a user with npx engage accounts create`;
  }
}
