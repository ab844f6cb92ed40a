// Idempotent ingestion on the client's event id, per account and source (README "Events"): a claim on
// the client id (src/claims.ts), the same mechanism that keeps a contact's email unique across
// contacts: whichever request takes it first ingests the event, for whichever contact, and every
// other request, concurrent or years later, finds it taken. The server API's ids (kind tracked_event,
// as before sources existed) and the browser's (kind browser_event:<contact>: a visitor's own) never
// meet, so a visitor can neither take nor learn an id of the backend's, nor another visitor's.
// A claim is `pending:<request>:<contact>` while its request appends. The events a request stores in
// its one batch append keep that claim: the request then writes one row of its own (kind
// tracked_batch_stored, value the request's token), which makes every claim under its token read as
// stored, instead of rewriting each claim (a thousand-event batch is one row, not a thousand). An
// event the request tracks alone (src/events/service.ts) is claimed under the request's second token
// (`<request>a`), which the row does not cover, and its claim becomes `event:<contact>` once stored.
// A pending claim of neither kind left behind by a process that died is judged after
// STALE_PENDING_MS by the contact's stream (the EventTracked whose event_id is the client's id is
// there: the claim is settled; or not: it is freed).
import { contactStream } from '../../commands/contact.ts';
import { type ClaimHolder, claimOrHolders, holdersOf, releaseMany, transferMany } from '../claims.ts';
import type { Engage } from '../context.ts';
import { pollFor } from '../sleep.ts';

/** How long a request may take to store the events it claimed before its claims count as left behind. */
export const STALE_PENDING_MS = 5 * 60_000;
/** A pending claim younger than this is a request storing its events right now: worth waiting for. */
const IN_FLIGHT_MS = 30_000;
/** How long a request waits for another one that stores the same client id to finish. */
export const IN_FLIGHT_WAIT_MS = 5_000;

/** Who sent the events: each source has its own client ids; the browser's are those of one contact (the visitor). */
export type EventSource = { source: 'api' } | { source: 'browser'; /** known whenever an event of the request has an id */ contactId?: string };
export const API_SOURCE: EventSource = { source: 'api' };

function claimKind(s: EventSource): string {
  if (s.source === 'api') return 'tracked_event';
  // never an account-wide browser namespace: one visitor could take another's ids
  return s.contactId === undefined ? 'browser_event:(no ids)' : `browser_event:${s.contactId}`;
}
/** The event of this source on the contact's stream: EventTracked without `source` is the server API's. */
const ofSource = (s: EventSource, data: Record<string, unknown>) => (data.source ?? 'api') === s.source;

/** What a request finds when the client id was claimed before it. */
export type Prior = { status: 'duplicate'; contactId: string } | { status: 'in_progress' };

const STORED = 'event:';
const PENDING = 'pending:';
/** One row per request whose batch append committed: every claim under its token is stored (its value is the token). */
const BATCH_STORED_KIND = 'tracked_batch_stored';
const BATCH_STORED_OWNER = 'stored';
/** The suffix of a request's token for the events it tracks alone (never covered by its batch's row). */
const ALONE = 'a';

/** A pending claim's request token and contact (`pending:<token>:<contact>`). */
function pendingOf(owner: string): { token: string; contactId: string } | undefined {
  if (!owner.startsWith(PENDING)) return undefined;
  const last = owner.lastIndexOf(':');
  return { token: owner.slice(PENDING.length, last), contactId: owner.slice(last + 1) };
}

/** The event-id claims one request takes, moves, settles and gives back. */
export class EventIdClaims {
  private readonly scope: { accountId: string; kind: string };
  /** client id → the pending owner this request holds it under */
  private readonly held = new Map<string, string>();

  constructor(
    private readonly engage: Engage,
    accountId: string,
    /** unique per request: a claim left by an earlier request for the same contact is never taken for ours */
    private readonly requestToken: string,
    private readonly source: EventSource = API_SOURCE,
  ) {
    this.scope = { accountId, kind: claimKind(source) };
  }

  private pendingOwner = (contactId: string) => `${PENDING}${this.requestToken}:${contactId}`;
  private aloneOwner = (contactId: string) => `${PENDING}${this.requestToken}${ALONE}:${contactId}`;

  /**
   * What each holder says of its client id: stored (an `event:` claim, or a pending one whose
   * request's batch is stored), being stored, or 'stale' (pending for longer than a request may take:
   * to be judged by the contact's stream).
   */
  private async judge(holders: ReadonlyMap<string, ClaimHolder>): Promise<Map<string, Prior | 'stale'>> {
    const tokens = new Set<string>();
    for (const holder of holders.values()) {
      const pending = pendingOf(holder.owner);
      if (pending) tokens.add(pending.token);
    }
    const storedBatches = tokens.size > 0 ? await holdersOf(this.engage.pool, { accountId: this.scope.accountId, kind: BATCH_STORED_KIND }, [...tokens]) : new Map<string, ClaimHolder>();
    const judged = new Map<string, Prior | 'stale'>();
    for (const [clientId, holder] of holders) {
      const pending = pendingOf(holder.owner);
      if (!pending) judged.set(clientId, holder.owner.startsWith(STORED) ? { status: 'duplicate', contactId: holder.owner.slice(STORED.length) } : { status: 'in_progress' });
      else if (storedBatches.has(pending.token)) judged.set(clientId, { status: 'duplicate', contactId: pending.contactId });
      else judged.set(clientId, holder.ageMs < STALE_PENDING_MS ? { status: 'in_progress' } : 'stale');
    }
    return judged;
  }

  /** A claim left behind by a request that died: settled when its event is in the stream (a duplicate), else freed (undefined). */
  private async settleLeftBehind(clientId: string, owner: string): Promise<Prior | undefined> {
    const contactId = owner.slice(owner.lastIndexOf(':') + 1);
    const stored = (await this.engage.store.readStream(contactStream(contactId))).some((e) => e.type === 'EventTracked' && e.data.event_id === clientId && ofSource(this.source, e.data));
    if (stored) {
      await transferMany(this.engage.pool, this.scope, [{ value: clientId, from: owner, to: `${STORED}${contactId}` }]);
      return { status: 'duplicate', contactId };
    }
    await releaseMany(this.engage.pool, this.scope.accountId, [{ kind: this.scope.kind, value: clientId, ownerId: owner }]);
    return undefined;
  }

  /** The client ids ingested before (or being ingested now); claims left behind are settled or freed first. */
  async priors(ids: readonly string[]): Promise<Map<string, Prior>> {
    const found = new Map<string, Prior>();
    if (ids.length === 0) return found;
    const holders = await holdersOf(this.engage.pool, this.scope, ids);
    for (const [clientId, prior] of await this.judge(holders)) {
      const settled = prior === 'stale' ? await this.settleLeftBehind(clientId, holders.get(clientId)!.owner) : prior;
      if (settled) found.set(clientId, settled);
    }
    return found;
  }

  /**
   * Claims client ids for the contacts their events go to; those another request took first come back
   * as priors (a claim left behind by a request that died is judged first, and taken when it is freed).
   */
  async claim(wanted: readonly { clientId: string; contactId: string }[]): Promise<Map<string, Prior>> {
    const lost = new Map<string, Prior>();
    let todo = wanted;
    for (let attempt = 0; attempt < 3 && todo.length > 0; attempt++) {
      const owners = new Map(todo.map((w) => [w.clientId, this.pendingOwner(w.contactId)]));
      const holders = await claimOrHolders(this.engage.pool, this.scope, [...owners].map(([value, owner]) => ({ value, owner })));
      const others = new Map<string, ClaimHolder>();
      for (const [clientId, owner] of owners) {
        const holder = holders.get(clientId)!;
        if (holder.owner === owner) this.held.set(clientId, owner);
        else others.set(clientId, holder);
      }
      const freed = new Set<string>();
      for (const [clientId, prior] of await this.judge(others)) {
        const settled = prior === 'stale' ? await this.settleLeftBehind(clientId, others.get(clientId)!.owner) : prior;
        if (settled) lost.set(clientId, settled);
        else freed.add(clientId);
      }
      todo = todo.filter((w) => freed.has(w.clientId));
    }
    // freed and taken again by another request each time: someone is storing it
    for (const w of todo) lost.set(w.clientId, { status: 'in_progress' });
    return lost;
  }

  /**
   * The request's batch append committed with these events: one row says every claim still under the
   * request's token is stored. The claims of the events still to be tracked alone move to the alone
   * token first, so the row never covers an event that is not stored yet.
   */
  async batchStored(stored: readonly string[], alone: readonly string[]): Promise<void> {
    const moves = alone.flatMap((clientId) => {
      const from = this.held.get(clientId);
      const pending = from === undefined ? undefined : pendingOf(from);
      return from !== undefined && pending && pending.token === this.requestToken ? [{ value: clientId, from, to: this.aloneOwner(pending.contactId) }] : [];
    });
    if (moves.length > 0) {
      const moved = await transferMany(this.engage.pool, this.scope, moves);
      for (const m of moves) {
        if (!moved.has(m.value)) throw new Error(`the claim on event id ${m.value} was lost`);
        this.held.set(m.value, m.to);
      }
    }
    const ours = stored.filter((clientId) => this.held.has(clientId));
    if (ours.length === 0) return;
    await claimOrHolders(this.engage.pool, { accountId: this.scope.accountId, kind: BATCH_STORED_KIND }, [{ value: this.requestToken, owner: BATCH_STORED_OWNER }]);
    for (const clientId of ours) this.held.delete(clientId);
  }

  /** Names another contact as the claim's, before the event is appended there alone (so a left-behind claim is judged by the right stream). */
  async move(clientId: string, contactId: string): Promise<void> {
    const from = this.held.get(clientId);
    const to = this.aloneOwner(contactId);
    if (from === undefined || from === to) return;
    if (!(await transferMany(this.engage.pool, this.scope, [{ value: clientId, from, to }])).has(clientId)) throw new Error(`the claim on event id ${clientId} was lost`);
    this.held.set(clientId, to);
  }

  /** The events are stored: their claims say so, for good. */
  async settle(stored: readonly { clientId: string; contactId: string }[]): Promise<void> {
    const moves = stored.filter((s) => this.held.has(s.clientId)).map((s) => ({ value: s.clientId, from: this.held.get(s.clientId)!, to: `${STORED}${s.contactId}` }));
    await transferMany(this.engage.pool, this.scope, moves);
    for (const s of stored) this.held.delete(s.clientId);
  }

  /**
   * Waits (at most IN_FLIGHT_WAIT_MS) for the requests that are storing these client ids right now:
   * the ids whose events they stored come back as duplicates; the others (still storing, given up,
   * or held for long) are left out.
   */
  async awaitStored(clientIds: readonly string[]): Promise<Map<string, Prior>> {
    const stored = new Map<string, Prior>();
    if (clientIds.length === 0) return stored;
    await pollFor(async () => {
      const holders = await holdersOf(this.engage.pool, this.scope, clientIds);
      const judged = await this.judge(holders);
      let waiting = false;
      for (const [clientId, holder] of holders) {
        const prior = judged.get(clientId);
        if (prior !== 'stale' && prior?.status === 'duplicate') stored.set(clientId, prior);
        else if (holder.ageMs < IN_FLIGHT_MS) waiting = true;
      }
      return waiting ? undefined : true;
    }, IN_FLIGHT_WAIT_MS);
    return stored;
  }

  /** Gives claims back: their events were not stored. */
  async release(clientIds: readonly string[]): Promise<void> {
    const claims = clientIds.filter((id) => this.held.has(id)).map((id) => ({ kind: this.scope.kind, value: id, ownerId: this.held.get(id)! }));
    await releaseMany(this.engage.pool, this.scope.accountId, claims);
    for (const id of clientIds) this.held.delete(id);
  }
}
