// Starts the test Postgres once per run: DATABASE_URL when set, else an embedded cluster of its own.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';

let embedded: EmbeddedDatabase | undefined;

export default async function setup(project: { provide: (key: string, value: unknown) => void }) {
  let url = process.env.DATABASE_URL;
  const dataDir = path.resolve(process.env.ENGAGE_TEST_DATA_DIR ?? './.engage/test');
  if (!url) {
    embedded = await startEmbeddedPostgres({
      dataDir,
      // unset: the test data directory's own port (picked once, remembered there)
      port: process.env.ENGAGE_TEST_PG_PORT ? Number(process.env.ENGAGE_TEST_PG_PORT) : undefined,
      database: 'postgres',
    });
    url = embedded.connectionString;
  }
  project.provide('adminDatabaseUrl', url);
  return async () => {
    await embedded?.stop();
    // a cluster whose files had to live outside the checkout (its user cannot reach it: a clone in a
    // directory only root may enter) would outlive the checkout; a test cluster is throwaway
    if (embedded?.started && !embedded.clusterDirectory.startsWith(dataDir + path.sep)) {
      rmSync(path.dirname(embedded.clusterDirectory), { recursive: true, force: true });
    }
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}
