// The event store on a Postgres with JIT (Debian's and the official image's have jit=on): no statement
// the store runs, nested ones inside es_append/es_write included, is JIT-compiled (issue 26, item 1:
// an append that reached the judging step compiled ~480 functions per call, seconds each time).
// The plans are read from auto_explain, sent to the client as notices; a control statement on a
// session of the server's own settings shows that the check does see JIT where it happens.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/pool.ts';
import { WrongExpectedVersionError } from '../../src/eventstore/port.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { migrate } from '../../src/schema.ts';
import { freshDatabase } from '../support/harness.ts';
import { eventually } from '../support/waits.ts';

const STORE_FUNCTIONS = ['es_append', 'es_read_all', 'es_write'];

/** One plan auto_explain reported: the statement's text, its estimated cost, and whether JIT compiled it. */
interface ExplainedPlan {
  query: string;
  cost: number;
  jit: boolean;
}

/** Postgres's default jit_above_cost: a plan estimated above it is compiled wherever JIT is on. */
const DEFAULT_JIT_ABOVE_COST = 100_000;

function explainedPlan(notice: string): ExplainedPlan | undefined {
  const start = notice.indexOf('{');
  if (!notice.startsWith('duration:') || start < 0) return undefined;
  const plan = JSON.parse(notice.slice(start)) as { 'Query Text': string; Plan: { 'Total Cost': number }; JIT?: { Functions: number } };
  return { query: plan['Query Text'], cost: plan.Plan['Total Cost'], jit: plan.JIT !== undefined && plan.JIT.Functions > 0 };
}

describe('postgres event store on a Postgres with JIT', () => {
  let url: string;
  let pool: pg.Pool;
  let store: PostgresEventStore;
  let jitAvailable = false;
  const plans: ExplainedPlan[] = [];

  beforeAll(async () => {
    url = await freshDatabase();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      jitAvailable = (await admin.query<{ on: boolean }>('SELECT pg_jit_available() AS on')).rows[0].on;
      if (jitAvailable) {
        // every statement of every session of this database: JIT-compiled unless JIT is off for it,
        // and explained (nested statements too) to the client that ran it
        const db = new URL(url).pathname.slice(1);
        for (const setting of [
          `jit = on`,
          `jit_above_cost = 0`,
          `session_preload_libraries = 'auto_explain'`,
          `auto_explain.log_min_duration = 0`,
          `auto_explain.log_nested_statements = on`,
          `auto_explain.log_format = json`,
          `auto_explain.log_level = notice`,
        ]) {
          await admin.query(`ALTER DATABASE ${db} SET ${setting}`);
        }
      }
    } finally {
      await admin.end();
    }
    pool = createPool(url, 4);
    pool.on('connect', (client) => client.on('notice', (n) => {
      const plan = explainedPlan(n.message ?? '');
      if (plan) plans.push(plan);
    }));
    await migrate(pool);
    store = new PostgresEventStore(pool, url);
  });

  afterAll(async () => {
    await store?.close();
    await pool?.end();
  });

  it('the append and read functions run with jit = off whatever the server says (pg_proc.proconfig)', async () => {
    const { rows } = await pool.query<{ proname: string; proconfig: string[] | null }>(
      'SELECT proname, proconfig FROM pg_proc WHERE proname = ANY($1::text[]) ORDER BY proname',
      [STORE_FUNCTIONS],
    );
    expect(rows.map((r) => r.proname)).toEqual([...STORE_FUNCTIONS].sort());
    // es_write and es_read_all also plan their statements once per session (generic plans)
    const planned = ['es_read_all', 'es_write'];
    for (const r of rows) expect({ fn: r.proname, config: r.proconfig }).toEqual({ fn: r.proname, config: planned.includes(r.proname) ? ['jit=off', 'plan_cache_mode=force_generic_plan'] : ['jit=off'] });
  });

  it('no statement of an append (written, conflicts, duplicates, ids looked for) or a read is JIT-compiled where JIT compiles everything', async (ctx) => {
    if (!jitAvailable) ctx.skip('this Postgres has no JIT (pg_jit_available() is false): run with DATABASE_URL on one that has');
    // control: a session of the server's own settings (not engage's pool) JIT-compiles a plain read here
    const control = new pg.Client({ connectionString: url });
    const controlPlans: ExplainedPlan[] = [];
    control.on('notice', (n) => {
      const plan = explainedPlan(n.message ?? '');
      if (plan) controlPlans.push(plan);
    });
    await control.connect();
    try {
      await control.query('SELECT count(*) FROM es_events');
    } finally {
      await control.end();
    }
    expect(controlPlans.map((p) => p.jit)).toEqual([true]);

    plans.length = 0;
    const s = `jit-${randomUUID().slice(0, 8)}`;
    const ev = (id?: string) => ({ type: 'JitProbe', data: { at: Date.now() }, ...(id ? { id } : {}) });
    const created = await store.append(`${s}-a`, [ev(), ev()], 'no_stream');
    expect(created.nextExpectedRevision).toBe(1n);
    await store.append(`${s}-a`, [ev()], 1n);
    // exact conflict: judged by es_append
    const conflict = await store.append(`${s}-a`, [ev()], 0n).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(WrongExpectedVersionError);
    expect((conflict as WrongExpectedVersionError).actual).toBe(2n);
    // no_stream on an existing stream, stream_exists on a missing one
    await expect(store.append(`${s}-a`, [ev()], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedVersionError);
    await expect(store.append(`${s}-missing`, [ev()], 'stream_exists')).rejects.toBeInstanceOf(WrongExpectedVersionError);
    // any with caller ids, then the same ids again (a retry after a lost acknowledgement)
    const ids = [randomUUID(), randomUUID()];
    const first = await store.append(`${s}-b`, [ev(ids[0]), ev(ids[1])], 'any');
    const again = await store.append(`${s}-b`, [ev(ids[0]), ev(ids[1])], 'any');
    expect(again).toEqual(first);
    // an exact revision whose events are already there: a duplicate, judged
    const third = randomUUID();
    const written = await store.append(`${s}-b`, [ev(third)], 1n);
    expect(await store.append(`${s}-b`, [ev(third)], 1n)).toEqual(written);
    await store.appendMany([
      { streamId: `${s}-c`, events: [ev()], expected: 'no_stream' },
      { streamId: `${s}-a`, events: [ev()], expected: 'stream_exists' },
    ]);
    // the reads the catch-up readers and /health run. A read stops before any transaction still open
    // anywhere in the cluster (another test file's, on a shared server), so this waits for its own
    // events to become readable, as a catch-up reader would
    const all = await eventually('this test\'s appends to be readable', async () => {
      const read = await store.readAll({ maxCount: 100 });
      return read.some((e) => e.streamId === `${s}-c`) ? read : undefined;
    });
    await store.readAll({ maxCount: 100, types: ['JitProbe'] });
    await store.headPosition();
    await store.headPosition({ includeHeldBack: true });
    await store.countAfter(all[0].position, ['JitProbe'], 100);
    expect((await store.readStream(`${s}-a`)).map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n]);
    // any other statement of engage's pool (the runner's, the webhook sender's): the control's read
    await pool.query('SELECT count(*) FROM es_events');
    expect(plans.some((p) => p.query === 'SELECT count(*) FROM es_events')).toBe(true);

    // the judging step was reached (its statement was explained), and nothing was compiled
    expect(plans.some((p) => p.query.includes('AS state'))).toBe(true);
    expect(plans.filter((p) => p.jit).map((p) => p.query.slice(0, 120))).toEqual([]);
    // and each is cheap in the first place: none would be compiled by a caller that left JIT on
    expect(plans.filter((p) => p.cost >= DEFAULT_JIT_ABOVE_COST).map((p) => `${p.cost}: ${p.query.slice(0, 120)}`)).toEqual([]);
  });
});
