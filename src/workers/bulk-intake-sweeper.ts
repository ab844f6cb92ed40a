// Takes up the bulks whose process left their messages out of the log (it died, or could not write
// them: src/messages/bulk-intake.ts), once their lease (DISPATCH_LEASE_MS) has run out: one a
// round, while there are any; else it looks again every few seconds.
import type { Engage } from '../context.ts';
import { bulkIntakes } from '../messages/bulk-intake.ts';
import { WorkerLoop } from './loop.ts';

const IDLE_MS = 2000;

export class BulkIntakeSweeper extends WorkerLoop {
  constructor(private readonly engage: Engage) {
    super(engage, { name: 'bulk intake sweeper', idleMs: IDLE_MS });
  }

  protected async round(): Promise<number> {
    return (await bulkIntakes(this.engage).sweepOne()) ? 1 : 0;
  }
}
