// Ingesting tracked events (POST /v1/events): up to 1,000 per call, each an EventTracked on its
// contact's stream. The batch is a handful of statements, not one command per event:
//  1. repeats of a client id within the batch follow its first occurrence; ids ingested before are
//     duplicates (event-ids.ts);
//  2. contacts resolved in bulk, unknown ones decided as ContactCreated (contacts.ts);
//  3. the client ids claimed, then the new contacts' emails and phones (the claims createContact takes);
//  4. traits of existing contacts applied through updateContact (its claims and rules);
//  5. one appendMany: each new contact's stream (no_stream: ContactCreated and its events), each
//     existing contact's events (stream_exists). A stream that conflicts is taken out of the batch
//     and its events are tracked one by one with the contacts service's own rules (resolveOne and
//     handleCommand), like an event for a contact the batch creates that brings traits of its own.
// A bad event fails alone; an event of a stream the batch could not write is never half-written.
// The events get no caller-chosen store ids on Postgres (whose appendMany is all or nothing): the
// store would look for them in every stream before writing, a third of the append's time; on a
// store whose appendMany is not atomic they are fixed, so a batch sent again after a conflict
// writes nothing twice.
import { randomUUID } from 'node:crypto';
import { contactDecider, contactStream, type ContactCommand, type ContactState } from '../../commands/contact.ts';
import { claimOrHolders, releaseMany } from '../claims.ts';
import { handleCommand } from '../command-handler.ts';
import { contactClaimKind, contactClaimScope, updateContact } from '../contacts/service.ts';
import type { Engage } from '../context.ts';
import { isConnectionError } from '../db/errors.ts';
import { AppError, conflict, type Issue, WRITE_CONFLICT } from '../errors.ts';
import { type AppendResult, type EventMetadata, type NewEvent, type Position, WrongExpectedVersionError, comparePositions } from '../eventstore/port.ts';
import { newUlid } from '../ids.ts';
import { type NewContact, resolveMany, resolveOne } from './contacts.ts';
import { API_SOURCE, EventIdClaims, type EventSource, type Prior } from './event-ids.ts';
import type { ValidEvent } from './validation.ts';

export type TrackResult =
  | { index: number; status: 'accepted' | 'duplicate'; id: string; contact_id: string }
  | { index: number; status: 'failed'; error: string; message: string; issues?: Issue[] };

interface Job {
  index: number;
  event: ValidEvent;
  /** random: the event's id when the client gave none, and its store id where ids are fixed (fixIds) */
  eventId: string;
  /** the id the answer names: the client's, or eventId */
  apiId: string;
  timestamp: string;
  contactId?: string;
  /** the contact the batch creates for this event (the first event that names it creates it) */
  created?: NewContact;
  /** tracked on its own after the batch (trackOne) */
  alone?: boolean;
  /** an earlier event of the batch with the same client id */
  first?: Job;
  result?: TrackResult;
}

/** Traits of different existing contacts applied at once, at most this many at a time. */
const TRAIT_CONCURRENCY = 4;

const failed = (job: Job, err: AppError): TrackResult => ({
  index: job.index, status: 'failed', error: err.code, message: err.message,
  ...(Array.isArray(err.extra.issues) ? { issues: err.extra.issues as Issue[] } : {}),
});
const outcome = (job: Job, status: 'accepted' | 'duplicate', contactId: string): TrackResult => ({ index: job.index, status, id: job.apiId, contact_id: contactId });
const inProgress = () => conflict('an event with this id is being ingested by another request; send it again to learn its outcome');

/** A live contact of the account as far as the batch knows (the decider's view; its stream is not read). */
const liveContact = (accountId: string, id: string): ContactState => ({ ...contactDecider.initialState, status: 'active', id, accountId });

export async function trackEvents(
  engage: Engage,
  accountId: string,
  events: readonly { index: number; event: ValidEvent }[],
  metadata: EventMetadata,
  /** whose client ids these are (event-ids.ts); the browser's events all name its contact by id */
  source: EventSource = API_SOURCE,
): Promise<{ results: TrackResult[]; position?: Position }> {
  if (source.source === 'browser' && events.some((e) => e.event.id !== undefined && e.event.contact.id !== source.contactId)) {
    throw new Error("a browser event's id belongs to its visitor: its contact must be resolved first");
  }
  const now = engage.clock.now();
  const claims = new EventIdClaims(engage, accountId, newUlid(), source);
  let position: Position | undefined;
  const reached = (p: Position | undefined) => {
    if (p && (!position || comparePositions(p, position) > 0)) position = p;
  };
  const track = (job: Job): ContactCommand => ({
    type: 'TrackEvent', accountId, eventId: job.apiId, name: job.event.name, properties: job.event.properties, timestamp: job.timestamp, now,
    ...(source.source === 'browser' ? { source: 'browser' as const } : {}),
  });

  const jobs: Job[] = events.map(({ index, event }) => {
    const eventId = randomUUID();
    return { index, event, eventId, apiId: event.id ?? eventId, timestamp: event.timestamp ?? now.toISOString() };
  });
  const firsts = new Map<string, Job>();
  for (const job of jobs) {
    if (job.event.id === undefined) continue;
    const first = firsts.get(job.event.id);
    if (first) job.first = first;
    else firsts.set(job.event.id, job);
  }
  /** the events still to be tracked: `open` in the batch, `unanswered` alone or in it */
  const unanswered = () => jobs.filter((j) => !j.result && !j.first);
  const open = () => unanswered().filter((j) => !j.alone);
  // the command's own rules (the timestamp's range) before anything is looked up
  for (const job of open()) {
    try {
      contactDecider.decide(track(job), liveContact(accountId, 'ct_probe'));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      job.result = failed(job, err);
    }
  }
  /** events whose id another request is storing right now: answered once it is done (or we stop waiting) */
  const inFlight: Job[] = [];
  const answerPrior = (job: Job, prior: Prior) => {
    job.result = prior.status === 'duplicate' ? outcome(job, 'duplicate', prior.contactId) : failed(job, inProgress());
    if (prior.status === 'in_progress') inFlight.push(job);
  };
  const priors = await claims.priors(open().flatMap((j) => (j.event.id !== undefined ? [j.event.id] : [])));
  for (const job of open()) {
    const prior = job.event.id !== undefined ? priors.get(job.event.id) : undefined;
    if (prior) answerPrior(job, prior);
  }

  // new contacts whose claims are held (given back unless their stream may have been written)
  const newContacts = new Map<string, { contact: NewContact; creator: Job; held: { field: 'email' | 'phone'; value: string }[]; attempted?: boolean }>();
  const giveBack = async (c: { contact: NewContact; held: { field: 'email' | 'phone'; value: string }[] }) => {
    await releaseMany(engage.pool, accountId, c.held.map((h) => ({ kind: contactClaimKind(h.field), value: h.value, ownerId: c.contact.id })));
    c.held = [];
  };
  /** A new contact the batch will not create: its events are tracked alone, which creates it, or finds who did. */
  const abandon = async (contactId: string) => {
    const c = newContacts.get(contactId);
    if (c) await giveBack(c);
    newContacts.delete(contactId);
    for (const j of open()) if (j.created?.id === contactId) j.alone = true;
  };

  const attempted = new Set<Job>();
  try {
    // 2. contacts
    const toResolve = open();
    const resolutions = await resolveMany(engage, accountId, toResolve.map((j) => j.event), now);
    toResolve.forEach((job, i) => {
      const r = resolutions[i];
      if ('error' in r) {
        job.result = failed(job, r.error);
        return;
      }
      job.contactId = r.contactId;
      if (!r.created) return;
      job.created = r.created;
      if (!newContacts.has(r.contactId)) newContacts.set(r.contactId, { contact: r.created, creator: job, held: [] });
      // a later event for a contact the batch creates applies its traits on its own, once the contact exists
      else if (job.event.traits) job.alone = true;
    });

    // 3. client ids, then the new contacts' unique values
    const lost = await claims.claim(unanswered().flatMap((j) => (j.event.id !== undefined ? [{ clientId: j.event.id, contactId: j.contactId! }] : [])));
    for (const job of unanswered()) {
      const prior = job.event.id !== undefined ? lost.get(job.event.id) : undefined;
      if (prior) answerPrior(job, prior);
    }
    // a contact is created with the identifiers and traits of the event that names it first, or not here
    for (const [id, c] of [...newContacts]) if (c.creator.result) await abandon(id);
    for (const field of ['email', 'phone'] as const) {
      const wanted = [...newContacts.values()].flatMap((c) => {
        const value = c.contact.created.data.fields[field];
        return typeof value === 'string' ? [{ value, owner: c.contact.id }] : [];
      });
      const holders = await claimOrHolders(engage.pool, contactClaimScope(accountId, field), wanted);
      for (const { value, owner } of wanted) {
        if (holders.get(value)?.owner === owner) newContacts.get(owner)!.held.push({ field, value });
        else await abandon(owner);
      }
    }

    // 4. traits of existing contacts: each contact's in order, several contacts at once
    const byContact = new Map<string, Job[]>();
    for (const job of open()) if (job.event.traits && !job.created) byContact.set(job.contactId!, [...(byContact.get(job.contactId!) ?? []), job]);
    const queue = [...byContact.values()];
    await Promise.all(
      Array.from({ length: Math.min(TRAIT_CONCURRENCY, queue.length) }, async () => {
        for (let group = queue.shift(); group; group = queue.shift()) {
          for (const job of group) {
            try {
              reached((await updateContact(engage, accountId, job.contactId!, job.event.traits!, metadata)).position);
            } catch (err) {
              if (!(err instanceof AppError)) throw err;
              // not found: a contact whose claim the batch trusted but whose create is still in
              // flight (or was deleted meanwhile): trackOne reads it again
              if (err.statusCode === 404) job.alone = true;
              else {
                job.result = failed(job, err);
                if (job.event.id !== undefined) await claims.release([job.event.id]);
              }
            }
          }
        }
      }),
    );

    // 5. one append for every stream of the batch
    let streams = streamsOf(open(), newContacts, accountId, track, metadata, !engage.store.atomicAppendMany);
    let results: AppendResult[] = [];
    while (streams.length > 0) {
      for (const s of streams) for (const j of s.jobs) attempted.add(j);
      for (const s of streams) if (s.created) newContacts.get(s.created.id)!.attempted = true;
      try {
        results = await engage.store.appendMany(streams.map((s) => s.append));
        break;
      } catch (err) {
        const conflicted = err instanceof WrongExpectedVersionError ? streams.find((s) => s.append.streamId === err.streamId) : undefined;
        if (!conflicted) {
          // an all-or-nothing store that answered (not a lost connection) wrote none of it: its claims go back
          if (engage.store.atomicAppendMany && !isConnectionError(err)) {
            for (const s of streams) for (const j of s.jobs) attempted.delete(j);
            for (const s of streams) if (s.created) newContacts.get(s.created.id)!.attempted = false;
          }
          throw err;
        }
        // a contact whose claim is held by a create still in flight (or one that never happened), or
        // one appended to meanwhile where no_stream was expected: its events go one by one
        streams = streams.filter((s) => s !== conflicted);
        for (const j of conflicted.jobs) j.alone = true;
        if (conflicted.created) await abandon(conflicted.created.id);
      }
    }
    results.forEach((r) => reached(r.position));
    const stored = streams.flatMap((s) => s.jobs);
    await claims.settleBatch(stored.flatMap((j) => (j.event.id !== undefined ? [{ clientId: j.event.id, contactId: j.contactId! }] : [])));
    for (const job of stored) job.result = outcome(job, 'accepted', job.contactId!);

    // the events that go alone
    for (const job of unanswered().filter((j) => j.alone)) {
      attempted.add(job);
      try {
        const contact = await resolveOne(engage, accountId, job.event, metadata);
        reached(contact.position);
        if (job.event.id !== undefined) await claims.move(job.event.id, contact.contactId);
        if (job.event.traits && !contact.traitsApplied) reached((await updateContact(engage, accountId, contact.contactId, job.event.traits, metadata)).position);
        reached((await handleCommand(engage.store, contactDecider, contactStream(contact.contactId), track(job), metadata)).position);
        if (job.event.id !== undefined) await claims.settle([{ clientId: job.event.id, contactId: contact.contactId }]);
        job.result = outcome(job, 'accepted', contact.contactId);
      } catch (thrown) {
        // its contact's stream kept moving under its retries (other requests writing the same
        // contact): this event was not stored, and the caller sends it again, as for a claim in flight
        const err = thrown instanceof WrongExpectedVersionError ? WRITE_CONFLICT : thrown;
        if (!(err instanceof AppError)) throw err;
        job.result = failed(job, err);
        if (job.event.id !== undefined) await claims.release([job.event.id]);
      }
    }
  } catch (err) {
    // nothing of what was never sent to the store stays claimed; what may have been written keeps its
    // claims (judged later by the streams, event-ids.ts and src/contacts/service.ts)
    await claims.release(jobs.filter((j) => j.event.id !== undefined && !attempted.has(j) && !j.first).map((j) => j.event.id!)).catch(() => undefined);
    for (const c of newContacts.values()) if (!c.attempted) await giveBack(c).catch(() => undefined);
    throw err;
  }

  const stored = await claims.awaitStored(inFlight.map((j) => j.event.id!));
  for (const job of inFlight) {
    const prior = stored.get(job.event.id!);
    if (prior?.status === 'duplicate') job.result = outcome(job, 'duplicate', prior.contactId);
  }
  // a repeat within the batch answers as its first occurrence did
  for (const job of jobs) {
    if (!job.first) continue;
    const first = job.first.result!;
    job.result = first.status === 'failed' ? { ...first, index: job.index } : outcome(job, 'duplicate', first.contact_id);
  }
  return { results: jobs.map((j) => j.result!), position };
}

interface BatchStream {
  append: { streamId: string; events: NewEvent[]; expected: 'no_stream' | 'stream_exists' };
  jobs: Job[];
  created?: NewContact;
}

/** The batch's appends: a new contact's stream from its creation, an existing contact's from where it is. */
function streamsOf(
  jobs: readonly Job[],
  newContacts: ReadonlyMap<string, { contact: NewContact }>,
  accountId: string,
  track: (job: Job) => ContactCommand,
  metadata: EventMetadata,
  fixIds: boolean,
): BatchStream[] {
  const streams = new Map<string, BatchStream & { state: ContactState }>();
  for (const job of jobs) {
    const contactId = job.contactId!;
    let s = streams.get(contactId);
    if (!s) {
      const created = job.created ? newContacts.get(job.created.id)?.contact : undefined;
      const first: NewEvent[] = created ? [{ type: created.created.type, data: created.created.data, metadata, ...(fixIds ? { id: randomUUID() } : {}) }] : [];
      s = {
        append: { streamId: contactStream(contactId), events: first, expected: created ? 'no_stream' : 'stream_exists' },
        jobs: [],
        created,
        state: created ? contactDecider.evolve(contactDecider.initialState, created.created) : liveContact(accountId, contactId),
      };
      streams.set(contactId, s);
    }
    for (const e of contactDecider.decide(track(job), s.state)) s.append.events.push({ type: e.type, data: e.data, metadata, ...(fixIds ? { id: job.eventId } : {}) });
    s.jobs.push(job);
  }
  return [...streams.values()].map(({ state: _state, ...s }) => s);
}
