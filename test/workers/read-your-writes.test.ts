// Read-your-writes when the API process runs no projections and `engage worker` (another process)
// keeps the read models: a command's response waits for the worker's announcement of the read
// model's checkpoint (or, failing one, its poll of projection_state), so the next read sees it.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/service.ts';
import { type Server, startServer } from '../../src/server.ts';
import { migratedDatabase, testConfig } from '../support/harness.ts';
import { requestJson } from '../support/http.ts';
import { comparePositions } from '../../src/eventstore/port.ts';
import { eventually } from '../support/waits.ts';
import { type EngageProcess, killAllEngageProcesses, startEngage } from '../support/processes.ts';

describe('an API process without projections, with `engage worker` in another process', () => {
  let url: string;
  let api: Server;
  let worker: EngageProcess;
  let key: string;

  beforeAll(async () => {
    url = await migratedDatabase();
    // a bound far beyond the test's own timeout: a write that is not seen to be projected hangs the test
    api = await startServer({
      config: testConfig(url, { READ_YOUR_WRITES_TIMEOUT_MS: '600000' }),
      log: pino({ level: 'silent' }),
      runProjections: false,
      workers: false,
    });
  });
  afterAll(async () => {
    await api?.close();
    await killAllEngageProcesses();
  }, 300_000);

  it('does not project by itself: nothing advances the read models until a worker runs', async () => {
    const created = await createAccount(api.engage, { name: 'Split', email: 'split@example.com', password: 'correct horse battery' });
    key = created.api_key;
    expect(await api.engage.runner.waitFor(['auth'], created.position, 1500)).toBe(false);
    expect((await requestJson(api.url, 'GET', '/v1/contacts', { key })).status).toBe(401);

    worker = await startEngage('worker', url);
    // the API learns of the worker's progress through its announcements or projection_state
    expect(await api.engage.runner.waitFor(['auth'], created.position, 30_000)).toBe(true);
    expect((await requestJson(api.url, 'GET', '/v1/contacts', { key })).status).toBe(200);
  }, 300_000);

  it("learns of each applied write from the worker's announcement, with no wait polling for it", async () => {
    expect(worker.child.exitCode).toBeNull();
    // written without a read-your-writes wait: nothing in this process reads projection_state for it,
    // so only the worker's announcement (ProjectionRunner.follow) can move the position it knows
    const other = await createAccount(api.engage, { name: 'Heard', email: 'heard@example.com', password: 'correct horse battery' });
    await eventually('the announced auth checkpoint', async () => {
      const known = api.engage.runner.position('auth');
      return known && comparePositions(known, other.position) >= 0 ? true : undefined;
    }, 30_000);
  }, 60_000);

  it('shows every write in the very next read: create, update, delete', async () => {
    expect(worker.child.exitCode).toBeNull();
    for (let i = 0; i < 10; i++) {
      const created = await requestJson(api.url, 'POST', '/v1/contacts', { key, body: { email: `ryw${i}@example.com`, first_name: `Ann${i}` } });
      expect(created.status).toBe(201);
      const listed = await requestJson(api.url, 'GET', '/v1/contacts?limit=1', { key });
      expect(listed.body.data[0]).toMatchObject({ id: created.body.id, email: `ryw${i}@example.com` });

      const patched = await requestJson(api.url, 'PATCH', `/v1/contacts/${created.body.id}`, { key, body: { first_name: `Bea${i}` } });
      expect(patched.status).toBe(200);
      expect((await requestJson(api.url, 'GET', `/v1/contacts/${created.body.id}`, { key })).body.first_name).toBe(`Bea${i}`);

      if (i % 2 === 0) {
        expect((await requestJson(api.url, 'DELETE', `/v1/contacts/${created.body.id}`, { key })).status).toBe(200);
        expect((await requestJson(api.url, 'GET', `/v1/contacts/${created.body.id}`, { key })).status).toBe(404);
      }
    }
    const all = await requestJson(api.url, 'GET', '/v1/contacts?limit=100', { key });
    expect(all.body.data.map((c: { email: string }) => c.email).sort()).toEqual(['ryw1', 'ryw3', 'ryw5', 'ryw7', 'ryw9'].map((e) => `${e}@example.com`));
  }, 300_000);
});
