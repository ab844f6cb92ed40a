// Idempotent ingestion on the client's event id, per account and source (README "Events"): a claim on
// the client id (src/claims.ts), the same mechanism that keeps a contact's email unique across
// contacts: whichever request takes it first ingests the event, for whichever contact, and every
// other request, concurrent or years later, finds it taken. The server API's ids (kind tracked_event,
// as before sources existed) and the browser's (kind browser_event:<contact>: a visitor's own) never
// meet, so a visitor can neither take nor learn an id of the backend's, nor another visitor's.
// A claim is `pending:<request>:<contact>` while its request appends, `event:<contact>` once the
// event is stored. A pending claim left behind by a process that died is judged after
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

  private priorOf(holder: ClaimHolder): Prior {
    return holder.owner.startsWith(STORED) ? { status: 'duplicate', contactId: holder.owner.slice(STORED.length) } : { status: 'in_progress' };
  }

  /** The client ids ingested before (or being ingested now); claims left behind are settled or freed first. */
  async priors(ids: readonly string[]): Promise<Map<string, Prior>> {
    const found = new Map<string, Prior>();
    for (const [clientId, holder] of await holdersOf(this.engage.pool, this.scope, ids)) {
      const pending = holder.owner.startsWith(PENDING);
      if (!pending || holder.ageMs < STALE_PENDING_MS) {
        found.set(clientId, this.priorOf(holder));
        continue;
      }
      const contactId = holder.owner.slice(holder.owner.lastIndexOf(':') + 1);
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
    for (const [clientId, owner] of owners) {
      const holder = holders.get(clientId)!;
      if (holder.owner === owner) this.held.set(clientId, owner);
      else lost.set(clientId, this.priorOf(holder));
    }
    return lost;
  }

  /** Names another contact as the claim's, before the event is appended there (so a left-behind claim is judged by the right stream). */
  async move(clientId: string, contactId: string): Promise<void> {
    const from = this.held.get(clientId);
    const to = this.pendingOwner(contactId);
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
      let waiting = false;
      for (const [clientId, holder] of holders) {
        if (holder.owner.startsWith(STORED)) stored.set(clientId, this.priorOf(holder));
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
