// The generic command handler: load a stream, fold it, decide, append at the
// revision read, and retry a bounded number of times when another writer got there first; and
// runCommand, the one way a caller writes and then waits to read its own write.
//
// Every stream is written through handleCommand except on two fast paths, which decide with the
// same deciders but append many streams per statement:
// - bulk accept: src/messages/service.ts acceptMessages appends new message streams (expected
//   no_stream) in chunks of thousands, for send, bulk, send-by-tag and resend;
// - batched transitions: src/messages/outcomes.ts applyTransitions appends message events at the
//   revisions the read model showed, and falls back to handleCommand per stream on a conflict
//   (the scheduler, the dispatcher, delivery reports).
import type { Engage } from './context.ts';
import type { Decider, StoredEventLike } from './decider.ts';
import { type LoadedState, readState, rememberState } from './eventstore/snapshots.ts';
import type { EventMetadata, EventStore, ExpectedRevision, NewEvent, Position } from './eventstore/port.ts';
import { WrongExpectedVersionError } from './eventstore/port.ts';
import { sleep } from './sleep.ts';

export interface CommandResult<State, Event> {
  events: Event[];
  state: State;
  /** position of the last appended event; undefined when the decision appended nothing */
  position?: Position;
  revision: bigint | 'no_stream';
}

export interface HandleOptions {
  /** attempts before a conflict is the caller's (default 5) */
  maxAttempts?: number;
  /**
   * The stream is new (its id was made for this command): the first attempt decides on the initial
   * state without reading it, and appends expecting no stream. Should it exist after all, that
   * append conflicts and the next attempt reads it, as every attempt does otherwise.
   */
  fresh?: boolean;
}

/** The most a retry after a conflict waits, per attempt made (a random share of it). */
const CONFLICT_JITTER_MS = 5;

export async function handleCommand<Command, State, Event extends StoredEventLike>(
  store: EventStore,
  decider: Decider<Command, State, Event>,
  streamId: string,
  command: Command | ((state: State) => Command),
  metadata: EventMetadata,
  options: HandleOptions = {},
): Promise<CommandResult<State, Event>> {
  const maxAttempts = options.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    // a long stream is folded from its snapshot (src/eventstore/snapshots.ts)
    const loaded: LoadedState<State> =
      attempt === 1 && options.fresh
        ? { state: decider.initialState, revision: 'no_stream', stored: -1n, snapshottable: decider.snapshot !== undefined }
        : await readState(store, decider, streamId);
    const { state, revision } = loaded;
    const cmd = typeof command === 'function' ? (command as (s: State) => Command)(state) : command;
    const events = decider.decide(cmd, state);
    if (events.length === 0) {
      rememberState(store, decider, streamId, loaded, loaded);
      return { events, state, revision };
    }
    const expected: ExpectedRevision = revision;
    try {
      const result = await store.append(
        streamId,
        events.map((e): NewEvent => ({ type: e.type, data: e.data, metadata })),
        expected,
      );
      let next = state;
      for (const e of events) next = decider.evolve(next, e);
      rememberState(store, decider, streamId, loaded, { state: next, revision: result.nextExpectedRevision, position: result.position }, events);
      return { events, state: next, position: result.position, revision: result.nextExpectedRevision };
    } catch (err) {
      if (!(err instanceof WrongExpectedVersionError) || attempt >= maxAttempts) throw err;
      // writers racing for one stream would meet again at once: each waits a random few
      // milliseconds more per attempt, so the race thins out instead of using up every attempt
      await sleep(Math.random() * CONFLICT_JITTER_MS * attempt);
    }
  }
}

/** What running a command and waiting for its read models takes of a running engage. */
export type CommandContext = Pick<Engage, 'store' | 'runner' | 'config' | 'log'>;

/** A command for the generic handler: the decider, its stream, and the command (or one built from the stream's state). */
export interface StreamCommand<Command, State, Event extends StoredEventLike> {
  decider: Decider<Command, State, Event>;
  streamId: string;
  command: Command | ((state: State) => Command);
}

/** A write through a service (which appends through handleCommand or a fast path) that says where it wrote. */
export type ServiceWrite<R extends { position?: Position }> = (metadata: EventMetadata) => Promise<R>;

/**
 * Runs a command — a decider on its stream, or a service's write — with `metadata`, then waits until
 * the read models named in `readModels` include what it appended, so the caller's next read sees it.
 */
export async function runCommand<Command, State, Event extends StoredEventLike>(
  ctx: CommandContext,
  metadata: EventMetadata,
  readModels: readonly string[],
  write: StreamCommand<Command, State, Event>,
): Promise<CommandResult<State, Event>>;
export async function runCommand<R extends { position?: Position }>(ctx: CommandContext, metadata: EventMetadata, readModels: readonly string[], write: ServiceWrite<R>): Promise<R>;
export async function runCommand(
  ctx: CommandContext,
  metadata: EventMetadata,
  readModels: readonly string[],
  write: StreamCommand<unknown, unknown, StoredEventLike> | ServiceWrite<{ position?: Position }>,
): Promise<{ position?: Position }> {
  const result =
    typeof write === 'function' ? await write(metadata) : await handleCommand(ctx.store, write.decider, write.streamId, write.command, metadata);
  await waitForReadModels(ctx, readModels, result.position);
  return result;
}

/**
 * Waits (bounded by READ_YOUR_WRITES_TIMEOUT_MS) until the named read models include `position`.
 * The write is stored either way: a wait that fails (the database went away after the append) only
 * makes the write visible late, and must not turn a stored write into an error the client retries.
 */
export async function waitForReadModels(ctx: CommandContext, readModels: readonly string[], position: Position | undefined): Promise<void> {
  if (!position) return;
  try {
    await ctx.runner.waitFor(readModels, position, ctx.config.READ_YOUR_WRITES_TIMEOUT_MS);
  } catch (err) {
    ctx.log.warn({ err: { code: (err as { code?: string }).code, message: (err as Error).message } }, 'read-your-writes wait failed; the write is stored');
  }
}
