// Whole-system fault: Postgres restarts under load. `engage serve` runs on DATABASE_URL (a cluster of
// this test's own) with a bounded load of sends, contact creates and reads going; Postgres is stopped
// with a fast shutdown for 5 s and started again. While it is down every request answers promptly,
// 503 {error:"unavailable", message}, and /health says so — never a 500, never a hang, never a
// crash. Within 10 s of Postgres being back, everything has recovered by itself: the API, every
// projection, the scheduler, the dispatcher, the webhook sender and the NOTIFY listener; and nothing
// that was accepted (2xx) before, during or after the outage is lost.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findProjection } from '../../projections/index.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.ts';
import { type EngageProcess, killAllEngageProcesses, printedApiKey, startEngage } from '../support/processes.ts';
import { type Receiver, h, startReceiver } from '../support/receivers.ts';
import { eventually, sleep } from '../support/waits.ts';

/** Postgres stays down this long. */
const OUTAGE_MS = 5_000;
/** Stopping Postgres (its shutdown checkpoint) and starting it again take at most this long together. */
const STOP_AND_START_ALLOWANCE_MS = 12_000;
/** No request may take longer than this, outage or not (README: Operations). */
const REQUEST_BOUND_MS = 10_000;
/** /health must say "unavailable" at least this fast while the database is down. */
const HEALTH_BOUND_MS = 3_000;
/** Everything is back this long after Postgres has started again. */
const RECOVERY_MS = 10_000;
/** A read model that has applied every event of its types written up to this long ago is caught up. */
const CAUGHT_UP_WITHIN_MS = 1_000;

const ENV = {
  QUIET_HOURS: 'off',
  RATE_LIMITS_ENABLED: 'false',
  SANDBOX_DELIVERY_DELAY_MS: '50',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_DELAYS: '200ms,500ms,1s,2s,5s',
};

interface Call {
  op: 'send' | 'contact' | 'get-message' | 'get-contact' | 'health';
  path: string;
  started: number;
  ended: number;
  /** HTTP status, or why there was none */
  status: number | 'timeout' | 'network-error';
  body: any;
  error?: string;
}

interface Client {
  call(op: Call['op'], method: string, path: string, body?: unknown): Promise<Call>;
  calls: Call[];
}

function client(baseUrl: string, key: string): Client {
  const calls: Call[] = [];
  return {
    calls,
    async call(op, method, path, body) {
      const started = Date.now();
      const record = (c: Omit<Call, 'op' | 'path' | 'started' | 'ended'>) => {
        const entry = { op, path, started, ended: Date.now(), ...c };
        calls.push(entry);
        return entry;
      };
      try {
        const res = await fetch(`${baseUrl}${path}`, {
          method,
          headers: { 'x-api-key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(REQUEST_BOUND_MS),
        });
        const text = await res.text();
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          /* not JSON */
        }
        return record({ status: res.status, body: parsed });
      } catch (err) {
        const e = err as Error & { cause?: { code?: string } };
        const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
        return record({ status: timedOut ? 'timeout' : 'network-error', body: null, error: `${e.name}: ${e.message} ${e.cause?.code ?? ''}` });
      }
    },
  };
}

/** A call's time relative to the outage, for failure messages. */
let when = (c: Call) => `${c.started}`;

const ok = (c: Call) => typeof c.status === 'number' && c.status >= 200 && c.status < 300;

describe('Postgres restarts under load', () => {
  let postgres: PrivatePostgres;
  let serve: EngageProcess;
  let receiver: Receiver;
  let db: pg.Pool;
  let api: Client;
  /** when the fast shutdown was asked for, when Postgres was down, when it was up again */
  const t = { stop: 0, down: 0, starting: 0, up: 0 };
  const recovery: Record<string, number | string> = {};
  let scheduled: { id: string; scheduledAt: number };
  let logHead: () => Promise<string | undefined>;
  let unappliedUpTo: (name: string, position: string, head: string) => Promise<number>;
  let afterRestart: { sendId?: string; contactId?: string; contactListed?: boolean } = {};
  /** what the API accepted (2xx), before, during and after the outage */
  const accepted = { messages: [] as string[], contacts: [] as string[] };

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    const url = await postgres.createDatabase('engage');
    receiver = await startReceiver();
    serve = await startEngage('serve', url, ENV);
    api = client(serve.url!, printedApiKey(serve));
    db = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 2000 });
    db.on('error', () => undefined); // idle clients die with the server
    /** the log's newest position (commit/prepare), or undefined while the database does not answer */
    logHead = async () => {
      const { rows } = await db.query(`SELECT transaction_id::text || '/' || global_position AS head FROM es_events ORDER BY transaction_id DESC, global_position DESC LIMIT 1`).catch(() => ({ rows: [] as { head: string }[] }));
      return rows[0]?.head as string | undefined;
    };
    /** events of the read model's types after its position and up to `head`: what it has still to apply of the log as it stood then */
    unappliedUpTo = async (name, position, head) => {
      const types = findProjection(name)?.types;
      if (!types) return Infinity;
      const [pc, pp] = position.split('/');
      const [hc, hp] = head.split('/');
      const { rows } = await db
        .query(
          `SELECT count(*)::int AS n FROM es_events WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint) AND (transaction_id, global_position) <= ($3::text::xid8, $4::bigint) AND type = ANY($5::text[])`,
          [pc, pp, hc, hp, types],
        )
        .catch(() => ({ rows: [{ n: Infinity }] }));
      return rows[0].n as number;
    };

    // a bounded load: three clients, each one request at a time with a short pause
    let loading = true;
    const loop = async (n: number) => {
      for (let i = 0; loading; i++) {
        const step = i % 5;
        if (step === 0) {
          const c = await api.call('send', 'POST', '/v1/messages/send', { to: `+1415${String(7_000_000 + n * 100_000 + i)}`, channel: 'sms', message: `load ${n}/${i}`, transactional: true, webhook_url: receiver.url });
          if (ok(c)) accepted.messages.push(c.body.id);
        } else if (step === 1) {
          const c = await api.call('contact', 'POST', '/v1/contacts', { email: `load-${n}-${i}@example.com`, first_name: 'Load' });
          if (ok(c)) accepted.contacts.push(c.body.id);
        } else if (step === 2 && accepted.messages.length) {
          await api.call('get-message', 'GET', `/v1/messages/${accepted.messages[accepted.messages.length - 1]}`);
        } else if (step === 3 && accepted.contacts.length) {
          await api.call('get-contact', 'GET', `/v1/contacts/${accepted.contacts[accepted.contacts.length - 1]}`);
        } else {
          await api.call('health', 'GET', '/health');
        }
        await sleep(20);
      }
    };
    const loops = [0, 1, 2].map(loop);
    await eventually('the load to be accepted', async () => (accepted.messages.length >= 5 && accepted.contacts.length >= 5 ? true : undefined), 30_000);

    // falls due after Postgres is back: the scheduler must pick it up by itself. A fast shutdown
    // writes a checkpoint first, which took up to 4 s on a busy machine, and starting again takes
    // a few more: the margin covers both, with room to spare
    const scheduledAt = Date.now() + 1_000 + OUTAGE_MS + STOP_AND_START_ALLOWANCE_MS;
    const s = await api.call('send', 'POST', '/v1/messages/send', {
      to: '+14155559000', channel: 'sms', message: 'scheduled across the outage', transactional: true, webhook_url: receiver.url, scheduled_at: new Date(scheduledAt).toISOString(),
    });
    expect(s.status, JSON.stringify(s.body)).toBe(202);
    expect(s.body.status).toBe('scheduled');
    accepted.messages.push(s.body.id);
    scheduled = { id: s.body.id, scheduledAt };
    await sleep(1000);

    t.stop = Date.now();
    await postgres.stop();
    t.down = Date.now();
    await sleep(OUTAGE_MS);
    t.starting = Date.now();
    await postgres.start();
    t.up = Date.now();
    const since = () => Date.now() - t.up;
    when = (c) => `stop${c.started - t.stop >= 0 ? '+' : ''}${c.started - t.stop} ms / up${c.started - t.up >= 0 ? '+' : ''}${c.started - t.up} ms, took ${c.ended - c.started} ms`;

    // recovery, each part on its own clock; each gives up (and reports) after twice the bound
    const probes = {
      health: async () => {
        // under load a read model is rarely at lag 0 at the very instant of a sample (events keep
        // coming while it applies the last ones): each must be seen caught up at least once, while
        // /health says ok and all of them run — at lag 0, or having applied every event of its types
        // the log held up to CAUGHT_UP_WITHIN_MS before (the log's head is read before each sample)
        const caughtUp = new Set<string>();
        const heads: { at: number; head: string }[] = [];
        let last = '';
        await eventually('/health 200 with every projection running and caught up', async () => {
          const head = await logHead();
          if (head) heads.push({ at: Date.now(), head });
          const c = await api.call('health', 'GET', '/health');
          const b = c.body;
          // what the last answer showed of those not yet seen caught up (for the failure's message)
          last = `${c.status} ${JSON.stringify((b?.projections ?? []).filter((p: { name: string; lag: number; status: string }) => !caughtUp.has(p.name) && (p.lag !== 0 || p.status !== 'running')))}`;
          if (c.status !== 200 || b.status !== 'ok' || b.projections.length === 0) return undefined;
          if (!b.projections.every((p: { status: string }) => p.status === 'running')) return undefined;
          // the oldest head read within the bound: a read model past it is at most that far behind
          const mark = heads.find((h) => h.at >= c.ended - CAUGHT_UP_WITHIN_MS);
          for (const p of b.projections as { name: string; lag: number; position: string }[]) {
            if (caughtUp.has(p.name)) continue;
            if (p.lag === 0 || (mark && (await unappliedUpTo(p.name, p.position, mark.head)) === 0)) caughtUp.add(p.name), (recovery.lastCaughtUp = `${p.name} at ${since()} ms`);
          }
          return b.projections.every((p: { name: string }) => caughtUp.has(p.name)) ? true : undefined;
        }, 2 * RECOVERY_MS, 100).catch((err: Error) => {
          throw new Error(`${err.message}; the last /health: ${last.slice(0, 1500)}`);
        });
        recovery.health = since();
      },
      send: async () => {
        const c = await eventually('a send to be accepted', async () => {
          const r = await api.call('send', 'POST', '/v1/messages/send', { to: '+14155559001', channel: 'sms', message: 'after the outage', transactional: true, webhook_url: receiver.url });
          return ok(r) ? r : undefined;
        }, 2 * RECOVERY_MS, 100);
        accepted.messages.push(c.body.id);
        recovery.sendAccepted = since();
        await eventually('the new message delivered', async () => ((await api.call('get-message', 'GET', `/v1/messages/${c.body.id}`)).body?.status === 'delivered' ? true : undefined), 2 * RECOVERY_MS, 100);
        recovery.sendDelivered = since();
        await eventually('its delivered callback', async () => (receiver.hits.some((x) => x.json?.type === 'message.delivered' && x.json.data.message_id === c.body.id) ? true : undefined), 2 * RECOVERY_MS, 50);
        recovery.sendCallback = since();
        afterRestart = { ...afterRestart, sendId: c.body.id };
      },
      scheduler: async () => {
        const dueIn = Math.max(0, scheduled.scheduledAt - Date.now());
        await eventually('the scheduled message delivered', async () => ((await api.call('get-message', 'GET', `/v1/messages/${scheduled.id}`)).body?.status === 'delivered' ? true : undefined), dueIn + 2 * RECOVERY_MS, 100);
        recovery.scheduledDelivered = since();
      },
      contact: async () => {
        const email = `after-restart-${Date.now()}@example.com`;
        const c = await eventually('a contact create to be accepted', async () => {
          const r = await api.call('contact', 'POST', '/v1/contacts', { email });
          return ok(r) ? r : undefined;
        }, 2 * RECOVERY_MS, 100);
        accepted.contacts.push(c.body.id);
        // read-your-writes: the very next read shows it, no polling
        const listed = await api.call('get-contact', 'GET', `/v1/contacts?email=${encodeURIComponent(email)}`);
        recovery.contactCreated = since();
        afterRestart = { ...afterRestart, contactId: c.body.id, contactListed: listed.status === 200 && listed.body.data?.some((x: { id: string }) => x.id === c.body.id) };
      },
      listener: async () => {
        // the NOTIFY listener's session is back: LISTEN was its last statement on a new backend, or
        // the hello it sends on its own session once listening (and its answers to others' hellos)
        await eventually('a session listening for engage_events', async () => {
          const { rows } = await db.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE ANY (ARRAY['LISTEN%engage_events%', 'NOTIFY%engage_events%'])`).catch(() => ({ rows: [] }));
          return rows.length > 0 ? true : undefined;
        }, 2 * RECOVERY_MS, 100);
        recovery.listener = since();
      },
    };
    await Promise.all(
      Object.entries(probes).map(([name, probe]) =>
        probe().catch((err: Error) => {
          recovery[name] = `failed: ${err.message}`;
        }),
      ),
    );
    await sleep(1000);
    loading = false;
    await Promise.all(loops);

    recovery.accepted = `${accepted.messages.length} messages, ${accepted.contacts.length} contacts`;
    console.log('postgres-restart timings (ms after Postgres was up)', JSON.stringify({ stopTookMs: t.down - t.stop, ...recovery }));
  }, 150_000);

  afterAll(async () => {
    await killAllEngageProcesses();
    await receiver?.close();
    await db?.end().catch(() => undefined);
    await postgres?.destroy();
  });

  /** the service's own warnings and errors (pino level ≥ 40), for failure messages */
  const serviceWarnings = () =>
    serve.output().stdout.split('\n').filter((l) => /"level":(4|5|6)0/.test(l)).map((l) => l.slice(0, 400)).slice(-60).join('\n');

  it('the outage was real: requests failed while Postgres was down', () => {
    const during = api.calls.filter((c) => c.ended >= t.down && c.started <= t.up);
    expect(during.length).toBeGreaterThan(10);
    expect(during.filter((c) => c.status === 503).length).toBeGreaterThan(0);
  });

  it('never a 500, a hang or a dropped connection: every failure is 503 {error:"unavailable", message}', () => {
    // One exception, by design: a write's response waits (bounded) until its read models show it,
    // but a write stored just as Postgres went away cannot be waited for; it is answered 2xx (it is
    // stored) and becomes readable once the read models have caught up after the restart. Until
    // then a read of it is a 404 — only for such writes, and only until the projections are back.
    const acceptedAt = new Map(api.calls.filter((c) => (c.op === 'send' || c.op === 'contact') && ok(c)).map((c) => [c.body.id as string, c.ended]));
    const readsBackBy = t.up + (typeof recovery.health === 'number' ? recovery.health : RECOVERY_MS);
    const lateVisible = (c: Call) =>
      c.status === 404 && (c.op === 'get-message' || c.op === 'get-contact') && (acceptedAt.get(c.path.split('/').pop()!) ?? 0) >= t.stop && c.started <= readsBackBy;
    const problems = api.calls.filter((c) => (typeof c.status !== 'number' || (c.status >= 400 && c.status !== 503)) && !lateVisible(c));
    const late = api.calls.filter(lateVisible);
    if (late.length) console.log(`postgres-restart: ${late.length} read(s) of writes stored as Postgres went down answered 404 until the read models caught up: ${late.map(when).join('; ')}`);
    expect(problems.map((c) => `${c.op} ${c.status} at ${when(c)}: ${JSON.stringify(c.body)?.slice(0, 200)} ${c.error ?? ''}`)).toEqual([]);
    const slow = api.calls.filter((c) => c.ended - c.started > REQUEST_BOUND_MS);
    expect(slow).toEqual([]);
    for (const c of api.calls.filter((x) => x.status === 503 && x.op !== 'health')) {
      expect(c.body, `${c.op} at +${c.started - t.stop} ms`).toEqual({ error: 'unavailable', message: expect.any(String) });
      expect(c.body.message.length).toBeGreaterThan(0);
    }
    // 503s belong to the outage (and the moments it takes to reconnect), never to normal service
    for (const c of api.calls.filter((x) => x.status === 503)) {
      expect(c.ended, `${c.op} 503 before the outage`).toBeGreaterThanOrEqual(t.stop);
      expect(c.started, `${c.op} 503 long after Postgres was back`).toBeLessThanOrEqual(t.up + RECOVERY_MS);
    }
    const latencyDuringOutage = Math.max(...api.calls.filter((c) => c.ended >= t.stop && c.started <= t.up).map((c) => c.ended - c.started));
    console.log(`postgres-restart: ${api.calls.length} requests, slowest during the outage ${latencyDuringOutage} ms`);
  });

  it('/health answers 503 "unavailable" promptly while Postgres is down', () => {
    // answered before Postgres was asked to start again (once started, it accepts connections a
    // little before start() returns, and a check in that moment rightly answers 200)
    const down = api.calls.filter((c) => c.op === 'health' && c.started >= t.down && c.ended <= t.starting);
    expect(down.length, 'health was asked during the outage').toBeGreaterThan(0);
    for (const c of down) {
      expect(c.status).toBe(503);
      expect(c.body).toMatchObject({ status: 'unavailable', database: 'unreachable' });
      expect(c.ended - c.started).toBeLessThanOrEqual(HEALTH_BOUND_MS);
    }
  });

  it('the process stays alive and reports no unhandled error', () => {
    const { stderr, stdout } = serve.output();
    const tail = `stderr:\n${stderr.slice(-4000)}\nstdout:\n${stdout.slice(-4000)}`;
    expect(serve.child.exitCode, tail).toBeNull();
    expect(serve.child.signalCode, tail).toBeNull();
    expect(stderr).not.toMatch(/unhandled|uncaught/i);
    expect(stdout).not.toMatch(/"level":60/); // fatal
  });

  it('within 10 s of Postgres being back: /health 200, every projection running with lag 0', () => {
    expect(recovery.health).toBeTypeOf('number');
    expect(recovery.health as number).toBeLessThanOrEqual(RECOVERY_MS);
  });

  it('within 10 s: a new send is delivered and its status callback arrives (dispatcher, webhook sender)', () => {
    expect(recovery.sendCallback, String(recovery.send)).toBeTypeOf('number');
    expect(recovery.sendDelivered as number).toBeLessThanOrEqual(RECOVERY_MS);
    expect(recovery.sendCallback as number).toBeLessThanOrEqual(RECOVERY_MS);
  });

  it('the scheduler sends a message that fell due after the restart', async () => {
    expect(recovery.scheduledDelivered, String(recovery.scheduler)).toBeTypeOf('number');
    const { rows } = await db.query<{ sent_at: Date }>('SELECT sent_at FROM messages WHERE id = $1', [scheduled.id]);
    const sentAt = rows[0].sent_at.getTime();
    expect(sentAt).toBeGreaterThanOrEqual(scheduled.scheduledAt);
    // due after Postgres was back (else this proves less), and sent within 10 s of both
    expect(scheduled.scheduledAt, 'the message fell due after the restart').toBeGreaterThan(t.up);
    expect(sentAt - Math.max(scheduled.scheduledAt, t.up)).toBeLessThanOrEqual(RECOVERY_MS);
  });

  it('within 10 s: the NOTIFY listener is listening again and a new contact is readable at once', () => {
    expect(recovery.contactCreated, String(recovery.contact)).toBeTypeOf('number');
    expect(recovery.contactCreated as number).toBeLessThanOrEqual(RECOVERY_MS);
    expect(afterRestart.contactListed, 'the created contact is in the very next list').toBe(true);
    expect(recovery.listener, String(recovery.listener)).toBeTypeOf('number');
    expect(recovery.listener as number).toBeLessThanOrEqual(RECOVERY_MS);
    // and the service says so (src/eventstore/postgres.ts logs it)
    expect(serve.output().stdout).toContain('event notifications: listener reconnected');
  });

  it('nothing accepted is lost: every 2xx message reaches its end with its callback, every 2xx contact is there', async () => {
    const { messages, contacts } = accepted;
    // messages accepted before, during and after the outage
    expect(messages.length).toBeGreaterThan(5);
    let last = '';
    await eventually('every accepted message delivered', async () => {
      const { rows } = await db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM messages WHERE id = ANY($1) GROUP BY status', [messages]);
      last = JSON.stringify(rows);
      return rows.length === 1 && rows[0].status === 'delivered' && rows[0].n === messages.length ? true : undefined;
    }, 30_000, 200).catch(async (err: Error) => {
      const { rows: stuck } = await db.query<{ id: string }>(`SELECT id FROM messages WHERE id = ANY($1) AND status <> 'delivered'`, [messages]);
      const { rows: events } = await db.query(
        `SELECT stream_id, stream_revision, type, data, created_at FROM es_events WHERE stream_id = ANY($1) ORDER BY stream_id, stream_revision`,
        [stuck.map((r) => `message-${r.id}`)],
      );
      throw new Error(`${err.message}: ${last} of ${messages.length}; t=${JSON.stringify(t)}\nstuck:\n${events.map((e) => JSON.stringify(e)).join('\n')}\nservice warnings:\n${serviceWarnings()}`);
    });
    const { rows: streams } = await db.query<{ stream_id: string }>('SELECT stream_id FROM es_streams WHERE stream_id = ANY($1)', [messages.map((id) => `message-${id}`)]);
    expect(streams).toHaveLength(messages.length);
    await eventually('every delivered callback', async () => {
      const got = new Set(receiver.hits.filter((x) => x.json?.type === 'message.delivered').map((x) => x.json.data.message_id));
      return messages.every((id) => got.has(id)) ? true : undefined;
    }, 30_000, 200);
    // duplicates of a callback (at least once) are the same event
    const byEvent = new Map<string, Set<string>>();
    for (const hit of receiver.hits) byEvent.set(h(hit, 'x-service-event-id'), (byEvent.get(h(hit, 'x-service-event-id')) ?? new Set()).add(hit.body));
    for (const [eventId, bodies] of byEvent) expect(bodies.size, eventId).toBe(1);

    const { rows } = await db.query<{ id: string }>('SELECT id FROM contacts WHERE id = ANY($1)', [contacts]);
    expect(rows.map((r) => r.id).sort()).toEqual([...contacts].sort());
  });
});
