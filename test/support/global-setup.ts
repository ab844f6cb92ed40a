// Starts the test Postgres once per run: DATABASE_URL when set, else an embedded cluster of its own.
// Builds the CLI once per run too (plain JavaScript, as `npm run build` makes it): the tests start
// hundreds of engage processes, and each one from the TypeScript sources (tsx) costs twice the CPU.
// And the dashboard (Vite, as `npm run build` makes it), once per version of its sources: the test
// servers serve it at /app. And a migrated database, with every read model's first generation, that
// each test server's database is copied from (a start that migrates an empty one costs a second more).
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { ALL_PROJECTIONS } from '../../projections/index.ts';
import { createPool } from '../../src/db/pool.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { ensureProjection } from '../../src/read-models/generations.ts';
import { migrate } from '../../src/schema.ts';

let embedded: EmbeddedDatabase | undefined;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Compiles the service into a scratch folder inside the checkout (so it finds node_modules); returns its main.js. */
async function buildCli(): Promise<{ main: string; out: string }> {
  const out = path.join(ROOT, '.engage', `test-build-${randomBytes(4).toString('hex')}`);
  await promisify(execFile)(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json', '--outDir', out], { cwd: ROOT });
  return { main: path.join(out, 'src', 'main.js'), out };
}

/** A digest of every file under `paths`: the dashboard's build is reused while its sources are the same. */
function digestOf(paths: string[]): string {
  const hash = createHash('sha256');
  const add = (file: string) => {
    if (statSync(file).isDirectory()) {
      for (const name of readdirSync(file).sort()) add(path.join(file, name));
      return;
    }
    hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file));
  };
  for (const p of paths) add(p);
  return hash.digest('hex').slice(0, 16);
}

/** The dashboard built from the current sources (a folder of its own, made once per version); returns its folder. */
async function buildDashboard(): Promise<string> {
  const dashboard = path.join(ROOT, 'dashboard');
  const sources = ['src', 'index.html', 'vite.config.ts', 'package.json'].map((p) => path.join(dashboard, p));
  const out = path.join(ROOT, '.engage', `dashboard-build-${digestOf([...sources, path.join(ROOT, 'client', 'src')])}`);
  if (existsSync(path.join(out, 'index.html'))) return out;
  const scratch = `${out}-${randomBytes(4).toString('hex')}`;
  const vite = path.join(path.dirname(createRequire(path.join(dashboard, 'package.json')).resolve('vite/package.json')), 'bin', 'vite.js');
  // each build writes a folder of its own: Vite's one-build-per-project lock would only fail a second test run
  await promisify(execFile)(process.execPath, [vite, 'build', '--logLevel', 'warn', '--bypass-lock'], { cwd: dashboard, env: { ...process.env, ENGAGE_DASHBOARD_OUT: scratch } });
  // another run may have built the same version meanwhile: either folder is the same build
  try {
    renameSync(scratch, out);
  } catch {
    rmSync(scratch, { recursive: true, force: true });
  }
  return out;
}

/** Runs `sql` on the cluster's administrative database. */
async function onCluster(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A database as a server's first start leaves it before anything is written: the schema migrated and
 * every read model's first generation made. Nothing in it names a server or holds a secret (the
 * log's partitions and the service's secrets are made by each server's start, with its own settings).
 */
async function migratedTemplate(adminUrl: string): Promise<string> {
  const name = `engage_template_${randomBytes(6).toString('hex')}`;
  await onCluster(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = createPool(url.toString(), 2);
  try {
    await migrate(pool);
    for (const projection of ALL_PROJECTIONS) await ensureProjection(pool, projection);
  } finally {
    // a database is copied only while no session is connected to it
    await pool.end();
  }
  return name;
}

export default async function setup(project: { provide: (key: string, value: unknown) => void }) {
  const build = buildCli();
  const dashboard = buildDashboard();
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
  const template = await migratedTemplate(url);
  project.provide('migratedTemplate', template);
  const cli = await build;
  project.provide('cliMain', cli.main);
  project.provide('dashboardDir', await dashboard);
  return async () => {
    rmSync(cli.out, { recursive: true, force: true });
    await onCluster(url, `DROP DATABASE IF EXISTS ${template}`);
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
    /** a migrated database on the test cluster that test servers' databases are copied from */
    migratedTemplate: string;
    /** the built CLI (dist-style main.js) the tests run engage processes from */
    cliMain: string;
    /** the dashboard built from the current sources, served by the test servers at /app */
    dashboardDir: string;
  }
}
