// What a decider is: initialState, evolve(state, event), and a pure decide(command, state) that
// returns the events to append or throws a domain error; and fold, a stream's state from its events.
// The handler that loads, decides and appends is src/command-handler.ts.

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
