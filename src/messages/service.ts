// Accepting messages (one, or thousands in a handful of batched appends), cancelling, resending
// and reading a message's timeline from its stream.
import { setTimeout as sleep } from 'node:timers/promises';
import { failureReasonOf, messageDecider, messageStream, type MessageAcceptedData, type MessageContent, type MessageEvent } from '../../commands/message.ts';
import { findMessage, messageRowOf, type MessageRow } from '../../projections/messages.ts';
import type { Engage } from '../context.ts';
import { handleCommand } from '../command-handler.ts';
import { fold } from '../decider.ts';
import { notFound } from '../errors.ts';
import { type AppendResult, type EventMetadata, type ExpectedRevision, type NewEvent, type Position, WrongExpectedVersionError, comparePositions, positionToString } from '../eventstore/port.ts';
import { PersonalDataStore } from '../personal-data/store.ts';
import { sealOnThreads } from '../personal-data/seal-jobs.ts';
import { acceptedData, newMessageStream } from './accepted.ts';
import type { ValidSend } from './validation.ts';

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

export { acceptedData, acceptedRecord, newMessageStream, type MessageRecord } from './accepted.ts';

type MessageStream = ReturnType<typeof newMessageStream>;

export async function acceptMessages(
  engage: Engage,
  accountId: string,
  items: readonly ValidSend[],
  metadata: EventMetadata,
  extra: { resendOf?: string; bulkId?: string } = {},
): Promise<{ accepted: MessageAcceptedData[]; position?: Position }> {
  const now = engage.clock.now();
  const accepted = items.map((item) => acceptedData(accountId, item, now, extra));
  const starts: number[] = [];
  for (let from = 0; from < accepted.length; from += APPEND_CHUNK) starts.push(from);
  // chunk k's sealing starts when chunk k - APPENDS_IN_FLIGHT's append does (or at once, for the first ones)
  const sealing = new Map<number, Promise<MessageStream[]>>();
  const sealChunk = (k: number) => {
    if (k >= starts.length || sealing.has(k)) return;
    const sealed = sealedForAppend(engage, accepted.slice(starts[k], starts[k] + APPEND_CHUNK).map((data) => newMessageStream(data, metadata)));
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
      engage.log.error(
        { err: failure.err, accountId, bulkId: extra.bulkId, acceptedCount: ids.length, accepted: ids.slice(0, LOGGED_IDS), notAcceptedCount: accepted.length - ids.length },
        `accepting messages failed part-way: ${ids.length} valid messages were accepted and will be sent`,
      );
    }
    throw failure.err;
  }
  return { accepted, position };
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

/**
 * One message of this account as the read model shows it, or, while the read model has not applied
 * it yet (a bulk answers before it does), the same row folded from the message's own stream.
 */
export async function findMessageById(engage: Engage, accountId: string, id: string): Promise<MessageRow | undefined> {
  const row = await findMessage(engage.pool, accountId, id);
  if (row) return row;
  const folded = messageRowOf(await engage.store.readStream(messageStream(id)));
  return folded?.account_id === accountId ? folded : undefined;
}

async function loadMessage(engage: Engage, id: string) {
  const events = await engage.store.readStream(messageStream(id));
  return { events, state: fold(messageDecider, events.map((e) => ({ type: e.type, data: e.data }) as MessageEvent)) };
}

/**
 * Cancels a scheduled or queued message not yet picked up. The cancel is appended at the revision
 * it read; when a worker appended first (the scheduler queued it, or a dispatcher claimed it), the
 * cancel re-reads and decides again: still cancellable → cancelled, claimed → 409 not_cancellable.
 */
export function cancelMessage(engage: Engage, accountId: string, id: string, metadata: EventMetadata) {
  return handleCommand(engage.store, messageDecider, messageStream(id), { type: 'Cancel', accountId, now: engage.clock.now() }, metadata);
}

/** The content of an existing message of this account, for a resend. */
export async function contentOf(engage: Engage, accountId: string, id: string): Promise<MessageContent> {
  const { state } = await loadMessage(engage, id);
  if (!state.exists || state.accountId !== accountId || !state.content) throw notFound('message');
  return state.content;
}

const STATUS_AFTER: Partial<Record<MessageEvent['type'], string>> = {
  MessageQueued: 'queued',
  MessageCancelled: 'cancelled',
  MessageSent: 'sent',
  MessageDelivered: 'delivered',
  MessageFailed: 'failed',
};

/** Every state change of a message, read from its stream (the audit view). */
export async function timelineOf(engage: Engage, accountId: string, id: string) {
  const { events, state } = await loadMessage(engage, id);
  if (!state.exists || state.accountId !== accountId) throw notFound('message');
  return {
    id,
    status: state.status,
    events: events.map((recorded) => {
      const e = { type: recorded.type, data: recorded.data } as MessageEvent;
      const d = e.data as Record<string, unknown>;
      const status = e.type === 'MessageAccepted' ? e.data.status : (STATUS_AFTER[e.type] ?? null);
      const reason =
        e.type === 'MessageFailed' ? failureReasonOf(e.data)
        : e.type === 'MessageHeld' ? e.data.reason
        : e.type === 'MessageDispatchDeferred' ? e.data.error
        : e.type === 'MessageQueued' ? e.data.reason
        : null;
      const provider: Record<string, unknown> = {};
      for (const k of ['provider', 'provider_message_id', 'provider_data', 'worker', 'attempt', 'lease_until', 'until', 'retry_at', 'detail', 'stage', 'previous_status', 'scheduled_at', 'url']) {
        if (d[k] !== undefined) provider[k] = d[k];
      }
      return {
        type: e.type,
        status,
        at: (d.at as string | undefined) ?? (d.created_at as string),
        reason,
        details: provider,
        revision: Number(recorded.revision),
        position: positionToString(recorded.position),
        actor: recorded.metadata.actor ?? null,
      };
    }),
  };
}
