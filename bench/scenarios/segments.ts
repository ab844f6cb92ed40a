// Segment count (issue 12): a segment of three rules — a custom field, a standard field and an event
// rule — counted over 1,000,000 contacts as GET /v1/segments/:id counts it (the saved rules read from
// the segments read model, compiled and counted), and as a preview does (the rules validated against
// the read models, compiled and counted); against the hand-written SQL for the same rules, interleaved
// in the same run. The read models are seeded by direct INSERTs (a count reads only them), not by
// replaying events; segment_contacts (what the count reads, README "Segments") is copied from the
// contacts rows by the read model's own statement.
import type pg from 'pg';
import { contactsProjection, copySegmentRows } from '../../projections/contacts.ts';
import { customFieldsProjection } from '../../projections/custom-fields.ts';
import { findProjection } from '../../projections/index.ts';
import { listsProjection } from '../../projections/lists.ts';
import { findSegment, segmentsProjection } from '../../projections/segments.ts';
import { suppressionsProjection } from '../../projections/suppressions.ts';
import { ensureProjection } from '../../src/read-models/generations.ts';
import { compileRules, countSource } from '../../src/segments/compile.ts';
import { countMatching, readModelSources, validRules } from '../../src/segments/service.ts';
import { freshDatabase } from '../lib/db.ts';
import { BENCH_ACCOUNT } from '../lib/events.ts';
import { figure } from '../lib/report.ts';
import { type Scenario, scaled } from '../lib/scenario.ts';
import { now, progress, summarise } from '../lib/stats.ts';

const OTHER_ACCOUNT = 'acct_01JBENCHOTHER0000000000000';
const SEGMENT_ID = 'seg_01JBENCHSEGMENT0000000000';
const WITHIN_DAYS = 30;

/** The segment measured: pro plan, in the US or GB, bought in the last 30 days. */
export const BENCH_RULES = {
  match: 'all' as const,
  rules: [
    { field: 'custom.plan', operator: 'eq', value: 'pro' },
    { field: 'contact.country', operator: 'in', value: ['US', 'GB'] },
    { field: 'event.purchase', operator: 'performed', within_days: WITHIN_DAYS },
  ],
};

/** The same rules written by hand. */
const HAND_WRITTEN = `
  SELECT count(*) AS n FROM contacts c
  WHERE c.account_id = $1 AND c.custom_fields->>'plan' = 'pro' AND c.country IN ('US', 'GB')
    AND EXISTS (SELECT 1 FROM contact_event_counts e
                WHERE e.account_id = $1 AND e.name = 'purchase' AND e.day >= (now() AT TIME ZONE 'UTC')::date - ${WITHIN_DAYS} AND e.contact_id = c.id)`;

/**
 * The read models a count reads, as the service makes them; contact_event_counts as the events
 * read model (contact_events) makes it, or — on a tree without that read model — a table of its shape.
 */
async function readModels(pool: pg.Pool) {
  for (const p of [contactsProjection, customFieldsProjection, listsProjection, suppressionsProjection, segmentsProjection]) await ensureProjection(pool, p);
  const events = findProjection('contact_events');
  if (events) await ensureProjection(pool, events);
  else {
    await pool.query(`CREATE TABLE contact_event_counts (
      account_id text NOT NULL, contact_id text NOT NULL, name text NOT NULL, day date NOT NULL, count int NOT NULL,
      first_at timestamptz NOT NULL, last_at timestamptz NOT NULL, PRIMARY KEY (account_id, name, contact_id, day))`);
  }
}

/**
 * `contacts` contacts of the bench account (and a twentieth as many of another): plan pro/free/team by
 * thirds, countries US/GB/FR/DE by quarters; every third contact bought (purchase) on one of the last
 * 60 days, every second viewed a page (page_view) on three of the last 90 days.
 */
async function seed(pool: pg.Pool, contacts: number) {
  const t0 = now();
  const people = (account: string, n: number, prefix: string) =>
    pool.query(
      `INSERT INTO contacts (id, account_id, email, phone, first_name, last_name, country, language, timezone, tags, custom_fields, created_at, updated_at)
       SELECT $2 || lpad(i::text, 16, '0'), $1, 'person' || i || '@example.com', NULL, 'Ada', 'Lovelace ' || i,
         (ARRAY['US','GB','FR','DE'])[1 + i % 4], 'en', 'Europe/London', ARRAY['newsletter'],
         jsonb_build_object('plan', (ARRAY['pro','free','team'])[1 + i % 3], 'score', i % 100), now(), now()
       FROM generate_series(1, $3::int) AS i`,
      [account, prefix, n],
    );
  await people(BENCH_ACCOUNT, contacts, 'ct_01JBENCHSEG');
  await people(OTHER_ACCOUNT, Math.max(1, Math.floor(contacts / 20)), 'ct_01JBENCHOTH');
  await pool.query(
    `INSERT INTO contact_event_counts (account_id, contact_id, name, day, count, first_at, last_at)
     SELECT $1, 'ct_01JBENCHSEG' || lpad(i::text, 16, '0'), 'purchase', (now() AT TIME ZONE 'UTC')::date - (i % 60), 1 + i % 2, now(), now()
     FROM generate_series(3, $2::int, 3) AS i
     UNION ALL
     SELECT $1, 'ct_01JBENCHSEG' || lpad(i::text, 16, '0'), 'page_view', (now() AT TIME ZONE 'UTC')::date - ((i + k * 30) % 90), 3, now(), now()
     FROM generate_series(2, $2::int, 2) AS i, generate_series(0, 2) AS k`,
    [BENCH_ACCOUNT, contacts],
  );
  await pool.query(
    `INSERT INTO custom_fields (id, account_id, key, label, type, options, created_at)
     VALUES ('fld_01JBENCHPLAN0000000000000', $1, 'plan', 'Plan', 'select', '["pro","free","team"]', now())`,
    [BENCH_ACCOUNT],
  );
  // the slots the contacts read model gives: plan from its definition, then score, first held by the
  // first contact (keys a contact brings in name order); in the other account, in name order
  await pool.query(
    `INSERT INTO segment_custom_keys (account_id, key, slot) VALUES ($1, 'plan', 1), ($1, 'score', 2), ($2, 'plan', 1), ($2, 'score', 2)`,
    [BENCH_ACCOUNT, OTHER_ACCOUNT],
  );
  // every contact's segment row, copied as the read model copies a batch's contacts (in chunks: one
  // statement per 100,000 contacts)
  const { rows: ids } = await pool.query<{ id: string }>('SELECT id FROM contacts ORDER BY id');
  for (let i = 0; i < ids.length; i += 100_000) await copySegmentRows(pool, (base) => base, ids.slice(i, i + 100_000).map((r) => r.id));
  await pool.query(`INSERT INTO segments (id, account_id, name, description, rules, created_at, updated_at) VALUES ($1, $2, 'Recent pro buyers', NULL, $3, now(), now())`, [
    SEGMENT_ID, BENCH_ACCOUNT, JSON.stringify(BENCH_RULES),
  ]);
  // statistics and hint bits now, so no measured query pays for them
  await pool.query('VACUUM (ANALYZE)');
  progress(`seeded ${contacts.toLocaleString('en-US')} contacts and their event counts in ${((now() - t0) / 1000).toFixed(1)} s`);
}

export const segmentCount: Scenario = {
  name: 'segment-count',
  description: 'count of a three-rule segment (custom field, country, event) over 1,000,000 contacts, saved and previewed',
  async run(ctx) {
    const contacts = scaled(ctx, 1_000_000, 2_000);
    const rounds = scaled(ctx, 30, 5);
    const db = await freshDatabase(ctx.cluster, 'segment_count', 4);
    try {
      await readModels(db.pool);
      await seed(db.pool, contacts);

      const saved = async () => {
        const row = await findSegment(db.pool, BENCH_ACCOUNT, SEGMENT_ID);
        return countMatching(db.pool, BENCH_ACCOUNT, row!.rules, new Date());
      };
      const preview = async () => countMatching(db.pool, BENCH_ACCOUNT, await validRules(BENCH_RULES, readModelSources(db.pool, BENCH_ACCOUNT)), new Date());
      const handWritten = async () => Number((await db.pool.query<{ n: string }>(HAND_WRITTEN, [BENCH_ACCOUNT])).rows[0]!.n);

      // the same answer three ways (and a warm cache for all)
      const expected = await handWritten();
      for (const [name, run] of [['saved', saved], ['preview', preview]] as const) {
        const got = await run();
        if (got !== expected) throw new Error(`segment-count: the ${name} count is ${got}, the hand-written SQL's ${expected}`);
      }
      progress(`${expected.toLocaleString('en-US')} of ${contacts.toLocaleString('en-US')} contacts match`);

      // interleaved rounds: a busy moment of the machine hits all three alike
      const times = { saved: [] as number[], preview: [] as number[], hand: [] as number[] };
      for (let i = 0; i < rounds; i++) {
        for (const [key, run] of [['saved', saved], ['preview', preview], ['hand', handWritten]] as const) {
          const t = now();
          await run();
          times[key].push(now() - t);
        }
      }
      const [s, p, h] = [summarise(times.saved), summarise(times.preview), summarise(times.hand)];
      progress(`p50: saved ${s.p50} ms, preview ${p.p50} ms, hand-written SQL ${h.p50} ms (${rounds} rounds)`);
      // the plan the count gets, with its timings and buffers (BENCH_EXPLAIN=1 prints it)
      const source = countSource(BENCH_RULES);
      const q = compileRules(BENCH_RULES, { accountId: BENCH_ACCOUNT, now: new Date() }, source);
      const { rows: planRows } = await db.pool.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) AS n FROM ${source} c WHERE c.account_id = $1 AND ${q.where}`,
        q.params,
      );
      const plan = planRows.map((r) => r['QUERY PLAN']);
      if (process.env.BENCH_EXPLAIN === '1') progress(`the count's plan:\n${plan.join('\n')}`);
      const details = { contacts, matching: expected, rounds, rules: BENCH_RULES, hand_written_sql: HAND_WRITTEN.trim().replace(/\s+/g, ' '), plan };
      const measured = [
        [`count of a saved segment over ${contacts.toLocaleString('en-US')} contacts (3 rules: custom field, country, event), p50`, s],
        ['preview of the same rules (validated, compiled, counted), p50', p],
      ] as const;
      return measured.map(([name, latency]) =>
        figure({
          scenario: 'segment-count',
          name,
          unit: 'ms',
          better: 'lower',
          value: latency.p50,
          target: { op: '<=', value: 200 },
          baseline: { name: 'the hand-written SQL for the same rules', value: h.p50 },
          details: { ...details, latency, baseline_latency: h },
        }),
      );
    } finally {
      await db.drop();
    }
  },
};
