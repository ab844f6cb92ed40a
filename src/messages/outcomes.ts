// Recording what happened to messages: many appends at known revisions in one batch, falling back
// to the decider-checked command one message at a time when the batch meets a concurrent writer.
import { messageDecider, messageStream, type MessageCommand, type MessageEvent, type MessageState } from '../../commands/message.ts';
import type { Engage } from '../context.ts';
import { handleCommand } from '../decider.ts';
import { type AppendResult, type EventMetadata, type Position, WrongExpectedVersionError } from '../eventstore/port.ts';

export interface Transition {
  messageId: string;
  command: MessageCommand;
  /** the state the caller believes the stream is in (from the read model or its own append) */
  known?: { state: MessageState; revision: bigint };
}

export interface TransitionResult {
  messageId: string;
  ok: boolean;
  revision?: bigint;
  events: MessageEvent[];
  /** the message's state after this transition (as far as the caller can know it) */
  state?: MessageState;
  /** where the appended events landed in the log (only when this transition appended) */
  position?: Position;
}

/** Streams decided one by one at once when a batch meets a concurrent writer. */
const SLOW_PATH_CONCURRENCY = 8;

const evolveAll = (state: MessageState, events: MessageEvent[]) => events.reduce(messageDecider.evolve, state);

/** Applies transitions; each either appends its events or re-decides on the message's actual state. */
export async function applyTransitions(engage: Engage, transitions: readonly Transition[], metadata: EventMetadata): Promise<TransitionResult[]> {
  const results = new Map<string, TransitionResult>();
  // decide on the believed state; a wrong belief is caught by the expected revision at append
  const fast: { t: Transition; events: MessageEvent[] }[] = [];
  for (const t of transitions) {
    if (!t.known) continue;
    let events: MessageEvent[];
    try {
      events = messageDecider.decide(t.command, t.known.state);
    } catch {
      continue; // let the slow path decide on the real state and report it
    }
    if (events.length === 0) results.set(t.messageId, { messageId: t.messageId, ok: false, revision: t.known.revision, events, state: t.known.state });
    else fast.push({ t, events });
  }
  if (fast.length) {
    try {
      const appended: AppendResult[] = await engage.store.appendMany(
        fast.map(({ t, events }) => ({
          streamId: messageStream(t.messageId),
          events: events.map((e) => ({ ...e, metadata })),
          expected: t.known!.revision,
        })),
      );
      fast.forEach(({ t, events }, i) =>
        results.set(t.messageId, {
          messageId: t.messageId,
          ok: true,
          revision: appended[i].nextExpectedRevision,
          events,
          state: evolveAll(t.known!.state, events),
          position: appended[i].position,
        }),
      );
    } catch (err) {
      if (!(err instanceof WrongExpectedVersionError)) throw err;
      // someone else wrote to one of these streams: decide each on its real state
      for (const { t } of fast) results.delete(t.messageId);
    }
  }
  // the rest, each on its stream's real state: different streams, so a few at a time
  const slow = transitions.filter((t) => !results.has(t.messageId));
  let next = 0;
  const worker = async () => {
    while (next < slow.length) {
      const t = slow[next++];
      try {
        const r = await handleCommand(engage.store, messageDecider, messageStream(t.messageId), t.command, metadata, 3);
        results.set(t.messageId, {
          messageId: t.messageId,
          ok: r.events.length > 0,
          revision: r.revision === 'no_stream' ? undefined : r.revision,
          events: r.events,
          state: r.state,
          ...(r.position ? { position: r.position } : {}),
        });
      } catch (err) {
        if (err instanceof WrongExpectedVersionError || (err as { statusCode?: number }).statusCode === 404) {
          results.set(t.messageId, { messageId: t.messageId, ok: false, events: [] });
          continue;
        }
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(SLOW_PATH_CONCURRENCY, slow.length) }, worker));
  return transitions.map((t) => results.get(t.messageId)!);
}
