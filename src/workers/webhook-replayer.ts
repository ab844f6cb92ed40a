// The webhook replay worker: moves every replay the outbox shows scanning or delivering along.
// Scanning: a step reads the log from the replay's cursor (src/webhooks/replay-scan.ts) and adds its
// deliveries in one transaction with the new cursor and count — a crash neither loses nor doubles a
// delivery, and a restart resumes at the cursor. A replay keeps at most a window of its deliveries
// pending, refilled when half of it has been delivered, so a long replay never floods the queue: the
// sender takes at most WEBHOOK_PER_HOST_CONCURRENCY of them at once and leaves the rest for later
// rounds, so they do not delay deliveries to other hosts. Delivering: once none of its deliveries
// is pending, the replay is completed with its counts. The sender (same queue, caps and signing)
// delivers them.
import { webhookReplayDecider, webhookReplayStream, type WebhookReplayCommand } from '../../commands/webhook-replay.ts';
import { sendingEndpoints } from '../../projections/webhook-endpoints.ts';
import { insertReplayDeliveries, pendingReplayDeliveries, REPLAYS_CHANGED, replayDeliveryCounts } from '../../projections/webhook-outbox.ts';
import { activeReplays, advanceReplay, lockReplayAt, type WebhookReplayRow } from '../../projections/webhook-replays.ts';
import { handleCommand } from '../command-handler.ts';
import type { Engage } from '../context.ts';
import { withTransaction } from '../db/pool.ts';
import { AppError } from '../errors.ts';
import { positionToString } from '../eventstore/port.ts';
import { ReplayScan } from '../webhooks/replay-scan.ts';
import { WorkerLoop } from './loop.ts';

/** replays moved along per round */
const REPLAYS_PER_ROUND = 50;
/** a replay's window of pending deliveries, in units of WEBHOOK_PER_HOST_CONCURRENCY */
export const REPLAY_WINDOW_PER_HOST_CAP = 8;

export class WebhookReplayer extends WorkerLoop {
  /** each scanning replay's walk through the log, kept between rounds for its read-ahead */
  private readonly scans = new Map<string, ReplayScan>();
  /** how many of one replay's deliveries may be pending at once */
  readonly window: number;
  private attemptsSinceWake = 0;
  private readonly added = new Set<() => void>();

  constructor(private readonly engage: Engage) {
    super(engage, { name: 'webhook replayer', idleMs: 500, wakeOnSignal: REPLAYS_CHANGED });
    // 8 × the per-host cap (256 by default): when half of it is free, the cap's worth is in flight and
    // as much again waits — what the sender works on while the next step reads the log. At 2 × the
    // cap nothing would wait at a refill and the receiver would idle through every step.
    this.window = REPLAY_WINDOW_PER_HOST_CAP * engage.config.WEBHOOK_PER_HOST_CONCURRENCY;
  }

  /** Calls `listener` after a step added deliveries: the sender in this process claims them at once. */
  onDeliveriesAdded(listener: () => void): void {
    this.added.add(listener);
  }

  /** A replay delivery's attempt ended (in this process): a round once a part of a window is free, not after every one. */
  noteAttempt(): void {
    if (++this.attemptsSinceWake < Math.max(1, Math.floor(this.window / 4))) return;
    this.attemptsSinceWake = 0;
    this.wake();
  }

  protected async round(): Promise<number> {
    const replays = await activeReplays(this.engage.pool, REPLAYS_PER_ROUND);
    const active = new Set(replays.filter((r) => r.status === 'scanning').map((r) => r.id));
    for (const id of this.scans.keys()) if (!active.has(id)) this.scans.delete(id);
    let worked = 0;
    for (const replay of replays) {
      if (this.stopped) break;
      worked += replay.status === 'scanning' ? await this.scanStep(replay) : await this.completeIfSettled(replay);
    }
    return worked;
  }

  /** One scan step of a replay, when its window has room; 1 when it moved. */
  private async scanStep(replay: WebhookReplayRow): Promise<number> {
    const { pool } = this.engage;
    const endpoint = (await sendingEndpoints(pool, [replay.endpoint_id])).get(replay.endpoint_id);
    // the replay delivers to nobody any more: it ends here (what it added is cancelled with it)
    if (!endpoint || endpoint.status !== 'active') return this.decide(replay, { type: 'Cancel', accountId: replay.account_id, now: this.engage.clock.now(), reason: endpoint ? `endpoint ${endpoint.status}` : 'endpoint deleted' });
    const pending = await pendingReplayDeliveries(pool, replay.id, this.window);
    const room = this.window - pending;
    if (room < Math.ceil(this.window / 2)) return 0;
    let scan = this.scans.get(replay.id);
    if (!scan) this.scans.set(replay.id, (scan = new ReplayScan(this.engage, replay)));
    const step = await scan.next(replay.cursor, room, endpoint);
    const added = await withTransaction(pool, async (tx) => {
      if (!(await lockReplayAt(tx, replay.id, replay.cursor))) return undefined;
      const n = await insertReplayDeliveries(tx, replay.id, step.drafts);
      await advanceReplay(tx, replay.id, positionToString(step.cursor), n);
      return n;
    });
    if (added === undefined) {
      // cancelled meanwhile, or another process's step moved the cursor: start again from the row
      this.scans.delete(replay.id);
      return 0;
    }
    if (added > 0) for (const listener of this.added) listener();
    if (step.done) await this.decide(replay, { type: 'MarkScanned', found: replay.found + added, now: this.engage.clock.now() });
    return 1;
  }

  /** Completes a delivering replay once none of its deliveries is pending; 1 when it did. */
  private async completeIfSettled(replay: WebhookReplayRow): Promise<number> {
    if ((await pendingReplayDeliveries(this.engage.pool, replay.id, 1)) > 0) return 0;
    const counts = (await replayDeliveryCounts(this.engage.pool, [replay.id])).get(replay.id)!;
    return this.decide(replay, { type: 'Complete', delivered: counts.delivered, failed: counts.failed, now: this.engage.clock.now() });
  }

  private async decide(replay: WebhookReplayRow, command: WebhookReplayCommand): Promise<number> {
    let result;
    try {
      result = await handleCommand(this.engage.store, webhookReplayDecider, webhookReplayStream(replay.id), command, { accountId: replay.account_id, actor: 'system' });
    } catch (err) {
      // the account cancelled it meanwhile: the row catches up at the next round
      if (err instanceof AppError && err.code === 'conflict') return 0;
      throw err;
    }
    // the next round reads the replay's new status, not the one before this event
    if (result.position) await this.engage.runner.waitFor(['webhook_outbox'], result.position, 5000);
    return 1;
  }
}
