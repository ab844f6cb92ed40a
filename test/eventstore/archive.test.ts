// The log's archive (src/eventstore/archive.ts, README "The log at scale"), end to end on a running
// engage with partitions of 100 positions, archived first to a directory, then (its later
// partitions) to a bucket of a local S3-compatible server: closed partitions written to gzip'd JSON
// lines files with a manifest, detached and dropped; the log, a stream and a rebuild read through
// the archive as they read the table; verify finds a changed file; an erasure holds for archived events.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { contactsProjection } from '../../projections/contacts.ts';
import { archiveLog, archivedPartitions, verifyArchive } from '../../src/eventstore/archive.ts';
import { logPartitions } from '../../src/eventstore/partitions.ts';
import { positionToString, type RecordedEvent, START } from '../../src/eventstore/port.ts';
import { type TestServer, testServerForSuite } from '../support/harness.ts';
import { s3ServerForSuite } from '../support/s3-server.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { eventually } from '../support/waits.ts';

const s3 = s3ServerForSuite();
const server = testServerForSuite(() => ({ LOG_PARTITION_EVENTS: '100', ...s3.config }));

/** Where an archive is written, and its files' bytes read and changed behind the service's back. */
interface Place {
  target: () => Promise<string>;
  read: (location: string) => Promise<Buffer>;
  write: (location: string, bytes: Buffer) => Promise<void>;
}
const s3Key = (location: string) => location.replace(`s3://${s3.bucket}/`, '');
const PLACES: [string, Place][] = [
  ['a directory', { target: () => mkdtemp(path.join(tmpdir(), 'engage-archive-')), read: (f) => readFile(f), write: (f, b) => writeFile(f, b) }],
  ['an S3-compatible bucket', { target: async () => `s3://${s3.bucket}/log/${randomUUID().slice(0, 8)}`, read: (f) => s3.get(s3Key(f)), write: (f, b) => s3.put(s3Key(f), b) }],
];

/** The log read from its start in reads of `maxCount` (which end inside partitions), through the archive where it holds them. */
async function wholeLog(of: TestServer = server, maxCount = 37): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  for (let after = START; ; ) {
    const batch = await of.engage.store.readAll({ after, maxCount });
    if (batch.length === 0) return all;
    all.push(...batch);
    after = batch[batch.length - 1].position;
  }
}

const contactsRows = async () => (await server.engage.pool.query('SELECT id, email, first_name, last_name, created_at FROM contacts ORDER BY id')).rows;

describe('the log archive', () => {
  // in this order, on one log: the bucket's run archives the partitions after the directory's
  it.each(PLACES)('to %s: archives closed partitions; reads, a rebuild and an erasure go through the files; verify finds a changed file', async (_, place) => {
    const acct = await server.newAccount();
    /** every contact made, by id */
    const untouched: string[] = [];
    const make = async (n: number, tag: string) => {
      const made: { id: string; email: string }[] = [];
      for (let i = 0; i < n; i++) {
        const email = `arch-${tag}-${i}-${randomUUID().slice(0, 8)}@example.com`;
        const res = await server.call('POST', '/v1/contacts', { key: acct.key, body: { email, first_name: `Ann${i}`, last_name: 'Archive' } });
        expect(res.status).toBe(201);
        // a second event on the contact's stream, in a later partition than its first
        if (i % 5 === 0) made.push({ id: res.body.id, email });
        else untouched.push(res.body.id);
      }
      return made;
    };
    const early = await make(120, 'early');
    const head = (await server.engage.pool.query<{ gp: string }>('SELECT max(global_position)::text AS gp FROM es_events')).rows[0].gp;
    const late = await make(120, 'late');
    // the early contacts changed after the bound: their streams lie in archived and live partitions both
    for (const c of early) expect((await server.call('PATCH', `/v1/contacts/${c.id}`, { key: acct.key, body: { last_name: 'Changed' } })).status).toBe(200);
    await server.caughtUp(['contacts']);
    const logBefore = await wholeLog();
    const rowsBefore = await contactsRows();
    const streamBefore = await server.engage.store.readStream(`contact-${early[0].id}`);
    const wholeArchived = `contact-${untouched[1]}`;
    const wholeArchivedBefore = await server.engage.store.readStream(wholeArchived);
    expect(wholeArchivedBefore.map((e) => e.type)).toEqual(['ContactCreated']);

    const storage = server.engage.archive;
    const dir = await place.target();
    const before = new Set((await archivedPartitions(server.engage.pool)).map((a) => a.name));
    // a transaction open anywhere in the cluster (another suite's) keeps a partition it may have
    // written from being archived: the command says so, and is run again, as an operator would
    const outcome = await eventually('the partitions before the bound archived', async () => {
      const o = await archiveLog(server.engage.pool, { before: BigInt(head), to: dir, storage });
      return /--before/.test(o.stoppedAt?.reason ?? '') ? o : undefined;
    }, 60_000, 200);
    expect(outcome.stoppedAt?.reason).toMatch(/--before/);
    const archived = (await archivedPartitions(server.engage.pool)).filter((a) => !before.has(a.name));
    expect(archived.length).toBeGreaterThanOrEqual(2);
    expect(BigInt(archived.at(-1)!.to_position)).toBeLessThanOrEqual(BigInt(head) + 1n);
    // detached and dropped: no longer tables of the log
    const { rows: tables } = await server.engage.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM pg_class WHERE relname = ANY($1)`, [archived.map((a) => a.name)]);
    expect(tables[0].n).toBe('0');
    expect((await logPartitions(server.engage.pool)).length).toBeGreaterThan(archived.length);
    // a manifest and one file per partition, readable with standard tools (gzip, JSON lines)
    expect(archived.every((a) => a.file.startsWith(`${dir}/`))).toBe(true);
    const manifest = JSON.parse((await place.read(`${dir}/manifest.json`)).toString('utf8'));
    expect(manifest).toMatchObject({ format: 'engage-log-archive/1', partitions: archived.map((a) => ({ name: a.name, file: `${a.name}.jsonl.gz`, events: a.events, sha256: a.sha256 })) });
    // (the first partition of a new log is empty: its file holds no line)
    const full = archived.find((a) => a.events > 0)!;
    const firstFile = gunzipSync(await place.read(full.file)).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(firstFile).toHaveLength(full.events);
    expect(firstFile[0]).toMatchObject({ gp: expect.any(String), txid: expect.any(String), stream_id: expect.any(String), type: expect.any(String) });
    // verify reads each file once (from a bucket: one download each), its hash and its lines from the same bytes
    const opened = vi.spyOn(storage, 'open');
    try {
      expect((await verifyArchive(storage, dir)).every((r) => r.ok)).toBe(true);
      expect(opened.mock.calls.map(([location]) => location).filter((l) => l.endsWith('.jsonl.gz')).sort()).toEqual(archived.map((a) => a.file).sort());
    } finally {
      opened.mockRestore();
    }

    // the log read from the start: the same events, through the files and then the table
    const logAfter = await wholeLog();
    expect(logAfter.map((e) => [e.id, e.position.prepare, e.type])).toEqual(logBefore.map((e) => [e.id, e.position.prepare, e.type]));
    expect(logAfter.map((e) => e.data)).toEqual(logBefore.map((e) => e.data));
    // a lag counts the archived events too (GET /health, a rebuild through the archive): from each
    // archived partition's counts by type, the partition a position falls in by its share after it
    const store = server.engage.store;
    const ofTypes = (types: string[], from = 0) => logAfter.slice(from).filter((e) => types.includes(e.type)).length;
    const createdType = ['ContactCreated'];
    const changed = ['ContactCreated', 'ContactUpdated'];
    expect(await store.countAfter(START, createdType, 1_000_000)).toBe(ofTypes(createdType));
    expect(await store.countsAfter!([{ after: START, types: createdType }, { after: START, types: changed }], 1_000_000, {})).toEqual([ofTypes(createdType), ofTypes(changed)]);
    expect(await store.countAfter(START, createdType, 3)).toBe(3);
    const inside = logAfter.findIndex((e) => e.position.prepare > BigInt(full.from_position) + 50n);
    const estimate = await store.countAfter(logAfter[inside].position, changed, 1_000_000);
    expect(Math.abs(estimate - ofTypes(changed, inside + 1))).toBeLessThanOrEqual(100);
    // a stream whose first events are archived, read whole and in windows
    expect(await server.engage.store.readStream(`contact-${early[0].id}`)).toEqual(streamBefore);
    expect((await server.engage.store.readStream(`contact-${early[0].id}`, { direction: 'backwards', maxCount: 5 })).map((e) => e.revision)).toEqual(
      [...streamBefore].reverse().slice(0, 5).map((e) => e.revision),
    );
    // a stream every event of which is archived: the table holds none, the read says so and reads the files
    expect((await server.engage.pool.query('SELECT 1 FROM es_events WHERE stream_id = $1', [wholeArchived])).rowCount).toBe(0);
    expect(await server.engage.store.readStream(wholeArchived)).toEqual(wholeArchivedBefore);
    expect(await server.engage.store.readStream(wholeArchived, { direction: 'backwards', maxCount: 1 })).toEqual(wholeArchivedBefore);
    expect(await server.engage.store.readStream(wholeArchived, { fromRevision: 1n })).toEqual([]);
    // a command on it decides on the whole stream; the history shows the archived events
    expect((await server.call('PATCH', `/v1/contacts/${early[0].id}`, { key: acct.key, body: { first_name: 'Anna' } })).status).toBe(200);
    const history = await server.call('GET', `/v1/contacts/${early[0].id}/history`, { key: acct.key });
    expect(history.body.data.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['ContactCreated', 'ContactUpdated']));

    // a rebuild of the contacts read model from the archive gives the rows it had
    await rebuildAndWait(server, contactsProjection);
    const rowsAfter = await contactsRows();
    expect(rowsAfter.filter((r) => r.id !== early[0].id)).toEqual(rowsBefore.filter((r) => r.id !== early[0].id));

    // erasure: no archived value is readable in clear, before or after; after, it cannot be opened either
    const victim = early[1];
    const raw = gunzipSync(Buffer.concat(await Promise.all(archived.map((a) => place.read(a.file))))).toString('utf8');
    expect(raw).toContain(victim.id);
    expect(raw).not.toContain(victim.email);
    // opened through the archive while the key lives
    expect(JSON.stringify((await server.engage.store.readStream(`contact-${victim.id}`)).map((e) => e.data))).toContain(victim.email);
    const erased = await server.call('POST', '/v1/account/erasures', { key: acct.key, body: { email: victim.email } });
    expect(erased.status).toBe(200);
    const afterErasure = await server.engage.store.readStream(`contact-${victim.id}`);
    expect(JSON.stringify(afterErasure.map((e) => e.data))).not.toContain(victim.email);
    const created = afterErasure.find((e) => e.type === 'ContactCreated')!;
    expect(created.position.prepare).toBeLessThan(BigInt(head) + 1n);
    await rebuildAndWait(server, contactsProjection);
    expect((await server.engage.pool.query('SELECT 1 FROM contacts WHERE email = $1', [victim.email])).rowCount).toBe(0);

    // a stream whose first event lies in the last archived partition reads from that partition's file
    // on: the files before it are not opened
    const lastArchived = archived.at(-1)!;
    const later = logBefore.find((e) => e.type === 'ContactCreated' && e.position.prepare >= BigInt(lastArchived.from_position) && e.position.prepare < BigInt(lastArchived.to_position) && early.some((c) => `contact-${c.id}` === e.streamId))!;
    expect(later).toBeDefined();
    const filesBefore = (await archivedPartitions(server.engage.pool)).filter((a) => BigInt(a.to_position) <= later.position.prepare).map((a) => a.file);
    expect(filesBefore.length).toBeGreaterThan(0);
    const laterBefore = (await wholeLog()).filter((e) => e.streamId === later.streamId);
    const opens = vi.spyOn(storage, 'open');
    try {
      expect((await server.engage.store.readStream(later.streamId)).map((e) => e.id)).toEqual(laterBefore.map((e) => e.id));
      expect(opens.mock.calls.map(([location]) => location)).toEqual([lastArchived.file]);
    } finally {
      opens.mockRestore();
    }

    // a changed file is found
    const bytes = await place.read(full.file);
    bytes[bytes.length - 10] ^= 0xff;
    await place.write(full.file, bytes);
    const verified = await verifyArchive(storage, dir);
    const bad = verified.filter((r) => !r.ok);
    expect(bad.map((r) => r.name)).toEqual([full.name]);
    expect(bad[0].problems.join(' ')).toMatch(/SHA-256/);
    // a stream with no archived event is read without the archive's files: the changed one is not opened
    const fresh = await server.call('POST', '/v1/contacts', { key: acct.key, body: { email: `arch-fresh-${randomUUID().slice(0, 8)}@example.com` } });
    expect(fresh.status).toBe(201);
    expect((await server.engage.store.readStream(`contact-${late[0].id}`)).map((e) => e.type)).toEqual(['ContactCreated']);
    expect(await server.engage.store.readStream(`contact-${randomUUID()}`)).toEqual([]);
    // put back: the log is read whole again by the next run
    bytes[bytes.length - 10] ^= 0xff;
    await place.write(full.file, bytes);
    expect((await verifyArchive(storage, dir)).every((r) => r.ok)).toBe(true);
  }, 180_000);
});

// partitions of 1,000 positions: from "1" to five digits ("1001" sorts after "10001" as text) in
// 11 partitions, not the 105 the suite's partitions of 100 would take
describe('the log archive, past 10,000 positions', () => {
  const server = testServerForSuite({ LOG_PARTITION_EVENTS: '1000' });
  it('reads archived partitions in log order where their positions have more digits than the first (numerically, not as text), their events as written (characters split between COPY chunks)', async () => {
    // the log past position 12,000: partitions from "1" to five digits, which sort otherwise as text,
    // and a full one past the one archived last (the archive stops at --before, not at one still filling)
    const head = async () => BigInt((await server.engage.pool.query<{ gp: string }>('SELECT coalesce(max(global_position), 0)::text AS gp FROM es_events')).rows[0].gp);
    // characters of two, three and four bytes, more than one of COPY's chunks of them: some fall across two chunks
    await server.engage.store.append(`order-${randomUUID()}`, [{ type: 'OrderNoted', data: { note: 'ü€𝄞'.repeat(40_000) } }], 'no_stream');
    for (let n = 0; (await head()) < 12_100n; n++) {
      await server.engage.store.append(`order-${randomUUID()}`, Array.from({ length: 500 }, (_, i) => ({ type: 'OrderNoted', data: { n, i } })), 'no_stream');
    }
    const logBefore = await wholeLog(server, 777);
    const dir = await mkdtemp(path.join(tmpdir(), 'engage-archive-order-'));
    const last = await head();
    await eventually('the closed partitions archived', async () => {
      const o = await archiveLog(server.engage.pool, { before: last - 600n, to: dir, storage: server.engage.archive });
      return /--before/.test(o.stoppedAt?.reason ?? '') ? o : undefined;
    }, 60_000, 200);
    const archived = await archivedPartitions(server.engage.pool);
    expect(archived.some((a) => a.from_position.length >= 5)).toBe(true);
    const froms = archived.map((a) => BigInt(a.from_position));
    expect(froms).toEqual([...froms].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const logAfter = await wholeLog(server, 777);
    expect(logAfter.map((e) => [e.id, e.position.prepare])).toEqual(logBefore.map((e) => [e.id, e.position.prepare]));
    expect(logAfter.map((e) => e.data)).toEqual(logBefore.map((e) => e.data));

    // the log filled to its partition's end and every partition archived: the table holds no event,
    // the head is the archive's last
    const all = await eventually('every partition archived', async () => {
      const gone = new Set((await archivedPartitions(server.engage.pool)).map((a) => a.name));
      const at = await head();
      const filling = (await logPartitions(server.engage.pool)).find((p) => !gone.has(p.name) && p.from <= at + 1n && at + 1n < p.to)!;
      const room = Number(filling.to - at - 1n);
      if (room > 0) await server.engage.store.append(`order-${randomUUID()}`, Array.from({ length: room }, (_, i) => ({ type: 'OrderNoted', data: { i } })), 'no_stream');
      await archiveLog(server.engage.pool, { before: (await head()) + 1n, to: dir, storage: server.engage.archive });
      return (await server.engage.pool.query('SELECT 1 FROM es_events LIMIT 1')).rowCount === 0 ? true : undefined;
    }, 60_000, 200);
    expect(all).toBe(true);
    const lastArchived = (await archivedPartitions(server.engage.pool)).at(-1)!;
    expect(positionToString(await server.engage.store.headPosition())).toBe(lastArchived.last);
    expect((await wholeLog(server, 777)).length).toBeGreaterThan(logBefore.length);
  }, 180_000);
});
