// The scheduler: a scheduled message is queued within a second of scheduled_at and then sent, and
// scheduled messages survive a restart (their state is the event log), queued and sent once each.
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { readyAccount } from '../support/accounts.ts';
import { serversAcrossRestart, startTestServer, testServerForSuite, type TestServer } from '../support/harness.ts';
import { timeline, type TimelineEvent } from '../support/messages.ts';
import { eventually } from '../support/waits.ts';

async function scheduledCount(databaseUrl: string, ids: string[]): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE id = ANY($1) AND status = 'scheduled'`, [ids]);
    return rows[0].n;
  } finally {
    await client.end();
  }
}

async function statuses(server: TestServer, ids: string[]): Promise<Map<string, string>> {
  const { rows } = await server.engage.pool.query<{ id: string; status: string }>('SELECT id, status FROM messages WHERE id = ANY($1)', [ids]);
  return new Map(rows.map((r) => [r.id, r.status]));
}

describe('scheduled messages', () => {
  let key: string;
  const server = testServerForSuite();
  beforeAll(async () => {
    ({ key } = await readyAccount(server));
  });

  it('stay scheduled until due, are queued within a second of scheduled_at, then sent and delivered', async () => {
    const scheduledAt = new Date(Date.now() + 2000);
    const res = await server.call('POST', '/v1/messages/send', {
      key,
      body: { to: '+14155550142', channel: 'sms', message: 'later', transactional: true, scheduled_at: scheduledAt.toISOString() },
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'scheduled', scheduled_at: scheduledAt.toISOString() });
    const id: string = res.body.id;

    // before it is due nothing moves: still scheduled, the provider untouched (asked only while
    // it is certainly not yet due, so a slow machine cannot make this check race the clock)
    const probe = await server.call('GET', `/v1/messages/${id}`, { key });
    const providerCalledEarly = server.workers.messaging!.providers.sandbox.calls.has(id);
    if (Date.now() < scheduledAt.getTime()) {
      expect(probe.body.status).toBe('scheduled');
      expect(providerCalledEarly).toBe(false);
    }

    const done = await eventually('delivered', async () => {
      const r = await server.call('GET', `/v1/messages/${id}`, { key });
      return r.body.status === 'delivered' ? r.body : undefined;
    });
    expect(done.sent_at).not.toBeNull();
    const events = await timeline(server, key, id);
    expect(events.map((e) => e.type)).toEqual(['MessageAccepted', 'MessageQueued', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
    expect(events[1]).toMatchObject({ status: 'queued', reason: 'due' });
    const queuedAt = Date.parse(events[1].at);
    const lateness = queuedAt - scheduledAt.getTime();
    // never early; at most a second late (the scheduler polls every 200 ms)
    expect(lateness).toBeGreaterThanOrEqual(0);
    expect(lateness).toBeLessThanOrEqual(1000);
    // and nothing is handed to the provider before it is due
    expect(Date.parse(events[2].at)).toBeGreaterThanOrEqual(scheduledAt.getTime());
    expect(server.workers.messaging!.providers.sandbox.calls.get(id)).toBe(1);
  });

  it('a cancelled scheduled message is never queued or sent', async () => {
    const res = await server.call('POST', '/v1/messages/send', {
      key,
      body: { to: '+14155550143', channel: 'sms', message: 'never', transactional: true, scheduled_at: new Date(Date.now() + 1000).toISOString() },
    });
    const del = await server.call('DELETE', `/v1/messages/${res.body.id}`, { key });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: res.body.id, status: 'cancelled' });
    await new Promise((r) => setTimeout(r, 1800));
    expect((await timeline(server, key, res.body.id)).map((e) => e.type)).toEqual(['MessageAccepted', 'MessageCancelled']);
    expect(server.workers.messaging!.providers.sandbox.calls.has(res.body.id)).toBe(false);
  });
});

describe('scheduled messages across a restart', () => {
  const servers = serversAcrossRestart();

  it('are still scheduled on the new server, then queued and sent exactly once each', async () => {
    servers.first = await startTestServer();
    const { key } = await readyAccount(servers.first);
    // some fall due while no server runs, some after the new one has started
    const dueDuringDowntime = new Date(Date.now() + 1500);
    const dueAfterRestart = new Date(Date.now() + 6000);
    const bulk = await servers.first.call('POST', '/v1/messages/bulk', {
      key,
      body: {
        messages: [
          ...Array.from({ length: 5 }, (_, i) => ({ to: `+1415555020${i}`, channel: 'sms', message: `down ${i}`, transactional: true, scheduled_at: dueDuringDowntime.toISOString() })),
          ...Array.from({ length: 5 }, (_, i) => ({ to: `+1415555030${i}`, channel: 'sms', message: `after ${i}`, transactional: true, scheduled_at: dueAfterRestart.toISOString() })),
        ],
      },
    });
    expect(bulk.body.accepted).toBe(10);
    const ids: string[] = bulk.body.results.map((r: { id: string }) => r.id);
    const down = ids.slice(0, 5);
    const after = ids.slice(5);
    const dbUrl = servers.first.databaseUrl;
    // a bulk answers before the read model has its rows (messages.ts BULK_WAITS_FOR): they are there
    // before this server stops, so the check below, made while no server runs, can see them
    const first = servers.first;
    await eventually('the bulk in the messages read model', async () => ((await statuses(first, ids)).size === ids.length ? true : undefined));
    await servers.first.close();
    const firstCalls = servers.first.workers.messaging!.providers.sandbox.calls;
    servers.first = undefined;
    expect(ids.some((id) => firstCalls.has(id))).toBe(false);

    await new Promise((r) => setTimeout(r, Math.max(0, dueDuringDowntime.getTime() + 300 - Date.now())));
    // still nothing queued while no server ran
    expect(await scheduledCount(dbUrl, ids)).toBe(10);
    const restartedAt = Date.now();
    servers.second = await startTestServer({}, dbUrl);
    // the ones not yet due are still scheduled on the new server
    if (Date.now() < dueAfterRestart.getTime() - 500) {
      const s = await statuses(servers.second, after);
      expect([...s.values()]).toEqual(after.map(() => 'scheduled'));
    }
    await eventually('all delivered', async () => {
      const s = await statuses(servers.second!, ids);
      return [...s.values()].filter((v) => v === 'delivered').length === ids.length ? true : undefined;
    });
    for (const id of ids) {
      const events = await timeline(servers.second, key, id);
      const types = events.map((e) => e.type);
      expect(types, id).toEqual(['MessageAccepted', 'MessageQueued', 'MessageDispatching', 'MessageSent', 'MessageDelivered']);
      expect(servers.second.workers.messaging!.providers.sandbox.calls.get(id)).toBe(1);
      const queuedAt = Date.parse(events[1].at);
      if (down.includes(id)) expect(queuedAt).toBeGreaterThanOrEqual(restartedAt);
      else {
        expect(queuedAt).toBeGreaterThanOrEqual(dueAfterRestart.getTime());
        expect(queuedAt - dueAfterRestart.getTime()).toBeLessThanOrEqual(1000);
      }
    }
  });
});
