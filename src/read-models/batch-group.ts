// Grouped batches: the small batches of caught-up read models, applied in one transaction and one
// commit. Each event reaches every read model that follows its type; when each one ran a transaction
// of its own per wake-up (BEGIN, its lock, its state row, the apply, its checkpoint, COMMIT), a
// caught-up wake carrying a handful of events cost one commit per read model, and every read model
// added to the product made every message dearer. README "The write path".
//
// A read model's loop hands its batch to the group instead of running it; batches handed in while a
// group transaction is running go together in the next one. In that transaction:
// - each read model's generation lock is *tried* (pg_try_advisory_xact_lock): one held elsewhere (a
//   swap, another process's batch) is handed back as `busy`, and its loop runs the batch on its own,
//   waiting for the lock there; the group never waits, so it holds no lock while waiting for another;
// - each state row is checked as the loop's own batch checks it; one moved meanwhile is `moved`;
// - an apply that throws rolls the transaction back; it is handed back as `failed` (its loop retries
//   it on its own, where retries, parking and failure are decided) and the others go again, without
//   it, in a new group transaction (no savepoint per read model: two round trips each on every
//   wake-up, for a failure that is rare);
// - the checkpoints move in one statement, in the same commit as what the applies wrote;
// - an apply that runs longer than `slowApplyMs` (stuck on a lock, say) must not hold the others: the
//   group's connection is closed (the server rolls everything back), its read model is handed back
//   as `slow` and every other as `busy`, and each runs its batch on its own (README "The event log
//   and the read models": a stuck read model holds no other).
import type pg from 'pg';
import { isConnectionError } from '../db/errors.ts';
import type { Position, RecordedEvent } from '../eventstore/port.ts';
import { type Applied, type Projection, tableNamer } from './projection.ts';
import { CHECKPOINT_CHANNEL, GENERATION_LOCK_NAMESPACE, STATE_COLUMNS, type StateRow, batchCommitMode, batchPlanMode, checkpointPayload, stillAt } from './state.ts';

export interface GroupedBatch {
  projection: Projection;
  generation: number;
  /** the checkpoint the batch starts from: the state row must still be there */
  from: Position;
  events: RecordedEvent[];
  /** announce the new checkpoint on CHECKPOINT_CHANNEL after the commit */
  announce: boolean;
}

export type GroupedOutcome =
  /** applied and committed; `applyMs` is what its own apply took, `signals` what it asked to raise */
  | { kind: 'applied'; applyMs: number; signals?: readonly string[] }
  /** not applied: its lock was held elsewhere */
  | { kind: 'busy' }
  /** not applied: its state row moved, failed or changed version meanwhile */
  | { kind: 'moved' }
  /** not applied: its apply threw (rolled back to its savepoint) */
  | { kind: 'failed'; error: unknown }
  /** not applied: its apply ran longer than the group lets one run (nothing of the group was kept) */
  | { kind: 'slow' };

/** Thrown inside the group when an apply outlives its bound. */
class SlowApply extends Error {
  constructor(readonly entry: Entry) {
    super('an apply in the group ran too long');
  }
}

interface Entry {
  batch: GroupedBatch;
  resolve: (outcome: GroupedOutcome) => void;
  reject: (err: unknown) => void;
}

export class BatchGroup {
  private pending: Entry[] = [];
  private running = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly slowApplyMs: number,
  ) {}

  /** Applies the batch in the next group transaction; rejects when that transaction as a whole fails (a lost connection). */
  submit(batch: GroupedBatch): Promise<GroupedOutcome> {
    return new Promise((resolve, reject) => {
      this.pending.push({ batch, resolve, reject });
      this.schedule();
    });
  }

  private schedule() {
    if (this.running || this.pending.length === 0) return;
    this.running = true;
    // every loop woken by the same advance of the log hands its batch in before the group starts
    setImmediate(() => {
      const entries = this.pending;
      this.pending = [];
      void this.run(entries).finally(() => {
        this.running = false;
        this.schedule();
      });
    });
  }

  private async run(entries: Entry[]): Promise<void> {
    let left = entries;
    while (left.length) left = await this.attempt(left);
  }

  /**
   * One group transaction over `entries`. Returns the entries to run again in a new one: when an
   * apply fails, the transaction is rolled back whole (no savepoint per read model: two round trips
   * each on every wake-up, for a failure that is rare), the failing one is handed back, and the
   * others go again without it.
   */
  private async attempt(entries: Entry[]): Promise<Entry[]> {
    let client: pg.PoolClient | undefined;
    let closed = false;
    const settled = new Set<Entry>();
    const settle = (e: Entry, outcome: GroupedOutcome) => {
      settled.add(e);
      e.resolve(outcome);
    };
    try {
      client = await this.pool.connect();
      const locked = await this.begin(client, entries);
      const applying: { entry: Entry; applyMs: number; signals?: readonly string[] }[] = [];
      for (const [i, e] of entries.entries()) {
        const state = locked[i];
        const { batch } = e;
        if (state === 'busy') {
          settle(e, { kind: 'busy' });
          continue;
        }
        if (!stillAt(state, batch.from, batch.projection.version) || !state.active) {
          settle(e, { kind: 'moved' });
          continue;
        }
        const started = performance.now();
        let applied: void | Applied;
        try {
          applied = await this.bounded(e, batch.projection.apply(client, batch.events, tableNamer(batch.generation)));
        } catch (error) {
          if (error instanceof SlowApply || isConnectionError(error)) throw error;
          await client.query('ROLLBACK');
          settle(e, { kind: 'failed', error });
          return entries.filter((x) => !settled.has(x));
        }
        applying.push({ entry: e, applyMs: performance.now() - started, signals: applied?.signals });
      }
      await this.commit(client, applying.map((a) => a.entry.batch));
      for (const a of applying) settle(a.entry, { kind: 'applied', applyMs: a.applyMs, signals: a.signals });
    } catch (err) {
      if (err instanceof SlowApply && client) {
        // the connection is busy with the slow apply: its session is ended from another (a closed
        // socket alone ends it only once the running statement returns, its locks held until then),
        // so the server rolls it back and lets go of its locks now; nothing of the group was kept
        const pid = (client as unknown as { processID?: number }).processID;
        if (pid) await this.pool.query('SELECT pg_terminate_backend($1)', [pid]).catch(() => undefined);
        client.release(err);
        closed = true;
        settle(err.entry, { kind: 'slow' });
        for (const e of entries) if (!settled.has(e)) settle(e, { kind: 'busy' });
        return [];
      }
      await client?.query('ROLLBACK').catch(() => undefined);
      // what was handed back stays handed back (nothing of it was kept); the rest fails with the transaction
      for (const e of entries) if (!settled.has(e)) e.reject(err);
    } finally {
      if (!closed) client?.release();
    }
    return [];
  }

  /** The apply, or SlowApply once it has run for `slowApplyMs`. */
  private async bounded<T>(entry: Entry, apply: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const outlived = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SlowApply(entry)), this.slowApplyMs);
    });
    // an apply left running on the closed connection fails there; its rejection is nobody's to handle
    apply.catch(() => undefined);
    try {
      return await Promise.race([apply, outlived]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * BEGIN, the commit mode (batchCommitMode: the group holds no read model with effects beyond its
   * tables, and a batch with an erasure makes the whole group wait for its flush), the plan mode
   * (batchPlanMode: its batches are small), each generation's lock tried, and the state rows of
   * those locked, in one round trip.
   * Literals, not parameters: a multi-statement query takes none (names are the read models' own,
   * escaped all the same). Per entry: its state row, undefined (no row), or 'busy'.
   */
  private async begin(client: pg.PoolClient, entries: readonly Entry[]): Promise<(StateRow | undefined | 'busy')[]> {
    const key = (b: GroupedBatch) => client.escapeLiteral(`${b.projection.name}:${b.generation}`);
    const tries = entries.map((e, i) => `pg_try_advisory_xact_lock(${GENERATION_LOCK_NAMESPACE}, hashtext(${key(e.batch)})) AS l${i}`).join(', ');
    const pairs = entries.map((e) => `(${client.escapeLiteral(e.batch.projection.name)}, ${Number(e.batch.generation)})`).join(', ');
    const results = (await client.query(
      `BEGIN;
       ${batchCommitMode(...entries.map((e) => ({ projection: e.batch.projection, events: e.batch.events })))}
       ${batchPlanMode(...entries.map((e) => e.batch))}
       SELECT ${tries};
       SELECT ${STATE_COLUMNS} FROM projection_state WHERE (name, generation) IN (${pairs})`,
    )) as unknown as pg.QueryResult[];
    // the last two results: the locks tried and the state rows (after BEGIN and the modes)
    const got = results[results.length - 2].rows[0] as Record<string, boolean>;
    const rows = results[results.length - 1].rows as StateRow[];
    return entries.map((e, i) => {
      if (!got[`l${i}`]) return 'busy';
      return rows.find((r) => r.name === e.batch.projection.name && r.generation === e.batch.generation);
    });
  }

  /** Moves the applied batches' checkpoints and commits, in one round trip; then announces those to be announced. */
  private async commit(client: pg.PoolClient, applied: readonly GroupedBatch[]): Promise<void> {
    if (applied.length === 0) {
      await client.query('ROLLBACK');
      return;
    }
    const last = (b: GroupedBatch): Position => b.events[b.events.length - 1].position;
    const values = applied.map((b) => `(${client.escapeLiteral(b.projection.name)}, ${Number(b.generation)}, '${last(b).commit}'::xid8, ${last(b).prepare}::bigint)`).join(', ');
    const announced = applied.filter((b) => b.announce).map((b) => `pg_notify('${CHECKPOINT_CHANNEL}', ${client.escapeLiteral(checkpointPayload(b.projection.name, last(b)))})`);
    // a NOTIFY inside the transaction would hold the notify queue's lock across the commit: after it
    await client.query(
      `UPDATE projection_state s SET commit_pos = v.commit_pos, prepare_pos = v.prepare_pos, updated_at = now()
         FROM (VALUES ${values}) AS v(name, generation, commit_pos, prepare_pos)
        WHERE s.name = v.name AND s.generation = v.generation;
       COMMIT${announced.length ? `;
       SELECT ${announced.join(', ')}` : ''}`,
    );
  }
}
