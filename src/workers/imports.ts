// The import worker: runs the contacts imports the imports read model shows unfinished, the oldest
// of each account first and one at a time per account, up to IMPORT_CONCURRENCY at once. Each run
// holds a Postgres advisory lock on its import for as long as it runs, so two processes (`engage
// serve` and `engage worker`, or two workers) never run one import; the import stream's expected
// revision is the backstop. A run that fails (the database went away) is tried again with a doubling
// backoff and resumes where its last batch ended. Also sweeps away stored files no import needs.
import type pg from 'pg';
import { endedImports, knownImports, nextImportPerAccount } from '../../projections/imports.ts';
import type { Engage } from '../context.ts';
import { runImport } from '../imports/run.ts';
import { sweepUploads } from '../imports/uploads.ts';
import { doublingDelay } from '../sleep.ts';
import { WorkerLoop } from './loop.ts';

/** first key of the imports' advisory locks (the second is the import id's hash) */
const LOCK_CLASS = 724312;
const SWEEP_EVERY_MS = 60_000;

export class ImportWorker extends WorkerLoop {
  private readonly running = new Map<string, Promise<void>>();
  private readonly accounts = new Set<string>();
  private readonly failures = new Map<string, { count: number; retryAt: number }>();
  private sweptAt = 0;

  constructor(private readonly engage: Engage) {
    super(engage, { name: 'import worker', idleMs: 1000, wakeOnAdvanceOf: 'imports' });
  }

  protected async round(): Promise<number> {
    if (Date.now() - this.sweptAt > SWEEP_EVERY_MS) {
      this.sweptAt = Date.now();
      const swept = await sweepUploads(this.engage.pool, { ended: (ids) => endedImports(this.engage.pool, ids), known: (ids) => knownImports(this.engage.pool, ids) });
      if (swept) this.engage.log.info({ uploads: swept }, 'deleted stored import files no import needs');
    }
    const room = this.engage.config.IMPORT_CONCURRENCY - this.running.size;
    if (room <= 0) return 0;
    let started = 0;
    for (const next of await nextImportPerAccount(this.engage.pool, 1000)) {
      if (started >= room || this.stopped) break;
      if (this.running.has(next.id) || this.accounts.has(next.account_id)) continue;
      if ((this.failures.get(next.id)?.retryAt ?? 0) > Date.now()) continue;
      this.start1(next.id, next.account_id);
      started++;
    }
    return started;
  }

  private start1(id: string, accountId: string): void {
    this.accounts.add(accountId);
    const run = this.runLocked(id)
      .then(
        (outcome) => {
          this.failures.delete(id);
          if (outcome !== 'busy' && outcome !== 'stopped') this.engage.log.info({ importId: id, outcome }, 'import run ended');
        },
        (err: unknown) => {
          const count = (this.failures.get(id)?.count ?? 0) + 1;
          this.failures.set(id, { count, retryAt: Date.now() + doublingDelay(count, 1000, 60_000) });
          this.engage.log.warn({ err, importId: id, failures: count }, 'import run failed; it resumes where it got to');
        },
      )
      .finally(() => {
        this.running.delete(id);
        this.accounts.delete(accountId);
        this.wake();
      });
    this.running.set(id, run);
  }

  /** Runs the import while holding its advisory lock; 'busy' when another process holds it. */
  private async runLocked(id: string) {
    const client: pg.PoolClient = await this.engage.pool.connect();
    let locked = false;
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked', [LOCK_CLASS, id]);
      locked = rows[0].locked;
      if (!locked) return 'busy';
      return await runImport(this.engage, id, { batchRows: this.engage.config.IMPORT_BATCH_ROWS, signal: this.signal });
    } finally {
      let held = locked;
      if (locked) held = !(await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_CLASS, id]).then(() => true, () => false));
      // a connection that may still hold the lock is closed, not handed back to the pool
      client.release(held ? true : undefined);
    }
  }

  override async stop(): Promise<void> {
    await super.stop();
    await Promise.all(this.running.values());
  }
}
