// The pieces that must live through a Postgres restart, one at a time (postgres-restart.test.ts is
// the whole system): a pool client held between statements, the delivery report recorder, the
// webhook seal key, and /health when the database does not answer at all. Each meets a fast shutdown of a cluster of this file's own and must neither end
// the process (an unhandled 'error' event or rejection fails this file) nor stay broken afterwards.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxReport } from '../../src/channels/sandbox.ts';
import { migrate } from '../../src/schema.ts';
import { createPool } from '../../src/db/pool.ts';
import { seal, unseal } from '../../src/seal.ts';
import { ReportRecorder } from '../../src/workers/messaging.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { type PrivatePostgres, startPrivatePostgres } from '../support/private-postgres.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';
import { eventually, sleep } from '../support/waits.ts';

let postgres: PrivatePostgres;

beforeAll(async () => {
  postgres = await startPrivatePostgres();
});

afterAll(async () => {
  await postgres?.destroy();
});

/** A fast shutdown, `downMs` of nothing, and a start. */
async function restart(during: () => Promise<void>, downMs = 1000): Promise<void> {
  await postgres.stop();
  try {
    await during();
    await sleep(downMs);
  } finally {
    await postgres.start();
  }
}

/** Runs `fn` with a pool of 4 on a new database `name` of this file's cluster; ends the pool after. */
async function withPool(name: string, fn: (pool: pg.Pool) => Promise<void>): Promise<void> {
  const pool = createPool(await postgres.createDatabase(name), 4);
  try {
    await fn(pool);
  } finally {
    await pool.end();
  }
}

describe('a pool client checked out when Postgres shuts down', () => {
  it('fails its next statement instead of ending the process, and the pool works again after the restart', async () => {
    await withPool('pool_client', async (pool) => {
      const client = await pool.connect();
      await client.query('SELECT 1');
      // held between statements (as a transaction or a projection batch holds it): the server's
      // "terminating connection" arrives while no query is running
      await restart(async () => {
        await sleep(300);
        await expect(client.query('SELECT 1')).rejects.toThrow();
        client.release(true);
      });
      const { rows } = await eventually('the pool to connect again', async () => pool.query('SELECT 1 AS one').catch(() => undefined), 10_000, 100);
      expect(rows[0].one).toBe(1);
    });
  });
});

describe('the webhook seal key', () => {
  it('is read again after a first read that failed while Postgres was down', async () => {
    await withPool('seal_key', async (pool) => {
      await migrate(pool);
      let whileDown: unknown;
      await restart(async () => {
        whileDown = await seal(pool, 'whsec_secret').catch((err: unknown) => err);
      });
      expect(whileDown).toBeInstanceOf(Error);
      const sealed = await eventually('sealing to work again', async () => seal(pool, 'whsec_secret').catch(() => undefined), 10_000, 100);
      expect(await unseal(pool, sealed)).toBe('whsec_secret');
    });
  });
});

describe('delivery reports that arrive while Postgres is down', () => {
  let server: TestServer;
  beforeAll(async () => {
    // no workers: the test plays the provider, handing the recorder its report at the worst moment
    server = await startTestServer({ WORKERS_ENABLED: 'false' }, await postgres.createDatabase('reports'));
  });
  afterAll(async () => {
    await server?.close();
  });

  it('are kept, retried, and recorded once Postgres is back', async () => {
    const { key } = await server.newAccount();
    const sent = await server.call('POST', '/v1/messages/send', { key, body: { to: '+14155550142', channel: 'sms', message: 'reported during an outage', transactional: true } });
    expect(sent.status).toBe(202);
    const id: string = sent.body.id;
    const recorder = new ReportRecorder(server.engage);
    await restart(async () => {
      recorder.sink([sandboxReport({ id, channel: 'sms', to: '+14155550142' })]);
    }, 2000);
    await eventually('the report recorded', async () => ((await server.request('GET', `/v1/messages/${id}`, { key })).body?.status === 'delivered' ? true : undefined), 20_000, 100);
    const db = new pg.Client({ connectionString: server.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ type: string }>('SELECT type FROM es_events WHERE stream_id = $1 ORDER BY stream_revision', [`message-${id}`]);
      // the report proves the provider took it: sent and delivered, once each
      expect(rows.map((r) => r.type)).toEqual(['MessageAccepted', 'MessageSent', 'MessageDelivered']);
    } finally {
      await db.end();
    }
  });
});

describe('/health while the database does not answer at all', () => {
  it('answers 503 unavailable within 3 s (not after the pool’s connection timeouts) and 200 again once it answers', async () => {
    const url = await postgres.createDatabase('health_stall');
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: postgres.port });
    const server = await startTestServer({ WORKERS_ENABLED: 'false' }, proxy.rewrite(url));
    try {
      expect((await server.call('GET', '/health')).status).toBe(200);
      // packets vanish: a new connection is never answered (the pool waits 5 s for one)
      proxy.stall(true);
      const started = Date.now();
      const res = await server.request('GET', '/health');
      const tookMs = Date.now() - started;
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'unavailable', database: 'unreachable' });
      expect(tookMs).toBeLessThan(3000);
      proxy.stall(false);
      await eventually('/health 200 again', async () => ((await server.request('GET', '/health')).status === 200 ? true : undefined), 15_000, 200);
    } finally {
      proxy.stall(false);
      await server.close();
      await proxy.close();
    }
  });
});
