// Child process for the HTTP benchmarks, so the load generator does not share the server's event
// loop. `engage`: the real server (startServer) on DATABASE_URL with rate limits off, plus one
// account; `baseline`: a bare fastify route returning a constant. Prints one BENCH_READY line.
import Fastify from 'fastify';
import pino from 'pino';
import { createAccount } from '../src/accounts/service.ts';
import { loadConfig } from '../src/config.ts';
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
  process.stderr.write('usage: http-server.ts engage|baseline\n');
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
