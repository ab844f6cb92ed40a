// Accepting messages (one, or thousands in a handful of batched appends), cancelling, resending
// and reading a message's timeline from its stream.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { failureReasonOf, messageDecider, messageStream, type MessageAcceptedData, type MessageContent, type MessageEvent } from '../../commands/message.ts';
import { findMessage, messageRowOf, type MessageRow } from '../../projections/messages.ts';
import type { Engage } from '../context.ts';
import { handleCommand } from '../command-handler.ts';
import { fold } from '../decider.ts';
import { notFound } from '../errors.ts';
import { type AppendResult, type EventMetadata, type NewEvent, type Position, WrongExpectedVersionError, comparePositions, positionToString } from '../eventstore/port.ts';
import { newId } from '../ids.ts';
import type { ValidSend } from './validation.ts';
import { toCountryField } from '../billing/recipient-country.ts';

/** Appends per call: 10,000 messages are a few statements, not 10,000 round trips. */
const APPEND_CHUNK = 5000;
/** Sends of one chunk when the store's appendMany is not atomic (see appendChunk). */
const CHUNK_ATTEMPTS = 3;
const CHUNK_RETRY_MS = 200;
/** Message ids named in one log line at most (the rest are counted). */
const LOGGED_IDS = 100;

export interface MessageRecord {
  id: string;
  status: 'scheduled' | 'queued';
  channel: string;
  to: string;
  scheduled_at: string | null;
  created_at: string;
}

export const acceptedRecord = (d: MessageAcceptedData): MessageRecord => ({
  id: d.id,
  status: d.status,
  channel: d.channel,
  to: d.to,
  scheduled_at: d.scheduled_at ?? null,
  created_at: d.created_at,
});

/** The MessageAccepted data of one valid send, accepted `now` (scheduled when it names a later time). */
export function acceptedData(
  accountId: string,
  item: ValidSend,
  now: Date,
  extra: { id?: string; resendOf?: string; bulkId?: string; campaignId?: string } = {},
): MessageAcceptedData {
  const scheduled = item.scheduledAt && item.scheduledAt.getTime() > now.getTime();
  return {
    ...item.content,
    account_id: accountId,
    id: extra.id ?? newId('message'),
    status: scheduled ? 'scheduled' : 'queued',
    ...(scheduled ? { scheduled_at: item.scheduledAt!.toISOString() } : {}),
    ...(extra.resendOf ? { resend_of: extra.resendOf } : {}),
    ...(extra.bulkId ? { bulk_id: extra.bulkId } : {}),
    ...(extra.campaignId ? { campaign_id: extra.campaignId } : {}),
    ...toCountryField(item.content.channel, item.content.to),
    created_at: now.toISOString(),
  };
}

/**
 * A new message's stream as an entry of an appendMany batch: the decider's Accept rule (a new
 * stream) is enforced by the no_stream expectation, and the event id is fixed here, once, so that a
 * re-sent batch is recognised where it was written.
 */
export function newMessageStream(data: MessageAcceptedData, metadata: EventMetadata, eventId: string = randomUUID()) {
  return {
    streamId: messageStream(data.id),
    events: messageDecider.decide({ type: 'Accept', data }, messageDecider.initialState).map((e): NewEvent => ({ ...e, metadata, id: eventId })),
    expected: 'no_stream' as const,
  };
}

export async function acceptMessages(
  engage: Engage,
  accountId: string,
  items: readonly ValidSend[],
  metadata: EventMetadata,
  extra: { resendOf?: string; bulkId?: string } = {},
): Promise<{ accepted: MessageAcceptedData[]; position?: Position }> {
  const now = engage.clock.now();
  const accepted = items.map((item) => acceptedData(accountId, item, now, extra));
  let position: Position | undefined;
  for (let i = 0; i < accepted.length; i += APPEND_CHUNK) {
    const chunk = accepted.slice(i, i + APPEND_CHUNK);
    const batch = chunk.map((data) => newMessageStream(data, metadata));
    let results: AppendResult[];
    try {
      results = await appendChunk(engage, batch);
    } catch (err) {
      // the items of the chunks before are accepted (they will be dispatched) although this call
      // fails: never let that pass silently
      if (i > 0) {
        engage.log.error(
          { err, accountId, bulkId: extra.bulkId, acceptedCount: i, accepted: accepted.slice(0, LOGGED_IDS).map((a) => a.id), notAcceptedCount: accepted.length - i },
          `accepting messages failed part-way: the first ${i} valid messages were accepted and will be sent`,
        );
      }
      throw err;
    }
    // the newest position of the chunk, wherever it is in the results
    for (const r of results) if (!position || comparePositions(r.position, position) > 0) position = r.position;
  }
  return { accepted, position };
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
