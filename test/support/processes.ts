// Runs the real `engage` CLI (built once per run by the global setup) in child processes: one-shot commands, and long-running
// `engage serve` / `engage worker` processes that tests can SIGKILL and restart.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { eventually } from './waits.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** the CLI the global setup built for this run (test/build.test.ts checks bin/engage.js itself) */
const BIN = inject('cliMain');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** every engage process a test file started, so afterAll can kill what a failed test left behind */
const started = new Set<ChildProcess>();

/** scrypt's cost for the test runs' passwords (the harness's and the CLI processes'): see test/support/harness.ts */
export const TEST_PASSWORD_SCRYPT_N = String(2 ** 10);

function childEnv(databaseUrl: string, env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  // vitest's own variables must not leak into the service under test
  for (const k of Object.keys(base)) if (k.startsWith('VITEST') || k === 'NODE_ENV' || k === 'TEST') delete base[k];
  return { ...base, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1', PASSWORD_SCRYPT_N: TEST_PASSWORD_SCRYPT_N, ...env };
}

/**
 * Runs `engage <args>` to completion. One process, no shell, so a signal reaches engage itself.
 * `input`: written to its stdin (a pipe), then closed; without it stdin is /dev/null.
 */
export function runEngage(args: string[], databaseUrl: string, env: Record<string, string> = {}, input?: string): Promise<CliResult> {
  return runToEnd(process.execPath, [BIN, ...args], childEnv(databaseUrl, env), input === undefined ? undefined : { input });
}

/** What the operator types on the terminal once the output so far matches `after` (a prompt). */
export interface TerminalAnswer {
  after: RegExp;
  type: string;
}

/**
 * Runs `engage <args>` on a terminal of its own (a pseudo-terminal through util-linux `script`), as an
 * operator types it: what it draws only on a TTY (progress bars) is in stdout, escapes and all, and
 * what the terminal echoes of what is typed. `answers` are typed in order, each once the output so
 * far matches its `after`: typed before a prompt, the terminal would echo it whatever engage does.
 */
export function runEngageOnTerminal(args: string[], databaseUrl: string, env: Record<string, string> = {}, answers: TerminalAnswer[] = []): Promise<CliResult> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, BIN, ...args].map(quote).join(' ');
  return runToEnd('script', ['-qec', command, '/dev/null'], { ...childEnv(databaseUrl, env), COLUMNS: '160' }, answers.length ? { answers } : undefined);
}

function runToEnd(file: string, args: string[], env: NodeJS.ProcessEnv, stdin?: { input?: string; answers?: TerminalAnswer[] }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: ROOT, env, stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    started.add(child);
    child.once('exit', () => started.delete(child));
    let stdout = '';
    let stderr = '';
    const answers = [...(stdin?.answers ?? [])];
    // what was answered so far is not matched again: a prompt asked twice is answered twice
    let answeredUpTo = 0;
    child.stdout!.on('data', (d) => {
      stdout += d;
      const next = answers[0];
      if (next && next.after.test(stdout.slice(answeredUpTo))) {
        answers.shift();
        answeredUpTo = stdout.length;
        child.stdin!.write(next.type);
      }
    });
    child.stderr!.on('data', (d) => (stderr += d));
    child.stdin?.on('error', () => {}); // a process that exits without reading its input
    if (stdin?.input !== undefined) child.stdin!.end(stdin.input);
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export interface EngageProcess {
  child: ChildProcess;
  /** the base URL `engage serve` logged (undefined for `engage worker`) */
  url?: string;
  output(): { stdout: string; stderr: string };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** sends SIGKILL and waits until the process is gone */
  kill(): Promise<void>;
}

/** SIGKILLs every engage process a test file started and that is still alive. */
export async function killAllEngageProcesses(): Promise<void> {
  await Promise.all(
    [...started].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
  started.clear();
}

/**
 * Starts `engage serve` (PORT=0) and resolves once it logs "engage is listening" with its url;
 * `engage worker` resolves as soon as it logs "engage worker running". `args` follow the command
 * (`['--processes', '2']`).
 */
export function startEngage(
  command: 'serve' | 'worker',
  databaseUrl: string,
  env: Record<string, string> = {},
  timeoutMs = 60_000,
  args: string[] = [],
): Promise<EngageProcess> {
  const child = spawn(process.execPath, [BIN, command, ...args], {
    cwd: ROOT,
    // info: the "listening" line is an info log
    env: childEnv(databaseUrl, { LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  let stdout = '';
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      started.delete(child);
      resolve({ code, signal });
    });
  });
  const proc: EngageProcess = {
    child,
    output: () => ({ stdout, stderr }),
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`engage ${command} did not start within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.stderr!.on('data', (d) => (stderr += d));
    child.stdout!.on('data', (d) => {
      stdout += d;
      for (const line of stdout.split('\n')) {
        if (!line.startsWith('{')) continue;
        let entry: { msg?: string; url?: string };
        try {
          entry = JSON.parse(line);
        } catch {
          continue;
        }
        if (command === 'serve' && entry.msg === 'engage is listening' && entry.url) {
          clearTimeout(timer);
          resolve({ ...proc, url: entry.url });
          return;
        }
        if (command === 'worker' && entry.msg === 'engage worker running') {
          clearTimeout(timer);
          resolve(proc);
          return;
        }
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`engage ${command} exited (code ${code}, signal ${signal}) before it was ready\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    });
  });
}

/** application_name of a test's own database sessions (see untilOtherSessionsEnd) */
export const TEST_APPLICATION_NAME = 'engage-test';

/**
 * After a SIGKILL, Postgres still runs to completion (and commits) the statements the dead process
 * had already sent; it ends the sessions only when it notices the closed sockets. Waits until no
 * session but the caller's own is left on the database, so that what the test reads next is all
 * the dead process will ever have written. Start the next process only after this. Sessions of
 * the test's own other than the caller's must carry application_name TEST_APPLICATION_NAME.
 */
export async function untilOtherSessionsEnd(db: { query: (sql: string) => Promise<{ rows: { n: number }[] }> }, timeoutMs = 30_000): Promise<void> {
  await eventually(
    "the killed process's database sessions to end",
    async () => {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name <> '${TEST_APPLICATION_NAME}'`,
      );
      return rows[0].n === 0 ? true : undefined;
    },
    timeoutMs,
    20,
  );
}

/** The API key `engage serve` printed on its first start (an empty database); fails if there is none. */
export function printedApiKey(proc: EngageProcess): string {
  const key = /API key:\s+(ek_live_\S+)/.exec(proc.output().stdout)?.[1];
  if (!key) throw new Error(`engage serve printed no API key\nstdout:\n${proc.output().stdout}`);
  return key;
}
