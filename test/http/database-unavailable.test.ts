// A database that cannot be reached is the service's problem of the moment, not the client's and not
// a bug: every way node-postgres reports it answers 503 {error:"unavailable", message} with
// Retry-After, never a 500 and never a stack trace. Real errors from real connections where they can
// be made on demand, the error shapes Postgres sends during a shutdown or restart otherwise.
import net from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsPlugin } from '../../src/http/plugins/errors.ts';
import { freshDatabase } from '../support/harness.ts';
import { freePort } from '../support/private-postgres.ts';

/** Runs `fn`, returns what it threw. */
async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

/** A pg error as the protocol parser builds it (severity, code, message), for states we cannot summon on demand. */
function pgError(code: string, message: string, severity = 'FATAL'): Error {
  return Object.assign(new Error(message), { name: 'error', severity, code, length: 100 });
}

describe('database errors answer 503 unavailable', () => {
  let app: FastifyInstance;
  const errors = new Map<string, unknown>();
  let silent: net.Server;
  const cleanup: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    // nothing listens on this port
    const closedPort = await freePort();
    errors.set('connection refused (ECONNREFUSED)', await thrown(() => new pg.Client({ host: '127.0.0.1', port: closedPort, user: 'x', password: 'x', database: 'x' }).connect()));

    // a server that accepts and never answers: the pool's connection timeout
    const accepted = new Set<net.Socket>();
    silent = net.createServer((socket) => {
      accepted.add(socket);
      socket.on('close', () => accepted.delete(socket));
    });
    cleanup.push(async () => {
      for (const socket of accepted) socket.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const silentPool = new pg.Pool({ host: '127.0.0.1', port: (silent.address() as net.AddressInfo).port, user: 'x', password: 'x', database: 'x', connectionTimeoutMillis: 200 });
    silentPool.on('error', () => undefined);
    errors.set('connection timeout', await thrown(() => silentPool.query('SELECT 1')));
    cleanup.push(() => silentPool.end().catch(() => undefined));

    // a real database: every connection of the pool busy past its checkout timeout; a session
    // terminated by the server (what every session gets on a fast shutdown: 57P01)
    const url = await freshDatabase();
    // its one connection is made with time to spare (on a starved machine a real connection took
    // longer than 200 ms, and the test failed before it began); only then is the wait for a free
    // connection cut to 200 ms (pg-pool reads the option at each checkout)
    const busy = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 30_000 });
    busy.on('error', () => undefined);
    const held = await busy.connect();
    busy.options.connectionTimeoutMillis = 200;
    errors.set('pool checkout timeout', await thrown(() => busy.query('SELECT 1')));
    held.release();
    cleanup.push(() => busy.end());

    const victim = new pg.Client({ connectionString: url });
    victim.on('error', () => undefined);
    await victim.connect();
    const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const killer = new pg.Client({ connectionString: url });
    await killer.connect();
    // its failure is caught at once: it may come before anything awaits it (an unhandled rejection)
    const sleeping = victim.query('SELECT pg_sleep(10)').then(
      () => new Error('expected a failure'),
      (err: unknown) => err,
    );
    await new Promise((r) => setTimeout(r, 100));
    await killer.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    errors.set('session terminated by the server (57P01)', await sleeping);
    errors.set('query on a client whose connection died', await thrown(() => victim.query('SELECT 1')));
    await killer.end();
    cleanup.push(() => victim.end().catch(() => undefined));

    // what Postgres answers while it shuts down or starts, and what pg says when the socket goes
    errors.set('shutting down (57P03)', pgError('57P03', 'the database system is shutting down'));
    errors.set('starting up (57P03)', pgError('57P03', 'the database system is starting up'));
    errors.set('connection failure (08006)', pgError('08006', 'connection failure', 'ERROR'));
    errors.set('too many clients (53300)', pgError('53300', 'sorry, too many clients already'));
    errors.set('connection reset (ECONNRESET)', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' }));
    errors.set('connection terminated unexpectedly', new Error('Connection terminated unexpectedly'));

    app = Fastify();
    errorsPlugin(app);
    const names = [...errors.keys()];
    app.get('/fail/:n', async (req) => {
      throw errors.get(names[Number((req.params as { n: string }).n)]);
    });
    app.get('/bug', async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'id')");
    });
    await app.ready();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    for (const c of cleanup) await c();
  });

  it('every way of losing the database is a 503 with the flat error body and Retry-After', async () => {
    const names = [...errors.keys()];
    expect(names.length).toBe(11);
    for (const [n, name] of names.entries()) {
      const res = await app.inject({ method: 'GET', url: `/fail/${n}` });
      expect(res.statusCode, `${name}: ${String((errors.get(name) as Error)?.message)}`).toBe(503);
      expect(res.json(), name).toEqual({ error: 'unavailable', message: expect.any(String) });
      expect(res.headers['retry-after'], name).toBe('1');
      // nothing of the driver's error leaks out
      expect(res.body, name).not.toMatch(/at .*\.(js|ts):\d+|ECONN|57P0|pg-pool|node_modules/);
    }
  });

  it('a bug is still a 500 internal_error', async () => {
    const res = await app.inject({ method: 'GET', url: '/bug' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ error: 'internal_error' });
  });
});
