// The partitioned log (src/eventstore/partitions.ts, README "The log at scale"): es_events is
// partitioned by range of position, partitions are made ahead of need while appends go on, and a
// log kept in one table before is moved into partitions by the migrations without being copied.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../../src/db/migrations.ts';
import { createPool } from '../../src/db/pool.ts';
import { logPartitions } from '../../src/eventstore/partitions.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { type NewEvent, START } from '../../src/eventstore/port.ts';
import { migrate, SCHEMA } from '../../src/schema.ts';
import { freshDatabase } from '../support/harness.ts';
import { newStreamId } from './contract.ts';

const ev = (n: number): NewEvent => ({ type: 'Counted', data: { n } });
const events = (from: number, count: number) => Array.from({ length: count }, (_, i) => ev(from + i));

async function relkind(pool: pg.Pool, table: string): Promise<string | undefined> {
  return (await pool.query<{ relkind: string }>('SELECT relkind FROM pg_class WHERE oid = to_regclass($1)', [table])).rows[0]?.relkind;
}

async function readWhole(store: PostgresEventStore) {
  const all = [];
  for (let after = START; ; ) {
    const batch = await store.readAll({ after, maxCount: 97 });
    if (batch.length === 0) return all;
    all.push(...batch);
    after = batch[batch.length - 1].position;
  }
}

/** The whole log as readAll gives it, once every event is readable (an open transaction elsewhere in the cluster holds readers back a while). */
async function readAllOf(pool: pg.Pool, store: PostgresEventStore) {
  const stored = Number((await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM es_events')).rows[0].n);
  for (const deadline = Date.now() + 30_000; ; ) {
    const all = await readWhole(store);
    if (all.length >= stored || Date.now() > deadline) return all;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every event's place in the log, read from the table (not through a reader). */
async function rowsOf(pool: pg.Pool) {
  return (await pool.query<{ gp: string; stream_id: string; rev: string; id: string }>('SELECT global_position::text AS gp, stream_id, stream_revision::text AS rev, event_id AS id FROM es_events ORDER BY global_position')).rows;
}

describe('a new log', () => {
  let pool: pg.Pool;
  let url: string;
  let store: PostgresEventStore;
  beforeAll(async () => {
    url = await freshDatabase();
    pool = createPool(url);
    await migrate(pool);
    store = new PostgresEventStore(pool, url, { partitionEvents: 100 });
  });
  afterAll(async () => {
    await store?.close();
    await pool?.end();
  });

  it('is partitioned; partitions are made ahead of the appends, and a stream read or the log read crosses them', async () => {
    expect(await relkind(pool, 'es_events')).toBe('p');
    const long = newStreamId('long');
    let revision: bigint | 'no_stream' = 'no_stream';
    // one stream across several partitions, other streams between its appends, one append larger than a partition
    for (let i = 0; i < 5; i++) {
      revision = (await store.append(long, events(i * 60, 60), revision)).nextExpectedRevision;
      await store.appendMany(Array.from({ length: 10 }, (_, j) => ({ streamId: newStreamId(`other${i}`), events: events(j, 3), expected: 'no_stream' as const })));
    }
    revision = (await store.append(long, events(300, 250), revision)).nextExpectedRevision;
    expect(revision).toBe(549n);

    const parts = await logPartitions(pool);
    expect(parts.length).toBeGreaterThanOrEqual(9);
    // contiguous ranges, each its own table of the partitioned log
    for (let i = 1; i < parts.length; i++) expect(parts[i].from).toBe(parts[i - 1].to);
    const { rows } = await pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM pg_inherits WHERE inhparent = 'es_events'::regclass`);
    expect(Number(rows[0].n)).toBe(parts.length);
    // always a partition's worth of room beyond the last position
    const head = (await pool.query<{ gp: string }>('SELECT max(global_position)::text AS gp FROM es_events')).rows[0].gp;
    await store.ensurePartitions();
    expect((await logPartitions(pool)).at(-1)!.to - BigInt(head)).toBeGreaterThanOrEqual(100n);

    const stream = await store.readStream(long);
    expect(stream.map((e) => e.data.n)).toEqual(Array.from({ length: 550 }, (_, i) => i));
    expect(stream.map((e) => e.revision)).toEqual(Array.from({ length: 550 }, (_, i) => BigInt(i)));
    const backwards = await store.readStream(long, { direction: 'backwards', fromRevision: 420n, maxCount: 3 });
    expect(backwards.map((e) => e.revision)).toEqual([420n, 419n, 418n]);
    // windows that begin in one partition and end several later
    expect((await store.readStream(long, { fromRevision: 50n, maxCount: 200 })).map((e) => e.revision)).toEqual(Array.from({ length: 200 }, (_, i) => BigInt(50 + i)));
    expect((await store.readStream(long, { fromRevision: 530n })).map((e) => e.revision)).toEqual(Array.from({ length: 20 }, (_, i) => BigInt(530 + i)));
    const whole = await readAllOf(pool, store);
    expect(whole).toHaveLength(550 + 5 * 30);
    expect(new Set(whole.map((e) => e.position.prepare)).size).toBe(whole.length);
  });

  it('keeps a stream\'s revisions unique across partitions: a stale expectation is a conflict wherever its events lie', async () => {
    const stream = newStreamId('unique');
    await store.append(stream, events(0, 80), 'no_stream');
    await store.appendMany(Array.from({ length: 10 }, () => ({ streamId: newStreamId('filler'), events: events(0, 20), expected: 'no_stream' as const })));
    await expect(store.append(stream, [ev(1)], 40n)).rejects.toThrow(/wrong expected version/);
    await expect(store.append(stream, [ev(1)], 'no_stream')).rejects.toThrow(/wrong expected version/);
    expect((await store.append(stream, [ev(80)], 79n)).nextExpectedRevision).toBe(80n);
    expect((await store.readStream(stream)).map((e) => e.revision)).toEqual(Array.from({ length: 81 }, (_, i) => BigInt(i)));
  });

  it("reads a stream from its first event's partition to its last: the partitions before and after it are skipped", async () => {
    // partitions before the stream's, and after it
    const fill = () => store.appendMany(Array.from({ length: 40 }, () => ({ streamId: newStreamId('fill'), events: events(0, 20), expected: 'no_stream' as const })));
    await fill();
    const stream = newStreamId('middle');
    let r = (await store.append(stream, events(0, 3), 'no_stream')).nextExpectedRevision;
    await store.appendMany(Array.from({ length: 10 }, () => ({ streamId: newStreamId('between'), events: events(0, 10), expected: 'no_stream' as const })));
    r = (await store.append(stream, events(3, 2), r)).nextExpectedRevision;
    await fill();
    const written = await store.readStream(stream);
    expect(written.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n]);
    const [first, last] = [written[0].position.prepare, written[4].position.prepare];
    const { rows } = await pool.query<{ first: string }>('SELECT first_position::text AS first FROM es_streams WHERE stream_id = $1', [stream]);
    expect(BigInt(rows[0].first)).toBe(first);
    // the partitions whose indexes the read used, from the table statistics (this session's, flushed at once)
    const parts = await logPartitions(pool);
    const client = await pool.connect();
    try {
      await client.query('SET stats_fetch_consistency = none');
      const scans = async () =>
        new Map((await client.query<{ relname: string; n: string }>('SELECT relname, idx_scan::text AS n FROM pg_stat_user_tables WHERE relname = ANY($1)', [parts.map((p) => p.name)])).rows.map((r) => [r.relname, Number(r.n)]));
      await client.query('SELECT pg_stat_force_next_flush()');
      const before = await scans();
      const { rows: read } = await client.query('SELECT stream_revision FROM es_read_stream($1, NULL, false, NULL)', [stream]);
      expect(read).toHaveLength(5);
      await client.query('SELECT pg_stat_force_next_flush()');
      const after = await scans();
      const used = parts.filter((p) => (after.get(p.name) ?? 0) > (before.get(p.name) ?? 0));
      expect(parts.filter((p) => p.to <= first).length).toBeGreaterThan(5);
      expect(used.length).toBeGreaterThan(0);
      expect(used.filter((p) => p.to <= first)).toEqual([]);
      // nor the partitions after its last event: the read stops once it holds the stream's revision
      expect(parts.filter((p) => p.from > last).length).toBeGreaterThan(5);
      expect(used.filter((p) => p.from > last)).toEqual([]);
      // a window of it: from a revision, at most a count, across its two partitions
      expect((await client.query('SELECT stream_revision FROM es_read_stream($1, 2, false, 2)', [stream])).rows.map((x) => x.stream_revision)).toEqual(['2', '3']);
      expect((await client.query('SELECT stream_revision FROM es_read_stream($1, 4, false, NULL)', [stream])).rows.map((x) => x.stream_revision)).toEqual(['4']);
      expect((await client.query('SELECT stream_revision FROM es_read_stream($1, 5, false, NULL)', [stream])).rows).toEqual([]);
      expect((await client.query('SELECT stream_revision FROM es_read_stream($1, NULL, false, 0)', [stream])).rows).toEqual([]);
      // a stream nobody wrote (every command that makes one reads it first) reads no partition at all
      await client.query('SELECT pg_stat_force_next_flush()');
      const beforeNew = await scans();
      expect((await client.query('SELECT stream_revision FROM es_read_stream($1, NULL, false, NULL)', [newStreamId('unwritten')])).rows).toEqual([]);
      await client.query('SELECT pg_stat_force_next_flush()');
      const afterNew = await scans();
      expect(parts.filter((p) => (afterNew.get(p.name) ?? 0) > (beforeNew.get(p.name) ?? 0))).toEqual([]);
    } finally {
      client.release();
    }
  });

  it('attaches partitions while appends go on: none fails, none is lost', async () => {
    const before = (await logPartitions(pool)).length;
    const writers = 16;
    const streams = Array.from({ length: writers }, () => newStreamId('busy'));
    await Promise.all(
      streams.map(async (s) => {
        let r: bigint | 'no_stream' = 'no_stream';
        for (let i = 0; i < 40; i++) r = (await store.append(s, events(i * 2, 2), r)).nextExpectedRevision;
      }),
    );
    // 1,280 events: at least a partition made beside the appends, whatever was made ahead before
    expect((await logPartitions(pool)).length).toBeGreaterThan(before);
    for (const s of streams) expect((await store.readStream(s)).map((e) => e.data.n)).toEqual(Array.from({ length: 80 }, (_, i) => i));
  });
});

describe('a log kept in one table', () => {
  let pool: pg.Pool;
  let url: string;
  beforeAll(async () => {
    url = await freshDatabase();
    pool = createPool(url);
  });
  afterAll(async () => {
    await pool?.end();
  });

  it('is moved into partitions by the migrations: its table becomes the first, nothing is copied, positions go on', async () => {
    await runMigrations(pool, SCHEMA.filter((m) => m.id < 69));
    expect(await relkind(pool, 'es_events')).toBe('r');
    const old = new PostgresEventStore(pool, url, { partitionEvents: 100 });
    const streams = Array.from({ length: 30 }, () => newStreamId('before'));
    for (const s of streams) await old.append(s, events(0, 10), 'no_stream');
    const before = await rowsOf(pool);
    const { rows: file } = await pool.query<{ node: string }>(`SELECT relfilenode::text AS node FROM pg_class WHERE oid = 'es_events'::regclass`);

    // an appender keeps going while the bound is added and checked (migrations 69 and 70)
    let stop = false;
    const during = newStreamId('during');
    let written = 0;
    let started!: () => void;
    const going = new Promise<void>((resolve) => (started = resolve));
    const appender = (async () => {
      let r: bigint | 'no_stream' = 'no_stream';
      while (!stop) {
        r = (await old.append(during, [ev(written)], r)).nextExpectedRevision;
        written++;
        started();
      }
    })();
    await going;
    await runMigrations(pool, SCHEMA.filter((m) => m.id < 71));
    stop = true;
    await appender;
    await old.close();
    await migrate(pool);

    expect(await relkind(pool, 'es_events')).toBe('p');
    expect(await relkind(pool, 'es_events_0')).toBe('r');
    // the same table (its file), attached as it was
    expect((await pool.query<{ node: string }>(`SELECT relfilenode::text AS node FROM pg_class WHERE oid = 'es_events_0'::regclass`)).rows[0].node).toBe(file[0].node);

    const store = new PostgresEventStore(pool, url, { partitionEvents: 100 });
    try {
      const after = await rowsOf(pool);
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after).toHaveLength(before.length + written);
      expect(await readAllOf(pool, store)).toHaveLength(after.length);
      // appends go on after the positions the table gave, into the first partition until its bound, then into new ones
      const lastBefore = BigInt(after.at(-1)!.gp);
      const next = await store.append(streams[0], [ev(10)], 9n);
      expect(next.position.prepare).toBeGreaterThan(lastBefore);
      expect((await store.readStream(streams[0])).map((e) => e.data.n)).toEqual(Array.from({ length: 11 }, (_, i) => i));
      const first = (await logPartitions(pool))[0];
      expect(first).toMatchObject({ name: 'es_events_0', from: BigInt(before[0].gp) });
      // the first partition has room for the events of processes still running the version before
      expect(first.to - lastBefore).toBeGreaterThan(1_000_000n);
    } finally {
      await store.close();
    }
  });
});
