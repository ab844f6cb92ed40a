// After an operator replays a read model (`engage replay`: its checkpoint moved back), a write's
// wait for that read model waits for the replay to pass its position again: the runner's knowledge
// of what the read model has passed moves back with the checkpoint (README "The event log and the
// read models"). Settles issue 26's question "waitFor after engage replay may answer early".
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { comparePositions } from '../../src/eventstore/port.ts';
import { resetCheckpoint } from '../../src/read-models/generations.ts';
import type { TestAccount } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { until } from '../support/waits.ts';

let server: TestServer;
let account: TestAccount;
let db: pg.Pool;
beforeAll(async () => {
  server = await startTestServer();
  account = await server.newAccount();
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
});
afterAll(async () => {
  await db?.end();
  await server?.close();
});

describe('a replay and the writes that wait for it', () => {
  it('a wait for a position the replay has to apply again lasts until it has', async () => {
    const created = await server.call('POST', '/v1/contacts', { key: account.key, body: { email: 'replayed@example.com', first_name: 'Ada' } });
    expect(created.status).toBe(201);
    const before = await server.engage.store.headPosition();
    await server.caughtUp(['contacts']);
    // damage the read model: only the replay's re-application repairs it
    await db.query(`UPDATE contacts SET first_name = 'tampered' WHERE id = $1`, [created.body.id]);

    // the replay is held back: nothing may write the read model's table
    const holder = await db.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE contacts IN EXCLUSIVE MODE');
      await resetCheckpoint(server.engage.pool, 'contacts', { commit: 0n, prepare: 0n });
      // before: the runner's position only moved forward, so the wait below answered at once
      const known = await until(() => server.engage.runner.position('contacts'), (p) => p !== undefined && comparePositions(p, before) < 0, 10_000, 20);
      expect(known && comparePositions(known, before) < 0, 'the runner follows the checkpoint back').toBe(true);
      expect(await server.engage.runner.waitFor(['contacts'], before, 300)).toBe(false);
      expect((await server.call('GET', `/v1/contacts/${created.body.id}`, { key: account.key })).body.first_name).toBe('tampered');
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
    expect(await server.engage.runner.waitFor(['contacts'], before, 30_000)).toBe(true);
    expect((await server.call('GET', `/v1/contacts/${created.body.id}`, { key: account.key })).body.first_name).toBe('Ada');
  });
});
