// CPU-heavy pure work (parsing untrusted XML, HTML and MIME, the AI helpers' text fallbacks) runs on worker
// threads, so one request's parsing never holds up every other request and /health (README "Security
// notes"). A task that runs past its time limit has its thread ended; a full queue is refused.
//
// Hand-written rather than a pool library: a library loads the task module itself, and on Node 20 a
// worker thread does not inherit the TypeScript loader that `npm start` and the tests run the sources
// with, so each thread here registers it (tsx) before importing the tasks when they are TypeScript.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AppError, invalidField } from '../errors.ts';
import type { CpuTasks } from './tasks.ts';

export type CpuTaskName = keyof CpuTasks;
export type CpuTaskInput<K extends CpuTaskName> = Parameters<CpuTasks[K]>[0];
export type CpuTaskResult<K extends CpuTaskName> = Awaited<ReturnType<CpuTasks[K]>>;

/** An error a task threw, carried across the thread by its name and message; `CpuTaskTimeout` when it ran too long. */
export class CpuTaskError extends Error {
  constructor(readonly errorName: string, message: string) {
    super(message);
    this.name = 'CpuTaskError';
  }
}

export const CPU_TASK_TIMEOUT = 'CpuTaskTimeout';

/**
 * A thread's young generation (both semi-spaces and the young large objects): a task's input and
 * answer are alive only while it runs, so a small one is enough. Without a limit a thread takes the
 * process's flag (--max-semi-space-size=32: up to 64 MiB of semi-spaces, meant for the main thread's
 * batches held across database round trips). README "The write path".
 */
const CPU_THREAD_YOUNG_GENERATION_MB = 16;

/** A runSlices task's time limit: only a thread that is stuck is ended. */
const SLICE_TIMEOUT_MS = 10 * 60_000;

/**
 * The 400 for a task's input that the task refused (its error named `refusedBy`) or that took too
 * long: both are the caller's input, named by `field`. Anything else is rethrown.
 */
export function inputErrorOf(error: unknown, field: string, refusedBy?: string): never {
  if (error instanceof CpuTaskError && (error.errorName === CPU_TASK_TIMEOUT || error.errorName === refusedBy)) throw invalidField(field, error.message);
  throw error;
}

export interface CpuWorkOptions {
  /** threads at most; they start when work comes and end after `idleMs` without any */
  threads: number;
  /** one task's time limit: past it the thread is ended and the task rejects with CPU_TASK_TIMEOUT */
  timeoutMs: number;
  /** tasks waiting for a thread at most; one more is a 503 */
  maxQueue?: number;
  idleMs?: number;
  /** how long a fresh thread may take to start (its modules imported) before it is ended and its task answered 503 */
  startMs?: number;
}

/** A thread's start limit: seconds on a loaded host; past a minute it is stuck, not slow. */
const THREAD_START_MS = 60_000;

/**
 * Which tasks a free thread takes first: a request's (its caller waits for the answer) before work
 * behind an answer already given (a bulk's or a campaign's messages sealed for the log).
 */
export type CpuPriority = 'request' | 'background';

interface Job {
  task: CpuTaskName;
  input: unknown;
  timeoutMs: number;
  priority: CpuPriority;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  ready: Promise<void>;
  job?: Job;
  timer?: NodeJS.Timeout;
  idle?: NodeJS.Timeout;
}

// Runs in each thread (CommonJS, evaluated): registers tsx when the tasks are TypeScript, imports them,
// then answers one task at a time.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) {
    const tsx = await import(workerData.tsx);
    (tsx.register ?? tsx.default.register)();
  }
  const { CPU_TASKS } = await import(workerData.tasks);
  parentPort.on('message', ({ task, input }) => {
    new Promise((resolve) => resolve(CPU_TASKS[task](input))).then(
      (value) => parentPort.postMessage({ ok: true, value }),
      (error) => parentPort.postMessage({ ok: false, name: (error && error.name) || 'Error', message: String((error && error.message) || error) }),
    );
  });
  parentPort.postMessage({ ready: true });
})();
`;

function tasksModule(): { tasks: string; tsx?: string } {
  const fromSources = import.meta.url.endsWith('.ts');
  const tasks = new URL(fromSources ? './tasks.ts' : './tasks.js', import.meta.url).href;
  if (!fromSources) return { tasks };
  // tsx's ESM API, by the package's own exports map (require.resolve would answer its CommonJS build,
  // whose register() does not load in a thread)
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('tsx/package.json');
  const entry = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api'].import.default;
  return { tasks, tsx: pathToFileURL(path.join(path.dirname(manifest), entry)).href };
}

export class CpuWork {
  private readonly threads = new Set<Thread>();
  private readonly queue: Job[] = [];
  private readonly module = tasksModule();
  private closed = false;

  constructor(private readonly options: CpuWorkOptions) {}

  /** Runs `task` on a thread; a task's own error rejects as a CpuTaskError. */
  run<K extends CpuTaskName>(task: K, input: CpuTaskInput<K>, limits: { timeoutMs?: number; priority?: CpuPriority } = {}): Promise<CpuTaskResult<K>> {
    if (this.closed) return Promise.reject(new AppError(503, 'unavailable', 'the service is stopping'));
    if (this.queue.length >= (this.options.maxQueue ?? 1000)) {
      return Promise.reject(new AppError(503, 'unavailable', 'too much work is waiting; try again shortly', { retry_after: 1 }));
    }
    return new Promise((resolve, reject) => {
      const job: Job = { task, input, timeoutMs: limits.timeoutMs ?? this.options.timeoutMs, priority: limits.priority ?? 'request', resolve: resolve as (value: unknown) => void, reject };
      // a request's task goes after the requests' already waiting, before any background task
      const at = job.priority === 'request' ? this.queue.findIndex((j) => j.priority === 'background') : -1;
      if (at < 0) this.queue.push(job);
      else this.queue.splice(at, 0, job);
      this.next();
    });
  }

  /**
   * The per-row work of a batch (a bulk's validation, its sealing: README "The write path") in
   * slices of `size` rows, one task each; the results in the rows' order. The threads take slices as
   * they come free, and so does this thread, between its other work, for a request's batch (its
   * caller waits: every core at it); a background batch is left to the threads. A slice the threads
   * cannot take (the service stopping, a full queue, a lost thread) is done here instead, by `here`:
   * the same pure function, so the answer is the same either way. Small batches are done here at once.
   */
  async runSlices<K extends CpuTaskName, T, R>(
    task: K,
    rows: readonly T[],
    size: number,
    input: (slice: T[]) => CpuTaskInput<K>,
    here: (slice: T[]) => R[],
    priority: CpuPriority = 'request',
  ): Promise<R[]> {
    if (rows.length <= size) return here(rows.slice());
    const slices: T[][] = [];
    for (let i = 0; i < rows.length; i += size) slices.push(rows.slice(i, i + size));
    const done: R[][] = new Array(slices.length);
    let next = 0;
    // a slice is bounded work of our own, not untrusted input: it is never ended for taking long
    // (on a starved machine that ended threads one after another, each new one paying its start-up
    // again), only done here when the threads refuse it
    const onThreads = async () => {
      while (next < slices.length) {
        const k = next++;
        done[k] = await (this.run(task, input(slices[k]), { timeoutMs: SLICE_TIMEOUT_MS, priority }) as Promise<unknown> as Promise<R[]>).catch(() => here(slices[k]));
      }
    };
    const onThisThread = async () => {
      while (next < slices.length) {
        // the event loop runs what waits between two slices
        await new Promise((resolve) => setImmediate(resolve));
        if (next >= slices.length) return;
        const k = next++;
        done[k] = here(slices[k]);
      }
    };
    const lanes = Array.from({ length: Math.max(1, this.options.threads) }, onThreads);
    if (priority === 'request') lanes.push(onThisThread());
    await Promise.all(lanes);
    return done.flat();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new AppError(503, 'unavailable', 'the service is stopping'));
    await Promise.all([...this.threads].map((t) => this.end(t, new AppError(503, 'unavailable', 'the service is stopping'))));
  }

  private next(): void {
    while (this.queue.length > 0) {
      let thread = [...this.threads].find((t) => !t.job);
      if (!thread) {
        if (this.threads.size >= this.options.threads) return;
        thread = this.spawn();
      }
      this.start(thread, this.queue.shift()!);
    }
  }

  private spawn(): Thread {
    const worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: this.module,
      // a thread parses at most a few MiB: a runaway one is ended, not the process
      resourceLimits: { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: CPU_THREAD_YOUNG_GENERATION_MB },
    });
    worker.unref();
    const thread: Thread = {
      worker,
      ready: new Promise((resolve, reject) => {
        worker.once('message', () => resolve());
        worker.once('error', reject);
      }),
    };
    thread.ready.catch(() => undefined);
    // a thread that never starts would hold its task, and every task queued for it, for ever
    const startLimit = setTimeout(
      () => void this.end(thread, new AppError(503, 'unavailable', 'a CPU work thread did not start in time; try again shortly', { retry_after: 1 })),
      this.options.startMs ?? THREAD_START_MS,
    );
    startLimit.unref();
    thread.ready.then(() => clearTimeout(startLimit), () => clearTimeout(startLimit));
    worker.on('error', (error: Error) => void this.end(thread, error));
    worker.on('exit', () => void this.end(thread, new Error('a CPU work thread stopped')));
    this.threads.add(thread);
    return thread;
  }

  private start(thread: Thread, job: Job): void {
    thread.job = job;
    clearTimeout(thread.idle);
    thread.ready.then(
      () => {
        if (thread.job !== job) return;
        // the limit is the task's own time: a fresh thread's start (its modules imported, slow on a
        // loaded host) is not the input's doing
        thread.timer = setTimeout(() => {
          const seconds = job.timeoutMs / 1000;
          void this.end(thread, new CpuTaskError(CPU_TASK_TIMEOUT, `took more than ${seconds} s to process; send a smaller or simpler one`));
        }, job.timeoutMs);
        thread.worker.once('message', (answer: { ok: true; value: unknown } | { ok: false; name: string; message: string }) => {
          if (thread.job !== job) return;
          clearTimeout(thread.timer);
          thread.job = undefined;
          if (answer.ok) job.resolve(answer.value);
          else job.reject(new CpuTaskError(answer.name, answer.message));
          thread.idle = setTimeout(() => void this.end(thread), this.options.idleMs ?? 30_000);
          thread.idle.unref();
          this.next();
        });
        thread.worker.postMessage({ task: job.task, input: job.input });
      },
      (error: Error) => void this.end(thread, error),
    );
  }

  /** Ends a thread; its task, if any, rejects with `why`. */
  private async end(thread: Thread, why?: Error): Promise<void> {
    if (!this.threads.delete(thread)) return;
    clearTimeout(thread.timer);
    clearTimeout(thread.idle);
    const job = thread.job;
    thread.job = undefined;
    if (job) job.reject(why ?? new Error('a CPU work thread stopped'));
    await thread.worker.terminate();
    this.next();
  }
}
