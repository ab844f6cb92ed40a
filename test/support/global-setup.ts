// Starts the test Postgres once per run: DATABASE_URL when set, else an embedded cluster of its own.
// Builds the CLI once per run too (plain JavaScript, as `npm run build` makes it): the tests start
// hundreds of engage processes, and each one from the TypeScript sources (tsx) costs twice the CPU.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';

let embedded: EmbeddedDatabase | undefined;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Compiles the service into a scratch folder inside the checkout (so it finds node_modules); returns its main.js. */
async function buildCli(): Promise<{ main: string; out: string }> {
  const out = path.join(ROOT, '.engage', `test-build-${randomBytes(4).toString('hex')}`);
  await promisify(execFile)(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json', '--outDir', out], { cwd: ROOT });
  return { main: path.join(out, 'src', 'main.js'), out };
}

export default async function setup(project: { provide: (key: string, value: unknown) => void }) {
  const build = buildCli();
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
  const cli = await build;
  project.provide('cliMain', cli.main);
  return async () => {
    rmSync(cli.out, { recursive: true, force: true });
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
    /** the built CLI (dist-style main.js) the tests run engage processes from */
    cliMain: string;
  }
}
