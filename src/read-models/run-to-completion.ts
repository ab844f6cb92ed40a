// `engage projections rebuild` and `engage replay` (README "The CLI"): run read models in this process
// until their rebuild swaps in or they catch up, with a progress bar on a terminal.
import { SingleBar } from 'cli-progress';
import type { Logger } from 'pino';
import { ALL_PROJECTIONS } from '../../projections/index.ts';
import { type Engage, openEngage } from '../context.ts';
import type { Position } from '../eventstore/port.ts';
import type { Projection } from './projection.ts';
import { ProjectionRunner } from './runner.ts';
import { readStatuses } from './status.ts';

/**
 * Runs each of these projections in this process, one after the other, until its rebuild swaps in
 * (or it catches up), with a progress bar on a TTY and a line each. One process for all: a read
 * model rebuilt in a process of its own paid the process's start for each. The exit code is the
 * worst of them: 2 for a failed one, 3 for one with events parked.
 */
export async function runToCompletion(
  chosen: Projection[],
  log: Logger,
  before: (engage: Engage, p: Projection) => Promise<number | void>,
  until: 'swapped' | 'caught-up',
): Promise<void> {
  const engage = await openEngage({ log, projections: chosen });
  try {
    for (const p of chosen) {
      const outcome = await runOne(engage, p, await before(engage, p), until);
      if (outcome === 'failed') process.exitCode = 2;
      else if (outcome === 'parked' && process.exitCode !== 2) process.exitCode = 3;
    }
  } finally {
    await engage.close();
  }
}

/** One projection of runToCompletion: run until done, then its line (stdout) or its failure (stderr). */
async function runOne(engage: Engage, p: Projection, generation: number | void, until: 'swapped' | 'caught-up'): Promise<'ok' | 'failed' | 'parked'> {
  const name = p.name;
  const head = await engage.store.headPosition();
  const total = Number(head.prepare);
  const tty = process.stdout.isTTY;
  const bar = tty ? new SingleBar({ format: `${name} [{bar}] {value}/{total} events | {rate} ev/s | ETA {eta_formatted}`, hideCursor: true }) : undefined;
  const started = Date.now();
  bar?.start(total, 0, { rate: 0 });
  const runner = new ProjectionRunner(engage.pool, engage.store, [p], engage.log, engage.store.wakeup);
  const onProgress = (_n: string, _g: number, at: Position) => {
    const done = Number(at.prepare);
    const rate = Math.round(done / Math.max(0.001, (Date.now() - started) / 1000));
    bar?.update(Math.min(done, total), { rate });
  };
  runner.on('rebuild-progress', onProgress);
  runner.on('advanced', (_n: string, at: Position) => onProgress(_n, 0, at));
  // Done is read from projection_state, not from this runner's events: a running service works on
  // the same generation and may be the one that swaps it in (or that hits a failing event).
  let rebuildFailure: string | undefined;
  const finished = new Promise<void>((resolve, reject) => {
    const check = setInterval(async () => {
      try {
        if (until === 'swapped') {
          const { rows } = await engage.pool.query<{ active: boolean; status: string; error: string | null; error_position: string | null }>(
            'SELECT active, status, error, error_position FROM projection_state WHERE name = $1 AND generation = $2',
            [name, generation],
          );
          if (rows.length === 0) throw new Error(`the rebuild of ${name} (generation ${generation}) was replaced by another rebuild`);
          if (rows[0].status === 'failed') rebuildFailure = `rebuild of ${name} failed at ${rows[0].error_position}: ${rows[0].error}`;
          else if (!rows[0].active) return;
        } else {
          const [s] = (await readStatuses(engage.pool, engage.store, ALL_PROJECTIONS)).filter((x) => x.name === name && x.active);
          if (!s || (s.lag !== 0 && s.status !== 'failed')) return;
        }
        clearInterval(check);
        resolve();
      } catch (err) {
        clearInterval(check);
        reject(err);
      }
    }, 200);
  });
  await runner.start();
  await finished.finally(() => runner.stop());
  bar?.update(total);
  bar?.stop();
  if (rebuildFailure) {
    process.stderr.write(`${rebuildFailure}\n(the previous generation keeps serving)\n`);
    return 'failed';
  }
  const [s] = (await readStatuses(engage.pool, engage.store, ALL_PROJECTIONS)).filter((x) => x.name === name && x.active);
  const secs = (Date.now() - started) / 1000;
  const parked = s?.parked ? `, ${s.parked} event${s.parked === 1 ? '' : 's'} parked (engage projections parked ${name})` : '';
  process.stdout.write(`${name}: ${s?.status ?? 'unknown'} at ${s?.position ?? '?'}${parked} (${secs.toFixed(1)} s)\n`);
  return s?.status === 'failed' ? 'failed' : s?.parked ? 'parked' : 'ok';
}
