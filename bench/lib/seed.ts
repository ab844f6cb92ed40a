// Fast seeding of a contact-event history straight into es_events / es_streams, in SQL: a staging
// table of (order, contact, revision, type), then one INSERT … SELECT per chunk so the log holds
// many transactions (as real appends make) in commit order.
import type pg from 'pg';
import { DEFAULT_PARTITION_EVENTS, ensurePartitions } from '../../src/eventstore/partitions.ts';
import { type BenchDatabase, freshDatabase } from './db.ts';
import { BENCH_ACCOUNT } from './events.ts';
import type { BenchContext } from './scenario.ts';
import { now, progress } from './stats.ts';

export interface SeedShape {
  events: number;
  contacts: number;
  updated: number;
  deleted: number;
  /** rows the contacts read model must hold after applying everything */
  liveContacts: number;
}

/**
 * The mix for `events` events: 40% ContactCreated, 50% ContactUpdated (2 updates each for the first
 * 62.5% of contacts), 10% ContactDeleted (every 4th contact). A contact's events are spread across
 * the log (event r of contact i sits near i + r·contacts/4), as a stream of real traffic interleaves them.
 */
export function seedShape(events: number): SeedShape {
  const contacts = Math.max(4, Math.floor(events * 0.4));
  const updated = Math.floor(contacts * 0.625);
  const deleted = Math.floor(contacts / 4);
  return { events: contacts + updated * 2 + deleted, contacts, updated, deleted, liveContacts: contacts - deleted };
}

const FIRST = `ARRAY['Ada','Grace','Alan','Edsger','Barbara','Donald','Frances','Ken','Margaret','Dennis']`;
const LAST = `ARRAY['Lovelace','Hopper','Turing','Dijkstra','Liskov','Knuth','Allen','Thompson','Hamilton','Ritchie']`;

/** `partitionEvents`: positions per partition of the log the seed makes (the service's default unless given). */
export async function seedContactEvents(pool: pg.Pool, shape: SeedShape, chunk = 5_000, partitionEvents = DEFAULT_PARTITION_EVENTS): Promise<void> {
  const t0 = now();
  const { contacts, updated } = shape;
  const spread = Math.max(1, Math.floor(contacts / 4));
  await pool.query(`DROP TABLE IF EXISTS bench_seed`);
  await pool.query(
    `CREATE UNLOGGED TABLE bench_seed AS
     WITH c AS (
       SELECT i, CASE WHEN i <= $2 THEN 2 ELSE 0 END AS nupd, (i % 4 = 0) AS del FROM generate_series(1, $1::int) AS i
     ), ev AS (
       SELECT i, 0 AS rev, 'ContactCreated' AS type FROM c
       UNION ALL SELECT c.i, k, 'ContactUpdated' FROM c, generate_series(1, c.nupd) AS k
       UNION ALL SELECT i, nupd + 1, 'ContactDeleted' FROM c WHERE del
     )
     SELECT row_number() OVER (ORDER BY i + rev::bigint * $3, i)::int AS ord, i, rev, type FROM ev`,
    [contacts, updated, spread],
  );
  await pool.query(`CREATE INDEX ON bench_seed (ord)`);
  const total = Number((await pool.query(`SELECT count(*)::int AS n FROM bench_seed`)).rows[0].n);
  // the log's partitions for every position the seed takes (an append makes them as it goes)
  await ensurePartitions(pool, partitionEvents, total + partitionEvents);
  const acct = BENCH_ACCOUNT.replace(/'/g, "''");
  const insert = `
    INSERT INTO es_events (stream_id, stream_revision, event_id, type, data, metadata)
    SELECT 'contact-' || cid, s.rev, gen_random_uuid(), s.type,
      CASE s.type
        WHEN 'ContactCreated' THEN jsonb_build_object(
          'account_id', '${acct}', 'id', cid,
          'fields', jsonb_build_object(
            'email', 'person' || s.i || '@example.com', 'phone', '+1415555' || lpad((s.i % 10000)::text, 4, '0'),
            'first_name', (${FIRST})[1 + s.i % 10], 'last_name', (${LAST})[1 + (s.i >> 3) % 10],
            'country', 'US', 'language', 'en', 'timezone', 'America/Los_Angeles',
            'tags', jsonb_build_array('newsletter', CASE WHEN s.i % 2 = 1 THEN 'vip' ELSE 'trial' END)),
          'custom_fields', jsonb_build_object('plan', CASE WHEN s.i % 3 = 0 THEN 'free' ELSE 'pro' END, 'score', s.i % 100),
          'created_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
        WHEN 'ContactUpdated' THEN jsonb_build_object(
          'account_id', '${acct}', 'id', cid,
          'changes', jsonb_build_object('first_name', (${FIRST})[1 + (s.i + s.rev) % 10] || s.rev, 'tags', jsonb_build_array('newsletter', 'update-' || s.rev)),
          'custom_fields', jsonb_build_object('score', s.rev),
          'updated_at', to_char((now() + make_interval(secs => s.rev)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
        ELSE jsonb_build_object('account_id', '${acct}', 'id', cid,
          'deleted_at', to_char((now() + make_interval(secs => s.rev)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
      END,
      jsonb_build_object('schemaVersion', 1, 'accountId', '${acct}', 'actor', 'key_01JBENCHKEY000000000000000',
        'requestId', 'req_' || s.ord, 'correlationId', 'req_' || s.ord, 'causationId', 'req_' || s.ord)
    FROM bench_seed s CROSS JOIN LATERAL (SELECT 'ct_01JBENCH' || lpad(s.i::text, 17, '0') AS cid) c
    WHERE s.ord > $1 AND s.ord <= $2 ORDER BY s.ord`;
  let lastReport = now();
  for (let from = 0; from < total; from += chunk) {
    await pool.query(insert, [from, from + chunk]);
    if (now() - lastReport > 5_000) {
      progress(`seeded ${Math.min(total, from + chunk).toLocaleString('en-US')} / ${total.toLocaleString('en-US')} events`);
      lastReport = now();
    }
  }
  await pool.query(
    `INSERT INTO es_streams (stream_id, revision)
     SELECT 'contact-ct_01JBENCH' || lpad(i::text, 17, '0'), max(rev) FROM bench_seed GROUP BY i`,
  );
  await pool.query(`DROP TABLE bench_seed`);
  // set hint bits and statistics now, so no measured reader pays for them
  await pool.query(`VACUUM (ANALYZE) es_events`);
  await pool.query(`VACUUM (ANALYZE) es_streams`);
  progress(`seeded ${total.toLocaleString('en-US')} contact events in ${((now() - t0) / 1000).toFixed(1)} s`);
}

/** A fresh database (a pool of `poolSize`) holding the contact-event history of seedShape(events); dropped again if seeding fails. */
export async function seededDatabase(ctx: BenchContext, label: string, events: number, poolSize: number, partitionEvents?: number): Promise<{ shape: SeedShape; db: BenchDatabase }> {
  const shape = seedShape(events);
  const db = await freshDatabase(ctx.cluster, label, poolSize);
  try {
    await seedContactEvents(db.pool, shape, 5_000, partitionEvents);
  } catch (err) {
    await db.drop();
    throw err;
  }
  return { shape, db };
}

/** The contact the HTTP write scenarios post (i makes the email unique within a run). */
export const benchContact = (run: string, i: number) => ({
  email: `bench-${run}-${i}@example.com`,
  first_name: 'Ada',
  last_name: `Lovelace ${i}`,
  country: 'GB',
  language: 'en',
  tags: ['bench', i % 2 ? 'vip' : 'trial'],
});
