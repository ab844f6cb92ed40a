// Accepting a send or a resend, finding a message (a bulk's too, before it is in the log), cancelling, resending
// and reading a message's timeline from its stream.
import { failureReasonOf, messageDecider, messageStream, type MessageAcceptedData, type MessageContent, type MessageEvent } from '../../commands/message.ts';
import { findMessage, messageRowOf, type MessageRow } from '../../projections/messages.ts';
import type { Engage } from '../context.ts';
import { handleCommand } from '../command-handler.ts';
import { fold } from '../decider.ts';
import { type AppError, notFound } from '../errors.ts';
import { type EventMetadata, type Position, positionToString } from '../eventstore/port.ts';
import { acceptedData } from './accepted.ts';
import { appendAccepted } from './append-accepted.ts';
import { bulkIntakes } from './bulk-intake.ts';
import type { ValidSend } from './validation.ts';

export { acceptedData, acceptedRecord, newMessageStream, type MessageRecord } from './accepted.ts';

/** Accepts a few messages (a send, a resend): answers once they are in the log. */
export async function acceptMessages(
  engage: Engage,
  accountId: string,
  items: readonly ValidSend[],
  metadata: EventMetadata,
  extra: { resendOf?: string } = {},
): Promise<{ accepted: MessageAcceptedData[]; position?: Position }> {
  const now = engage.clock.now();
  const accepted = items.map((item) => acceptedData(accountId, item, now, extra));
  return { accepted, position: await appendAccepted(engage, accepted, metadata) };
}

/**
 * One message of this account as the read model shows it, or, while the read model has not applied
 * it yet (a bulk answers before it does), the same row folded from the message's own stream.
 */
export async function findMessageById(engage: Engage, accountId: string, id: string): Promise<MessageRow | undefined> {
  const row = await findMessage(engage.pool, accountId, id);
  if (row) return row;
  const folded = messageRowOf(await messageEvents(engage, accountId, id));
  return folded?.account_id === accountId ? folded : undefined;
}

/**
 * A message's events, from its stream. A message of a bulk whose messages are not in the log yet
 * has none: its bulk's are appended first (src/messages/bulk-intake.ts), then it is read again
 * (again too when no bulk holds it any more: its append may have ended since the first read).
 */
async function messageEvents(engage: Engage, accountId: string, id: string) {
  const events = await engage.store.readStream(messageStream(id));
  if (events.length > 0) return events;
  await bulkIntakes(engage).settle(accountId, id);
  return engage.store.readStream(messageStream(id));
}

/** A message's events and the state they fold to. */
async function loadMessage(engage: Engage, accountId: string, id: string) {
  const events = await messageEvents(engage, accountId, id);
  return { events, state: fold(messageDecider, events.map((e) => ({ type: e.type, data: e.data }) as MessageEvent)) };
}

/**
 * Cancels a scheduled or queued message not yet picked up. The cancel is appended at the revision
 * it read; when a worker appended first (the scheduler queued it, or a dispatcher claimed it), the
 * cancel re-reads and decides again: still cancellable → cancelled, claimed → 409 not_cancellable.
 */
export async function cancelMessage(engage: Engage, accountId: string, id: string, metadata: EventMetadata) {
  const cancel = () => handleCommand(engage.store, messageDecider, messageStream(id), { type: 'Cancel', accountId, now: engage.clock.now() }, metadata);
  try {
    return await cancel();
  } catch (err) {
    // a bulk's message not in the log yet (or only since the cancel read it): its bulk's messages
    // are appended, then it is cancelled
    if ((err as AppError).statusCode !== 404) throw err;
    await bulkIntakes(engage).settle(accountId, id);
    return cancel();
  }
}

/** The content of an existing message of this account, for a resend. */
export async function contentOf(engage: Engage, accountId: string, id: string): Promise<MessageContent> {
  const { state } = await loadMessage(engage, accountId, id);
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
  const { events, state } = await loadMessage(engage, accountId, id);
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
      for (const k of ['provider', 'provider_message_id', 'provider_data', 'worker', 'attempt', 'lease_until', 'until', 'retry_at', 'detail', 'stage', 'previous_status', 'scheduled_at', 'url', 'count', 'machine']) {
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
