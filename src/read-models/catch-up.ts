// What a one-shot CLI command does before it reads a read model (README "The CLI"): brings it up to
// the head of the log in its own process, since no service may be running to do it.
import { findProjection } from '../../projections/index.ts';
import type { Engage } from '../context.ts';
import { sleep } from '../sleep.ts';
import { ProjectionRunner } from './runner.ts';
import { readStatuses } from './status.ts';

/** Brings these read models up to the head of the log in this process (a CLI command may run with no service running). */
export async function catchUp(engage: Engage, names: string[], timeoutMs = 60_000): Promise<void> {
  const ps = names.map((n) => findProjection(n)!);
  const runner = new ProjectionRunner(engage.pool, engage.store, ps, engage.log, engage.store.wakeup);
  await runner.start();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const statuses = (await readStatuses(engage.pool, engage.store, ps)).filter((s) => names.includes(s.name) && s.active);
      if (statuses.length === names.length && statuses.every((s) => s.lag === 0 || s.status === 'failed')) return;
      if (Date.now() > deadline) throw new Error(`the ${names.join(', ')} read model did not catch up within ${timeoutMs / 1000} s`);
      await sleep(50);
    }
  } finally {
    await runner.stop();
  }
}
