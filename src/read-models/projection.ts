// What a read model is: named, versioned tables per generation, the event types it handles,
// and an apply of a batch inside the runner's transaction.
import type pg from 'pg';
import type { RecordedEvent } from '../eventstore/port.ts';

/** Maps a base table name to this generation's physical table (e.g. contacts → contacts_g3). */
export type TableNamer = (base: string) => string;

export interface Projection {
  name: string;
  /** bump when the tables or the apply logic change: a new version rebuilds from the start */
  version: number;
  /** false for consumers with effects outside their tables (the webhook outbox): never replayed */
  rebuildable?: boolean;
  /**
   * Event types whose batch waits for its WAL flush, where the others' do not (state.ts,
   * batchCommitMode): what the read model does for them must not be undone by a crash, not even
   * until the runner applies them again (an erasure: blanked personal data must not come back; every
   * read model that applies one lists ERASURE_EVENTS here, test/read-models/commit-modes.test.ts)
   */
  flushOn?: readonly string[];
  /** base names of the tables; each is exposed to queries as a view of that name */
  tables: readonly string[];
  /** DDL creating this generation's tables (and their indexes) */
  schema(t: TableNamer): string;
  /**
   * Views over several of the generation's tables, by name: each a SELECT, pointed at the active
   * generation as the tables' own views are (a read model that keeps one document in two tables, so
   * that its readers still see one row).
   */
  views?: Readonly<Record<string, (t: TableNamer) => string>>;
  /**
   * For a projection that cannot be rebuilt: idempotent DDL (ADD COLUMN IF NOT EXISTS, …) bringing
   * the live generation's tables up to today's schema, run at a start when it is not the DDL the
   * generation last ran (projection_state.upgraded: a start that finds it current alters nothing).
   */
  upgrade?(t: TableNamer): string;
  types: readonly string[];
  /**
   * How apply meets sealed personal data. Unset: the runner opens every event first. 'unused': apply
   * never reads a sealed field, so its events come sealed (no key looked up, nothing decrypted).
   * 'opened-by-apply': they come sealed, and apply opens those it reads (src/personal-data/store.ts
   * openEvents), so events it only skips cost no decryption.
   */
  personalData?: 'unused' | 'opened-by-apply';
  /**
   * Whether applying these events to the live generation would write nothing (read outside any
   * transaction, on the tables as the batches before left them). The runner then moves past them as
   * past events of types the read model does not follow: no transaction, its checkpoint stored at most
   * once a second (ProjectionRunner.skipTo). For a read model that runs on its own on every wake-up
   * (one not rebuildable: the webhook outbox), whose batches mostly change nothing.
   */
  inert?(db: Pick<pg.Pool, 'query'>, events: readonly RecordedEvent[], t: TableNamer): Promise<boolean>;
  /**
   * Applies a batch of events in order, inside the transaction that also moves the checkpoint. It
   * may answer signals for the runner to raise once that transaction has committed (a worker waiting
   * for what the batch wrote wakes on them, not on every batch: see ProjectionRunner 'signal').
   */
  apply(tx: pg.PoolClient, events: RecordedEvent[], t: TableNamer): Promise<void | Applied>;
}

/** What an apply tells its runner. */
export interface Applied {
  /** raised (the runner's 'signal' event) once the batch has committed; lost if it never does */
  signals?: readonly string[];
}

export const tableNamer =
  (generation: number): TableNamer =>
  (base) =>
    `${base}_g${generation}`;
