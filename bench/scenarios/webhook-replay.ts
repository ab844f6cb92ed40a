// Webhook replay: 100,000 contact.created of one account in the log (sealed, as the service stores
// them) replayed to one healthy receiver — deliveries/s — while live contact.updated deliveries to
// another endpoint run at a steady rate; their append → arrival p99 is measured with the replay
// running and, as the baseline, in the same run without it. The engage server runs as a child.
import { contactCreated, contactUpdated } from '../lib/events.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { NewEvent } from '../../src/eventstore/port.ts';
import { PersonalDataStore } from '../../src/personal-data/store.ts';
import { cpuCost, cpuLine, cpuMeter, startEngage, type ServerChild } from '../lib/child.ts';
import { freshDatabase, statementsOf } from '../lib/db.ts';
import { figure } from '../lib/report.ts';
import { type Scenario, scaled } from '../lib/scenario.ts';
import { now, percentile, progress, sleep, summarise } from '../lib/stats.ts';
import { createEndpoint, epochMs, healthyReceiver, waitFor } from './webhooks.ts';

const LIVE_RATE = 100;
const contactStreamOf = (data: unknown) => `contact-${(data as { id: string }).id}`;

function ofAccount(e: NewEvent, accountId: string): NewEvent {
  return { ...e, data: { ...(e.data as Record<string, unknown>), account_id: accountId }, metadata: { ...e.metadata, accountId } };
}

/** Appends contact.updated of seeded contacts at LIVE_RATE (open loop) until `stop()` says so; returns how many. */
async function liveUpdates(store: PersonalDataStore, accountId: string, first: number, stop: () => boolean): Promise<number> {
  const interval = 1000 / LIVE_RATE;
  const inflight = new Set<Promise<unknown>>();
  const start = now();
  let i = 0;
  while (!stop()) {
    const due = start + i * interval;
    if (due > now()) {
      await sleep(due - now());
      continue;
    }
    const e = ofAccount(contactUpdated(first + i, i), accountId);
    const p = store.append(contactStreamOf(e.data), [e], 'any').finally(() => inflight.delete(p));
    inflight.add(p);
    i++;
  }
  await Promise.all([...inflight]);
  return i;
}

/** Waits (at most 60 s) until every read model has caught up with the log: the seeding's catch-up must not weigh on a measurement. */
async function readModelsAtHead(db: { pool: { query: (sql: string, params?: unknown[]) => Promise<{ rows: { behind: number }[] }> } }, store: PersonalDataStore) {
  const head = await store.headPosition();
  const deadline = now() + 60_000;
  while (now() < deadline) {
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS behind FROM projection_state WHERE active AND (commit_pos, prepare_pos) < ($1::text::xid8, $2::bigint)`,
      [head.commit.toString(), head.prepare.toString()],
    );
    if (rows[0]!.behind === 0) return;
    await sleep(200);
  }
}

/** Deliveries/s to one receiver when the same sender delivers live events (the outbox's rows): what a replay's rate compares with. */
async function liveThroughput(engage: ServerChild, store: PersonalDataStore, accountId: string, n: number): Promise<{ deliveries: number; rate: number }> {
  const receiver = await healthyReceiver();
  try {
    const endpoint = await createEndpoint(engage, receiver.url, ['contact.created']);
    for (let from = 0; from < n; from += 1000) {
      const batch = Array.from({ length: Math.min(1000, n - from) }, (_, k) => ofAccount(contactCreated(10_000_000 + from + k), accountId));
      await store.appendMany(batch.map((e) => ({ streamId: contactStreamOf(e.data), events: [e], expected: 'no_stream' as const })));
    }
    await waitFor(() => receiver.arrivals.length >= n, 300_000);
    const at = receiver.arrivals.map((a) => a.at).sort((a, b) => a - b);
    const removed = await fetch(`${engage.info.url}/v1/webhook-endpoints/${endpoint}`, { method: 'DELETE', headers: { 'x-api-key': engage.info.key! } });
    if (removed.status !== 200) throw new Error(`deleting the baseline endpoint: ${removed.status}`);
    return { deliveries: at.length, rate: at.length / Math.max(0.001, (at[at.length - 1]! - at[0]!) / 1000) };
  } finally {
    await receiver.close();
  }
}

async function getReplay(engage: ServerChild, endpointId: string, replayId: string) {
  const res = await fetch(`${engage.info.url}/v1/webhook-endpoints/${endpointId}/replays/${replayId}`, { headers: { 'x-api-key': engage.info.key! } });
  return (await res.json()) as { status: string; found: number; delivered: number; failed: number; pending: number };
}

export const webhookReplay: Scenario = {
  name: 'webhook-replay',
  description: `replay of 100,000 events to one healthy receiver while live deliveries to another endpoint run at ${LIVE_RATE}/s`,
  async run(ctx) {
    const events = scaled(ctx, 100_000, 2_000);
    const baselineEvents = scaled(ctx, 20_000, 2_000);
    const baselineMs = scaled(ctx, 20_000, 3_000);
    const db = await freshDatabase(ctx.cluster, 'webhook_replay', 8);
    const [replayed, live] = await Promise.all([healthyReceiver(), healthyReceiver()]);
    const store = new PersonalDataStore(new PostgresEventStore(db.pool, db.url), db.pool);
    let engage: ServerChild | undefined;
    try {
      engage = await startEngage(db.url);
      const accountId = engage.info.account_id!;
      const sender = await liveThroughput(engage, store, accountId, baselineEvents);
      progress(`baseline: the sender delivering ${sender.deliveries.toLocaleString('en-US')} live contact.created to one receiver: ${Math.round(sender.rate)}/s`);
      // the history, sealed as the service seals it; no endpoint yet, so nothing is delivered live
      const seededFrom = new Date(Date.now() - 1).toISOString();
      const t0 = now();
      for (let from = 0; from < events; from += 1000) {
        const batch = Array.from({ length: Math.min(1000, events - from) }, (_, k) => ofAccount(contactCreated(from + k), accountId));
        await store.appendMany(batch.map((e) => ({ streamId: contactStreamOf(e.data), events: [e], expected: 'no_stream' as const })));
      }
      progress(`seeded ${events.toLocaleString('en-US')} contact.created in ${((now() - t0) / 1000).toFixed(1)} s`);
      await readModelsAtHead(db, store);
      const replayEp = await createEndpoint(engage, replayed.url, ['contact.created']);
      await createEndpoint(engage, live.url, ['contact.updated']);

      // baseline: live deliveries alone
      let stopBaseline = false;
      const baselineRun = liveUpdates(store, accountId, 0, () => stopBaseline);
      await sleep(baselineMs);
      stopBaseline = true;
      const baselineSent = await baselineRun;
      await waitFor(() => live.arrivals.length >= baselineSent, 30_000);
      const baselineLatency = summarise(live.arrivals.map((a) => a.at - Date.parse(a.created_at)));
      progress(`live alone @ ${LIVE_RATE}/s: append → arrival p50 ${baselineLatency.p50} p99 ${baselineLatency.p99} ms over ${baselineLatency.count}`);
      const liveBefore = live.arrivals.length;

      // the replay, with the live deliveries running beside it until it has completed
      const cpu = cpuMeter(engage.pid, db.name);
      const res = await fetch(`${engage.info.url}/v1/webhook-endpoints/${replayEp}/replay`, {
        method: 'POST',
        headers: { 'x-api-key': engage.info.key!, 'content-type': 'application/json' },
        body: JSON.stringify({ from: seededFrom }),
      });
      const job = (await res.json()) as { id: string };
      if (res.status !== 202) throw new Error(`starting the replay: ${res.status} ${JSON.stringify(job)}`);
      let replayDone = false;
      const liveRun = liveUpdates(store, accountId, baselineSent, () => replayDone);
      const timeoutMs = Math.max(120_000, Math.round(600_000 * Math.min(1, ctx.scale)));
      const complete = await waitFor(() => replayed.arrivals.length >= events, timeoutMs);
      replayDone = true;
      const liveSent = await liveRun;
      await waitFor(() => live.arrivals.length - liveBefore >= liveSent, 30_000);
      const usage = cpu();
      const final = await getReplay(engage, replayEp, job.id);

      const arrivals = [...replayed.arrivals].sort((a, b) => a.at - b.at);
      const first = arrivals[0]?.at ?? 0;
      const last = arrivals[arrivals.length - 1]?.at ?? 0;
      const rate = arrivals.length / Math.max(0.001, (last - first) / 1000);
      const perSecond = new Map<number, number>();
      for (const a of arrivals) perSecond.set(Math.floor((a.at - first) / 1000), (perSecond.get(Math.floor((a.at - first) / 1000)) ?? 0) + 1);
      const inner = [...perSecond.entries()].sort((a, b) => a[0] - b[0]).slice(1, -1).map(([, n]) => n).sort((a, b) => a - b);
      const duringReplay = live.arrivals.slice(liveBefore).filter((a) => a.at >= first && a.at <= last);
      const withReplay = summarise(duringReplay.map((a) => a.at - Date.parse(a.created_at)));
      const unique = new Set(arrivals.map((a) => a.id)).size;
      progress(
        `replayed ${arrivals.length.toLocaleString('en-US')} in ${((last - first) / 1000).toFixed(1)} s = ${Math.round(rate)}/s (steady ${inner.length ? percentile(inner, 50) : '-'}/s)` +
          `${complete ? '' : ' INCOMPLETE'}; live during it: p50 ${withReplay.p50} p99 ${withReplay.p99} ms over ${withReplay.count}; ${cpuLine(usage)}`,
      );
      if (!complete) ctx.notes.push(`webhook-replay: only ${arrivals.length} of ${events} replayed deliveries arrived within ${timeoutMs / 1000} s`);
      const config = { WEBHOOK_CONCURRENCY: 256, WEBHOOK_PER_HOST_CONCURRENCY: 32, replay_window: 256 };
      const statements = await statementsOf(db);
      return [
        figure({
          scenario: 'webhook-replay',
          name: `replay of ${events.toLocaleString('en-US')} events to one receiver`,
          unit: 'deliveries/s',
          better: 'higher',
          value: rate,
          target: { op: '>=', value: 2_000 },
          baseline: { name: 'the same sender delivering live contact.created (outbox rows) to one receiver, same run', value: sender.rate },
          details: {
            events, arrived: arrivals.length, duplicates: arrivals.length - unique, complete, replay: final, steady_per_s: inner.length ? percentile(inner, 50) : null,
            rate_definition: 'replayed arrivals / (last arrival − first arrival), receiver clock', ...usage, cpu_per_delivery: cpuCost(usage, arrivals.length), config,
            ...statements,
          },
        }),
        figure({
          scenario: 'webhook-replay',
          name: `live deliveries to another endpoint during the replay, append → arrival p99 @ ${LIVE_RATE}/s`,
          unit: 'ms',
          better: 'lower',
          value: withReplay.p99,
          target: { op: '<=', value: 250 },
          baseline: { name: 'the same live deliveries with no replay running (same run)', value: baselineLatency.p99 },
          details: { with_replay: withReplay, without_replay: baselineLatency, live_appended: { baseline: baselineSent, during_replay: liveSent } },
        }),
      ];
    } finally {
      await engage?.stop();
      await store.close();
      await Promise.all([replayed.close(), live.close()]);
      await db.drop();
    }
  },
};
