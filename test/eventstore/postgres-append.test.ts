// The Postgres append path under contention and faults (issue 7, defects 1–4): per-stream order in
// the global log, no deadlocks surfaced, idempotent retries after a lost acknowledgement, and a
// conflict inside a batch that names its stream. Each scenario is bounded in time.
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { createPool } from '../../src/db/pool.ts';
import { type ExpectedRevision, type NewEvent, WrongExpectedVersionError } from '../../src/eventstore/port.ts';
import { COPY_MIN_EVENTS, PostgresEventStore, STREAM_LOCK_NAMESPACE } from '../../src/eventstore/postgres.ts';
import { migratedStoreForSuite } from '../support/event-store.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

const db = migratedStoreForSuite(40);

const ev = (type = 'Stress', data: Record<string, unknown> = {}): NewEvent => ({ type, data });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every stream's events, in global-log order: revisions must count up 0, 1, 2, … with no gap or repeat. */
async function streamsOutOfOrder(prefix: string) {
  const { rows } = await db.pool.query<{ stream_id: string; rev: string }>(
    `SELECT stream_id, stream_revision::text AS rev FROM es_events WHERE stream_id LIKE $1 || '%' ORDER BY transaction_id, global_position`,
    [prefix],
  );
  const next = new Map<string, bigint>();
  const bad: string[] = [];
  for (const r of rows) {
    const expected = next.get(r.stream_id) ?? 0n;
    if (BigInt(r.rev) !== expected) bad.push(`${r.stream_id}: revision ${r.rev} where ${expected} was due`);
    next.set(r.stream_id, BigInt(r.rev) + 1n);
  }
  return { events: rows.length, bad };
}

describe('postgres append under contention', () => {
  it('keeps every stream in revision order in the global log: 12 appenders mixing appendMany and append on 50 streams', async () => {
    const prefix = `order${randomUUID().slice(0, 8)}-`;
    const streams = Array.from({ length: 50 }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`);
    for (const s of streams) await db.store.append(s, [ev('Created')], 'no_stream');
    const errors: unknown[] = [];
    const until = Date.now() + 4_000;
    const pick = () => streams[Math.floor(Math.random() * streams.length)];
    const kinds: ExpectedRevision[] = ['any', 'stream_exists'];
    const worker = async (w: number) => {
      while (Date.now() < until) {
        try {
          if (w % 2 === 0) {
            const a = pick();
            let b = pick();
            while (b === a) b = pick();
            await db.store.appendMany([
              { streamId: a, events: [ev()], expected: kinds[Math.floor(Math.random() * 2)] },
              { streamId: b, events: [ev(), ev()], expected: 'any' },
            ]);
          } else {
            await db.store.append(pick(), [ev()], 'any');
          }
        } catch (err) {
          errors.push(err);
        }
      }
    };
    await Promise.all(Array.from({ length: 12 }, (_, w) => worker(w)));
    expect(errors.map(String)).toEqual([]);
    const { events, bad } = await streamsOutOfOrder(prefix);
    expect(events).toBeGreaterThan(500);
    expect(bad).toEqual([]);
  });

  it('never surfaces a deadlock: overlapping appendMany batches with mixed expectations only ever conflict cleanly', async () => {
    const prefix = `dead${randomUUID().slice(0, 8)}-`;
    const streams = Array.from({ length: 20 }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`);
    for (const s of streams) await db.store.append(s, [ev('Created')], 'no_stream');
    const other: unknown[] = [];
    let ok = 0;
    let conflicts = 0;
    const until = Date.now() + 3_000;
    const worker = async () => {
      while (Date.now() < until) {
        // several streams, random order, each with its own kind of expectation
        const chosen = [...streams].sort(() => Math.random() - 0.5).slice(0, 5);
        const batch = await Promise.all(
          chosen.map(async (s, i) => {
            const kind = i % 3;
            if (kind === 0) return { streamId: s, events: [ev()], expected: 'any' as const };
            if (kind === 1) return { streamId: s, events: [ev()], expected: 'stream_exists' as const };
            const [last] = await db.store.readStream(s, { direction: 'backwards', maxCount: 1 });
            return { streamId: s, events: [ev()], expected: last.revision };
          }),
        );
        try {
          await db.store.appendMany(batch);
          ok++;
        } catch (err) {
          if (err instanceof WrongExpectedVersionError) conflicts++;
          else other.push(err);
        }
      }
    };
    await Promise.all(Array.from({ length: 12 }, worker));
    expect(other.map((e) => `${(e as { code?: string }).code ?? ''} ${String(e)}`)).toEqual([]);
    expect(ok).toBeGreaterThan(0);
    expect(conflicts + ok).toBeGreaterThan(50);
    expect((await streamsOutOfOrder(prefix)).bad).toEqual([]);
  });

  it('retries a deadlock that another session causes, and writes the batch once', async () => {
    const a = `deadlock-a-${randomUUID()}`;
    const b = `deadlock-b-${randomUUID()}`;
    await db.store.append(a, [ev('Created')], 'no_stream');
    await db.store.append(b, [ev('Created')], 'no_stream');
    // another session holds the stream lock of whichever of a, b the adapter takes second, then asks
    // for the first: the two wait on each other until Postgres breaks the deadlock
    const key = async (s: string) => (await db.pool.query<{ k: number }>('SELECT hashtext($1) AS k', [s])).rows[0].k;
    const [ka, kb] = [await key(a), await key(b)];
    const [first, second] = ka < kb ? [ka, kb] : [kb, ka];
    const outsider = await db.pool.connect();
    try {
      // Postgres aborts whichever waiter runs its deadlock check first, normally the one that waited
      // first (the adapter); on a loaded machine the adapter's check can come late, so the outsider
      // waits longer before checking (a superuser setting, set outside the transaction so that a
      // refusal aborts nothing: without it, the race stays possible)
      await outsider.query(`SET deadlock_timeout = '10s'`).catch(() => undefined);
      await outsider.query('BEGIN');
      await outsider.query('SELECT pg_advisory_xact_lock($1, $2)', [STREAM_LOCK_NAMESPACE, second]);
      const appending = db.store.appendMany([
        // expectations that take stream locks (an exact revision is checked as the row is written instead)
        { streamId: a, events: [ev('Both')], expected: 'stream_exists' },
        { streamId: b, events: [ev('Both')], expected: 'any' },
      ]);
      // wait until the adapter holds `first` and waits for `second`
      for (let i = 0; i < 200; i++) {
        const { rows } = await db.pool.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid::int = $1`, [second]);
        if (rows.length) break;
        await sleep(10);
      }
      const outsiderWaits = outsider.query('SELECT pg_advisory_xact_lock($1, $2)', [STREAM_LOCK_NAMESPACE, first]).then(
        () => 'locked',
        (err: { code?: string }) => err.code,
      );
      // one of the two is chosen as the deadlock victim; either way the append must succeed
      // the adapter waited first, so its deadlock check runs first: it is the victim, and retries
      // (its retry then waits for the outsider, who now holds both locks)
      const victim = await Promise.race([outsiderWaits, appending.then(() => 'append done')]);
      expect(victim).toBe('locked');
      await outsider.query('COMMIT');
      const results = await appending;
      expect(results.map((r) => r.nextExpectedRevision)).toEqual([1n, 1n]);
    } finally {
      await outsider.query('ROLLBACK').catch(() => undefined);
      await outsider.query('RESET deadlock_timeout').catch(() => undefined);
      outsider.release();
    }
    for (const s of [a, b]) expect((await db.store.readStream(s)).map((e) => e.type)).toEqual(['Created', 'Both']);
  });
});

describe('postgres append: idempotent retries', () => {
  it('re-appending the same events (same ids) at the same place writes nothing and answers as the first time', async () => {
    for (const expected of [0n, 'any', 'stream_exists'] as const) {
      const s = `idem-${randomUUID()}`;
      await db.store.append(s, [ev('Created')], 'no_stream');
      const events = [{ ...ev('One'), id: randomUUID() }, { ...ev('Two'), id: randomUUID() }];
      const first = await db.store.append(s, events, expected);
      const again = await db.store.append(s, events, expected);
      expect(again, `expected ${String(expected)}`).toEqual(first);
      expect((await db.store.readStream(s)).map((e) => e.type)).toEqual(['Created', 'One', 'Two']);
    }
    const fresh = `idem-${randomUUID()}`;
    const created = [{ ...ev('Created'), id: randomUUID() }];
    const first = await db.store.append(fresh, created, 'no_stream');
    expect(await db.store.append(fresh, created, 'no_stream')).toEqual(first);
    expect(await db.store.readStream(fresh)).toHaveLength(1);
  });

  it('is idempotent for appendMany batches too, and still refuses other events at a taken place', async () => {
    const a = `idem-many-${randomUUID()}`;
    const b = `idem-many-${randomUUID()}`;
    await db.store.append(a, [ev('Created')], 'no_stream');
    const batch = [
      { streamId: a, events: [{ ...ev('A1'), id: randomUUID() }], expected: 0n },
      { streamId: b, events: [{ ...ev('B0'), id: randomUUID() }], expected: 'no_stream' as const },
    ];
    const first = await db.store.appendMany(batch);
    expect(await db.store.appendMany(batch)).toEqual(first);
    expect(await db.store.readStream(a)).toHaveLength(2);
    expect(await db.store.readStream(b)).toHaveLength(1);
    // different ids at the same revision: a genuine conflict
    const err = await db.store.append(a, [{ ...ev('Other'), id: randomUUID() }], 0n).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WrongExpectedVersionError);
    expect((err as WrongExpectedVersionError).streamId).toBe(a);
  });

  it('survives a lost commit acknowledgement: the connection drops after the commit, the retry writes nothing twice', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(db.url).port) });
    const proxied = createPool(proxy.rewrite(db.url), 2);
    const viaProxy = new PostgresEventStore(proxied);
    try {
      for (const shape of ['append', 'appendMany'] as const) {
        const a = `lost-ack-${randomUUID()}`;
        const b = `lost-ack-${randomUUID()}`;
        await db.store.append(a, [ev('Created')], 'no_stream');
        // the server's answer to the append statement, including its ReadyForQuery ('Z'): the commit happened
        const swallowed = proxy.swallowNextReply((chunk) => chunk.includes(Buffer.from('Z\0\0\0\x05')) && chunk.includes(Buffer.from('o_stream')));
        const result =
          shape === 'append'
            ? [await viaProxy.append(a, [ev('Once'), ev('Twice?')], 0n)]
            : await viaProxy.appendMany([
                { streamId: a, events: [ev('Once'), ev('Twice?')], expected: 0n },
                { streamId: b, events: [ev('Once')] },
              ]);
        // the proxy really did swallow the committed answer (else the test would prove nothing)
        await Promise.race([swallowed, sleep(10_000).then(() => Promise.reject(new Error('the append answer never came through the proxy')))]);
        expect(result[0].nextExpectedRevision, shape).toBe(2n);
        expect((await db.store.readStream(a)).map((e) => e.type), shape).toEqual(['Created', 'Once', 'Twice?']);
        if (shape === 'appendMany') expect((await db.store.readStream(b)).map((e) => e.type)).toEqual(['Once']);
      }
    } finally {
      await viaProxy.close();
      await proxied.end();
      await proxy.close();
    }
  });
});

describe('postgres append: conflicts name their stream', () => {
  it('a unique violation inside appendMany is a WrongExpectedVersionError for that stream, and nothing of the batch is written', async () => {
    const fine = `uv-fine-${randomUUID()}`;
    const broken = `uv-broken-${randomUUID()}`;
    await db.store.append(broken, [ev('Created')], 'no_stream');
    // an event row the stream table does not know of (as a writer bypassing the adapter would leave)
    await db.pool.query(
      `INSERT INTO es_events (stream_id, stream_revision, event_id, type, data, metadata) VALUES ($1, 1, $2, 'Stray', '{}', '{}')`,
      [broken, randomUUID()],
    );
    const err = await db.store
      .appendMany([
        { streamId: fine, events: [ev()], expected: 'no_stream' },
        { streamId: broken, events: [ev()], expected: 'any' },
      ])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WrongExpectedVersionError);
    expect((err as WrongExpectedVersionError).streamId).toBe(broken);
    expect(await db.store.readStream(fine)).toEqual([]);
  });
});

/** The transaction that wrote each stream's events (all of a stream's events here come from one append). */
async function writers(streams: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await db.pool.query<{ stream_id: string; txid: string }>(
    `SELECT DISTINCT stream_id, transaction_id::text AS txid FROM es_events WHERE stream_id = ANY($1)`,
    [streams],
  );
  return new Map(rows.map((r) => [r.stream_id, r.txid]));
}

describe('postgres append: concurrent small appends go together (group commit)', () => {
  it('appends made at once share one statement and one commit, each caller answered with its own positions', async () => {
    const streams = Array.from({ length: 12 }, (_, i) => `gc-${randomUUID()}-${i}`);
    const results = await Promise.all(streams.map((s, i) => db.store.append(s, [ev('Grouped', { i }), ev('Grouped', { i })], 'no_stream')));
    const byStream = await writers(streams);
    // before: one transaction per append, twelve of them
    expect(new Set(byStream.values()).size).toBe(1);
    for (const [i, s] of streams.entries()) {
      const read = await db.store.readStream(s);
      expect(read.map((e) => (e.data as { i: number }).i)).toEqual([i, i]);
      expect(results[i].nextExpectedRevision).toBe(1n);
      expect(results[i].position).toEqual(read[1].position);
    }
  });

  it('a caller whose expectation fails gets its conflict; the others in its batch are written', async () => {
    const taken = `gc-taken-${randomUUID()}`;
    await db.store.append(taken, [ev('Created')], 'no_stream');
    const others = Array.from({ length: 6 }, (_, i) => `gc-other-${randomUUID()}-${i}`);
    const outcomes = await Promise.allSettled([
      ...others.slice(0, 3).map((s) => db.store.append(s, [ev()], 'no_stream')),
      db.store.append(taken, [ev()], 'no_stream'),
      ...others.slice(3).map((s) => db.store.append(s, [ev()], 'no_stream')),
    ]);
    const conflict = outcomes[3];
    expect(conflict.status).toBe('rejected');
    expect((conflict as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError);
    expect(((conflict as PromiseRejectedResult).reason as WrongExpectedVersionError).streamId).toBe(taken);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(6);
    for (const s of others) expect(await db.store.readStream(s)).toHaveLength(1);
    expect(await db.store.readStream(taken)).toHaveLength(1);
  });

  it('two callers expecting the same revision of one stream never share a batch: exactly one wins, the other conflicts', async () => {
    const stream = `gc-same-${randomUUID()}`;
    await db.store.append(stream, [ev('Created')], 'no_stream');
    const outcomes = await Promise.allSettled([
      db.store.append(stream, [ev('First')], 0n),
      db.store.append(`gc-beside-${randomUUID()}`, [ev()], 'no_stream'),
      db.store.append(stream, [ev('Second')], 0n),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((await db.store.readStream(stream)).map((e) => e.type)).toEqual(['Created', 'First']);
  });

  it('a batch that fails as a whole is written again caller by caller: a stray row fails only its own caller', async () => {
    const broken = `gc-broken-${randomUUID()}`;
    await db.store.append(broken, [ev('Created')], 'no_stream');
    await db.pool.query(
      `INSERT INTO es_events (stream_id, stream_revision, event_id, type, data, metadata) VALUES ($1, 1, $2, 'Stray', '{}', '{}')`,
      [broken, randomUUID()],
    );
    const fine = Array.from({ length: 4 }, (_, i) => `gc-fine-${randomUUID()}-${i}`);
    const outcomes = await Promise.allSettled([...fine.map((s) => db.store.append(s, [ev()], 'no_stream')), db.store.append(broken, [ev()], 'any')]);
    expect(outcomes.slice(0, 4).map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(outcomes[4].status).toBe('rejected');
    expect(((outcomes[4] as PromiseRejectedResult).reason as WrongExpectedVersionError).streamId).toBe(broken);
    for (const s of fine) expect(await db.store.readStream(s)).toHaveLength(1);
  });
});

/** `n` new streams of one or two events (every third has two), data that COPY's text format must escape, optionally with their ids. */
function newStreams(prefix: string, n: number, withIds = false) {
  const event = (type: string, i: number): NewEvent => ({
    type,
    data: { i, text: `tab\there, back\\slash, "quoted", new\nline, \\N, é 😀 ${i}` },
    metadata: { actor: 'copy\ttest' },
    ...(withIds ? { id: randomUUID() } : {}),
  });
  return Array.from({ length: n }, (_, i) => ({
    streamId: `${prefix}${i}`,
    events: i % 3 === 0 ? [event('Created', i), event('Second', i)] : [event('Created', i)],
    expected: 'no_stream' as const,
  }));
}

/** The statements sent through the pool's own query (the one-statement appends) while `run` runs. */
async function appendStatementsDuring(run: () => Promise<unknown>): Promise<string[]> {
  const spy = vi.spyOn(db.pool, 'query');
  try {
    await run();
    return spy.mock.calls.map(([q]) => (typeof q === 'string' ? q : String((q as { name?: string; text?: string }).name ?? (q as { text?: string }).text))).filter((q) => /es_(write|append)/.test(q));
  } finally {
    spy.mockRestore();
  }
}

describe('postgres append: a batch of new streams is copied (README "The write path")', () => {
  it('writes the batch with COPY in one transaction, each stream answered with its own position, its events as given', async () => {
    const prefix = `copy-${randomUUID()}-`;
    const batch = newStreams(prefix, COPY_MIN_EVENTS);
    let results: Awaited<ReturnType<typeof db.store.appendMany>> = [];
    const statements = await appendStatementsDuring(async () => {
      results = await db.store.appendMany(batch);
    });
    // the one-statement append was not used (before: es_write with the whole batch as JSON)
    expect(statements).toEqual([]);
    expect(new Set((await writers(batch.map((b) => b.streamId))).values()).size).toBe(1);
    for (const i of [0, 1, 2, 3, batch.length - 1]) {
      const read = await db.store.readStream(batch[i].streamId);
      expect(read.map((e) => ({ type: e.type, data: e.data, actor: e.metadata.actor }))).toEqual(batch[i].events.map((e) => ({ type: e.type, data: e.data, actor: 'copy\ttest' })));
      expect(results[i].nextExpectedRevision).toBe(BigInt(batch[i].events.length - 1));
      expect(results[i].position).toEqual(read[read.length - 1].position);
    }
    // every stream in revision order in the global log, and readable after the others in it
    expect(await streamsOutOfOrder(prefix)).toEqual({ events: batch.reduce((n, b) => n + b.events.length, 0), bad: [] });
    // each stream's row: its revision and its first event's position (a stream's read starts there; before: none)
    const { rows: streamRows } = await db.pool.query<{ bad: number; n: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE s.revision <> e.r OR s.first_position IS DISTINCT FROM e.lo)::int AS bad
         FROM es_streams s JOIN (SELECT stream_id, max(stream_revision) AS r, min(global_position) AS lo FROM es_events WHERE stream_id LIKE $1 || '%' GROUP BY stream_id) e USING (stream_id)`,
      [prefix],
    );
    expect(streamRows[0]).toEqual({ n: batch.length, bad: 0 });
    const after = await db.store.appendMany(newStreams(`${prefix}next-`, 2));
    expect(after[0].position.commit > results[0].position.commit).toBe(true);
  });

  it('a stream among them that exists already: a WrongExpectedVersionError for it, and nothing of the batch is written', async () => {
    const prefix = `copy-taken-${randomUUID()}-`;
    const batch = newStreams(prefix, COPY_MIN_EVENTS);
    const taken = batch[Math.floor(batch.length / 2)].streamId;
    await db.store.append(taken, [ev('Created')], 'no_stream');
    const err = await db.store.appendMany(batch).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WrongExpectedVersionError);
    expect((err as WrongExpectedVersionError).streamId).toBe(taken);
    const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM es_events WHERE stream_id LIKE $1 || '%'`, [prefix]);
    expect(rows[0].n).toBe(1);
  });

  it('a stream beside them at its exact revision (a campaign progress beside its messages) is written in the same transaction, or the batch not at all', async () => {
    const prefix = `copy-beside-${randomUUID()}-`;
    const beside = `${prefix}progress`;
    await db.store.append(beside, [ev('Created')], 'no_stream');
    const batch = [...newStreams(prefix, COPY_MIN_EVENTS), { streamId: beside, events: [ev('Progress', { through: 1 })], expected: 0n }];
    let results: Awaited<ReturnType<typeof db.store.appendMany>> = [];
    const statements = await appendStatementsDuring(async () => {
      results = await db.store.appendMany(batch);
    });
    expect(statements).toEqual([]);
    const read = await db.store.readStream(beside);
    // every new stream written by the transaction that wrote the progress
    expect(new Set((await writers(batch.slice(0, -1).map((b) => b.streamId))).values())).toEqual(new Set([String(read[1].position.commit)]));
    expect(read.map((e) => e.type)).toEqual(['Created', 'Progress']);
    expect(results[batch.length - 1]).toEqual({ nextExpectedRevision: 1n, position: read[1].position });
    expect(results[0].position.commit).toBe(read[1].position.commit);
    // the same revision again, with new streams: the stream beside conflicts, nothing is written
    const again = [...newStreams(`${prefix}again-`, COPY_MIN_EVENTS), { streamId: beside, events: [ev('Progress', { through: 2 })], expected: 0n }];
    const err = await db.store.appendMany(again).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WrongExpectedVersionError);
    expect((err as WrongExpectedVersionError).streamId).toBe(beside);
    const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM es_events WHERE stream_id LIKE $1 || 'again-%'`, [prefix]);
    expect(rows[0].n).toBe(0);
    expect(await db.store.readStream(beside)).toHaveLength(2);
  });

  it('the same batch again (same ids) writes nothing and answers as the first time', async () => {
    const prefix = `copy-again-${randomUUID()}-`;
    const batch = newStreams(prefix, COPY_MIN_EVENTS, true);
    const first = await db.store.appendMany(batch);
    expect(await db.store.appendMany(batch)).toEqual(first);
    expect(await streamsOutOfOrder(prefix)).toEqual({ events: batch.reduce((n, b) => n + b.events.length, 0), bad: [] });
  });

  it('survives a lost commit acknowledgement: the connection drops after the commit, the retry writes nothing twice', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(db.url).port) });
    const proxied = createPool(proxy.rewrite(db.url), 2);
    const viaProxy = new PostgresEventStore(proxied);
    try {
      const prefix = `copy-lost-ack-${randomUUID()}-`;
      const batch = newStreams(prefix, COPY_MIN_EVENTS);
      // the server's answer to the COMMIT, with its ReadyForQuery ('Z'): the batch is committed
      const swallowed = proxy.swallowNextReply((chunk) => chunk.includes(Buffer.from('COMMIT\0')) && chunk.includes(Buffer.from('Z\0\0\0\x05')));
      const results = await viaProxy.appendMany(batch);
      await Promise.race([swallowed, sleep(10_000).then(() => Promise.reject(new Error('the commit answer never came through the proxy')))]);
      expect(await streamsOutOfOrder(prefix)).toEqual({ events: batch.reduce((n, b) => n + b.events.length, 0), bad: [] });
      const read = await db.store.readStream(batch[3].streamId);
      expect(results[3].position).toEqual(read[read.length - 1].position);
    } finally {
      await viaProxy.close();
      await proxied.end();
      await proxy.close();
    }
  });
});
