// The projection runner: keeps each read model up to date from the global log. A batch and its
// checkpoint commit in one transaction (exactly-once effect); a rebuilding generation replays beside
// the live one and is swapped in once it has caught up (generations.ts).
//
// Three rules keep it safe and keep others moving:
// - it works only on generations built by its own code version, so during a rolling deploy old and
//   new code each keep their own generation, and never run against the other's tables;
// - a failing batch is retried with backoff; when the same event keeps failing with an error of its
//   own (bad data, the read model's own error) it is parked (parked.ts) and the read model goes on
//   past it, for every other account; one that keeps failing for another reason (a lost race over and
//   over, a missing table) marks the projection failed, naming the event; a lost connection is
//   waited out, never a failure;
// - each transaction is kept short (batches sized by how long they take, a swap that catches up at
//   most one batch): any transaction holding a transaction id holds every catch-up reader back.
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { sleep } from '../sleep.ts';
import type { Logger } from 'pino';
import { isConnectionError, isTransientError } from '../db/errors.ts';
import type { EventStore, Position, RecordedEvent } from '../eventstore/port.ts';
import { comparePositions, positionToString } from '../eventstore/port.ts';
import type { Wakeup } from '../eventstore/wakeup.ts';
import { LogTail, type TailStats } from './log-tail.ts';
import { type Applied, type Projection, type TableNamer, tableNamer } from './projection.ts';
import { ensureProjection, removeGeneration, replaceViews } from './generations.ts';
import { CHECKPOINT_CHANNEL, STATE_COLUMNS, type StateRow, batchCommitMode, batchPlanMode, beginBatch, commitBatch, lockGenerations, lockProjection, parseCheckpointPayload, readState, rowPosition, stillAt } from './state.ts';
import { NotificationListener } from '../db/notifications.ts';
import { errorText, isEventError, parkEvent } from './parked.ts';
import { BatchGroup } from './batch-group.ts';
import { prepared } from '../db/prepared.ts';

export interface RunnerOptions {
  /** the most events one transaction applies */
  batchSize?: number;
  /** how often to re-read projection_state for rebuild requests made by other processes */
  controlIntervalMs?: number;
  /** batches are sized so one apply transaction takes about this long */
  transactionTargetMs?: number;
  /** attempts at a failing batch before the projection is marked failed (transient errors get twice as many) */
  maxAttempts?: number;
  retryBaseMs?: number;
  /** the most recent events kept in memory for every read model to take from (log-tail.ts) */
  tailCapacity?: number;
  /** the most bytes that window keeps */
  tailMaxBytes?: number;
  /** a read model that has not moved for this long no longer holds that window (nor the others) */
  tailStallMs?: number;
}

/** Batches start this small and double while they stay fast, so no first batch holds readers back long. */
const FIRST_BATCH = 50;
/** A batch of at least this many events says what an event costs (adaptBatchSize). */
const MIN_EVIDENCE = 32;
/**
 * A live read model's batch of at most this many events goes in the group transaction (batch-group.ts):
 * below it, a transaction and commit of its own cost more than the apply; above it, the batch runs on
 * its own, beside the others (a catch-up does not hold up the caught-up read models' small batches).
 */
const GROUPED_MAX_EVENTS = 128;
/** A read model whose apply outlived the group's bound (twice the transaction target) runs on its own this long. */
const SOLO_AFTER_SLOW_MS = 10_000;

interface Failure {
  position: string;
  attempts: number;
}

/**
 * Events: 'advanced' (name, position) when a live read model's checkpoint moved (its own batch, or a
 * followed runner's announcement); 'rebuild-progress' (name, generation, position, events);
 * 'signal' (signal) once a batch of this runner whose apply asked for it has committed (Applied).
 */
export class ProjectionRunner extends EventEmitter {
  private readonly positions = new Map<string, Position>();
  private readonly failed = new Map<string, string>();
  /**
   * Per projection: the log holds no event of its types after its stored checkpoint `from` up to
   * `to` (an empty read proved it). Reads start after `to` while the checkpoint is still `from`, so a
   * projection whose events are rare does not re-scan every later event of other types on each
   * wake-up; the stored checkpoint is moved to `to` at most once a second.
   */
  /**
   * Per read model: its live checkpoint `from` is known to be passed up to `to` (nothing of its types
   * between), as long as its state row is the one the skip was made from (`rowUpdatedAt`): a replay
   * may move the checkpoint back to the very same position, and must not be skipped.
   */
  private readonly skips = new Map<string, { from: Position; to: Position; since: number; rowUpdatedAt: string }>();
  /** per generation (name:generation): the size of its next batch, and its current run of failures */
  private readonly batchSizes = new Map<string, number>();
  private readonly failures = new Map<string, Failure>();
  private readonly warned = new Set<string>();
  /** projections whose state rows a loop must read again before its next step (something moved them) */
  private readonly staleState = new Set<string>();
  /** the last read of every read model's state rows, shared by the loops' periodic controls (sharedState) */
  private lastSharedState?: { at: number; read: Promise<pg.QueryResult<StateRow>> };
  private stopped = false;
  private announceCheckpoints = false;
  private checkpoints?: NotificationListener;
  private loops: Promise<void>[] = [];
  private readonly batchSize: number;
  private readonly controlIntervalMs: number;
  private readonly targetMs: number;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  /** the one reader of the log's newest events; the read models' loops wait on its wake-ups */
  private readonly tail: LogTail;
  private readonly typeSets = new Map<string, ReadonlySet<string>>();
  /** read models whose live generation is of this code and runs here (the tail's consumers) */
  private readonly consuming = new Set<string>();
  /** the caught-up read models' small batches, one transaction for all (batch-group.ts) */
  private readonly group: BatchGroup;
  /** per generation (name:generation): until when it runs its batches on its own (its apply outlived the group's bound) */
  private readonly soloUntil = new Map<string, number>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly store: EventStore,
    readonly projections: readonly Projection[],
    private readonly log: Logger,
    private readonly wakeup: Wakeup,
    options: RunnerOptions = {},
  ) {
    super();
    this.setMaxListeners(0);
    this.batchSize = options.batchSize ?? 2000;
    this.controlIntervalMs = options.controlIntervalMs ?? 1000;
    this.targetMs = options.transactionTargetMs ?? 200;
    this.maxAttempts = options.maxAttempts ?? 5;
    this.retryBaseMs = options.retryBaseMs ?? 100;
    for (const p of projections) this.typeSets.set(p.name, new Set(p.types));
    this.group = new BatchGroup(pool, 2 * this.targetMs);
    this.tail = new LogTail(store, projections.flatMap((p) => p.types), log, {
      capacity: options.tailCapacity,
      maxBytes: options.tailMaxBytes,
      stallMs: options.tailStallMs,
      consumers: () => this.runningPositions(),
    });
  }

  /**
   * Runs the projections in this process. With `announceCheckpoints`, every batch committed to a live
   * read model is announced (CHECKPOINT_CHANNEL) to processes that `follow` it: API processes beside
   * an `engage worker` (or the worker process of `engage serve --processes N`).
   */
  async start(options: { announceCheckpoints?: boolean } = {}): Promise<void> {
    this.announceCheckpoints = options.announceCheckpoints ?? false;
    for (const p of this.projections) await ensureProjection(this.pool, p);
    this.tail.start();
    this.loops = this.projections.map((p) => this.loop(p));
  }

  /**
   * For a process that serves reads while another runs the projections: learns the read models'
   * checkpoints from that runner's announcements (LISTEN), so a read-your-writes wait ends as soon
   * as its write is applied instead of on its next poll of projection_state. After a (re)connect the
   * checkpoints are read once, as announcements may have been missed meanwhile.
   */
  follow(connectionString: string | undefined): Promise<void> {
    const names = this.projections.map((p) => p.name);
    this.checkpoints ??= new NotificationListener(
      connectionString,
      {
        [CHECKPOINT_CHANNEL]: (payload) => {
          const checkpoint = parseCheckpointPayload(payload);
          if (!checkpoint) return;
          this.markCaughtUp(checkpoint.name, checkpoint.at);
          this.emit('advanced', checkpoint.name, checkpoint.at);
        },
      },
      () =>
        void this.refreshPositions(names).then(
          () => names.forEach((name) => this.positions.has(name) && this.emit('advanced', name, this.positions.get(name))),
          () => undefined,
        ),
      'checkpoint notifications',
      this.log,
    );
    return this.checkpoints.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeup.wake();
    this.tail.advanced.wake();
    await Promise.allSettled(this.loops);
    await this.tail.stop();
    await this.checkpoints?.close();
  }

  /** The log tail's window: its size now and at its largest. */
  tailStats(): TailStats {
    return this.tail.stats();
  }

  /** Local knowledge of the active generation's checkpoint. */
  position(name: string): Position | undefined {
    return this.positions.get(name);
  }

  /** The error of the live generation, if it has stopped (a failed rebuild does not count: the live one still serves). */
  isFailing(name: string): string | undefined {
    return this.failed.get(name);
  }

  /**
   * Resolves true once every named projection has processed `position`, false on timeout
   * (the write stands either way; only its visibility in reads is late).
   */
  async waitFor(names: readonly string[], position: Position, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    const passed = () =>
      names.every((n) => {
        const p = this.positions.get(n);
        return p !== undefined && comparePositions(p, position) >= 0;
      });
    // no wake of the tail here: the append that made `position` woke it (this process's appends wake
    // its readers, another's notification does), and a waiter's wake on top of that made the tail read
    // the log again after each group of writes, mostly for nothing (README "The write path"); should
    // both be missed, the poll below wakes it
    // wait on 'advanced' events (our own batches, or a followed runner's announcements); poll the
    // table (another process may run the projection unannounced, or our read missed an event that
    // committed without waking anyone) soon once — not so soon when announcements are followed, or
    // when this runner applies every one of them itself (its own loops find what another process
    // applied as they go on) — then at most every 250 ms; never once per 'advanced' event, which made
    // every waiter query on every batch. Polling after 25 ms cost a write about one more round trip
    // whenever its read models took longer than that (README "The write path")
    let pause = this.checkpoints || names.every((n) => this.consuming.has(n)) ? 250 : 25;
    let lastPoll = Date.now();
    while (!passed()) {
      const left = deadline - Date.now();
      if (left <= 0 || this.stopped) return false;
      await new Promise<void>((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          this.off('advanced', finish);
          resolve();
        };
        const timer = setTimeout(finish, Math.max(0, Math.min(left, pause - (Date.now() - lastPoll))));
        this.on('advanced', finish);
      });
      if (passed()) break;
      if (Date.now() - lastPoll >= pause) {
        pause = 250;
        lastPoll = Date.now();
        this.wakeup.wake();
        await this.refreshPositions(names).catch(() => undefined);
      }
    }
    return true;
  }

  /**
   * A live checkpoint only moves back when an operator replays (`engage replay`) or a generation that
   * is behind swaps in: what this runner knows as passed then moves back with it, so a write that waits
   * for a position the read model has yet to apply again waits for it. (A checkpoint this runner has
   * moved on in memory only, past events the read model ignores, is not behind: see skipTo.)
   */
  private followCheckpointBack(name: string, live: StateRow) {
    const stored = rowPosition(live);
    const known = this.positions.get(name);
    if (!known || comparePositions(stored, known) >= 0) return;
    if (this.skipOf(name, live)) return;
    this.skips.delete(name);
    this.positions.set(name, stored);
  }

  /** The skip that holds for this state row, if any (see skips). */
  private skipOf(name: string, row: StateRow) {
    const skip = this.skips.get(name);
    return skip && comparePositions(skip.from, rowPosition(row)) === 0 && skip.rowUpdatedAt === row.updated_at ? skip : undefined;
  }

  private async refreshPositions(names: readonly string[]) {
    const { rows } = await this.pool.query<StateRow>(prepared(`SELECT ${STATE_COLUMNS} FROM projection_state WHERE name = ANY($1) AND active`, [names]));
    for (const r of rows) {
      const p = rowPosition(r);
      const known = this.positions.get(r.name);
      if (!known || comparePositions(p, known) > 0) this.positions.set(r.name, p);
    }
  }

  private async loop(p: Projection): Promise<void> {
    let lastControl = 0;
    let outage = 0;
    // the state rows are read again once per control interval, or when a step saw them move; in
    // between the loop keeps them itself (each batch re-checks its row under the generation's lock)
    let rows: StateRow[] | undefined;
    /** the loop's position and skip as its last control left them (the same objects while it has not moved) */
    let lastSeen: { position?: Position; skip?: unknown } = {};
    while (!this.stopped) {
      const ticket = this.tail.advanced.ticket();
      let didWork = false;
      try {
        const moved = !rows || this.staleState.delete(p.name);
        if (!rows || moved || Date.now() - lastControl >= this.controlIntervalMs) {
          // rows something moved are read for this read model alone, and so are those of a loop that
          // moved since its last control: a shared read made before its last batch or skip committed
          // would show its checkpoint behind, as a replay does. An idle loop's control shares a read.
          const idle = (): boolean => this.positions.get(p.name) === lastSeen.position && this.skips.get(p.name) === lastSeen.skip;
          let control = moved || !idle() ? undefined : await this.sharedState(p.name);
          if (!control || !idle()) control = await this.ownState(p.name);
          rows = control.rows;
          lastControl = control.at;
          const live = rows.find((r) => r.active && r.version === p.version);
          if (live) this.followCheckpointBack(p.name, live);
          lastSeen = { position: this.positions.get(p.name), skip: this.skips.get(p.name) };
        }
        for (const row of rows) {
          if (row.version !== p.version) {
            if (row.active) this.consuming.delete(p.name);
            this.noteOtherVersion(p, row);
            continue;
          }
          if (row.status === 'failed') {
            if (row.active) this.failed.set(p.name, row.error ?? 'failed');
            continue;
          }
          if (row.active) {
            this.failed.delete(p.name);
            this.consuming.add(p.name);
            if (!this.positions.has(p.name)) this.positions.set(p.name, rowPosition(row));
          }
          didWork = (await this.step(p, row)) || didWork;
        }
        // the tail lets go of what it has read, and reads on if it was waiting for it
        this.tail.consumerMoved();
        if (outage > 0) this.log.info({ projection: p.name }, 'projection: database reachable again; running');
        outage = 0;
      } catch (err) {
        rows = undefined;
        outage++;
        const connection = isConnectionError(err);
        if (!connection || outage === 1) {
          this.log[connection ? 'warn' : 'error']({ err, projection: p.name }, connection ? 'projection: database unreachable; retrying' : 'projection loop error; retrying');
        }
        // a wake-up (the listener reconnected, a write landed) cuts the pause short
        await this.tail.advanced.wait(this.tail.advanced.ticket(), Math.min(2_000, 100 * 2 ** Math.min(outage, 5)));
        continue;
      }
      if (!didWork) await this.tail.advanced.wait(ticket, Math.max(50, this.controlIntervalMs - (Date.now() - lastControl)));
    }
  }

  /** A read model's state rows, read now; `at` is when they were read. */
  private async ownState(name: string): Promise<{ at: number; rows: StateRow[] }> {
    const rows = await readState(this.pool, name);
    return { at: Date.now(), rows };
  }

  /**
   * A read model's state rows from a read of every read model's made at most half a control interval
   * ago (or under way), else from a new one; `at` is when that read was made. The periodic controls
   * of idle loops share it, so an idle runner reads projection_state once or twice an interval, not
   * once per read model; a loop counts its next control from `at`, so what it holds is never older
   * than an interval. A fresh read was made after the loop's last control (an interval ago at least).
   */
  private async sharedState(name: string): Promise<{ at: number; rows: StateRow[] }> {
    const now = Date.now();
    let last = this.lastSharedState;
    if (!last || now - last.at >= this.controlIntervalMs / 2) {
      const read = this.pool.query<StateRow>(`SELECT ${STATE_COLUMNS} FROM projection_state WHERE name = ANY($1) ORDER BY name, generation`, [this.projections.map((p) => p.name)]);
      last = { at: now, read };
      this.lastSharedState = last;
      const made = last;
      // a failed read is not shared with the loops that come after it
      read.catch(() => {
        if (this.lastSharedState === made) this.lastSharedState = undefined;
      });
    }
    const { rows } = await last.read;
    return { at: last.at, rows: rows.filter((r) => r.name === name) };
  }

  private noteOtherVersion(p: Projection, row: StateRow) {
    const key = `${p.name}:${row.generation}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    if (row.active && row.version > p.version) {
      this.log.warn({ projection: p.name, generation: row.generation, version: row.version, code_version: p.version }, 'projection: the live read model is built by newer code; this process leaves it alone');
    } else if (row.active) {
      this.log.info({ projection: p.name, generation: row.generation, version: row.version, code_version: p.version }, 'projection: the live read model is built by older code; it keeps serving as it is until this version\'s rebuild swaps in');
    }
  }

  private nextBatchSize(key: string): number {
    return this.batchSizes.get(key) ?? Math.min(this.batchSize, FIRST_BATCH);
  }

  /** Sizes the next batch so its transaction takes about the target time. */
  /**
   * The next batch's size from what this one's events cost. Only a batch of many events tells what an
   * event costs: a small batch's time is mostly its own (the transaction, a lock wait), so a slow one
   * shrinks nothing, and while it stays under the target it grows. A large batch shrinks to what fits
   * the target (never below MIN_EVIDENCE) and grows while it takes under half of it.
   */
  private adaptBatchSize(key: string, applied: number, elapsedMs: number) {
    const current = this.nextBatchSize(key);
    let next = current;
    const telling = applied >= MIN_EVIDENCE;
    if (elapsedMs > this.targetMs) {
      if (telling) next = Math.min(this.batchSize, Math.max(MIN_EVIDENCE, Math.floor((applied * this.targetMs) / elapsedMs)));
    } else if (applied >= current && (!telling || elapsedMs < this.targetMs / 2)) next = Math.min(this.batchSize, current * 2);
    this.batchSizes.set(key, next);
  }

  /** Processes one batch for one generation; returns whether it applied anything (or wants to go again at once). */
  private async step(p: Projection, row: StateRow): Promise<boolean> {
    const key = `${p.name}:${row.generation}`;
    const from = rowPosition(row);
    const skip = row.active ? this.skipOf(p.name, row) : undefined;
    const after = skip ? skip.to : from;
    const size = this.nextBatchSize(key);
    const { events, head } = await this.nextEvents(p, row.active, after, size);
    if (events.length === 0) {
      if (row.active) {
        const seen = head && comparePositions(head, after) > 0 ? head : after;
        if (comparePositions(seen, from) > 0) await this.skipTo(p, row, seen);
        this.markCaughtUp(p.name, seen);
      } else {
        await this.swapIn(p, row);
        this.staleState.add(p.name);
      }
      return false;
    }
    const last = events[events.length - 1].position;
    if (row.active && p.inert && !this.failures.has(key) && (await p.inert(this.pool, events, tableNamer(row.generation)))) {
      // nothing to write: moved past as events it does not follow are (skipTo)
      await this.skipTo(p, row, last);
      this.markCaughtUp(p.name, last);
      this.emit('advanced', p.name, last);
      return events.length >= size;
    }
    if (row.active && p.rebuildable !== false && events.length <= GROUPED_MAX_EVENTS && !this.failures.has(key) && !((this.soloUntil.get(key) ?? 0) > Date.now())) {
      // a small batch of a live read model goes with the others' in one transaction (batch-group.ts);
      // one the group hands back (its lock busy, its apply failing) runs on its own below. A read
      // model with effects beyond its tables (the webhook outbox) always runs on its own: an apply the
      // group gives up on must not have done anything outside the transaction it rolls back
      const outcome = await this.group.submit({ projection: p, generation: row.generation, from, events, announce: this.announceCheckpoints });
      if (outcome.kind === 'moved') {
        this.staleState.add(p.name);
        return true;
      }
      // one that outlived the group's bound holds no group again for a while (it runs on its own)
      if (outcome.kind === 'slow') this.soloUntil.set(key, Date.now() + SOLO_AFTER_SLOW_MS);
      if (outcome.kind === 'applied') {
        this.adaptBatchSize(key, events.length, outcome.applyMs);
        return this.committed(p, row, events, size, outcome.signals);
      }
    }
    const t = tableNamer(row.generation);
    const client = await this.pool.connect();
    let applied: void | Applied;
    try {
      // the generation's lock, not a row lock: no transaction id until apply writes (see state.ts)
      const now = await beginBatch(client, p.name, row.generation, batchCommitMode({ projection: p, events }) + batchPlanMode({ events }));
      if (!stillAt(now, from, p.version)) {
        // another process moved it meanwhile (or it was swapped out): drop this batch and re-read
        await client.query('ROLLBACK');
        this.staleState.add(p.name);
        return true;
      }
      const started = Date.now();
      try {
        applied = await p.apply(client, events, t);
      } catch (err) {
        await client.query('ROLLBACK TO SAVEPOINT apply');
        if (isConnectionError(err)) throw err;
        this.staleState.add(p.name);
        return await this.failedBatch(client, p, row, events, t, err);
      }
      await commitBatch(client, p.name, row.generation, last, this.announceCheckpoints && row.active);
      this.adaptBatchSize(key, events.length, Date.now() - started);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    return this.committed(p, row, events, size, applied?.signals);
  }

  /** After a batch's commit: the loop's state, its position and its announcements move with it. Returns whether to go again at once. */
  private async committed(p: Projection, row: StateRow, events: RecordedEvent[], size: number, signals?: readonly string[]): Promise<boolean> {
    const key = `${p.name}:${row.generation}`;
    const last = events[events.length - 1].position;
    // the state this loop keeps moves with its own commits (another process's move is caught when its batch begins)
    row.commit = last.commit.toString();
    row.prepare = last.prepare.toString();
    if (this.failures.delete(key)) this.log.info({ projection: p.name, generation: row.generation }, 'projection: the failing batch went through on a retry');
    if (row.active) {
      this.positions.set(p.name, last);
      for (const signal of signals ?? []) this.emit('signal', signal);
      this.emit('advanced', p.name, last);
    } else {
      this.emit('rebuild-progress', p.name, row.generation, last, events.length);
      // a short batch means the new generation is at the head: swap now, since under steady writes
      // a read may never come back empty
      if (events.length < size) {
        await this.swapIn(p, { ...row, commit: last.commit.toString(), prepare: last.prepare.toString() });
        this.staleState.add(p.name);
      }
    }
    // a full batch may have more behind it: go again at once; after a short one, the wait returns at
    // once if anything of interest was appended meanwhile (the loop's ticket predates this read)
    return events.length >= size;
  }

  /**
   * A read model's next events after `after` (at most `size`), and with fewer than that, how far it
   * has seen the log: from the tail's window when it holds them (the live generation, caught up),
   * else from the log itself (a rebuild, or a read model behind the window).
   */
  private async nextEvents(p: Projection, active: boolean, after: Position, size: number): Promise<{ events: RecordedEvent[]; head?: Position }> {
    const taken = active ? this.tail.take(after, this.typeSets.get(p.name)!, size) : undefined;
    if (taken) {
      // sealed in the window: opened here for a read model that reads them open
      const events = p.personalData === undefined && taken.events.length ? await this.store.open(taken.events) : taken.events;
      return { events, head: taken.seenTo };
    }
    // the head before the read: a read that comes back empty has seen every event up to it
    const head = active ? await this.store.headPosition() : undefined;
    const events = await this.store.readAll({ after, maxCount: size, types: p.types, keepSealed: p.personalData !== undefined });
    return { events, ...(head ? { head } : {}) };
  }

  /**
   * Where each read model whose live generation this runner runs has read to: they pace the log tail.
   * One of another version (a rolling deploy) or failed is not among them.
   */
  private runningPositions(): Map<string, Position> {
    const running = new Map<string, Position>();
    for (const name of this.consuming) {
      const at = this.positions.get(name);
      if (at && !this.failed.has(name)) running.set(name, at);
    }
    return running;
  }

  /**
   * A batch could not be applied (its transaction is rolled back to before the apply). Finds the
   * event that fails; retries with backoff while attempts remain (twice as many for transient
   * errors: a lost race, a lock or statement timeout); else parks the event when the error is its
   * own, or marks the generation failed, naming the event. Returns whether the loop should go again at once.
   */
  private async failedBatch(client: pg.PoolClient, p: Projection, row: StateRow, events: RecordedEvent[], t: TableNamer, err: unknown): Promise<boolean> {
    const key = `${p.name}:${row.generation}`;
    const found = await this.findCulprit(client, p, events, t);
    const culprit = found?.event ?? events[0];
    // the event's own error when it fails alone (the batch's may be a later symptom)
    const cause = found?.error ?? err;
    if (isConnectionError(cause)) throw cause;
    const at = positionToString(culprit.position);
    const known = this.failures.get(key);
    const attempts = known && known.position === at ? known.attempts + 1 : 1;
    const limit = isTransientError(cause) ? this.maxAttempts * 2 : this.maxAttempts;
    const message = errorText(cause);
    const event = `${culprit.type} ${culprit.streamId}@${culprit.revision} (id ${culprit.id})`;
    if (attempts < limit) {
      await client.query('ROLLBACK');
      this.failures.set(key, { position: at, attempts });
      // smaller batches isolate the failing event sooner and hold less work hostage meanwhile
      this.batchSizes.set(key, Math.max(1, Math.floor(events.length / 2)));
      const delay = Math.min(5_000, this.retryBaseMs * 2 ** (attempts - 1));
      this.log.warn({ projection: p.name, generation: row.generation, position: at, event, attempt: attempts, retryInMs: delay, err: message }, 'projection: could not apply a batch; retrying');
      await sleep(delay);
      return true;
    }
    if (found && isEventError(cause)) return this.park(client, p, row, events.slice(0, found.index), culprit, message, attempts);
    await client.query(
      `UPDATE projection_state SET status = 'failed', error = $3, error_position = $4, error_event = $5, updated_at = now() WHERE name = $1 AND generation = $2`,
      [p.name, row.generation, message, at, event],
    );
    await client.query('COMMIT');
    this.failures.delete(key);
    if (row.active) this.failed.set(p.name, message);
    this.log.error({ projection: p.name, generation: row.generation, position: at, event, attempts, err: cause }, row.active ? 'projection failed; stopped' : 'projection rebuild failed; the live generation keeps serving');
    return false;
  }

  /**
   * Parks an event that keeps failing with an error of its own: in the batch's transaction, the
   * events before it are applied, it is recorded in parked_events and the checkpoint moves past it,
   * all in one commit. The read model goes on with the events after it.
   */
  private async park(client: pg.PoolClient, p: Projection, row: StateRow, before: RecordedEvent[], culprit: RecordedEvent, error: string, attempts: number): Promise<boolean> {
    const key = `${p.name}:${row.generation}`;
    try {
      if (before.length > 0) await p.apply(client, before, tableNamer(row.generation));
    } catch (err) {
      // they went through one by one a moment ago: whatever this is, the next attempt settles it
      await client.query('ROLLBACK');
      if (isConnectionError(err)) throw err;
      return true;
    }
    await parkEvent(client, p.name, row.generation, culprit, error, attempts);
    await commitBatch(client, p.name, row.generation, culprit.position, this.announceCheckpoints && row.active);
    this.failures.delete(key);
    const accountId = (culprit.metadata?.accountId ?? (culprit.data as { account_id?: unknown } | null)?.account_id) as string | undefined;
    this.log.error(
      {
        projection: p.name,
        generation: row.generation,
        event_id: culprit.id,
        event: `${culprit.type} ${culprit.streamId}@${culprit.revision}`,
        position: positionToString(culprit.position),
        account_id: accountId ?? null,
        attempts,
        error,
      },
      'read model event parked',
    );
    row.commit = culprit.position.commit.toString();
    row.prepare = culprit.position.prepare.toString();
    if (row.active) {
      this.positions.set(p.name, culprit.position);
      this.emit('advanced', p.name, culprit.position);
    } else {
      this.emit('rebuild-progress', p.name, row.generation, culprit.position, before.length + 1);
    }
    return true;
  }

  /** Records that the active generation has nothing to apply up to `to`; stores it as the checkpoint once a second (only if nobody moved it). */
  private async skipTo(p: Projection, row: StateRow, to: Position): Promise<void> {
    const from = rowPosition(row);
    const since = this.skipOf(p.name, row)?.since ?? Date.now();
    this.skips.set(p.name, { from, to, since, rowUpdatedAt: row.updated_at });
    if (Date.now() - since < 1000) return;
    // only the row the skip was made from: a replay that moved the checkpoint back (even to this very
    // position) since then is not overwritten
    const { rows: moved } = await this.pool.query<{ updated_at: string }>(
      `UPDATE projection_state SET commit_pos = $3::text::xid8, prepare_pos = $4, updated_at = now()
       WHERE name = $1 AND generation = $2 AND active AND status = 'running' AND commit_pos = $5::text::xid8 AND prepare_pos = $6
         AND updated_at = $7::timestamptz
       RETURNING updated_at::text AS updated_at`,
      [p.name, row.generation, to.commit.toString(), to.prepare.toString(), from.commit.toString(), from.prepare.toString(), row.updated_at],
    );
    if (moved.length === 1) {
      this.skips.set(p.name, { from: to, to, since: Date.now(), rowUpdatedAt: moved[0].updated_at });
      // the loop's own copy of the row moves with the stored checkpoint
      row.commit = to.commit.toString();
      row.prepare = to.prepare.toString();
      row.updated_at = moved[0].updated_at;
    } else {
      this.skips.delete(p.name);
      this.staleState.add(p.name);
    }
  }

  /** Finds the first event of a failed batch that throws, and its error, applying the good ones one by one (rolled back after). */
  private async findCulprit(client: pg.PoolClient, p: Projection, events: RecordedEvent[], t: TableNamer): Promise<{ event: RecordedEvent; index: number; error: unknown } | undefined> {
    await client.query('SAVEPOINT culprit');
    try {
      for (const [index, e] of events.entries()) {
        try {
          await client.query('SAVEPOINT one');
          await p.apply(client, [e], t);
          await client.query('RELEASE SAVEPOINT one');
        } catch (error) {
          return { event: e, index, error };
        }
      }
      return undefined;
    } finally {
      await client.query('ROLLBACK TO SAVEPOINT culprit').catch(() => undefined);
    }
  }

  private markCaughtUp(name: string, at: Position) {
    const known = this.positions.get(name);
    if (!known || comparePositions(at, known) > 0) this.positions.set(name, at);
  }

  /**
   * A rebuilding generation that has caught up replaces the active one, atomically. The swap waits
   * for batches on both generations (their locks), catches up at most one batch under them, and
   * gives up (to try again after more batches) when more than that is left, so it stays short.
   */
  private async swapIn(p: Projection, row: StateRow): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await lockProjection(client, p.name);
      let rows = await readState(client, p.name);
      await lockGenerations(client, p.name, rows.map((r) => r.generation));
      rows = await readState(client, p.name);
      const mine = rows.find((r) => r.generation === row.generation);
      const live = rows.find((r) => r.active);
      if (
        !mine ||
        mine.active ||
        mine.status !== 'rebuilding' ||
        mine.version !== p.version ||
        (live && live.version > mine.version) ||
        comparePositions(rowPosition(mine), rowPosition(row)) !== 0
      ) {
        await client.query('ROLLBACK');
        return;
      }
      const size = this.nextBatchSize(`${p.name}:${mine.generation}`);
      const events = await this.store.readAll({ after: rowPosition(mine), maxCount: size, types: p.types, keepSealed: p.personalData !== undefined });
      if (events.length >= size) {
        await client.query('ROLLBACK');
        return;
      }
      // the log holds nothing more for it (up to what is readable, which the live one cannot pass)
      if (events.length > 0) {
        await p.apply(client, events, tableNamer(mine.generation));
        const last = events[events.length - 1].position;
        mine.commit = last.commit.toString();
        mine.prepare = last.prepare.toString();
      }
      await replaceViews(client, p, mine.generation);
      for (const old of rows.filter((r) => r.generation !== mine.generation)) await removeGeneration(client, p, old);
      await client.query(
        `UPDATE projection_state SET active = true, status = 'running', commit_pos = $3::text::xid8, prepare_pos = $4, updated_at = now()
         WHERE name = $1 AND generation = $2`,
        [p.name, mine.generation, mine.commit, mine.prepare],
      );
      await client.query('COMMIT');
      this.positions.set(p.name, rowPosition(mine));
      this.failed.delete(p.name);
      this.log.info({ projection: p.name, generation: mine.generation, version: mine.version }, 'rebuild complete; swapped in');
      this.emit('swapped', p.name, mine.generation);
      // a table filled by a replay has no statistics until autovacuum's next round: queries planned
      // meanwhile guess its size (a sort of every queued message instead of a walk of their index)
      const t = tableNamer(mine.generation);
      for (const table of p.tables) await this.pool.query(`ANALYZE ${t(table)}`).catch((err) => this.log.warn({ err, projection: p.name, table }, 'could not ANALYZE the rebuilt read model'));
      this.emit('advanced', p.name, rowPosition(mine));
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}

