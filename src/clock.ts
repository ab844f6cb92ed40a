// Time as an input: production reads the wall clock, tests may pass their own.
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
