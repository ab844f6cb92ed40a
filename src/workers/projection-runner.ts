// The projection runner: keeps each read model up to date from the global log. A batch and its
// checkpoint commit in one transaction (exactly-once effect). Rebuilds build a new generation of
// tables beside the live one and swap the views when it has caught up (blue/green).
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { EventStore, Position } from '../eventstore/port.ts';
import { START, comparePositions, positionToString } from '../eventstore/port.ts';
import { Wakeup } from '../eventstore/wakeup.ts';
import { type Projection, tableNamer } from '../projection.ts';

export interface ProjectionStatus {
  name: string;
  generation: number;
  version: number;
  active: boolean;
  status: 'running' | 'rebuilding' | 'failed';
  position: string;
  lag: number;
  error?: string;
  error_position?: string;
}

interface StateRow {
  name: string;
  generation: number;
  active: boolean;
  version: number;
  commit: string;
  prepare: string;
  status: string;
  error: string | null;
  error_position: string | null;
}

const STATE_COLUMNS = `name, generation, active, version, commit_pos::text AS commit, prepare_pos::text AS prepare, status, error, error_position`;

async function lockProjection(client: pg.PoolClient, name: string) {
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`projection:${name}`]);
}

function rowPosition(r: StateRow): Position {
  return { commit: BigInt(r.commit), prepare: BigInt(r.prepare) };
}

/** Creates the tables and views of a projection's first generation if it has none (idempotent, cross-process safe). */
export async function ensureProjection(pool: pg.Pool, p: Projection): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await lockProjection(client, p.name);
    const { rows } = await client.query<StateRow>(`SELECT ${STATE_COLUMNS} FROM projection_state WHERE name = $1`, [p.name]);
    if (rows.length === 0) {
      const t = tableNamer(1);
      await client.query(p.schema(t));
      await replaceViews(client, p, 1);
      await client.query(`INSERT INTO projection_state (name, generation, active, version, status) VALUES ($1, 1, true, $2, 'running')`, [
        p.name,
        p.version,
      ]);
    } else {
      const active = rows.find((r) => r.active);
      const rebuilding = rows.find((r) => !r.active);
      if (active && active.version !== p.version && p.rebuildable === false) {
        throw new Error(`projection ${p.name} changed version (${active.version} → ${p.version}) but cannot be rebuilt: it needs a migration`);
      }
      if (active && active.version !== p.version && !rebuilding) {
        // the code's version moved on: rebuild into a new generation, keep serving the old one meanwhile
        await createGeneration(client, p, Math.max(...rows.map((r) => r.generation)) + 1);
      }
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

async function replaceViews(client: pg.PoolClient, p: Projection, generation: number) {
  const t = tableNamer(generation);
  for (const base of p.tables) {
    await client.query(`DROP VIEW IF EXISTS ${base}`);
    await client.query(`CREATE VIEW ${base} AS SELECT * FROM ${t(base)}`);
  }
}

async function dropGeneration(client: pg.PoolClient, p: Projection, generation: number) {
  const t = tableNamer(generation);
  for (const base of p.tables) await client.query(`DROP TABLE IF EXISTS ${t(base)} CASCADE`);
}

async function createGeneration(client: pg.PoolClient, p: Projection, generation: number) {
  await dropGeneration(client, p, generation);
  await client.query(p.schema(tableNamer(generation)));
  await client.query(
    `INSERT INTO projection_state (name, generation, active, version, status) VALUES ($1, $2, false, $3, 'rebuilding')`,
    [p.name, generation, p.version],
  );
}

/** Starts a blue/green rebuild of a projection: a new generation replays from the start. */
export async function requestRebuild(pool: pg.Pool, p: Projection): Promise<number> {
  if (p.rebuildable === false) throw new Error(`${p.name} cannot be rebuilt: replaying it would repeat its effects (e.g. deliver webhooks again)`);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await lockProjection(client, p.name);
    // FOR UPDATE: wait for a runner's batch on these generations to commit before dropping their tables
    // (row lock before table lock, the order a batch takes them in, so the two cannot deadlock)
    const { rows } = await client.query<StateRow>(`SELECT ${STATE_COLUMNS} FROM projection_state WHERE name = $1 FOR UPDATE`, [p.name]);
    for (const r of rows.filter((r) => !r.active)) {
      await dropGeneration(client, p, r.generation);
      await client.query('DELETE FROM projection_state WHERE name = $1 AND generation = $2', [p.name, r.generation]);
    }
    const generation = Math.max(0, ...rows.map((r) => r.generation)) + 1;
    await createGeneration(client, p, generation);
    await client.query('COMMIT');
    return generation;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Moves a projection's checkpoint back (for `engage replay`): re-applies events after `from`. */
export async function resetCheckpoint(pool: pg.Pool, name: string, from: Position): Promise<void> {
  await pool.query(
    `UPDATE projection_state SET commit_pos = $2::text::xid8, prepare_pos = $3, status = CASE WHEN active THEN 'running' ELSE status END,
       error = NULL, error_position = NULL, updated_at = now() WHERE name = $1`,
    [name, from.commit.toString(), from.prepare.toString()],
  );
}

/** Statuses of every projection generation; lag counts the events of its types not yet applied. */
export async function readStatuses(pool: pg.Pool, store: EventStore, projections: readonly Projection[] = []): Promise<ProjectionStatus[]> {
  const { rows } = await pool.query<StateRow>(`SELECT ${STATE_COLUMNS} FROM projection_state ORDER BY name, generation`);
  const typesOf = new Map(projections.map((p) => [p.name, p.types]));
  return Promise.all(
    rows.map(async (r) => toStatus(r, await store.countAfter(rowPosition(r), typesOf.get(r.name), 1_000_000))),
  );
}

function toStatus(r: StateRow, lag: number): ProjectionStatus {
  const pos = rowPosition(r);
  return {
    name: r.name,
    generation: r.generation,
    version: r.version,
    active: r.active,
    status: r.status as ProjectionStatus['status'],
    position: positionToString(pos),
    lag,
    ...(r.error ? { error: r.error, error_position: r.error_position ?? undefined } : {}),
  };
}

interface RunnerOptions {
  batchSize?: number;
  /** how often to re-read projection_state for rebuild requests made by other processes */
  controlIntervalMs?: number;
}

/**
 * Runs a set of projections in this process. Each is its own loop; several processes may run
 * the same projection safely (the checkpoint row is locked and compared per batch).
 */
export class ProjectionRunner extends EventEmitter {
  private readonly wakeup: Wakeup;
  private readonly positions = new Map<string, Position>();
  private readonly caughtUp = new Map<string, boolean>();
  private readonly failed = new Map<string, string>();
  /**
   * Per projection: the log holds no event of its types after its stored checkpoint `from` up to
   * `to` (an empty read proved it). Reads start after `to` while the checkpoint is still `from`, so a
   * projection whose events are rare does not re-scan every later event of other types on each
   * wake-up; the stored checkpoint is moved to `to` at most once a second.
   */
  private readonly skips = new Map<string, { from: Position; to: Position; since: number }>();
  private stopped = false;
  private loops: Promise<void>[] = [];
  private readonly batchSize: number;
  private readonly controlIntervalMs: number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly store: EventStore,
    readonly projections: readonly Projection[],
    private readonly log: Logger,
    storeWakeup: Wakeup,
    options: RunnerOptions = {},
  ) {
    super();
    this.setMaxListeners(0);
    this.wakeup = storeWakeup;
    this.batchSize = options.batchSize ?? 2000;
    this.controlIntervalMs = options.controlIntervalMs ?? 1000;
  }

  async start(): Promise<void> {
    for (const p of this.projections) await ensureProjection(this.pool, p);
    this.loops = this.projections.map((p) => this.loop(p));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeup.wake();
    await Promise.allSettled(this.loops);
  }

  /** Local knowledge of the active generation's checkpoint. */
  position(name: string): Position | undefined {
    return this.positions.get(name);
  }

  isFailing(name: string): string | undefined {
    return this.failed.get(name);
  }

  /**
   * Resolves true once every named projection has processed `position`, false on timeout
   * (the write stands either way; only its visibility in reads is late).
   */
  async waitFor(names: readonly string[], position: Position, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    const passed = () => names.every((n) => {
      const p = this.positions.get(n);
      return p !== undefined && comparePositions(p, position) >= 0;
    });
    this.wakeup.wake();
    // wait on our own 'advanced' events; poll the table (another process may run the projection, or
    // our read missed an event that committed without waking anyone) soon once, then at most every
    // 250 ms — never once per 'advanced' event, which made every waiter query on every batch
    let pause = 25;
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
        await this.refreshPositions(names);
      }
    }
    return true;
  }

  private async refreshPositions(names: readonly string[]) {
    const { rows } = await this.pool.query<StateRow>(
      `SELECT ${STATE_COLUMNS} FROM projection_state WHERE name = ANY($1) AND active`,
      [names],
    );
    for (const r of rows) {
      const p = rowPosition(r);
      const known = this.positions.get(r.name);
      if (!known || comparePositions(p, known) > 0) this.positions.set(r.name, p);
    }
  }

  private async loop(p: Projection): Promise<void> {
    let lastControl = 0;
    while (!this.stopped) {
      const ticket = this.wakeup.ticket();
      let didWork = false;
      try {
        const { rows } = await this.pool.query<StateRow>(
          `SELECT ${STATE_COLUMNS} FROM projection_state WHERE name = $1 ORDER BY generation`,
          [p.name],
        );
        lastControl = Date.now();
        for (const row of rows) {
          if (row.status === 'failed') {
            this.failed.set(p.name, row.error ?? 'failed');
            continue;
          }
          if (row.active) this.failed.delete(p.name);
          if (row.active && !this.positions.has(p.name)) this.positions.set(p.name, rowPosition(row));
          didWork = (await this.step(p, row)) || didWork;
        }
      } catch (err) {
        this.log.error({ err, projection: p.name }, 'projection loop error; retrying');
        await sleep(1000);
      }
      if (!didWork) await this.wakeup.wait(ticket, Math.max(50, this.controlIntervalMs - (Date.now() - lastControl)));
    }
  }

  /** Processes one batch for one generation; returns whether it applied anything. */
  private async step(p: Projection, row: StateRow): Promise<boolean> {
    const from = rowPosition(row);
    const skip = row.active ? this.skips.get(p.name) : undefined;
    const after = skip && comparePositions(skip.from, from) === 0 ? skip.to : from;
    // the head before the read: a read that comes back empty has seen every event up to it
    const head = row.active ? await this.store.headPosition() : undefined;
    const events = await this.store.readAll({ after, maxCount: this.batchSize, types: p.types });
    if (events.length === 0) {
      if (row.active) {
        const seen = head && comparePositions(head, after) > 0 ? head : after;
        if (comparePositions(seen, from) > 0) await this.skipTo(p, row, seen);
        this.markCaughtUp(p.name, seen);
      } else await this.swapIn(p, row);
      return false;
    }
    const last = events[events.length - 1].position;
    const t = tableNamer(row.generation);
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // lock our checkpoint row; if another process moved it meanwhile, drop this batch and re-read
      const { rows } = await client.query<StateRow>(
        `SELECT ${STATE_COLUMNS} FROM projection_state WHERE name = $1 AND generation = $2 FOR UPDATE`,
        [p.name, row.generation],
      );
      if (rows.length === 0 || comparePositions(rowPosition(rows[0]), from) !== 0 || rows[0].status === 'failed') {
        await client.query('ROLLBACK');
        return true;
      }
      try {
        await client.query('SAVEPOINT apply');
        await p.apply(client, events, t);
      } catch (err) {
        await client.query('ROLLBACK TO SAVEPOINT apply');
        const culprit = await this.findCulprit(client, p, events, t);
        const message = err instanceof Error ? err.message : String(err);
        await client.query(
          `UPDATE projection_state SET status = 'failed', error = $3, error_position = $4, updated_at = now() WHERE name = $1 AND generation = $2`,
          [p.name, row.generation, message, culprit ? positionToString(culprit) : positionToString(events[0].position)],
        );
        await client.query('COMMIT');
        this.failed.set(p.name, message);
        this.log.error({ projection: p.name, generation: row.generation, position: culprit && positionToString(culprit), err }, 'projection failed; stopped');
        return false;
      }
      await client.query(
        `UPDATE projection_state SET commit_pos = $3::text::xid8, prepare_pos = $4, updated_at = now() WHERE name = $1 AND generation = $2`,
        [p.name, row.generation, last.commit.toString(), last.prepare.toString()],
      );
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    if (row.active) {
      this.positions.set(p.name, last);
      this.caughtUp.set(p.name, events.length < this.batchSize);
      this.emit('advanced', p.name, last);
    } else {
      this.emit('rebuild-progress', p.name, row.generation, last, events.length);
      // a short batch means the new generation is at the head: swap now, since under steady writes
      // a read may never come back empty
      if (events.length < this.batchSize) await this.swapIn(p, { ...row, commit: last.commit.toString(), prepare: last.prepare.toString() });
    }
    return true;
  }

  /** Records that the active generation has nothing to apply up to `to`; stores it as the checkpoint once a second (only if nobody moved it). */
  private async skipTo(p: Projection, row: StateRow, to: Position): Promise<void> {
    const from = rowPosition(row);
    const known = this.skips.get(p.name);
    const since = known && comparePositions(known.from, from) === 0 ? known.since : Date.now();
    this.skips.set(p.name, { from, to, since });
    if (Date.now() - since < 1000) return;
    const { rowCount } = await this.pool.query(
      `UPDATE projection_state SET commit_pos = $3::text::xid8, prepare_pos = $4, updated_at = now()
       WHERE name = $1 AND generation = $2 AND active AND status = 'running' AND commit_pos = $5::text::xid8 AND prepare_pos = $6`,
      [p.name, row.generation, to.commit.toString(), to.prepare.toString(), from.commit.toString(), from.prepare.toString()],
    );
    if (rowCount === 1) this.skips.set(p.name, { from: to, to, since: Date.now() });
    else this.skips.delete(p.name);
  }

  /** Finds the first event of a failed batch that throws, applying the good ones one by one (rolled back after). */
  private async findCulprit(client: pg.PoolClient, p: Projection, events: import('../eventstore/port.ts').RecordedEvent[], t: ReturnType<typeof tableNamer>) {
    await client.query('SAVEPOINT culprit');
    try {
      for (const e of events) {
        try {
          await client.query('SAVEPOINT one');
          await p.apply(client, [e], t);
          await client.query('RELEASE SAVEPOINT one');
        } catch {
          return e.position;
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
    this.caughtUp.set(name, true);
  }

  /** A rebuilding generation that has caught up replaces the active one, atomically. */
  private async swapIn(p: Projection, row: StateRow): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await lockProjection(client, p.name);
      // FOR UPDATE: a batch of another runner on this generation (it holds the row lock while it applies)
      // either commits before we look — we then see its checkpoint and back off — or waits for our swap
      const { rows } = await client.query<StateRow>(`SELECT ${STATE_COLUMNS} FROM projection_state WHERE name = $1 FOR UPDATE`, [p.name]);
      const mine = rows.find((r) => r.generation === row.generation);
      if (!mine || mine.active || comparePositions(rowPosition(mine), rowPosition(row)) !== 0) {
        await client.query('ROLLBACK');
        return;
      }
      // catch up under the lock so the swap loses nothing the live generation shows; the live one is
      // locked above and cannot move, so this ends even while events keep arriving (later ones are
      // applied by the normal loop once this generation is active)
      const live = rows.find((r) => r.active);
      for (;;) {
        if (live && comparePositions(rowPosition(mine), rowPosition(live)) >= 0) break;
        const events = await this.store.readAll({ after: rowPosition(mine), maxCount: this.batchSize, types: p.types });
        if (events.length === 0) break;
        await p.apply(client, events, tableNamer(mine.generation));
        const last = events[events.length - 1].position;
        mine.commit = last.commit.toString();
        mine.prepare = last.prepare.toString();
      }
      await replaceViews(client, p, mine.generation);
      for (const old of rows.filter((r) => r.generation !== mine.generation)) {
        await dropGeneration(client, p, old.generation);
        await client.query('DELETE FROM projection_state WHERE name = $1 AND generation = $2', [p.name, old.generation]);
      }
      await client.query(
        `UPDATE projection_state SET active = true, status = 'running', commit_pos = $3::text::xid8, prepare_pos = $4, updated_at = now()
         WHERE name = $1 AND generation = $2`,
        [p.name, mine.generation, mine.commit, mine.prepare],
      );
      await client.query('COMMIT');
      this.positions.set(p.name, rowPosition(mine));
      this.failed.delete(p.name);
      this.log.info({ projection: p.name, generation: mine.generation }, 'rebuild complete; swapped in');
      this.emit('swapped', p.name, mine.generation);
      this.emit('advanced', p.name, rowPosition(mine));
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}

export { START };
