// Accepting messages (one, or thousands in a handful of batched appends), cancelling, resending
// and reading a message's timeline from its stream.
import { messageDecider, messageStream, type MessageAcceptedData, type MessageContent, type MessageEvent } from '../../commands/message.ts';
import type { Engage } from '../context.ts';
import { fold, handleCommand } from '../decider.ts';
import { AppError, notFound } from '../errors.ts';
import { type EventMetadata, type Position, positionToString } from '../eventstore/port.ts';
import { newId } from '../ids.ts';
import type { ValidSend } from './validation.ts';

/** Appends per call: 10,000 messages are a few statements, not 10,000 round trips. */
const APPEND_CHUNK = 5000;

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

export async function acceptMessages(
  engage: Engage,
  accountId: string,
  items: readonly ValidSend[],
  metadata: EventMetadata,
  extra: { resendOf?: string; bulkId?: string } = {},
): Promise<{ accepted: MessageAcceptedData[]; position?: Position }> {
  const now = engage.clock.now();
  const createdAt = now.toISOString();
  const accepted = items.map((item): MessageAcceptedData => {
    const scheduled = item.scheduledAt && item.scheduledAt.getTime() > now.getTime();
    return {
      ...item.content,
      account_id: accountId,
      id: newId('message'),
      status: scheduled ? 'scheduled' : 'queued',
      ...(scheduled ? { scheduled_at: item.scheduledAt!.toISOString() } : {}),
      ...(extra.resendOf ? { resend_of: extra.resendOf } : {}),
      ...(extra.bulkId ? { bulk_id: extra.bulkId } : {}),
      created_at: createdAt,
    };
  });
  let position: Position | undefined;
  for (let i = 0; i < accepted.length; i += APPEND_CHUNK) {
    const chunk = accepted.slice(i, i + APPEND_CHUNK);
    const results = await engage.store.appendMany(
      chunk.map((data) => ({
        streamId: messageStream(data.id),
        // the decider's Accept rule (a new stream) is enforced by the no_stream expectation
        events: messageDecider.decide({ type: 'Accept', data }, messageDecider.initialState).map((e) => ({ ...e, metadata })),
        expected: 'no_stream' as const,
      })),
    );
    position = results[results.length - 1]?.position ?? position;
  }
  return { accepted, position };
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
export async function cancelMessage(engage: Engage, accountId: string, id: string, metadata: EventMetadata) {
  try {
    return await handleCommand(engage.store, messageDecider, messageStream(id), { type: 'Cancel', accountId, now: engage.clock.now() }, metadata);
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_cancellable') {
      const status = err.extra.status as string | undefined;
      const why =
        status === 'scheduled' || status === 'queued' ? `message is ${status} but already picked up for dispatch`
        : status === 'cancelled' ? 'message is already cancelled'
        : `message is already ${status}`;
      throw new AppError(409, 'not_cancellable', `${why}; only scheduled or queued messages not yet picked up can be cancelled`, { status });
    }
    throw err;
  }
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
        e.type === 'MessageFailed' ? e.data.reason
        : e.type === 'MessageHeld' ? e.data.reason
        : e.type === 'MessageDispatchDeferred' ? e.data.error
        : e.type === 'MessageQueued' ? e.data.reason
        : null;
      const provider: Record<string, unknown> = {};
      for (const k of ['provider', 'provider_message_id', 'provider_data', 'worker', 'attempt', 'lease_until', 'until', 'retry_at', 'detail', 'stage', 'previous_status', 'scheduled_at']) {
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
