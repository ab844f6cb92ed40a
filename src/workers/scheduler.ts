// The scheduler: moves scheduled messages to queued when they fall due (polled every 200 ms, so
// within a second of scheduled_at). Its state is the event log, so restarts lose nothing, and the
// move is an append at the revision read, so two schedulers never queue a message twice.
import type { Engage } from '../context.ts';
import { comparePositions, type Position } from '../eventstore/port.ts';
import { Wakeup } from '../eventstore/wakeup.ts';
import { applyTransitions } from '../messages/outcomes.ts';
import { LoopBackoff } from './backoff.ts';

export class Scheduler {
  private readonly wakeup = new Wakeup();
  private stopped = false;
  private loopDone?: Promise<void>;
  /** the newest position this scheduler wrote: the read model is read only once it has caught up */
  private lastWritten?: Position;

  constructor(
    private readonly engage: Engage,
    private readonly onQueued: () => void,
    private readonly intervalMs = 200,
  ) {}

  start(): void {
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeup.close();
    await this.loopDone;
  }

  private async loop() {
    const backoff = new LoopBackoff(this.engage.log, 'scheduler');
    while (!this.stopped) {
      const ticket = this.wakeup.ticket();
      let moved = 0;
      try {
        moved = await this.queueDue();
        backoff.succeeded();
      } catch (err) {
        await backoff.failed(err, () => this.stopped);
        continue;
      }
      if (moved > 0) this.onQueued();
      else await this.wakeup.wait(ticket, this.intervalMs);
    }
  }

  async queueDue(): Promise<number> {
    // the messages just queued must have left 'scheduled' in the read model before it is read
    // again; else the next round re-selects them at stale revisions and re-decides each one
    if (this.lastWritten) await this.engage.runner.waitFor(['messages'], this.lastWritten, 5000);
    if (this.stopped) return 0;
    const { rows } = await this.engage.pool.query<{ id: string; account_id: string; revision: string; scheduled_at: Date }>(
      `SELECT id, account_id, revision::text, scheduled_at FROM messages
       WHERE status = 'scheduled' AND scheduled_at <= now() ORDER BY scheduled_at LIMIT 1000`,
    );
    if (rows.length === 0) return 0;
    const now = this.engage.clock.now();
    const results = await applyTransitions(
      this.engage,
      rows.map((r) => ({
        messageId: r.id,
        command: { type: 'QueueDue' as const, now },
        known: {
          state: { exists: true, id: r.id, accountId: r.account_id, status: 'scheduled' as const, claimed: false, attempts: 0, notBefore: r.scheduled_at.toISOString() },
          revision: BigInt(r.revision),
        },
      })),
      { actor: 'scheduler' },
    );
    for (const r of results) {
      if (r.position && (!this.lastWritten || comparePositions(r.position, this.lastWritten) > 0)) this.lastWritten = r.position;
    }
    return results.filter((r) => r.ok).length;
  }
}
