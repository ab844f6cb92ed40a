// The webhook sender: claims due delivery rows (SKIP LOCKED, a lease), POSTs them with bounded
// concurrency overall and per receiving host — so a slow or dead receiver cannot starve healthy
// ones — and stores each attempt; failures are retried on the configured schedule (default 30 s,
// 5 min, 30 min), durably, so a restart loses no retry.
import type { Engage } from '../context.ts';
import { Wakeup } from '../eventstore/wakeup.ts';
import { DeliveryClient, type AttemptResult } from '../webhooks/delivery.ts';
import { unseal } from '../seal.ts';
import { accountWebhookSecret } from '../webhooks/secrets.ts';
import { LoopBackoff, whileUnavailable } from './backoff.ts';

export function parseDelays(spec: string): number[] {
  return spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(s);
      if (!m) throw new Error(`WEBHOOK_RETRY_DELAYS: cannot read "${s}" (use e.g. 30s,5m,30m)`);
      const n = Number(m[1]);
      return Math.round(n * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h']);
    });
}

interface ClaimedDelivery {
  id: string;
  account_id: string;
  endpoint_id: string | null;
  target_url: string;
  target_host: string;
  kind: 'endpoint' | 'message';
  event_id: string;
  event_type: string;
  body: string;
  attempts: number;
}

interface EndpointRow {
  id: string;
  secret_sealed: string;
  status: string;
  url: string;
}

export class WebhookSender {
  private readonly wakeup = new Wakeup();
  private readonly client: DeliveryClient;
  private readonly delays: number[];
  private readonly leaseMs: number;
  private readonly perHost = new Map<string, number>();
  private inFlight = 0;
  private stopped = false;
  private loopDone?: Promise<void>;
  private readonly running = new Set<Promise<void>>();
  private readonly isStopped = () => this.stopped;
  private readonly onAdvance = (name: string) => {
    if (name === 'webhook_outbox') this.wakeup.wake();
  };

  constructor(private readonly engage: Engage) {
    this.client = new DeliveryClient(engage.config.WEBHOOK_TIMEOUT_MS, engage.config.WEBHOOK_ALLOW_PRIVATE);
    this.delays = parseDelays(engage.config.WEBHOOK_RETRY_DELAYS);
    // how long a claimed delivery stays invisible to other claims: well beyond one attempt's timeout,
    // since a lease shorter than an attempt would let another round (or process) send it again mid-flight
    this.leaseMs = Math.max(engage.config.WEBHOOK_LEASE_MS, engage.config.WEBHOOK_TIMEOUT_MS * 3);
  }

  start(): void {
    this.engage.runner.on('advanced', this.onAdvance);
    this.loopDone = this.loop();
  }

  wake(): void {
    this.wakeup.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.engage.runner.off('advanced', this.onAdvance);
    this.wakeup.close();
    await this.loopDone;
    await Promise.allSettled([...this.running]);
    await this.client.close();
  }

  private async loop() {
    const backoff = new LoopBackoff(this.engage.log, 'webhook sender');
    while (!this.stopped) {
      const ticket = this.wakeup.ticket();
      let claimed = 0;
      try {
        claimed = await this.round();
        backoff.succeeded();
      } catch (err) {
        await backoff.failed(err, () => this.stopped);
        continue;
      }
      if (claimed === 0) await this.wakeup.wait(ticket, 250);
    }
  }

  /** Claims as many due deliveries as there are free slots and starts them; returns how many. */
  async round(): Promise<number> {
    const { config, pool, clock } = this.engage;
    const free = config.WEBHOOK_CONCURRENCY - this.inFlight;
    if (free <= 0) return 0;
    const saturated = [...this.perHost].filter(([, n]) => n >= config.WEBHOOK_PER_HOST_CONCURRENCY).map(([h]) => h);
    const now = clock.now();
    // (deadlines below are wall-clock time, as the waits are)
    const leaseEnds = Date.now() + this.leaseMs;
    const { rows } = await pool.query<ClaimedDelivery>(
      `UPDATE webhook_deliveries d SET locked_until = $3
       WHERE d.id IN (
         SELECT id FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until < $1)
           AND NOT (target_host = ANY($4::text[]))
         ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING d.id, d.account_id, d.endpoint_id, d.target_url, d.target_host, d.kind, d.event_id, d.event_type, d.body, d.attempts`,
      [now, Math.min(free, 500), new Date(now.getTime() + this.leaseMs), saturated],
    );
    // From here on the rows are ours until the lease ends: a database that goes away now is waited
    // out (within the lease), so the claimed rows are not left locked with no attempt made.
    const attemptBy = leaseEnds - 2 * config.WEBHOOK_TIMEOUT_MS;
    // every endpoint this round sends to, in one read (as of now, like a read per delivery)
    const endpointIds = [...new Set(rows.filter((r) => r.kind === 'endpoint' && r.endpoint_id).map((r) => r.endpoint_id!))];
    const endpoints = new Map<string, EndpointRow>();
    if (endpointIds.length) {
      const { rows: found } = await whileUnavailable(
        () => pool.query<EndpointRow>('SELECT id, secret_sealed, status, url FROM webhook_endpoints WHERE id = ANY($1::text[])', [endpointIds]),
        attemptBy,
        this.isStopped,
      );
      for (const e of found) endpoints.set(e.id, e);
    }
    let started = 0;
    for (const row of rows) {
      const hostLoad = this.perHost.get(row.target_host) ?? 0;
      if (hostLoad >= config.WEBHOOK_PER_HOST_CONCURRENCY) {
        // over this host's share: hand it back for a later round
        await whileUnavailable(() => pool.query('UPDATE webhook_deliveries SET locked_until = NULL WHERE id = $1', [row.id]), attemptBy, this.isStopped);
        continue;
      }
      started++;
      this.perHost.set(row.target_host, hostLoad + 1);
      this.inFlight++;
      const p = this.deliver(row, endpoints, attemptBy, leaseEnds).finally(() => {
        this.inFlight--;
        const n = (this.perHost.get(row.target_host) ?? 1) - 1;
        if (n <= 0) this.perHost.delete(row.target_host);
        else this.perHost.set(row.target_host, n);
        this.running.delete(p);
        this.wakeup.wake();
      });
      this.running.add(p);
    }
    return started;
  }

  /** Where and with what to sign, as of now: an endpoint may have been deleted, disabled or moved since the row was written. */
  private async targetOf(row: ClaimedDelivery, endpoints: ReadonlyMap<string, EndpointRow>): Promise<{ url: string; secret: string } | { cancel: string }> {
    if (row.kind !== 'endpoint') return { url: row.target_url, secret: await accountWebhookSecret(this.engage, row.account_id) };
    if (!row.endpoint_id) return { cancel: 'endpoint deleted' };
    const endpoint = endpoints.get(row.endpoint_id);
    if (!endpoint) return { cancel: 'endpoint deleted' };
    // a disabled endpoint gets nothing, retries included (POST …/retry re-sends once it is active again)
    if (endpoint.status !== 'active') return { cancel: `endpoint ${endpoint.status}` };
    return { url: endpoint.url, secret: await unseal(this.engage.pool, endpoint.secret_sealed) };
  }

  /**
   * One attempt. The database may go away at any step: before the POST the attempt waits for it
   * until `attemptBy` (so that the attempt still fits in the lease); after it, recording what the
   * receiver said waits until shortly before the lease ends — else a delivered callback would be
   * sent again after the lease.
   */
  private async deliver(row: ClaimedDelivery, endpoints: ReadonlyMap<string, EndpointRow>, attemptBy: number, leaseEnds: number): Promise<void> {
    const recordBy = leaseEnds - 1000;
    try {
      const target = await whileUnavailable(() => this.targetOf(row, endpoints), attemptBy, this.isStopped);
      if ('cancel' in target) {
        await whileUnavailable(() => this.finish(row, { ok: false, latencyMs: 0, error: target.cancel }, 'cancelled'), recordBy, this.isStopped);
        return;
      }
      const result = await this.client.post(target.url, target.secret, row.event_id, row.event_type, row.body, this.engage.clock.now());
      await whileUnavailable(() => this.finish(row, result), recordBy, this.isStopped);
    } catch (err) {
      this.engage.log.error({ err, delivery: row.id }, 'webhook delivery bookkeeping failed; the lease will expire and it is retried');
    }
  }

  private async finish(row: ClaimedDelivery, result: AttemptResult, forced?: 'cancelled') {
    const now = this.engage.clock.now();
    const attempt = row.attempts + 1;
    let status: 'delivered' | 'pending' | 'failed' | 'cancelled';
    let next = now;
    if (forced) status = forced;
    else if (result.ok) status = 'delivered';
    else if (attempt <= this.delays.length) {
      status = 'pending';
      next = new Date(now.getTime() + this.delays[attempt - 1]);
    } else status = 'failed';
    // the row and its attempt in one statement (one transaction, one round trip): a WITH update runs
    // to completion whether or not the INSERT reads it
    await this.engage.pool.query(
      `WITH d AS (
         UPDATE webhook_deliveries SET status = $2, attempts = $3, next_attempt_at = $4, locked_until = NULL, last_status_code = $5,
           last_error = $6, last_latency_ms = $7, updated_at = $8, delivered_at = CASE WHEN $2 = 'delivered' THEN $8 ELSE delivered_at END
         WHERE id = $1)
       INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, latency_ms, error) VALUES ($1, $3, $8, $5, $7, $6) ON CONFLICT DO NOTHING`,
      [row.id, status, attempt, next, result.statusCode ?? null, result.error ?? null, result.latencyMs, now],
    );
  }
}
