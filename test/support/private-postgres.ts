// A Postgres cluster of a test's own (embedded, on a free port, in a temporary directory), for fault
// tests that stop or restart Postgres, or hold transactions that would stall every other test file
// sharing the suite's cluster.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';

export interface PrivatePostgres {
  port: number;
  /** connection string of a database on this cluster (created on first use by `createDatabase`) */
  url(database?: string): string;
  createDatabase(name: string): Promise<string>;
  /** fast shutdown (SIGINT): open sessions are terminated, nothing committed is lost */
  stop(): Promise<void>;
  /** starts it again on the same data directory and port */
  start(): Promise<void>;
  /** stops it and deletes its data directory */
  destroy(): Promise<void>;
}

export { freePort };

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'engage-pg-'));
  // open to the postgres user (as root the cluster runs as it), so the cluster's files stay in here
  chmodSync(dataDir, 0o755);
  const port = await freePort();
  let running: EmbeddedDatabase | undefined;
  const start = async () => {
    running = await startEmbeddedPostgres({ dataDir, port, database: 'postgres' });
  };
  await start();
  // the same for every start: the password is kept in the data directory
  const url = (database = 'postgres') => running?.urlOf(database) ?? first.urlOf(database);
  const first = running!;
  return {
    port,
    url,
    async createDatabase(name) {
      const admin = new pg.Client({ connectionString: url() });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE "${name}"`);
      } finally {
        await admin.end();
      }
      return url(name);
    },
    async stop() {
      await running?.stop();
      running = undefined;
    },
    start,
    async destroy() {
      await running?.stop();
      running = undefined;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
