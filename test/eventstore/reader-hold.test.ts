// A transaction left open anywhere on the cluster holds every catch-up reader back (issue 7, defect
// 7): /health and `engage projections status` must show the true lag and name the transaction. Runs
// on a Postgres cluster of its own: the open transaction would stall every other test file too.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.ts';
import { runEngage } from '../support/processes.ts';
import { eventually } from '../support/waits.ts';

let cluster: PrivatePostgres;
let server: TestServer;
let key: string;

beforeAll(async () => {
  cluster = await startPrivatePostgres();
  await cluster.createDatabase('other');
  const url = await cluster.createDatabase('engage');
  server = await startTestServer({ READER_HOLD_WARN_MS: '500' }, url);
  ({ key } = await server.newAccount());
});

afterAll(async () => {
  await server?.close();
  await cluster?.destroy();
});

describe('readers held back by an open transaction', () => {
  it('shows the true lag and the transaction holding readers back, in /health and the CLI, and clears once it ends', async () => {
    // a transaction in another database of the cluster, holding a transaction id
    const other = new pg.Client({ connectionString: cluster.url('other'), application_name: 'forgotten-report' });
    await other.connect();
    let open = true;
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_current_xact_id()');
      const pid = (await other.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;

      // accepted, though its read model cannot see it yet
      const created = await server.call('POST', '/v1/contacts', { key, body: { email: 'held@example.com' } });
      expect(created.status).toBe(201);

      const health = await eventually('a warning in /health', async () => {
        const h = await server.call('GET', '/health');
        return h.body.readers?.warning ? h : undefined;
      }, 15_000, 100);
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('degraded');
      expect(health.body.readers.held_back_by).toMatchObject({ pid, application: 'forgotten-report', database: 'other', state: 'idle in transaction' });
      expect(health.body.readers.held_back_by.age_ms).toBeGreaterThanOrEqual(500);
      expect(health.body.readers.warning).toMatch(new RegExp(`pid ${pid}`));
      const contacts = health.body.projections.find((p: { name: string }) => p.name === 'contacts');
      expect(contacts.lag).toBeGreaterThanOrEqual(1);

      const cli = await runEngage(['projections', 'status'], server.databaseUrl, { READER_HOLD_WARN_MS: '500' });
      expect(cli.code).toBe(0);
      expect(cli.stderr).toMatch(new RegExp(`oldest open transaction: pid ${pid}, open [\\d.]+ s, application forgotten-report, database other`));
      expect(cli.stderr).toMatch(/warning: read models and webhooks are held back/);
      expect(cli.stdout).toMatch(/contacts\s+gen \d+\s+running\s+active\s+position \S+\s+lag [1-9]/);

      await other.query('ROLLBACK');
      open = false;
      const after = await eventually('readers moving again', async () => {
        const h = await server.call('GET', '/health');
        return h.body.readers === undefined && h.body.projections.every((p: { lag: number }) => p.lag === 0) ? h : undefined;
      }, 15_000, 100);
      expect(after.body.status).toBe('ok');
      const list = await server.call('GET', '/v1/contacts', { key });
      expect(list.body.data.map((c: { email: string }) => c.email)).toContain('held@example.com');
    } finally {
      if (open) await other.query('ROLLBACK').catch(() => undefined);
      await other.end();
    }
  });
});
