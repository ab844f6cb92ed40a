// The EventStoreDB / KurrentDB adapter.
//
// The event store contract needs a server: it runs when EVENTSTORE_URL is set (e.g.
// esdb://localhost:2113?tls=false; EventStoreDB 22.6 or later), otherwise it registers the suite as
// skipped and says so once.
//
// Without a server, the adapter's own logic is checked against a stand-in client: subscriptions are
// the client's real Subscription transform (@eventstore/db-client 6.x internals) fed with real
// protocol messages, so checkpoints, caughtUp / fellBehind and errors arrive exactly as the client
// delivers them; reads and appends are scripted.
import { randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { AccessDeniedError, EventStoreDBClient, UnavailableError, type Filter, type Position as EsdbPosition } from '@eventstore/db-client';
import subscriptionModule from '@eventstore/db-client/dist/streams/utils/Subscription.js';
import convertModule from '@eventstore/db-client/dist/utils/convertGrpcEvent.js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EsdbEventStore, EsdbPositionError, isPermanentError } from '../../src/eventstore/esdb.ts';
import type { Position, RecordedEvent, Subscription as PortSubscription } from '../../src/eventstore/port.ts';
import { eventStoreContract } from './contract.ts';

const url = process.env.EVENTSTORE_URL;

if (!url) {
  console.log('esdb contract suite skipped: EVENTSTORE_URL is not set (start KurrentDB with docker compose up eventstore)');
}

eventStoreContract('esdb', async () => new EsdbEventStore(url!), { skip: !url });

// ---------------------------------------------------------------------------------------------
// the adapter against a stand-in client

const { Subscription } = subscriptionModule;
const { convertGrpcEvent } = convertModule;
const { ReadResp } = streamsPb;

const pos = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });

function recorded(type: string, at: number | undefined, stream = 'contract-x', revision = 0) {
  const rec = new ReadResp.ReadEvent.RecordedEvent();
  rec.setId(new sharedPb.UUID().setString(randomUUID()));
  rec.setStreamIdentifier(new sharedPb.StreamIdentifier().setStreamName(Buffer.from(stream)));
  rec.setStreamRevision(String(revision));
  // a server before 22.6 sends "no position" (uint64 max) on stream reads
  const p = at === undefined ? '18446744073709551615' : String(at);
  rec.setCommitPosition(p);
  rec.setPreparePosition(p);
  rec.getMetadataMap().set('type', type);
  rec.getMetadataMap().set('content-type', 'application/json');
  rec.getMetadataMap().set('created', String(BigInt(Date.now()) * 10_000n));
  rec.setData(Buffer.from(JSON.stringify({ at: at ?? null })));
  rec.setCustomMetadata(Buffer.from(JSON.stringify({ schemaVersion: 1 })));
  return rec;
}

function eventResp(type: string, at: number, stream?: string, revision?: number) {
  const readEvent = new ReadResp.ReadEvent();
  readEvent.setEvent(recorded(type, at, stream, revision));
  return new ReadResp().setEvent(readEvent);
}

const checkpointResp = (at: number) => new ReadResp().setCheckpoint(new ReadResp.Checkpoint().setCommitPosition(String(at)).setPreparePosition(String(at)));
const caughtUpResp = () => new ReadResp().setCaughtUp(new ReadResp.CaughtUp());
const fellBehindResp = () => new ReadResp().setFellBehind(new ReadResp.FellBehind());
const confirmationResp = () => new ReadResp().setConfirmation(new ReadResp.SubscriptionConfirmation().setSubscriptionId('sub'));

/** A resolved event as the client's reads yield it. */
function resolvedEvent(type: string, at: number | undefined, stream?: string, revision?: number) {
  const readEvent = new ReadResp.ReadEvent();
  readEvent.setEvent(recorded(type, at, stream, revision));
  return convertGrpcEvent(readEvent);
}

/** A gRPC service error as grpc-js raises it (the client converts it by its status code). */
const grpcError = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details });

interface FakeSubscription {
  options: { fromPosition?: unknown; filter?: Filter };
  source: PassThrough;
  sub: InstanceType<typeof Subscription>;
}

class FakeClient {
  readonly subscriptions: FakeSubscription[] = [];
  /** the newest record of $all, for the adapter's "what is live" read */
  head = 1000;
  appendResult: { success: boolean; nextExpectedRevision: bigint; position?: EsdbPosition } = { success: true, nextExpectedRevision: 0n };
  streamReads: (ReturnType<typeof resolvedEvent> | undefined)[][] = [];
  readonly readStreamCalls: unknown[] = [];

  subscribeToAll(options: FakeSubscription['options'] = {}) {
    const source = Object.assign(new PassThrough({ objectMode: true }), { cancel: () => source.end() });
    const sub = new Subscription(async () => source as never, convertGrpcEvent, {}, options.filter?.checkpointReached);
    this.subscriptions.push({ options, source, sub });
    return sub;
  }

  readAll() {
    return Object.assign(Readable.from([resolvedEvent('$statsCollected', this.head, '$stats')]), { cancel: async () => undefined });
  }

  async appendToStream() {
    return this.appendResult;
  }

  readStream(...args: unknown[]) {
    this.readStreamCalls.push(args);
    const events = (this.streamReads.shift() ?? []).filter((e) => e !== undefined);
    return Object.assign(Readable.from(events), { cancel: async () => undefined });
  }

  async dispose() {}

  /** The n-th subscription (1-based), once the adapter has made it. */
  async subscription(n: number): Promise<FakeSubscription> {
    for (let i = 0; i < 500 && this.subscriptions.length < n; i++) await new Promise((r) => setTimeout(r, 10));
    if (this.subscriptions.length < n) throw new Error(`the adapter made ${this.subscriptions.length} subscriptions, not ${n}`);
    return this.subscriptions[n - 1];
  }
}

function setup() {
  const client = new FakeClient();
  const log = pino({ level: 'silent' });
  const warn = vi.spyOn(log, 'warn');
  const error = vi.spyOn(log, 'error');
  const store = new EsdbEventStore('esdb://unused:2113?tls=false', { log, client: client as unknown as EventStoreDBClient });
  return { client, store, warn, error };
}

/** Pulls one item from a subscription, failing after a while. */
async function pull(it: AsyncIterator<RecordedEvent>, ms = 3000): Promise<IteratorResult<RecordedEvent>> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      it.next(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('nothing delivered in time')), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const settle = () => new Promise((r) => setTimeout(r, 30));

describe('esdb adapter (stand-in client, no server)', () => {
  let open: { store: EsdbEventStore; sub?: PortSubscription }[] = [];
  afterEach(async () => {
    for (const o of open) {
      await o.sub?.stop();
      await o.store.close();
    }
    open = [];
  });

  function subscribe(types?: string[], after?: Position) {
    const s = setup();
    const sub = s.store.subscribeToAll({ ...(types ? { types } : {}), ...(after ? { after } : {}) });
    open.push({ store: s.store, sub });
    return { ...s, sub, it: sub[Symbol.asyncIterator]() };
  }

  it('filters on the server: exact event types, or every non-system event, with a checkpoint callback', async () => {
    const { client, it } = subscribe(['MessageSent', 'Odd.Type+1']);
    const pending = pull(it).catch(() => undefined);
    const { options } = await client.subscription(1);
    expect(options.filter).toMatchObject({ filterOn: 'eventType', regex: '^(?:MessageSent|Odd\\.Type\\+1)$', checkpointInterval: 32 });
    expect(options.filter?.checkpointReached).toBeTypeOf('function');
    expect(options.fromPosition).toBe('start');
    void pending;

    const all = subscribe(undefined, pos(700));
    const pendingAll = pull(all.it).catch(() => undefined);
    const { options: allOptions } = await all.client.subscription(1);
    expect(allOptions.filter).toMatchObject({ filterOn: 'eventType', regex: '^[^$].*' });
    expect(allOptions.fromPosition).toEqual(pos(700));
    void pendingAll;
  });

  it('resubscribes after a transient drop from the last delivered event, with one warning per drop', async () => {
    const { client, it, warn, error } = subscribe(['T']);
    const delivered = pull(it); // a subscription is made on the first pull
    const first = await client.subscription(1);
    first.source.write(confirmationResp());
    first.source.write(eventResp('T', 100));
    expect((await delivered).value?.position).toEqual(pos(100));
    first.source.emit('error', grpcError(14, 'UNAVAILABLE: connection dropped'));
    const next = pull(it);
    const second = await client.subscription(2);
    expect(second.options.fromPosition).toEqual(pos(100));
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatchObject({ err: expect.any(UnavailableError), position: '100/100', failures: 1 });
    expect(String(warn.mock.calls[0][1])).toMatch(/dropped; resubscribing/);
    // the server resends from after 100; an event at or before it is never delivered twice
    second.source.write(eventResp('T', 100));
    second.source.write(eventResp('T', 200));
    expect((await next).value?.position).toEqual(pos(200));
    expect(error).not.toHaveBeenCalled();
  });

  it('a permanent error (access denied, permission denied) reaches the consumer and is not retried', async () => {
    for (const err of [grpcError(16, 'UNAUTHENTICATED: bad credentials'), grpcError(7, 'PERMISSION_DENIED: no read on $all')]) {
      const { client, it, error } = subscribe();
      const next = pull(it);
      const first = await client.subscription(1);
      first.source.emit('error', err);
      const thrown = await next.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(thrown).toBeInstanceOf(Error);
      expect(isPermanentError(thrown)).toBe(true);
      if (err.code === 16) expect(thrown).toBeInstanceOf(AccessDeniedError);
      expect(error).toHaveBeenCalledTimes(1);
      await settle();
      expect(client.subscriptions).toHaveLength(1);
    }
  });

  it('a checkpoint moves the resume position only once the events buffered before it are delivered', async () => {
    const { client, it } = subscribe(['T']);
    const delivered = pull(it);
    const first = await client.subscription(1);
    first.source.write(eventResp('T', 100));
    first.source.write(eventResp('T', 200));
    first.source.write(checkpointResp(500)); // arrives while 200 still sits in the client's buffer
    expect((await delivered).value?.position).toEqual(pos(100));
    await settle();
    // the connection breaks and the buffer (holding 200) is lost
    first.sub.destroy(new UnavailableError());
    const next = pull(it);
    const second = await client.subscription(2);
    expect(second.options.fromPosition).toEqual(pos(100)); // not 500: that would skip 200
    second.source.write(eventResp('T', 200));
    expect((await next).value?.position).toEqual(pos(200));

    // with nothing buffered, a checkpoint takes effect at once: a long run of other events is not re-read
    second.source.write(checkpointResp(900));
    await settle();
    const after = pull(it);
    second.sub.destroy(new UnavailableError());
    const third = await client.subscription(3);
    expect(third.options.fromPosition).toEqual(pos(900));
    third.source.write(eventResp('T', 950));
    expect((await after).value?.position).toEqual(pos(950));
  });

  it('wakes pollers for live events: after caughtUp, and no longer after fellBehind', async () => {
    const { client, store, it } = subscribe(['T']);
    client.head = 10_000; // everything below is history
    const wakes = () => store.wakeup.ticket();
    const at0 = wakes();
    const delivered = pull(it);
    const first = await client.subscription(1);
    first.source.write(eventResp('T', 100));
    await delivered;
    expect(wakes()).toBe(at0); // history
    first.source.write(caughtUpResp());
    first.source.write(eventResp('T', 200));
    await pull(it);
    expect(wakes()).toBe(at0 + 1);
    first.source.write(fellBehindResp());
    first.source.write(eventResp('T', 300));
    await pull(it);
    expect(wakes()).toBe(at0 + 1);
    first.source.write(caughtUpResp());
    first.source.write(eventResp('T', 400));
    await pull(it);
    expect(wakes()).toBe(at0 + 2);
  });

  it('stop() ends a subscription that is waiting for events', async () => {
    const { client, sub, it } = subscribe(['T']);
    const next = it.next();
    await client.subscription(1);
    await settle();
    await sub.stop();
    expect(await Promise.race([next, new Promise((r) => setTimeout(() => r('still waiting'), 2000))])).toEqual({ done: true, value: undefined });
  });

  it('never invents an appended position: a server without positions on stream reads is an error naming the version', async () => {
    const { client, store } = setup();
    open.push({ store });
    // a multi-event append: its position is its last event's, read back from the stream
    client.appendResult = { success: true, nextExpectedRevision: 1n, position: { commit: 40n, prepare: 40n } };
    const events = [{ type: 'A', data: {}, id: randomUUID() }, { type: 'B', data: {}, id: randomUUID() }];
    const last = resolvedEvent('B', 77, 'contract-x', 1);
    last.event!.id = events[1].id;
    client.streamReads = [[last]];
    expect(await store.append('contract-x', events, 0n)).toEqual({ nextExpectedRevision: 1n, position: pos(77) });

    // a single-event append whose response carries its position
    client.appendResult = { success: true, nextExpectedRevision: 2n, position: { commit: 90n, prepare: 90n } };
    expect((await store.append('contract-x', [{ type: 'C', data: {} }], 1n)).position).toEqual(pos(90));

    // an idempotent re-append's response has no position and the server reports none on stream reads
    client.appendResult = { success: true, nextExpectedRevision: 2n };
    const old = resolvedEvent('C', undefined, 'contract-x', 2);
    const id = old.event!.id;
    client.streamReads = [[old]];
    const err = await store.append('contract-x', [{ type: 'C', data: {}, id }], 1n).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EsdbPositionError);
    expect(String((err as Error).message)).toMatch(/22\.6/);

    // a response with "no position" and a stream read of a different event: an error, never START
    client.appendResult = { success: true, nextExpectedRevision: 3n, position: { commit: 0xffff_ffff_ffff_ffffn, prepare: 0xffff_ffff_ffff_ffffn } };
    client.streamReads = [];
    await expect(store.append('contract-x', [{ type: 'D', data: {} }], 2n)).rejects.toThrow(/could not learn the \$all position/);
  });

  it('reads of a stream without positions fail clearly instead of returning invented ones', async () => {
    const { client, store } = setup();
    open.push({ store });
    client.streamReads = [[resolvedEvent('A', undefined)]];
    await expect(store.readStream('contract-x')).rejects.toBeInstanceOf(EsdbPositionError);
    client.streamReads = [[resolvedEvent('A', 123)]];
    expect((await store.readStream('contract-x'))[0].position).toEqual(pos(123));
  });

  it('classifies errors: permanent ones surface, transient ones are retried', () => {
    expect(isPermanentError(new AccessDeniedError())).toBe(true);
    expect(isPermanentError(new EsdbPositionError('x'))).toBe(true);
    expect(isPermanentError({ type: 'unsupported' })).toBe(true);
    expect(isPermanentError({ type: 'invalid-argument' })).toBe(true);
    expect(isPermanentError({ type: 'unknown', code: 3 })).toBe(true);
    expect(isPermanentError({ type: 'unknown', code: 12 })).toBe(true);
    expect(isPermanentError(new UnavailableError())).toBe(false);
    expect(isPermanentError({ type: 'deadline-exceeded', code: 4 })).toBe(false);
    expect(isPermanentError({ type: 'cancelled', code: 1 })).toBe(false);
    expect(isPermanentError({ type: 'not-leader' })).toBe(false);
    expect(isPermanentError(new Error('Failed to discover after 10 attempts.'))).toBe(false);
    expect(isPermanentError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(false);
  });

  it('is not atomic across streams and says so', () => {
    const { store } = setup();
    open.push({ store });
    expect(store.atomicAppendMany).toBe(false);
  });
});
