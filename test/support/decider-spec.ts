// Given/when/then specifications of a decider: fold the given events, decide the command, and
// compare the events it decides (or the domain error it throws). Pure: no server, no database.
import { expect } from 'vitest';
import { fold, type Decider, type StoredEventLike } from '../../src/decider.ts';
import { AppError } from '../../src/errors.ts';

type ErrorClass<E extends Error> = abstract new (...args: any[]) => E;
/** Returns false (or throws an assertion) when the error is not the one the rule names. */
type ErrorCheck<E> = (error: E) => boolean | void;

export interface DecisionSpec<Event> {
  /** the command decides exactly these events, in this order */
  then(expected: Event[]): void;
  /** the command is accepted and changes nothing (an idempotent repeat, a late report…) */
  thenNothingHappened(): void;
  /** the command is refused with an error of this class (and, if given, one the check accepts) */
  thenThrows<E extends Error>(errorClass: ErrorClass<E>, check?: ErrorCheck<E>): void;
  thenThrows(check: ErrorCheck<unknown>): void;
}

export interface GivenSpec<Command, Event> {
  when(command: Command): DecisionSpec<Event>;
}

export const DeciderSpecification = {
  for<Command, State, Event extends StoredEventLike>(decider: Decider<Command, State, Event>) {
    return {
      given(events: Event[]): GivenSpec<Command, Event> {
        return { when: (command) => decision(decider, events, command) };
      },
    };
  },
};

function decision<Command, State, Event extends StoredEventLike>(decider: Decider<Command, State, Event>, given: Event[], command: Command): DecisionSpec<Event> {
  // decided lazily, so that a thrown error reaches thenThrows rather than the spec's set-up
  const decide = () => decider.decide(command, fold(decider, given));
  return {
    then(expected) {
      expect(decide()).toStrictEqual(expected);
    },
    thenNothingHappened() {
      expect(decide()).toStrictEqual([]);
    },
    thenThrows(classOrCheck: ErrorClass<Error> | ErrorCheck<unknown>, check?: ErrorCheck<never>) {
      let decided: Event[];
      try {
        decided = decide();
      } catch (error) {
        const isClass = typeof classOrCheck === 'function' && classOrCheck.prototype instanceof Error;
        if (isClass) expect(error, 'the error thrown').toBeInstanceOf(classOrCheck);
        const verdict = (isClass ? check : (classOrCheck as ErrorCheck<unknown>))?.(error as never);
        expect(verdict, `the error thrown does not match: ${String(error)}`).not.toBe(false);
        return;
      }
      expect.fail(`expected the command to be refused, but it decided ${JSON.stringify(decided)}`);
    },
  };
}

/** A check for thenThrows: the API error with this code (and status, when given). */
export const domainError =
  (code: string, statusCode?: number): ErrorCheck<unknown> =>
  (error) =>
    error instanceof AppError && error.code === code && (statusCode === undefined || error.statusCode === statusCode);

/**
 * The events a decider decides for `commands` in turn from `state`, each command deciding on the
 * events of those before it, and the state after them all: a stream written as the service writes it.
 */
export function decideAll<Command, State, Event extends StoredEventLike>(decider: Decider<Command, State, Event>, state: State, commands: readonly Command[]): { events: Event[]; state: State } {
  const events: Event[] = [];
  for (const command of commands) {
    const decided = decider.decide(command, state);
    for (const e of decided) state = decider.evolve(state, e);
    events.push(...decided);
  }
  return { events, state };
}
