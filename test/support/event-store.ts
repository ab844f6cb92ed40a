// A migrated database with a pool and a Postgres event store on it, for tests that work on the
// store and the tables directly (no server).
import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { createPool } from '../../src/db/pool.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { migrate } from '../../src/schema.ts';
import { freshDatabase } from './harness.ts';

export interface MigratedStore {
  url: string;
  pool: pg.Pool;
  store: PostgresEventStore;
}

/** Migrates the database at `url` and opens a pool (of `poolSize`) and an event store on it; close() closes both. */
export async function openMigratedStore(url: string, poolSize?: number): Promise<MigratedStore & { close(): Promise<void> }> {
  const pool = createPool(url, poolSize);
  await migrate(pool);
  const store = new PostgresEventStore(pool, url);
  return {
    url,
    pool,
    store,
    async close() {
      await store.close();
      await pool.end();
    },
  };
}

/**
 * A fresh migrated database with a pool and a store for a file or describe block: opened before its
 * tests (before the hooks registered after this call), closed after them (after those hooks' afterAll).
 * Use its fields only inside tests and hooks.
 */
export function migratedStoreForSuite(poolSize?: number): MigratedStore {
  let opened: (MigratedStore & { close(): Promise<void> }) | undefined;
  beforeAll(async () => {
    opened = await openMigratedStore(await freshDatabase(), poolSize);
  });
  afterAll(async () => {
    await opened?.close();
  });
  const live = (): MigratedStore => {
    if (!opened) throw new Error('the suite database is not open (used outside a test or hook?)');
    return opened;
  };
  return {
    get url() {
      return live().url;
    },
    get pool() {
      return live().pool;
    },
    get store() {
      return live().store;
    },
  };
}
