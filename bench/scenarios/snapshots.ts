// Snapshots of long streams (README "Snapshots of long streams"): one command on a list stream of
// 100,000 events (an add of a new member, read, decided and appended), decided from the state this
// process held, from the stored snapshot (nothing held: another process, or after a restart), and
// folded from the first event (no snapshots: the baseline, in the same run and database).
import pino from 'pino';
import { listDecider } from '../../commands/list.ts';
import { handleCommand } from '../../src/command-handler.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { EventStore, NewEvent } from '../../src/eventstore/port.ts';
import { attachSnapshots, StreamSnapshots } from '../../src/eventstore/snapshots.ts';
import { freshDatabase } from '../lib/db.ts';
import { figure } from '../lib/report.ts';
import { type Scenario, scaled } from '../lib/scenario.ts';
import { now, progress, summarise } from '../lib/stats.ts';

const ACCOUNT = 'acct_bench_snapshots';

export const streamSnapshots: Scenario = {
  name: 'stream-snapshots',
  description: 'one command on a list stream of 100,000 events: from the held state, the stored snapshot, and the whole fold',
  async run(ctx) {
    const length = scaled(ctx, 100_000, 10_000);
    const rounds = scaled(ctx, 40, 10);
    const db = await freshDatabase(ctx.cluster, 'stream_snapshots', 4);
    const log = pino({ level: 'silent' });
    try {
      const list = 'list-bench';
      const at = new Date().toISOString();
      const events: NewEvent[] = [{ type: 'ListCreated', data: { account_id: ACCOUNT, id: list, name: 'long', description: null, created_at: at } }];
      for (let i = 1; i < length; i++) events.push({ type: 'ListMemberAdded', data: { account_id: ACCOUNT, id: list, contact_id: `ct_${i}`, added_at: at } });
      const writer = new PostgresEventStore(db.pool, db.url);
      let expected: bigint | 'no_stream' = 'no_stream';
      for (let i = 0; i < events.length; i += 10_000) expected = (await writer.append(list, events.slice(i, i + 10_000), expected)).nextExpectedRevision;
      await writer.close();
      progress(`stream-snapshots: a list stream of ${length.toLocaleString('en-US')} events`);

      let n = 0;
      const add = (store: EventStore) =>
        handleCommand(store, listDecider, list, { type: 'AddListMember', accountId: ACCOUNT, contactId: `ct_new_${n++}`, contactExists: true, now: new Date() }, {});
      /** ms of each of `rounds` commands; `before` runs outside the timing */
      const timed = async (store: EventStore, before: () => void = () => undefined) => {
        const samples: number[] = [];
        await add(store); // warm-up: the statements prepared, the snapshot taken
        for (let i = 0; i < rounds; i++) {
          before();
          const t = now();
          await add(store);
          samples.push(now() - t);
        }
        return summarise(samples);
      };

      const whole = new PostgresEventStore(db.pool, db.url);
      const wholeFold = await timed(whole);
      await whole.close();
      const snapshotted = new PostgresEventStore(db.pool, db.url);
      const snapshots = new StreamSnapshots(db.pool, log);
      attachSnapshots(snapshotted, snapshots);
      const held = await timed(snapshotted);
      await snapshots.flush();
      const stored = await timed(snapshotted, () => snapshots.forget());
      await snapshots.flush();
      await snapshotted.close();
      const { rows } = await db.pool.query<{ bytes: string }>(`SELECT pg_column_size(state)::bigint AS bytes FROM stream_snapshots WHERE stream_id = $1`, [list]);
      progress(`stream-snapshots: p50 held ${held.p50.toFixed(1)} ms, stored ${stored.p50.toFixed(1)} ms, whole fold ${wholeFold.p50.toFixed(1)} ms`);

      const base = { name: `the same command folding all ${length.toLocaleString('en-US')} events (no snapshots)`, value: wholeFold.p50 };
      const details = { events: length, rounds, snapshot_bytes: Number(rows[0]?.bytes ?? 0), whole_fold_ms: wholeFold };
      return [
        figure({
          scenario: 'stream-snapshots',
          name: `command on a ${length.toLocaleString('en-US')}-event stream, held state, p50`,
          unit: 'ms',
          better: 'lower',
          value: held.p50,
          target: { op: '<=', value: 20 },
          baseline: base,
          details: { ...details, latency_ms: held },
        }),
        figure({
          scenario: 'stream-snapshots',
          name: `command on a ${length.toLocaleString('en-US')}-event stream, stored snapshot, p50`,
          unit: 'ms',
          better: 'lower',
          value: stored.p50,
          target: null,
          baseline: base,
          details: { ...details, latency_ms: stored },
        }),
      ];
    } finally {
      await db.drop();
    }
  },
};
