// Idempotent ingestion on the client's event id, per account and source (README "Events"): a claim on
// the client id (src/claims.ts), the same mechanism that keeps a contact's email unique across
// contacts: whichever request takes it first ingests the event, for whichever contact, and every
// other request, concurrent or years later, finds it taken. The server API's ids (kind tracked_event,
// as before sources existed) and the browser's (kind browser_event:<contact>: a visitor's own) never
// meet, so a visitor can neither take nor learn an id of the backend's, nor another visitor's.
// A claim is `pending:<request>:<contact>` while its request appends. Once the request's batch is
// stored (one appendMany, all or nothing), one row of stored_event_batches names the request: every
// claim it still holds under that name is stored. A batch of 1,000 events writes that one row, not
// 1,000 claims again (README "The write path"). An event tracked on its own, after the batch, is
// claimed under a name of its own (`pending:<request>.alone:<contact>`) that no batch row covers,
// and its claim becomes `event:<contact>` once it is stored. A pending claim left behind by a
// process that died is judged after STALE_PENDING_MS by the contact's stream (the EventTracked whose
// event_id is the client's id is there: the claim is settled; or not: it is freed).
import { contactStream } from '../../commands/contact.ts';
import { type ClaimHolder, claimOrHolders, holdersOf, releaseMany, transferMany } from '../claims.ts';
import type { Engage } from '../context.ts';
import { pollFor } from '../sleep.ts';
import { markStored, storedBatches } from './stored-batches.ts';

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
/** The name under which a request holds the claims of the events it tracks alone, after its batch. */
const ALONE = '.alone';

/** A pending owner's parts: the request's name (its token, or token + ALONE) and the contact. */
function pendingParts(owner: string): { request: string; contactId: string } {
  const colon = owner.lastIndexOf(':');
  return { request: owner.slice(PENDING.length, colon), contactId: owner.slice(colon + 1) };
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
   * What each holder's claim says: stored (`event:`, or pending under a request whose batch is
   * stored), or in flight (pending, its batch not stored). The batches of the pending holders are
   * looked up in one statement.
   */
  private async priorsOf(holders: ReadonlyMap<string, ClaimHolder>): Promise<Map<string, Prior>> {
    const pending = [...holders.values()].filter((h) => h.owner.startsWith(PENDING)).map((h) => pendingParts(h.owner).request);
    const stored = await storedBatches(this.engage.pool, this.scope.accountId, pending);
    const priors = new Map<string, Prior>();
    for (const [clientId, { owner }] of holders) {
      if (owner.startsWith(STORED)) {
        priors.set(clientId, { status: 'duplicate', contactId: owner.slice(STORED.length) });
        continue;
      }
      const parts = owner.startsWith(PENDING) ? pendingParts(owner) : undefined;
      priors.set(clientId, parts && stored.has(parts.request) ? { status: 'duplicate', contactId: parts.contactId } : { status: 'in_progress' });
    }
    return priors;
  }

  /** The client ids ingested before (or being ingested now); claims left behind are settled or freed first. */
  async priors(ids: readonly string[]): Promise<Map<string, Prior>> {
    const found = new Map<string, Prior>();
    const holders = await holdersOf(this.engage.pool, this.scope, ids);
    const priors = await this.priorsOf(holders);
    for (const [clientId, holder] of holders) {
      const prior = priors.get(clientId)!;
      // in flight, unless it has been pending for so long that its request must have died
      if (prior.status === 'duplicate' || !holder.owner.startsWith(PENDING) || holder.ageMs < STALE_PENDING_MS) {
        found.set(clientId, prior);
        continue;
      }
      const { contactId } = pendingParts(holder.owner);
      const stored = (await this.engage.store.readStream(contactStream(contactId))).some((e) => e.type === 'EventTracked' && e.data.event_id === clientId && ofSource(this.source, e.data));
      if (stored) {
        await transferMany(this.engage.pool, this.scope, [{ value: clientId, from: holder.owner, to: `${STORED}${contactId}` }]);
        found.set(clientId, { status: 'duplicate', contactId });
      } else {
        await releaseMany(this.engage.pool, this.scope.accountId, [{ kind: this.scope.kind, value: clientId, ownerId: holder.owner }]);
      }
    }
    return found;
  }

  /** Claims client ids for the contacts their events go to; those another request took first come back as priors. */
  async claim(wanted: readonly { clientId: string; contactId: string }[]): Promise<Map<string, Prior>> {
    const lost = new Map<string, Prior>();
    const owners = new Map(wanted.map((w) => [w.clientId, this.pendingOwner(w.contactId)]));
    const holders = await claimOrHolders(this.engage.pool, this.scope, [...owners].map(([value, owner]) => ({ value, owner })));
    const others = new Map([...holders].filter(([clientId, holder]) => holder.owner !== owners.get(clientId)));
    const priors = await this.priorsOf(others);
    for (const [clientId, owner] of owners) {
      const prior = priors.get(clientId);
      if (prior) lost.set(clientId, prior);
      else this.held.set(clientId, owner);
    }
    return lost;
  }

  /**
   * Names the contact of an event tracked alone as its claim's, under the request's name for such
   * events (so a left-behind claim is judged by the right stream, and no batch row covers it).
   */
  async move(clientId: string, contactId: string): Promise<void> {
    const from = this.held.get(clientId);
    const to = this.aloneOwner(contactId);
    if (from === undefined || from === to) return;
    if (!(await transferMany(this.engage.pool, this.scope, [{ value: clientId, from, to }])).has(clientId)) throw new Error(`the claim on event id ${clientId} was lost`);
    this.held.set(clientId, to);
  }

  /**
   * The batch's one append stored these events: one row says so for every claim the request holds
   * under its name. Any other claim it holds under that name (an event tracked alone next) is first
   * put under the name for such events, which the row does not cover.
   */
  async settleBatch(stored: readonly { clientId: string; contactId: string }[]): Promise<void> {
    const storedIds = new Set(stored.map((s) => s.clientId));
    const mine = [...this.held].filter(([clientId]) => storedIds.has(clientId));
    if (mine.length === 0) return;
    const others = [...this.held].filter(([clientId, owner]) => !storedIds.has(clientId) && owner.startsWith(`${PENDING}${this.requestToken}:`));
    const moves = others.map(([value, from]) => ({ value, from, to: this.aloneOwner(pendingParts(from).contactId) }));
    const moved = await transferMany(this.engage.pool, this.scope, moves);
    for (const m of moves) {
      if (!moved.has(m.value)) throw new Error(`the claim on event id ${m.value} was lost`);
      this.held.set(m.value, m.to);
    }
    await markStored(this.engage.pool, this.scope.accountId, this.requestToken);
    for (const [clientId] of mine) this.held.delete(clientId);
  }

  /** An event tracked alone is stored: its claim says so, for good. */
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
      const priors = await this.priorsOf(holders);
      let waiting = false;
      for (const [clientId, holder] of holders) {
        const prior = priors.get(clientId)!;
        if (prior.status === 'duplicate') stored.set(clientId, prior);
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
