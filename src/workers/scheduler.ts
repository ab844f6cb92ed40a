// The scheduler: moves scheduled messages to queued when they fall due (polled every 200 ms, so
// within a second of scheduled_at). Its state is the event log, so restarts lose nothing, and the
// move is an append at the revision read, so two schedulers never queue a message twice.
import { dueScheduled } from '../../projections/messages.ts';
import type { Engage } from '../context.ts';
import { applyTransitions } from '../messages/outcomes.ts';
import { OwnWrites, WorkerLoop } from './loop.ts';

export class Scheduler extends WorkerLoop {
  private readonly ownWrites = new OwnWrites();

  constructor(
    private readonly engage: Engage,
    private readonly onQueued: () => void,
    intervalMs = 200,
  ) {
    super(engage, { name: 'scheduler', idleMs: intervalMs });
  }

  protected async round(): Promise<number> {
    const moved = await this.queueDue();
    if (moved > 0) this.onQueued();
    return moved;
  }

  /** Queues the scheduled messages that have fallen due; returns how many it moved. */
  async queueDue(): Promise<number> {
    // the messages just queued must have left 'scheduled' in the read model before it is read
    // again; else the next round re-selects them at stale revisions and re-decides each one
    await this.ownWrites.visibleIn(this.engage.runner, 'messages');
    if (this.stopped) return 0;
    const rows = await dueScheduled(this.engage.pool, 1000);
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
    this.ownWrites.note(results);
    return results.filter((r) => r.ok).length;
  }
}
