// Child process for the HTTP benchmarks, so the load generator does not share the server's event
// loop. `engage`: the real server (startServer) on DATABASE_URL with rate limits off, plus one
// account; `baseline`: a bare fastify route returning a constant; `insert`: a bare fastify route
// doing one INSERT of the posted contact into a plain table on DATABASE_URL (the write-throughput
// baseline). Prints one BENCH_READY line.
import Fastify from 'fastify';
import pino from 'pino';
import { createAccount } from '../src/accounts/service.ts';
import { loadConfig } from '../src/config.ts';
import { createPool } from '../src/db/pool.ts';
import { newId } from '../src/ids.ts';
import { startServer } from '../src/server.ts';

const mode = process.argv[2];
const ready = (info: Record<string, unknown>) => process.stdout.write(`BENCH_READY ${JSON.stringify(info)}\n`);
let close: () => Promise<void> = async () => undefined;

if (mode === 'baseline') {
  const app = Fastify({ logger: false });
  app.get('/baseline', async () => ({ ok: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  ready({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
  close = () => app.close();
} else if (mode === 'insert') {
  // the contacts read model's columns, without its key, indexes or anything else engage adds; a pool
  // of engage's size
  const pool = createPool(process.env.DATABASE_URL!);
  await pool.query(`
    CREATE TABLE IF NOT EXISTS bench_plain_contacts (
      id text NOT NULL, account_id text NOT NULL, email text, phone text, first_name text, last_name text,
      country text, language text, timezone text, external_id text, tags text[] NOT NULL DEFAULT '{}',
      custom_fields jsonb NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`);
  type Contact = { email?: string; phone?: string; first_name?: string; last_name?: string; country?: string; language?: string; tags?: string[] };
  const app = Fastify({ logger: false });
  app.post('/insert', async (req, reply) => {
    const c = req.body as Contact;
    const id = newId('contact');
    const at = new Date();
    await pool.query(
      `INSERT INTO bench_plain_contacts (id, account_id, email, phone, first_name, last_name, country, language, tags, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
      [id, 'acct_bench', c.email ?? null, c.phone ?? null, c.first_name ?? null, c.last_name ?? null, c.country ?? null, c.language ?? null, c.tags ?? [], at],
    );
    reply.code(201);
    return { id, ...c, created_at: at.toISOString() };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  ready({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, pid: process.pid });
  close = async () => {
    await app.close();
    await pool.end();
  };
} else if (mode === 'engage') {
  const config = loadConfig({
    DATABASE_URL: process.env.DATABASE_URL,
    LOG_LEVEL: 'silent',
    PORT: '0',
    HOST: '127.0.0.1',
    // one account's limits (500/min) would cap the run long before the server does
    RATE_LIMITS_ENABLED: 'false',
  });
  const server = await startServer({ config, log: pino({ level: 'silent' }) });
  const created = await createAccount(server.engage, { name: 'Bench', email: `bench-${Date.now()}@example.com`, password: 'bench password' });
  if (!(await server.engage.runner.waitFor(['auth'], created.position, 10_000))) throw new Error('auth projection did not catch up');
  ready({ url: server.url, key: created.api_key, account_id: created.account_id, pid: process.pid });
  close = () => server.close();
} else {
  process.stderr.write('usage: http-server.ts engage|baseline|insert\n');
  process.exit(2);
}

const shutdown = () => {
  close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
