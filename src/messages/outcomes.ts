// Recording what happened to messages: many appends at known revisions in one batch, falling back
// to the decider-checked command one message at a time when the batch meets a concurrent writer.
import { randomUUID } from 'node:crypto';
import { messageDecider, messageStream, type MessageCommand, type MessageEvent, type MessageState } from '../../commands/message.ts';
import type { Engage } from '../context.ts';
import { handleCommand } from '../command-handler.ts';
import { type AppendResult, type EventMetadata, type NewEvent, type Position, WrongExpectedVersionError } from '../eventstore/port.ts';

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

/**
 * The events a transition decided on its believed state, with their ids: a later call with the same
 * Transition object (a caller's retry after an error, as the dispatcher's record does) re-appends
 * these very events, so a write that landed before the error is recognised by its ids.
 */
const decided = new WeakMap<Transition, { command: MessageCommand; revision: bigint; events: MessageEvent[]; ids: string[] }>();
/** Transitions already settled: a retry with the same Transition object returns the result, never applies it twice. */
const settled = new WeakMap<Transition, TransitionResult>();

interface Fast {
  t: Transition;
  events: MessageEvent[];
  ids: string[];
}

/** Runs `work` over `items`, a few at a time; the first error is thrown once all have settled. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      try {
        await work(item);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.err;
}

/**
 * Applies transitions; each either appends its events or re-decides on the message's actual state.
 *
 * Correct whether or not the store's appendMany is atomic across streams. Each transition with a
 * believed state is decided on it and its events get their ids here, before the batch is sent. When
 * the batch fails, a store that is not atomic (esdb) may have written any streams before the failure
 * point, so every transition of the batch is then settled on its own by re-appending its very same
 * events (same ids) at its believed revision: a stream the batch already wrote answers as an
 * idempotent success with the original revision and position (never appended twice), a stream still
 * at that revision is written now, and only a stream another writer moved on conflicts — that one,
 * and only that one, is re-decided on its real state (so a Hold or Defer, which leaves the status
 * as it was, is never recorded twice, and a claim that landed is never reported as lost). On an
 * atomic store (postgres) a conflict wrote nothing and the same settling applies; any other error
 * is thrown as it is. A caller that retries after an error with the same Transition objects gets
 * the very same events re-sent (same ids) and the results of those already settled, so nothing is
 * applied twice across the retry either.
 */
export async function applyTransitions(engage: Engage, transitions: readonly Transition[], metadata: EventMetadata): Promise<TransitionResult[]> {
  const results = new Map<string, TransitionResult>();
  const settle = (t: Transition, r: TransitionResult) => {
    results.set(t.messageId, r);
    settled.set(t, r);
  };
  for (const t of transitions) {
    const before = settled.get(t);
    if (before) results.set(t.messageId, before);
  }
  // decide on the believed state; a wrong belief is caught by the expected revision at append
  const fast: Fast[] = [];
  for (const t of transitions) {
    if (!t.known || results.has(t.messageId)) continue;
    let d = decided.get(t);
    if (!d || d.command !== t.command || d.revision !== t.known.revision) {
      let events: MessageEvent[];
      try {
        events = messageDecider.decide(t.command, t.known.state);
      } catch {
        continue; // let the slow path decide on the real state and report it
      }
      d = { command: t.command, revision: t.known.revision, events, ids: events.map(() => randomUUID()) };
      decided.set(t, d);
    }
    if (d.events.length === 0) settle(t, { messageId: t.messageId, ok: false, revision: t.known.revision, events: d.events, state: t.known.state });
    else fast.push({ t, events: d.events, ids: d.ids });
  }
  const request = ({ t, events, ids }: Fast) => ({
    streamId: messageStream(t.messageId),
    events: events.map((e, i): NewEvent => ({ ...e, metadata, id: ids[i] })),
    expected: t.known!.revision,
  });
  const appended = (f: Fast, r: AppendResult) =>
    settle(f.t, {
      messageId: f.t.messageId,
      ok: true,
      revision: r.nextExpectedRevision,
      events: f.events,
      state: evolveAll(f.t.known!.state, f.events),
      position: r.position,
    });
  if (fast.length) {
    let unsettled: Fast[] = [];
    try {
      const written = await engage.store.appendMany(fast.map(request));
      fast.forEach((f, i) => appended(f, written[i]));
    } catch (err) {
      // atomic store, no conflict: nothing was written (or, after a lost connection the adapter could
      // not settle, all of it); thrown — a retry by the caller re-sends the same ids (see `decided`)
      if (!(err instanceof WrongExpectedVersionError) && engage.store.atomicAppendMany) throw err;
      unsettled = fast;
    }
    // each on its own, with the same events and ids: idempotent where the batch already wrote it
    await eachLimited(unsettled, SLOW_PATH_CONCURRENCY, async (f) => {
      const { streamId, events, expected } = request(f);
      try {
        appended(f, await engage.store.append(streamId, events, expected));
      } catch (err) {
        if (!(err instanceof WrongExpectedVersionError)) throw err;
        // another writer moved this stream on (our events are not in it): re-decide below
      }
    });
  }
  // the rest, each on its stream's real state: different streams, so a few at a time
  const slow = transitions.filter((t) => !results.has(t.messageId));
  await eachLimited(slow, SLOW_PATH_CONCURRENCY, async (t) => {
    try {
      const r = await handleCommand(engage.store, messageDecider, messageStream(t.messageId), t.command, metadata, { maxAttempts: 3 });
      settle(t, {
        messageId: t.messageId,
        ok: r.events.length > 0,
        revision: r.revision === 'no_stream' ? undefined : r.revision,
        events: r.events,
        state: r.state,
        ...(r.position ? { position: r.position } : {}),
      });
    } catch (err) {
      if (err instanceof WrongExpectedVersionError || (err as { statusCode?: number }).statusCode === 404) {
        settle(t, { messageId: t.messageId, ok: false, events: [] });
        return;
      }
      throw err;
    }
  });
  return transitions.map((t) => results.get(t.messageId)!);
}
