// Appending new messages' MessageAccepted: thousands in a handful of batched appends, each chunk
// sealed while the ones before it are appended (README "The write path").
import { setTimeout as sleep } from 'node:timers/promises';
import type { MessageAcceptedData } from '../../commands/message.ts';
import type { Engage } from '../context.ts';
import { type AppendResult, type EventMetadata, type ExpectedRevision, type NewEvent, type Position, WrongExpectedVersionError, comparePositions } from '../eventstore/port.ts';
import { PersonalDataStore } from '../personal-data/store.ts';
import { sealOnThreads } from '../personal-data/seal-jobs.ts';
import { acceptedEventId, newMessageStream } from './accepted.ts';

/**
 * Appends per call: 10,000 messages are a few statements, not 10,000 round trips; each chunk is
 * sealed (its data keys made, its seals on the CPU work threads) while the chunks before it are
 * appended. A chunk of new streams is copied (README "The write path"), which costs less per event
 * the larger the chunk: a bulk of 10,000 is two chunks, appended at once.
 */
export const APPEND_CHUNK = 5000;
/**
 * Chunks appended at once: each is its own transaction, so two keep the database's two cores busy
 * (README "The write path"); every chunk is new streams, so they never wait for each other.
 */
const APPENDS_IN_FLIGHT = 2;
/** Sends of one chunk when the store's appendMany is not atomic (see appendChunk). */
const CHUNK_ATTEMPTS = 3;
const CHUNK_RETRY_MS = 200;
/** Message ids named in one log line at most (the rest are counted). */
const LOGGED_IDS = 100;

type MessageStream = ReturnType<typeof newMessageStream>;

/**
 * Appends the MessageAccepted of each message, in chunks of APPEND_CHUNK, APPENDS_IN_FLIGHT at once;
 * answers the newest position written. With `fixedIds` each event's id is its message's own
 * (acceptedEventId), so appending the same messages again (a bulk's intake,
 * src/messages/bulk-intake.ts) writes nothing twice: each stream already written answers as the
 * retry it is.
 */
export async function appendAccepted(engage: Engage, accepted: readonly MessageAcceptedData[], metadata: EventMetadata, fixedIds = false): Promise<Position | undefined> {
  const starts: number[] = [];
  for (let from = 0; from < accepted.length; from += APPEND_CHUNK) starts.push(from);
  // chunk k's sealing starts when chunk k - APPENDS_IN_FLIGHT's append does (or at once, for the first ones)
  const sealing = new Map<number, Promise<MessageStream[]>>();
  const sealChunk = (k: number) => {
    if (k >= starts.length || sealing.has(k)) return;
    const from = starts[k];
    const sealed = sealedForAppend(engage, accepted.slice(from, from + APPEND_CHUNK).map((data) => newMessageStream(data, metadata, fixedIds ? acceptedEventId(data.id) : undefined)));
    sealed.catch(() => undefined); // awaited (and its error thrown) in turn; never an unhandled rejection when dropped
    sealing.set(k, sealed);
  };
  let position: Position | undefined;
  let next = 0;
  const written: number[] = [];
  let failure: { err: unknown } | undefined;
  // a lane seals and appends one chunk after another; APPENDS_IN_FLIGHT lanes append at once, each
  // chunk its own transaction, so the database works on two of them while this process seals the next
  const lane = async () => {
    while (next < starts.length && !failure) {
      const k = next++;
      try {
        sealChunk(k);
        const batch = await sealing.get(k)!;
        sealChunk(k + APPENDS_IN_FLIGHT);
        const results = await appendChunk(engage, batch);
        written.push(k);
        // the newest position of the chunk, wherever it is in the results
        for (const r of results) if (!position || comparePositions(r.position, position) > 0) position = r.position;
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  for (let k = 0; k < APPENDS_IN_FLIGHT; k++) sealChunk(k);
  await Promise.all(Array.from({ length: Math.min(APPENDS_IN_FLIGHT, starts.length) }, lane));
  if (failure) {
    // the items of the chunks written are accepted (they will be dispatched) although this call
    // fails: never let that pass silently
    if (written.length > 0) {
      const ids = written.sort((a, b) => a - b).flatMap((k) => accepted.slice(starts[k], starts[k] + APPEND_CHUNK).map((a) => a.id));
      const { account_id: accountId, bulk_id: bulkId } = accepted[0];
      engage.log.error(
        { err: failure.err, accountId, bulkId, acceptedCount: ids.length, accepted: ids.slice(0, LOGGED_IDS), notAcceptedCount: accepted.length - ids.length },
        `accepting messages failed part-way: ${ids.length} valid messages were accepted and will be sent`,
      );
    }
    throw failure.err;
  }
  return position;
}

/**
 * New streams with their personal data sealed before the append, the seals of a large batch on the
 * CPU work threads (src/personal-data/seal-jobs.ts); the store's appendMany leaves sealed events as
 * they are. A store that seals nothing gets the batch as it is.
 */
export async function sealedForAppend<B extends { streamId: string; events: NewEvent[]; expected: ExpectedRevision }>(engage: Engage, batch: B[]): Promise<B[]> {
  if (!(engage.store instanceof PersonalDataStore)) return batch;
  return (await engage.store.seal(batch, sealOnThreads(engage.cpu))) as B[];
}

/**
 * Appends one chunk of new message streams. On a store whose appendMany is atomic (postgres) a
 * failure wrote nothing of the chunk (the adapter settles lost connections itself) and is thrown.
 * On one that is not (esdb), a failure may leave the chunk partly written — accepted messages the
 * caller would never hear of — so the very same chunk (same event ids) is sent again, a few times:
 * a message stream already written answers as an idempotent success (its no_stream append of these
 * very events), the others are written. A conflict is never retried: the message id is taken by
 * something else. If the chunk still fails, the messages whose streams exist are logged (they will
 * be dispatched) before the error is thrown.
 */
async function appendChunk(engage: Engage, batch: { streamId: string; events: NewEvent[]; expected: 'no_stream' }[]): Promise<AppendResult[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await engage.store.appendMany(batch);
    } catch (err) {
      if (engage.store.atomicAppendMany) throw err;
      if (err instanceof WrongExpectedVersionError || attempt >= CHUNK_ATTEMPTS) {
        const written = await writtenOf(engage, batch);
        if (written.length > 0) {
          engage.log.error(
            { err, writtenCount: written.length, written: written.slice(0, LOGGED_IDS), notWrittenCount: batch.length - written.length },
            `accepting messages failed part-way: ${written.length} message streams of this chunk were written and will be sent`,
          );
        }
        throw err;
      }
      engage.log.warn({ err, attempt, messages: batch.length }, 'appending accepted messages failed; sending the same events again');
      await sleep(CHUNK_RETRY_MS * attempt);
    }
  }
}

/** The streams of the batch that hold their first event (best effort: a read failure counts as unknown). */
async function writtenOf(engage: Engage, batch: readonly { streamId: string; events: readonly NewEvent[] }[]): Promise<string[]> {
  const written: string[] = [];
  for (const b of batch) {
    try {
      const [first] = await engage.store.readStream(b.streamId, { maxCount: 1 });
      if (first && first.id === b.events[0].id) written.push(b.streamId);
    } catch {
      return written; // the store is unreachable: nothing more to learn
    }
  }
  return written;
}

