// The event store as the rest of engage sees it: personal data is sealed on the way in (under its
// subject's key, src/personal-data/rules.ts) and opened on the way out, in batches — one query for
// the keys of an append, one for the keys of a read. Keys are never cached across calls: once a key
// is destroyed, no read anywhere shows what it sealed.
import type pg from 'pg';
import type {
  AppendResult,
  CountOptions,
  EventStore,
  ExpectedRevision,
  NewEvent,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from '../eventstore/port.ts';
import { RecentMap } from '../recent-map.ts';
import { addressHasher } from './address-hash.ts';
import { openPersonalData, type SealJob, type SealMany, sealInline, sealedKeyOf, valueAt, withField } from './codec.ts';
import { type DataKey, keysById, keysForFewSubjects } from './keys.ts';
import { PERSONAL_DATA_RULES, type PersonalDataRule } from './rules.ts';

type AppendRequest = { streamId: string; events: readonly NewEvent[]; expected?: ExpectedRevision };
type Data = Record<string, unknown>;

export class PersonalDataStore implements EventStore {
  constructor(
    readonly inner: EventStore,
    private readonly pool: pg.Pool,
    private readonly rules: Readonly<Record<string, PersonalDataRule>> = PERSONAL_DATA_RULES,
  ) {}

  get kind() {
    return this.inner.kind;
  }
  get wakeup() {
    return this.inner.wakeup;
  }
  get atomicAppendMany() {
    return this.inner.atomicAppendMany;
  }

  async append(streamId: string, events: readonly NewEvent[], expected?: ExpectedRevision): Promise<AppendResult> {
    return (await this.appendMany([{ streamId, events, expected }]))[0];
  }

  async appendMany(batch: readonly AppendRequest[]): Promise<AppendResult[]> {
    return this.inner.appendMany(await this.seal(batch));
  }

  async readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.open(await this.inner.readStream(streamId, options));
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    const events = await this.inner.readAll(options);
    return options?.keepSealed ? events : this.open(events);
  }

  subscribeToAll(options?: SubscribeOptions): Subscription {
    const inner = this.inner.subscribeToAll(options);
    const open = (e: RecordedEvent) => this.open([e]).then((opened) => opened[0]);
    async function* iterate(): AsyncGenerator<RecordedEvent> {
      for await (const e of inner) yield await open(e);
    }
    const it = iterate();
    return { [Symbol.asyncIterator]: () => it, stop: () => inner.stop() };
  }

  countAfter(after: Position, types: readonly string[] | undefined, cap: number, options?: CountOptions): Promise<number> {
    return this.inner.countAfter(after, types, cap, options);
  }

  get countsAfter() {
    return this.inner.countsAfter?.bind(this.inner);
  }

  get oldestOpenTransaction() {
    return this.inner.oldestOpenTransaction?.bind(this.inner);
  }

  /** Cross-process wake-ups of the adapter underneath (LISTEN/NOTIFY, a live subscription). */
  async listen(): Promise<void> {
    await (this.inner as { listen?: () => Promise<void> }).listen?.call(this.inner);
  }

  headPosition(options?: CountOptions): Promise<Position> {
    return this.inner.headPosition(options);
  }

  ping(): Promise<boolean> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /**
   * The key id that sealed the first event of each stream this store wrote (a message's
   * MessageAccepted), for the events sealed like it (rule subject 'stream'): a report about a message
   * usually comes to the process that sent it, soon after. Key ids only, never keys; the most recent
   * 10,000 to 20,000 streams (src/recent-map.ts: dropping the oldest entry of one Map one at a time
   * cost seconds of a 10,000-message bulk).
   */
  private readonly firstKeys = new RecentMap<string, string>(10_000);

  /**
   * The key id each stream's first event is sealed under (absent: none, as for a stream written before
   * sealing): remembered ones, the rest in one read where the store can (a dispatcher's batch of status
   * events would otherwise read each message's stream).
   */
  private async firstKeysOf(streamIds: readonly string[]): Promise<Map<string, string>> {
    const keys = new Map<string, string>();
    const unknown: string[] = [];
    for (const s of streamIds) {
      const known = this.firstKeys.get(s);
      if (known !== undefined) keys.set(s, known);
      else unknown.push(s);
    }
    if (unknown.length === 0) return keys;
    const firsts = this.inner.readFirstEvents
      ? await this.inner.readFirstEvents(unknown)
      : new Map((await Promise.all(unknown.map(async (s) => [s, (await this.inner.readStream(s, { maxCount: 1 }))[0]] as const))).filter(([, e]) => e !== undefined) as [string, RecordedEvent][]);
    for (const [s, first] of firsts) {
      const keyId = sealedKeyOf(first.data);
      if (keyId === undefined) continue;
      this.firstKeys.set(s, keyId);
      keys.set(s, keyId);
    }
    return keys;
  }

  /**
   * The batch with every personal field sealed under its subject's key (keys made as needed).
   * `sealMany` does the sealing itself (the CPU of it: src/personal-data/seal-jobs.ts runs a large
   * batch's on CPU work threads); by default it is done here. Events already sealed are left as they
   * are, so a batch sealed before its append is not sealed again by appendMany.
   */
  async seal(batch: readonly AppendRequest[], sealMany: SealMany = sealInline): Promise<AppendRequest[]> {
    type Pending = { request: AppendRequest; event: NewEvent; rule: PersonalDataRule; accountId: string };
    const pending: Pending[] = [];
    for (const b of batch) {
      for (const event of b.events) {
        const rule = this.rules[event.type];
        const data = event.data as Data;
        if (!rule || sealedKeyOf(data) || typeof data?.account_id !== 'string') continue;
        // nothing personal in it (a contact with tags only): no key needed
        if (!rule.paths.some((path) => valueAt(data, path) != null)) continue;
        pending.push({ request: b, event, rule, accountId: data.account_id });
      }
    }
    if (pending.length === 0) return [...batch];
    const jobs: SealJob[] = [];
    const jobEvents: NewEvent[] = [];
    const ofSubject = pending.filter((p) => p.rule.subject !== 'stream');
    if (ofSubject.length > 0) {
      const hash = await addressHasher(this.pool);
      // the address hash an event keeps in clear first: the subject of an address is named by the
      // same hash (one HMAC per message, not two)
      const datas = ofSubject.map((p) => {
        const data = p.event.data as Data;
        const hashed = p.rule.clearHashOf;
        return hashed !== undefined && data.address_hash === undefined && typeof data[hashed] === 'string' ? withField(data, 'address_hash', hash(data[hashed] as string)) : data;
      });
      const subjects = ofSubject.map((p, i) => (p.rule.subject as Exclude<PersonalDataRule['subject'], 'stream'>)(datas[i], hash));
      const byAccount = new Map<string, string[]>();
      ofSubject.forEach((p, i) => {
        const wanted = byAccount.get(p.accountId);
        if (wanted) wanted.push(subjects[i]);
        else byAccount.set(p.accountId, [subjects[i]]);
      });
      const keys = new Map<string, Map<string, DataKey>>();
      for (const [accountId, wanted] of byAccount) keys.set(accountId, await keysForFewSubjects(this.pool, accountId, wanted));
      ofSubject.forEach((p, i) => {
        const key = keys.get(p.accountId)!.get(subjects[i])!;
        jobs.push({ data: datas[i], paths: p.rule.paths, keyId: key.id, key: key.key });
        jobEvents.push(p.event);
        // the stream's first event: what its later events are sealed like
        if (p.request.expected === 'no_stream' && p.request.events[0] === p.event) this.firstKeys.set(p.request.streamId, key.id);
      });
    }
    const ofStream = pending.filter((p) => p.rule.subject === 'stream');
    if (ofStream.length > 0) {
      const firstKeys = await this.firstKeysOf([...new Set(ofStream.map((p) => p.request.streamId))]);
      const keys = await keysById(this.pool, [...firstKeys.values()]);
      for (const p of ofStream) {
        const keyId = firstKeys.get(p.request.streamId);
        // a stream written before sealing has no key: its later events stay as they were written then
        if (keyId === undefined) continue;
        // a key that is gone (the recipient was erased) keeps what is written now already erased
        jobs.push({ data: p.event.data as Data, paths: p.rule.paths, keyId, key: keys.get(keyId) ?? null });
        jobEvents.push(p.event);
      }
    }
    const sealedData = await sealMany(jobs);
    const sealed = new Map<NewEvent, NewEvent>();
    jobEvents.forEach((event, i) => sealed.set(event, { ...event, data: sealedData[i] }));
    return batch.map((b) => ({ ...b, events: b.events.map((e) => sealed.get(e) ?? e) }));
  }

  /** The events with their personal fields opened, or erased where their key is gone. */
  open(events: RecordedEvent[]): Promise<RecordedEvent[]> {
    return openEvents(this.pool, events);
  }
}

/**
 * Events read sealed (readAll's keepSealed) with their personal fields opened, or erased where
 * their key is gone: one query for the keys. `db` may be a read model's transaction. With `which`,
 * only the events it picks are opened (the others stay as they are: nothing decrypted for them).
 */
export async function openEvents(db: Pick<pg.Pool, 'query'>, events: RecordedEvent[], which?: (e: RecordedEvent) => boolean): Promise<RecordedEvent[]> {
  const keyOf = (e: RecordedEvent) => (which && !which(e) ? undefined : sealedKeyOf(e.data));
  const ids = events.map(keyOf).filter((id): id is string => id !== undefined);
  if (ids.length === 0) return events;
  const keys = await keysById(db, ids);
  return events.map((e) => {
    const id = keyOf(e);
    return id === undefined ? e : { ...e, data: openPersonalData(e.data as Data, keys.get(id) ?? null) };
  });
}
