// What a decider is: initialState, evolve(state, event), and a pure decide(command, state) that
// returns the events to append or throws a domain error; and fold, a stream's state from its events.
// The handler that loads, decides and appends is src/command-handler.ts.

export interface StoredEventLike<T extends string = string, D = any> {
  type: T;
  data: D;
}

/**
 * How a long-lived stream's state is kept as a snapshot (src/eventstore/snapshots.ts): only for a
 * decider whose events carry no personal data.
 */
export interface SnapshotCodec<State> {
  /** names the decider: a stream's snapshot of another kind is never read */
  kind: string;
  /** changed with the state's shape or evolve's meaning: a snapshot of another version is never read */
  version: number;
  /** the events after the last stored snapshot before another is stored */
  every: number;
  /** a JSON value holding the whole state */
  encode(state: State): unknown;
  /** a state of its own (nothing shared with `value` that evolve may change in place) */
  decode(value: unknown): State;
}

export interface Decider<Command, State, Event extends StoredEventLike> {
  initialState: State;
  /** set on deciders of streams that grow long: commands fold from a snapshot (README "Snapshots of long streams") */
  snapshot?: SnapshotCodec<State>;
  evolve(state: State, event: Event): State;
  /** Pure: may throw an AppError; returns the events to append (possibly none). */
  decide(command: Command, state: State): Event[];
}

export function fold<S, E extends StoredEventLike>(decider: Pick<Decider<any, S, E>, 'initialState' | 'evolve'>, events: E[]): S {
  let state = decider.initialState;
  for (const e of events) state = decider.evolve(state, e);
  return state;
}

/**
 * The codec of a state that is JSON already and that evolve never changes in place (it returns a
 * new object for every change): a snapshot holds it as it is.
 */
export function plainSnapshot<State>(kind: string, every: number, version = 1): SnapshotCodec<State> {
  return { kind, version, every, encode: (state) => state, decode: (value) => value as State };
}
