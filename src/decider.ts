// Deciders and the generic command handler: load a stream, fold it, decide, append at the
// revision read, and retry a bounded number of times when another writer got there first.
import type { EventMetadata, EventStore, ExpectedRevision, NewEvent, Position } from './eventstore/port.ts';
import { WrongExpectedVersionError } from './eventstore/port.ts';

export interface StoredEventLike<T extends string = string, D = any> {
  type: T;
  data: D;
}

export interface Decider<Command, State, Event extends StoredEventLike> {
  initialState: State;
  evolve(state: State, event: Event): State;
  /** Pure: may throw an AppError; returns the events to append (possibly none). */
  decide(command: Command, state: State): Event[];
}

export function fold<S, E extends StoredEventLike>(decider: Pick<Decider<any, S, E>, 'initialState' | 'evolve'>, events: E[]): S {
  let state = decider.initialState;
  for (const e of events) state = decider.evolve(state, e);
  return state;
}

export interface CommandResult<State, Event> {
  events: Event[];
  state: State;
  /** position of the last appended event; undefined when the decision appended nothing */
  position?: Position;
  revision: bigint | 'no_stream';
}

export async function handleCommand<Command, State, Event extends StoredEventLike>(
  store: EventStore,
  decider: Decider<Command, State, Event>,
  streamId: string,
  command: Command | ((state: State) => Command),
  metadata: EventMetadata,
  maxAttempts = 5,
): Promise<CommandResult<State, Event>> {
  for (let attempt = 1; ; attempt++) {
    const recorded = await store.readStream(streamId);
    const history = recorded.map((r) => ({ type: r.type, data: r.data }) as Event);
    const state = fold(decider, history);
    const revision: bigint | 'no_stream' = recorded.length ? recorded[recorded.length - 1].revision : 'no_stream';
    const cmd = typeof command === 'function' ? (command as (s: State) => Command)(state) : command;
    const events = decider.decide(cmd, state);
    if (events.length === 0) return { events, state, revision };
    const expected: ExpectedRevision = revision;
    try {
      const result = await store.append(
        streamId,
        events.map((e): NewEvent => ({ type: e.type, data: e.data, metadata })),
        expected,
      );
      let next = state;
      for (const e of events) next = decider.evolve(next, e);
      return { events, state: next, position: result.position, revision: result.nextExpectedRevision };
    } catch (err) {
      if (err instanceof WrongExpectedVersionError && attempt < maxAttempts) continue;
      throw err;
    }
  }
}
