// The webhook sender: claims due delivery rows (SKIP LOCKED, a lease), POSTs them with bounded
// concurrency overall and per receiving host — so a slow or dead receiver cannot starve healthy
// ones — and stores each attempt; failures are retried on the configured schedule (default 30 s,
// 5 min, 30 min), durably, so a restart loses no retry.
//
// A claim takes, for each host, its free slots and as many more as the host answered since the last
// claim (up to its share again): those wait here, leased, and go out as the host answers, so a busy
// receiver is never kept waiting for a claim's round trip, while one that stops answering gets none
// beyond its share. A delivery waits here at most WAITING_MAX_MS, else it is handed back (it may have
// been cancelled meanwhile); one whose endpoint was deleted or disabled, or whose replay was
// cancelled, since its claim is handed back unsent (src/webhooks/revocations.ts). Every write that
// ends a lease names it, so one that comes after the lease ran out changes nothing. The next claim comes once a host with little waiting has answered half
// its share, or has nothing in flight (or new rows were written, or every idle 250 ms for retries),
// not after every answer.
import {
  type ClaimedDelivery,
  claimDueDeliveries,
  DELIVERIES_ADDED,
  type DeliveryAttempt,
  type DeliveryStatus,
  recordDeliveryAttempts,
  releaseDeliveries,
} from '../../projections/webhook-outbox.ts';
import type { Engage } from '../context.ts';
import { isTransientError } from '../db/errors.ts';
import { unseal } from '../seal.ts';
import { type AttemptResult, DeliveryClient } from '../webhooks/delivery.ts';
import { NotificationListener } from '../db/notifications.ts';
import { REVOCATION_CHANNEL, revokeDeliveries, revokedSince } from '../webhooks/revocations.ts';
import { accountWebhookSecret } from '../webhooks/signing-secrets.ts';
import { retryWithBackoff, whileUnavailable } from './backoff.ts';
import { GroupCommit } from '../db/group-commit.ts';
import { WorkerLoop } from './loop.ts';

/** What marks a replayed delivery (its event id stays the original's, so receivers de-duplicate). */
const replayHeaders = (replayId: string) => ({ 'x-service-replay': replayId, 'x-legacy-replay': replayId });

/** A claimed delivery waiting for a slot of its host, with its lease's deadlines (wall-clock ms). */
interface Waiting {
  row: ClaimedDelivery;
  /** Date.now() when its claim began: a revocation since then (README "Webhooks") means it is not sent */
  claimedAt: number;
  /** no attempt starts after this: it would not be recorded within the lease */
  attemptBy: number;
  leaseEnds: number;
  /** not started by then, it is handed back: what it was claimed with (its endpoint, its replay) may have changed */
  waitsUntil: number;
}

/** The lease a claimed delivery is held by. */
const leaseOf = (row: ClaimedDelivery) => ({ deliveryId: row.id, lease: row.lease });

/** The longest a claimed delivery waits here for a slot of its host. */
const WAITING_MAX_MS = 2_000;

export class WebhookSender extends WorkerLoop {
  private readonly client: DeliveryClient;
  private readonly leaseMs: number;
  /** per host: attempts in flight */
  private readonly perHost = new Map<string, number>();
  /** per host: claimed deliveries waiting for a slot, oldest first */
  private readonly waiting = new Map<string, Waiting[]>();
  private waitingCount = 0;
  /** per host: attempts it answered since the last claim began (how many more it may have waiting) */
  private readonly answered = new Map<string, number>();
  private inFlight = 0;
  private readonly running = new Set<Promise<void>>();
  private readonly replaySettled = new Set<() => void>();
  /** attempts' outcomes, written together: one statement for all that end while the last is written */
  private readonly attempts: GroupCommit<DeliveryAttempt>;
  /** signing secrets (endpoints' and accounts') as opened, by their sealed form (each signs many deliveries) */
  private readonly opened = new Map<string, string>();
  /** revocations announced by API writes in other processes (README "Webhooks") */
  private readonly revocations: NotificationListener;

  constructor(private readonly engage: Engage) {
    super(engage, { name: 'webhook sender', idleMs: 250, wakeOnSignal: DELIVERIES_ADDED });
    this.client = new DeliveryClient(engage.config.WEBHOOK_TIMEOUT_MS, engage.config.WEBHOOK_ALLOW_PRIVATE);
    // how long a claimed delivery stays invisible to other claims: well beyond one attempt's timeout,
    // since a lease shorter than an attempt would let another round (or process) send it again mid-flight
    this.leaseMs = Math.max(engage.config.WEBHOOK_LEASE_MS, engage.config.WEBHOOK_TIMEOUT_MS * 3);
    this.attempts = new GroupCommit((batch) => recordDeliveryAttempts(engage.pool, batch));
    this.revocations = new NotificationListener(
      engage.connectionString,
      { [REVOCATION_CHANNEL]: (id) => { if (id) revokeDeliveries([id]); } },
      // announcements missed while away: claims read the log, and what waits here is handed back within 2 s
      () => undefined,
      'webhook revocations',
      engage.log,
    );
  }

  start(): void {
    void this.revocations.start();
    super.start();
  }

  /** Calls `listener` whenever an attempt of a replay's delivery ends: the replay worker refills its window at once. */
  onReplayAttempt(listener: () => void): void {
    this.replaySettled.add(listener);
  }

  private stoppedOnce?: Promise<void>;

  /** Stops claiming, hands back what waits unsent, then waits for the attempts in flight to be recorded (once, however often it is called). */
  stop(): Promise<void> {
    this.stoppedOnce ??= this.stopOnce();
    return this.stoppedOnce;
  }

  private async stopOnce(): Promise<void> {
    await super.stop();
    const unsent = [...this.waiting.values()].flat();
    this.waiting.clear();
    this.waitingCount = 0;
    // due again at once for another process; if this fails, their leases end on their own
    if (unsent.length) await releaseDeliveries(this.engage.pool, unsent.map((w) => leaseOf(w.row))).catch(() => undefined);
    await Promise.allSettled([...this.running]);
    await this.client.close();
    await this.revocations.close();
  }

  /** Claims due deliveries up to each host's free slots and what it answered lately, and starts what its slots allow; returns how many it claimed when that filled the claim (more may be due), else 0. */
  protected async round(): Promise<number> {
    const { config, pool, clock } = this.engage;
    const perHost = config.WEBHOOK_PER_HOST_CONCURRENCY;
    const free = 2 * config.WEBHOOK_CONCURRENCY - this.inFlight - this.waitingCount;
    if (free <= 0) return 0;
    // per host: what it holds (in flight and waiting) against its share and what it answered lately
    const held = new Map<string, number>();
    for (const [h, n] of this.perHost) held.set(h, n);
    for (const [h, w] of this.waiting) held.set(h, (held.get(h) ?? 0) + w.length);
    for (const h of this.answered.keys()) if (!held.has(h)) held.set(h, 0);
    const capOf = (h: string) => perHost + Math.min(perHost, this.answered.get(h) ?? 0);
    const saturated = [...held].filter(([h, n]) => n >= capOf(h)).map(([h]) => h);
    const hostRoom = new Map([...held].filter(([h, n]) => n < capOf(h)).map(([h, n]) => [h, capOf(h) - n]));
    const now = clock.now();
    const limit = Math.min(free, 500);
    // (deadlines below are wall-clock time, as the waits are)
    const claimedAt = Date.now();
    const leaseEnds = claimedAt + this.leaseMs;
    this.answered.clear();
    const rows = await claimDueDeliveries(pool, { now, limit, leaseUntil: new Date(now.getTime() + this.leaseMs), skipHosts: saturated, hostRoom, perHost });
    // From here on the rows are ours until the lease ends: a database that goes away now is waited
    // out (within the lease), so the claimed rows are not left locked with no attempt made.
    const attemptBy = leaseEnds - 2 * config.WEBHOOK_TIMEOUT_MS;
    const waitsUntil = Math.min(attemptBy, Date.now() + WAITING_MAX_MS);
    for (const row of rows) {
      let queue = this.waiting.get(row.target_host);
      if (!queue) this.waiting.set(row.target_host, (queue = []));
      queue.push({ row, claimedAt, attemptBy, leaseEnds, waitsUntil });
      this.waitingCount++;
    }
    this.startWaiting();
    // another round at once only when the claim was full: more may be due
    return rows.length >= limit ? rows.length : 0;
  }

  /**
   * Starts waiting deliveries while their hosts and the sender have free slots; hands back those
   * that waited too long, and those whose endpoint or replay was revoked since their claim (the
   * outbox has cancelled them, or a claim after the change decides again).
   */
  private startWaiting(): void {
    const { config } = this.engage;
    const handBack: Waiting[] = [];
    for (const [host, queue] of this.waiting) {
      while (queue.length && this.inFlight < config.WEBHOOK_CONCURRENCY && (this.perHost.get(host) ?? 0) < config.WEBHOOK_PER_HOST_CONCURRENCY && !this.stopped) {
        const next = queue.shift()!;
        this.waitingCount--;
        if (Date.now() >= next.waitsUntil || revokedSince([next.row.endpoint_id, next.row.replay_id], next.claimedAt)) handBack.push(next);
        else this.startAttempt(next);
      }
      if (!queue.length) this.waiting.delete(host);
    }
    for (const w of handBack) {
      this.release(w);
      if (w.row.replay_id) for (const listener of this.replaySettled) listener();
    }
  }

  /** Ends a lease with no attempt made, trying while the lease lasts (after it, the lease may be another claim's, and ends on its own). */
  private release(w: Waiting): void {
    void whileUnavailable(() => releaseDeliveries(this.engage.pool, [leaseOf(w.row)]), w.leaseEnds - 1000, this.signal).catch(() => undefined);
  }

  private startAttempt(waiting: Waiting): void {
    const { row } = waiting;
    this.perHost.set(row.target_host, (this.perHost.get(row.target_host) ?? 0) + 1);
    this.inFlight++;
    // the slot is the receiver's: it is free once the receiver has answered (the row stays leased
    // until the outcome is recorded, so nobody sends it again meanwhile)
    let slotHeld = true;
    const freeSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      this.inFlight--;
      const host = row.target_host;
      const answered = (this.answered.get(host) ?? 0) + 1;
      this.answered.set(host, answered);
      const n = (this.perHost.get(host) ?? 1) - 1;
      if (n <= 0) this.perHost.delete(host);
      else this.perHost.set(host, n);
      if (this.waitingCount) this.startWaiting();
      // the one rule for the next claim (a claim is a walk of the due rows, not made per answer):
      // little or nothing waits for a host that has answered half its share since the last claim,
      // or has nothing in flight any more, so claim for it (what a full claim brought it may be due)
      const half = this.engage.config.WEBHOOK_PER_HOST_CONCURRENCY / 2;
      if ((this.waiting.get(host)?.length ?? 0) <= half && (answered >= half || n <= 0)) this.wake();
    };
    const p = this.deliver(waiting, freeSlot).finally(() => {
      freeSlot();
      this.running.delete(p);
      if (row.replay_id) for (const listener of this.replaySettled) listener();
    });
    this.running.add(p);
  }

  /** Where and with what to sign, as of the claim: an endpoint may have been deleted, disabled or moved since the row was written. */
  private async targetOf(row: ClaimedDelivery): Promise<{ url: string; secret: string } | { cancel: string }> {
    // the log says so, though the outbox may not have applied it yet
    if (row.revoked) return { cancel: row.revoked };
    if (row.kind !== 'endpoint') {
      // the claim brought the account's secret; an account that has none yet gets one now, once
      const secret = row.account_secret_sealed ? await this.openSecret(row.account_secret_sealed) : await accountWebhookSecret(this.engage, row.account_id);
      return { url: row.target_url, secret };
    }
    const { endpoint } = row;
    if (!endpoint) return { cancel: 'endpoint deleted' };
    // a disabled endpoint gets nothing, retries included (POST …/retry re-sends once it is active again)
    if (endpoint.status !== 'active') return { cancel: `endpoint ${endpoint.status}` };
    return { url: endpoint.url, secret: await this.openSecret(endpoint.secret_sealed) };
  }

  private async openSecret(sealed: string): Promise<string> {
    let secret = this.opened.get(sealed);
    if (secret === undefined) {
      secret = await unseal(this.engage.pool, sealed);
      // a rotated secret, or a deleted endpoint's, is never asked for again: keep the map small
      if (this.opened.size >= 1000) this.opened.clear();
      this.opened.set(sealed, secret);
    }
    return secret;
  }

  /**
   * One attempt. The database may go away at any step: before the POST the attempt waits for it
   * until `attemptBy` (so that the attempt still fits in the lease); after it, recording what the
   * receiver said waits until shortly before the lease ends — else a delivered callback would be
   * sent again after the lease. Finding where to send may itself be slow (a secret to open): the
   * POST starts only if, after that, it is still before `attemptBy` and nothing was revoked since
   * the claim; else the lease is handed back unused. Nothing is awaited between that check and the
   * POST.
   */
  private async deliver(waiting: Waiting, answered: () => void): Promise<void> {
    const { row, claimedAt, attemptBy, leaseEnds } = waiting;
    const recordBy = leaseEnds - 1000;
    const { signal } = this;
    try {
      const target = await whileUnavailable(() => this.targetOf(row), attemptBy, signal);
      if ('cancel' in target) {
        answered();
        await this.finish(row, { ok: false, latencyMs: 0, error: target.cancel }, recordBy, 'cancelled');
        return;
      }
      if (Date.now() >= attemptBy || revokedSince([row.endpoint_id, row.replay_id], claimedAt)) {
        answered();
        this.release(waiting);
        return;
      }
      const result = await this.client.post(target.url, target.secret, row.event_id, row.event_type, row.body, this.engage.clock.now(), row.replay_id ? replayHeaders(row.replay_id) : undefined);
      answered();
      await this.finish(row, result, recordBy);
    } catch (err) {
      this.engage.log.error({ err, delivery: row.id }, 'webhook delivery bookkeeping failed; the lease will expire and it is retried');
    }
  }

  /**
   * Records an attempt: delivered, failed for good, or pending until its next retry on the configured
   * schedule. It goes into the next batch of outcomes; a batch that fails on a lost database or a lost
   * race is written again, until shortly before the lease ends (else a delivered callback would be
   * sent again after the lease).
   */
  private finish(row: ClaimedDelivery, result: AttemptResult, recordBy: number, forced?: 'cancelled'): Promise<void> {
    const delays = this.engage.config.WEBHOOK_RETRY_DELAYS;
    const now = this.engage.clock.now();
    const attempt = row.attempts + 1;
    let status: DeliveryStatus;
    let next = now;
    if (forced) status = forced;
    else if (result.ok) status = 'delivered';
    else if (attempt <= delays.length) {
      status = 'pending';
      next = new Date(now.getTime() + delays[attempt - 1]);
    } else status = 'failed';
    const outcome: DeliveryAttempt = {
      ...leaseOf(row),
      attempt,
      status,
      nextAttemptAt: next,
      at: now,
      statusCode: result.statusCode ?? null,
      error: result.error ?? null,
      latencyMs: result.latencyMs,
    };
    return retryWithBackoff(() => this.attempts.add(outcome), { until: recordBy, signal: this.signal, retryOn: isTransientError });
  }
}
