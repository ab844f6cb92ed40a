// Wires one running engage: configuration → database (embedded or DATABASE_URL) → migrations →
// event store adapter → projection runner. The CLI, the server and the tests all open it here.
import pino, { type Logger } from 'pino';
import type pg from 'pg';
import { ALL_PROJECTIONS } from '../projections/index.ts';
import { type Clock, systemClock } from './clock.ts';
import { type Config, loadConfig } from './config.ts';
import { CpuWork } from './cpu-work/pool.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from './db/embedded.ts';
import { migrate } from './schema.ts';
import { createPool } from './db/pool.ts';
import type { EventStore } from './eventstore/port.ts';
import { ArchiveStorage } from './eventstore/archive-storage.ts';
import { PostgresEventStore } from './eventstore/postgres.ts';
import { attachSnapshots, StreamSnapshots } from './eventstore/snapshots.ts';
import type { Projection } from './read-models/projection.ts';
import { PersonalDataStore } from './personal-data/store.ts';
import { ProjectionRunner } from './read-models/runner.ts';

export interface Engage {
  config: Config;
  pool: pg.Pool;
  store: EventStore;
  runner: ProjectionRunner;
  log: Logger;
  clock: Clock;
  /** CPU-heavy request work on worker threads (started on first use) */
  cpu: CpuWork;
  connectionString: string;
  /** where the log's archive lies and is read from (README "Archiving old partitions") */
  archive: ArchiveStorage;
  close(): Promise<void>;
}

export interface OpenOptions {
  config?: Config;
  log?: Logger;
  clock?: Clock;
  /** run the projection runner in this process (the server does; one-shot CLI commands do not) */
  runProjections?: boolean;
  /** with runProjections: announce each live read model's new checkpoints to processes that follow them (ProjectionRunner.start) */
  announceCheckpoints?: boolean;
  projections?: Projection[];
  databaseName?: string;
}

export async function resolveDatabase(config: Config, log: Logger, databaseName = 'engage'): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL };
  const embedded = await startEmbeddedPostgres({
    dataDir: config.ENGAGE_DATA_DIR,
    port: config.EMBEDDED_PG_PORT,
    database: databaseName,
    log: (line) => log.debug({ postgres: line }, 'embedded postgres'),
  });
  return { url: embedded.connectionString, embedded };
}

/** The archive's storage with the configured S3-compatible bucket settings (README "Archiving old partitions"). */
export function archiveStorage(config: Config): ArchiveStorage {
  return new ArchiveStorage({
    endpoint: config.LOG_ARCHIVE_S3_ENDPOINT,
    region: config.LOG_ARCHIVE_S3_REGION,
    pathStyle: config.LOG_ARCHIVE_S3_PATH_STYLE,
    accessKeyId: config.LOG_ARCHIVE_S3_ACCESS_KEY_ID,
    secretAccessKey: config.LOG_ARCHIVE_S3_SECRET_ACCESS_KEY,
  });
}

export async function openEngage(options: OpenOptions = {}): Promise<Engage> {
  const config = options.config ?? loadConfig();
  const log = options.log ?? pino({ level: config.LOG_LEVEL, redact: ['req.headers["x-api-key"]', 'req.headers.authorization'] });
  const { url, embedded } = await resolveDatabase(config, log, options.databaseName);
  const pool = createPool(url);
  await migrate(pool);
  const archive = archiveStorage(config);
  let adapter: EventStore;
  if (config.EVENTSTORE_URL) {
    const { EsdbEventStore } = await import('./eventstore/esdb.ts');
    adapter = new EsdbEventStore(config.EVENTSTORE_URL, { log });
  } else {
    const postgres = new PostgresEventStore(pool, url, { log, partitionEvents: config.LOG_PARTITION_EVENTS, archive });
    // the log's next partition exists before the first append (README "The log at scale")
    await postgres.ensurePartitions();
    adapter = postgres;
  }
  // personal data is sealed on the way in and opened on the way out, under per-subject keys
  const store: EventStore = new PersonalDataStore(adapter, pool);
  // long streams' commands fold from snapshots (README "Snapshots of long streams")
  const snapshots = new StreamSnapshots(pool, log);
  attachSnapshots(store, snapshots);
  const runner = new ProjectionRunner(pool, store, options.projections ?? ALL_PROJECTIONS, log, store.wakeup);
  if (options.runProjections) {
    // cross-process wake-ups (LISTEN/NOTIFY on Postgres, a live subscription on EventStoreDB)
    const listening = (store as { listen?: () => Promise<void> }).listen;
    if (listening) await listening.call(store);
    await runner.start({ announceCheckpoints: options.announceCheckpoints });
  }
  const cpu = new CpuWork({ threads: config.CPU_WORK_THREADS, timeoutMs: config.CPU_WORK_TIMEOUT_MS });
  return {
    config,
    pool,
    store,
    runner,
    log,
    clock: options.clock ?? systemClock,
    cpu,
    connectionString: url,
    archive,
    async close() {
      await cpu.close();
      await runner.stop();
      await snapshots.flush();
      await store.close();
      archive.close();
      await pool.end();
      // stops the embedded cluster only if this process started it (one `engage serve` keeps it for all CLI calls);
      // left running, its child process would keep a one-shot CLI command from ever exiting
      await embedded?.stop();
    },
  };
}
