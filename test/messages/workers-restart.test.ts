// Restarts in the middle of dispatching lose nothing: a graceful close finishes the batch in hand
// and the next server sends the rest; a SIGKILLed `engage serve` leaves claims whose leases run
// out, and the restarted process reclaims and sends them. Every accepted message ends delivered
// with exactly one MessageSent in its stream.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { readyAccount } from '../support/accounts.ts';
import { migratedDatabase, serversAcrossRestart, startTestServer } from '../support/harness.ts';
import { requestJson } from '../support/http.ts';
import { type EngageProcess, killAllEngageProcesses, printedApiKey, startEngage, untilOtherSessionsEnd } from '../support/processes.ts';
import { countOf as count, type StreamSummary, streamsOf } from '../support/streams.ts';
import { eventually, sleep } from '../support/waits.ts';

const sms = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({ to: `+1415${String(5_000_000 + i)}`, channel: 'sms', message: `${tag} ${i}`, transactional: true }));

/**
 * Checks that every claim after the first was taken either after the previous holder gave the
 * message back (deferred or held) or after its lease ran out; returns how many were lease
 * reclaims. Attempts count up by one per claim.
 */
function checkClaims(s: StreamSummary): number {
  let reclaims = 0;
  let last: StreamSummary['claims'][number] | undefined;
  let released = false;
  for (const e of s.events) {
    if (e.type === 'MessageDispatchDeferred' || e.type === 'MessageHeld') released = true;
    if (e.type !== 'MessageDispatching') continue;
    if (last) {
      expect(e.data.attempt, s.id).toBe(last.attempt + 1);
      if (!released) {
        expect(Date.parse(e.data.at), `${s.id} claimed again while the previous lease was live`).toBeGreaterThanOrEqual(Date.parse(last.lease_until));
        reclaims++;
      }
    }
    last = e.data as StreamSummary['claims'][number];
    released = false;
  }
  return reclaims;
}

/** Waits until every one of `ids` is delivered; on timeout, says where the rest are. */
async function allDelivered(db: pg.Pool | pg.Client, ids: string[], timeoutMs = 120_000): Promise<void> {
  let last = '';
  try {
    await eventually('every accepted message delivered', async () => {
      const { rows } = await db.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM messages WHERE id = ANY($1) GROUP BY status`, [ids]);
      last = JSON.stringify(rows);
      return rows.length === 1 && rows[0].status === 'delivered' && rows[0].n === ids.length ? true : undefined;
    }, timeoutMs, 200);
  } catch (err) {
    throw new Error(`${(err as Error).message}; statuses: ${last}`);
  }
}

describe('a graceful restart while dispatching', () => {
  const servers = serversAcrossRestart();

  it('1,000 accepted messages all end delivered, each sent once', async () => {
    const N = 1000;
    // small batches (ten), so that the close lands while dispatch is in progress
    const overrides = { DISPATCH_BATCH_SIZE: '100', RATE_LIMITS_ENABLED: 'false' };
    servers.first = await startTestServer(overrides);
    const { key } = await readyAccount(servers.first);
    const databaseUrl = servers.first.databaseUrl;
    const bulk = await servers.first.call('POST', '/v1/messages/bulk', { key, body: { messages: sms(N, 'graceful') } });
    expect(bulk.status).toBe(202);
    expect(bulk.body.accepted).toBe(N);
    const ids: string[] = bulk.body.results.map((r: { id: string }) => r.id);

    const closing = servers.first;
    const firstCalls = closing.workers.messaging!.providers.sandbox.calls;
    // close as soon as dispatch is under way
    await eventually('dispatch to start', async () => (firstCalls.size > 0 ? true : undefined), 30_000, 5);
    await closing.close();
    servers.first = undefined;

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const atClose = await streamsOf(db, ids);
      const sentBefore = [...atClose.values()].filter((s) => count(s.types, 'MessageSent') > 0).length;
      // the close really happened mid-dispatch: some sent, some not yet
      expect(sentBefore, 'some messages were sent before the close').toBeGreaterThan(0);
      expect(sentBefore, 'some messages were still waiting at the close').toBeLessThan(N);
      // a graceful close leaves no claim unresolved: every claim has its outcome recorded
      for (const s of atClose.values()) expect(count(s.types, 'MessageDispatching'), s.id).toBe(count(s.types, 'MessageSent'));

      servers.second = await startTestServer(overrides, databaseUrl);
      await allDelivered(db, ids);
      const after = await streamsOf(db, ids);
      const secondCalls = servers.second.workers.messaging!.providers.sandbox.calls;
      for (const id of ids) {
        const s = after.get(id)!;
        expect(s.types, id).toEqual(['MessageAccepted', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
        // handed to the provider exactly once, by one of the two servers
        expect((firstCalls.get(id) ?? 0) + (secondCalls.get(id) ?? 0), id).toBe(1);
      }
    } finally {
      await db.end();
    }
  }, 240_000);
});

/** `engage serve`; the shared test cluster may be out of connections for a moment: try again, never mask others */
async function startServe(databaseUrl: string, env: Record<string, string>): Promise<EngageProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startEngage('serve', databaseUrl, env);
    } catch (err) {
      if (attempt >= 3 || !/too many clients/.test(String(err))) throw err;
      await sleep(2000);
    }
  }
}

describe('a SIGKILLed engage serve', () => {
  afterAll(async () => {
    await killAllEngageProcesses();
  });

  it('reclaims the dead process’s claims after the lease and sends every accepted message exactly once', async () => {
    // ten batches of 100: the kill lands while dispatch is in progress
    const N = 1000;
    const databaseUrl = await migratedDatabase();
    const env = {
      DISPATCH_LEASE_MS: '1000',
      DISPATCH_BATCH_SIZE: '100',
      QUIET_HOURS: 'off',
      RATE_LIMITS_ENABLED: 'false',
    };
    // the first process's sandbox reports only after a minute: whatever it sent before the kill,
    // the report for it dies with it (as a real carrier's would not)
    const one = await startServe(databaseUrl, { ...env, SANDBOX_DELIVERY_DELAY_MS: '60000' });
    const key = printedApiKey(one);

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const bulk = await requestJson(one.url!, 'POST', '/v1/messages/bulk', { key, body: { messages: sms(N, 'killed') } });
      expect(bulk.status).toBe(202);
      expect(bulk.body.accepted).toBe(N);
      const ids: string[] = bulk.body.results.map((r: { id: string }) => r.id);
      await eventually('dispatch to start', async () => {
        const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM es_events WHERE type = 'MessageSent'`);
        return rows[0].n > 0 ? true : undefined;
      }, 30_000, 5);
      await one.kill();
      // what it had already sent to Postgres still commits: read what it left only once it is all in
      await untilOtherSessionsEnd(db);

      const atKill = await streamsOf(db, ids);
      const sentBefore = [...atKill.values()].filter((s) => count(s.types, 'MessageSent') > 0).length;
      expect(sentBefore, 'some messages were sent before the kill').toBeGreaterThan(0);
      expect(sentBefore, 'the kill landed mid-dispatch').toBeLessThan(N);

      const two = await startServe(databaseUrl, { ...env, SANDBOX_DELIVERY_DELAY_MS: '50' });
      try {
        // nothing is printed the second time: the account exists
        expect(two.output().stdout).not.toContain('API key:');
        await allDelivered(db, ids);
      } finally {
        await two.kill();
      }

      const after = await streamsOf(db, ids);
      let reclaimed = 0;
      for (const id of ids) {
        const s = after.get(id)!;
        expect(count(s.types, 'MessageSent'), `${id}: ${s.types.join(',')}`).toBe(1);
        expect(count(s.types, 'MessageDelivered'), `${id}: ${s.types.join(',')}`).toBe(1);
        expect(count(s.types, 'MessageFailed'), id).toBe(0);
        // a second claim only after the first one's lease ran out (or it was given back), and a
        // lease reclaim only for a claim that the dead process never resolved
        if (checkClaims(s) > 0) reclaimed++;
        expect(s.types.indexOf('MessageSent'), `${id}: ${s.types.join(',')}`).toBeLessThan(s.types.indexOf('MessageDelivered'));
        const before = atKill.get(id)!;
        if (count(before.types, 'MessageSent') > 0) expect(s.claims.length, `${id} was sent before the kill, yet claimed again`).toBe(before.claims.length);
      }
      // what was sent before the kill got its report after the restart: the sandbox, like a
      // carrier, still reports what it accepted
      const sentUnreported = ids.filter((id) => count(atKill.get(id)!.types, 'MessageSent') > 0 && atKill.get(id)!.reports.length === 0);
      expect(sentUnreported.length).toBeGreaterThan(0);
      for (const id of sentUnreported) expect(after.get(id)!.reports[0].provider_data, id).toMatchObject({ sandbox: true, resumed: true });
      // claims that were open at the kill are exactly the ones reclaimed
      const openAtKill = [...atKill.values()].filter((s) => count(s.types, 'MessageDispatching') > 0 && count(s.types, 'MessageSent') === 0).length;
      expect(reclaimed).toBe(openAtKill);
    } finally {
      await db.end();
    }
  }, 240_000);
});
