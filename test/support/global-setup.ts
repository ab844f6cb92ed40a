// Starts the test Postgres once per run: DATABASE_URL when set, else an embedded cluster of its own.
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';

let embedded: EmbeddedDatabase | undefined;

export default async function setup(project: { provide: (key: string, value: unknown) => void }) {
  let url = process.env.DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedPostgres({
      dataDir: process.env.ENGAGE_TEST_DATA_DIR ?? './.engage/test',
      // unset: the test data directory's own port (picked once, remembered there)
      port: process.env.ENGAGE_TEST_PG_PORT ? Number(process.env.ENGAGE_TEST_PG_PORT) : undefined,
      database: 'postgres',
    });
    url = embedded.connectionString;
  }
  project.provide('adminDatabaseUrl', url);
  return async () => {
    await embedded?.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}
