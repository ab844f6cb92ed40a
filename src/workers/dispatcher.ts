// The dispatcher: claims queued messages in batches (an append at the revision it read, so a
// concurrent cancel and claim cannot both win), applies policy, hands them to their channel's
// provider and records sent / failed / deferred. Several dispatchers may run at once.
//
// Crash guarantee: a message is handed to a provider only after its claim is stored. If a
// dispatcher dies after claiming but before the provider call, nothing was sent; the claim's
// lease runs out and another dispatcher claims it again (the message stays visibly `queued`).
// If it dies after the provider call but before recording `sent`, the message is re-sent after
// the lease — at least once — with the same message id, which providers use to de-duplicate
// (the sandbox's provider message id is derived from it).
import { hostname } from 'node:os';
import { isMarketing, type MessageState } from '../../commands/message.ts';
import { contentOfRow, type DispatchRow, dueForDispatch } from '../../projections/messages.ts';
import type { ProviderRegistry } from '../channels/index.ts';
import type { OutboundMessage, SendOutcome } from '../channels/port.ts';
import type { Engage } from '../context.ts';
import { comparePositions, type Position } from '../eventstore/port.ts';
import { applyTransitions, type Transition, type TransitionResult } from '../messages/outcomes.ts';
import { Policy } from '../messages/policy.ts';
import { addressedToContact, afterTokenPush, type Call, sendToContactDevices } from '../messages/push-devices.ts';
import { UnsubscribeLinks } from '../suppressions/unsubscribe-links.ts';
import { ClickTracking } from '../tracking/clicks.ts';
import { doublingDelay, within } from '../sleep.ts';
import { retryWithBackoff, whileUnavailable } from './backoff.ts';
import { OwnWrites, WorkerLoop } from './loop.ts';

const HOLD_REASONS = new Set(['quiet_hours', 'marketing_cap', 'warmup_cap']);

/** A queued message's state as its stream would fold it, from its read-model row (spares a stream read per claim). */
function stateFromRow(r: DispatchRow): MessageState {
  return {
    exists: true,
    id: r.id,
    accountId: r.account_id,
    status: 'queued',
    channel: r.channel,
    claimed: r.claimed_until !== null,
    leaseUntil: r.claimed_until?.toISOString(),
    attempts: r.attempts,
    notBefore: r.not_before?.toISOString(),
    content: contentOfRow(r),
  };
}

export class Dispatcher extends WorkerLoop {
  readonly worker = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  private readonly inFlight = new Set<string>();
  private readonly policy: Policy;
  private readonly unsubscribeLinks: UnsubscribeLinks;
  private readonly clickTracking: ClickTracking;
  private readonly meta = { actor: 'dispatcher' };
  private readonly ownWrites = new OwnWrites();
  /**
   * Messages this dispatcher has written (a claim, an outcome) at positions the messages read model
   * may not have applied yet: its next reads leave them out rather than wait for it to catch up.
   * `sentMarketing`: a marketing message it sent, which the caps the policy reads count.
   */
  private readonly unapplied = new Map<string, { at: Position; sentMarketing?: { account: string; to: string; email: boolean } }>();

  constructor(
    private readonly engage: Engage,
    private readonly providers: ProviderRegistry,
  ) {
    super(engage, { name: 'dispatcher', idleMs: 250, wakeOnAdvanceOf: 'messages' });
    this.policy = new Policy(engage.pool, engage.config);
    this.unsubscribeLinks = new UnsubscribeLinks(engage);
    this.clickTracking = new ClickTracking(engage);
  }

  /** Notes what these transitions wrote; `marketing` tells which of their messages are marketing. */
  private noteWritten(results: readonly TransitionResult[], marketing?: (messageId: string) => boolean): void {
    this.ownWrites.note(results);
    for (const r of results) {
      if (!r.position) continue;
      const content = r.state?.content;
      const sentMarketing =
        content && marketing?.(r.messageId) && r.events.some((e) => e.type === 'MessageSent')
          ? { account: r.state!.accountId!, to: content.to, email: content.channel === 'email' }
          : undefined;
      this.unapplied.set(r.messageId, { at: r.position, ...(sentMarketing ? { sentMarketing } : {}) });
    }
  }

  /**
   * Whether the caps of these marketing messages count a marketing message this dispatcher sent that
   * the read model does not show yet: one to the same recipient (the daily cap), or any email of the
   * same account (a warm-up's daily count is per sending domain).
   */
  private capsCountUnapplied(marketing: readonly TransitionResult[]): boolean {
    if (marketing.length === 0) return false;
    const recipients = new Set<string>();
    const emailAccounts = new Set<string>();
    for (const { sentMarketing: m } of this.unapplied.values()) {
      if (!m) continue;
      recipients.add(`${m.account} ${m.to}`);
      if (m.email) emailAccounts.add(m.account);
    }
    return marketing.some((c) => {
      const s = c.state!;
      return recipients.has(`${s.accountId} ${s.content!.to}`) || (s.content!.channel === 'email' && emailAccounts.has(s.accountId!));
    });
  }

  /** Whether this dispatcher holds the message in its current batch (its outcome not yet recorded). */
  isDispatching(messageId: string): boolean {
    return this.inFlight.has(messageId);
  }

  /** One round: claim up to a batch, decide, send, record. Returns how many messages it claimed. */
  protected async round(): Promise<number> {
    const { config, pool, clock, runner } = this.engage;
    // Our own last claims and outcomes may not be in the read model yet: their rows would come back
    // as 'queued' at stale revisions (every claim then falls back to the slow path, and a batch can be
    // spent re-deciding finished messages). They are left out of the read instead, until the read
    // model has passed what we wrote for them; only when too many are waiting does the round wait.
    const seenTo = runner.position('messages');
    for (const [id, { at }] of this.unapplied) if (seenTo && comparePositions(at, seenTo) <= 0) this.unapplied.delete(id);
    if (this.unapplied.size > 4 * config.DISPATCH_BATCH_SIZE) {
      await this.ownWrites.visibleIn(runner, 'messages');
      this.unapplied.clear();
    }
    if (this.stopped) return 0;
    const rows = await dueForDispatch(pool, config.DISPATCH_BATCH_SIZE, [...this.inFlight, ...this.unapplied.keys()]);
    if (rows.length === 0) return 0;
    const now = clock.now();
    for (const r of rows) this.inFlight.add(r.id);
    try {
      const claims = await applyTransitions(
        this.engage,
        rows.map((r) => ({
          messageId: r.id,
          command: { type: 'Claim', worker: this.worker, now, leaseMs: config.DISPATCH_LEASE_MS },
          // a message released from a hold is claimed on its stream's own state: the read model
          // still counts the claim that ended in the hold, the decider does not (a hold is not a
          // delivery attempt), and the claim's attempt number must not drift from the decider's
          ...(r.reason !== null && HOLD_REASONS.has(r.reason) ? {} : { known: { state: stateFromRow(r), revision: BigInt(r.revision) } }),
        })),
        this.meta,
      );
      this.noteWritten(claims);
      const claimed = claims.filter((c) => c.ok && c.state?.content);
      if (claimed.length === 0) return rows.length;
      const byId = new Map(rows.map((r) => [r.id, r]));
      const isMarketingRow = (id: string) => byId.get(id)?.marketing ?? true;
      // the marketing cap and warm-up count the marketing messages sent so far: where ours of the
      // rounds before count for this batch, they must be in the read model the policy reads first
      if (this.capsCountUnapplied(claimed.filter((c) => isMarketingRow(c.messageId)))) await this.ownWrites.visibleIn(runner, 'messages');
      // the claims are stored: a database that goes away now is waited out while they last (with
      // time to spare for the provider calls), rather than leaving them to block the messages until
      // their leases run out
      const decisions = await whileUnavailable(
        () =>
          this.policy.decide(
            claimed.map((c) => ({ id: c.messageId, account_id: c.state!.accountId!, channel: c.state!.content!.channel, to_address: c.state!.content!.to, marketing: isMarketingRow(c.messageId), category: c.state!.content!.category ?? null, sender: c.state!.content!.sender ?? null, personal_key: byId.get(c.messageId)?.personal_key ?? null })),
            now,
          ),
        Date.now() + config.DISPATCH_LEASE_MS / 2,
        this.signal,
      );
      const outcomes: Transition[] = [];
      const toSend: TransitionResult[] = [];
      for (const c of claimed) {
        const d = decisions.get(c.messageId)!;
        const known = { state: c.state!, revision: c.revision! };
        if (d.action === 'fail') outcomes.push({ messageId: c.messageId, known, command: { type: 'RecordFailed', now, reason: d.reason, stage: 'policy' } });
        else if (d.action === 'hold') outcomes.push({ messageId: c.messageId, known, command: { type: 'Hold', now, until: d.until, reason: d.reason, detail: d.detail } });
        else toSend.push(c);
      }
      const sent = await this.sendAll(toSend);
      outcomes.push(...sent);
      this.noteWritten(await this.record(outcomes, now.getTime() + config.DISPATCH_LEASE_MS), isMarketingRow);
      return rows.length;
    } finally {
      for (const r of rows) this.inFlight.delete(r.id);
    }
  }

  /**
   * Records the outcomes of provider calls already made. A failure here (a database hiccup) must
   * not drop them: the claims would run out and the messages be handed to the provider again. So
   * it is retried while our leases last; a retry after a partial success re-decides each message
   * on its real state, so nothing is recorded twice.
   */
  private record(outcomes: Transition[], leaseEnds: number): Promise<TransitionResult[]> {
    const { clock, log } = this.engage;
    // not cut short by a stop: these outcomes are the last thing a stopping dispatcher must keep
    return retryWithBackoff(() => applyTransitions(this.engage, outcomes, this.meta), {
      until: leaseEnds,
      now: () => clock.now().getTime(),
      retryOn: () => true,
      onRetry: (err, attempt) => log.warn({ err, attempt, messages: outcomes.length }, 'recording dispatch outcomes failed; retrying'),
    });
  }

  /** One provider call: the account's provider for the message's channel, bounded in time. */
  private readonly call: Call = async (outbound) => {
    const { config } = this.engage;
    const provider = await this.providers.forMessage(outbound.accountId, outbound.channel);
    // a provider call that hangs must not stall the dispatcher: past the timeout it counts as transient
    try {
      return { provider, outcome: await within(provider.send(outbound), config.DISPATCH_PROVIDER_TIMEOUT_MS, `provider call timed out after ${config.DISPATCH_PROVIDER_TIMEOUT_MS} ms`) };
    } catch (err) {
      return { provider, outcome: { kind: 'transient', error: err instanceof Error ? err.message : String(err) } };
    }
  };

  /** Provider calls with bounded concurrency; each outcome becomes a transition. */
  private async sendAll(claimed: TransitionResult[]): Promise<Transition[]> {
    const { config, clock } = this.engage;
    const out: Transition[] = [];
    // HTML email goes out with its links tracked (the link domains of the batch's accounts read once)
    const trackLinks = this.clickTracking.forBatch(claimed.map((c) => ({ accountId: c.state!.accountId!, ...c.state!.content! })));
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        const c = claimed[next++];
        const s = c.state!;
        const content = s.content!;
        const message: OutboundMessage = { id: c.messageId, accountId: s.accountId!, ...content };
        // the account's own integration for the channel, else the service's provider (a failed
        // lookup is a transient outcome of the service's provider: retried like any)
        let provider = this.providers.for(content.channel);
        // Too late to hand it over: our claim is (nearly) out, and another dispatcher may claim
        // and send it meanwhile. Give the claim back instead of risking a second send.
        const leaseLeft = s.leaseUntil ? Date.parse(s.leaseUntil) - clock.now().getTime() : Infinity;
        if (leaseLeft < config.DISPATCH_LEASE_MS / 4) {
          const now = clock.now();
          out.push({ messageId: c.messageId, known: { state: s, revision: c.revision! }, command: { type: 'Defer', now, error: 'lease ran out before the provider call', retryAt: now } });
          continue;
        }
        let outcome: SendOutcome;
        try {
          // marketing email goes out with its one-click unsubscribe link (headers and body), which is not tracked
          const outbound = await this.unsubscribeLinks.prepare(await trackLinks(message), isMarketing(content));
          // a push to a contact goes to each of its devices (README "Push devices")
          const sent = addressedToContact(outbound) ? await sendToContactDevices(this.engage, outbound, this.call) : await this.call(outbound);
          outcome = sent.outcome;
          if (sent.provider) provider = sent.provider;
          if (!addressedToContact(outbound)) await afterTokenPush(this.engage, outbound, outcome);
        } catch (err) {
          outcome = { kind: 'transient', error: err instanceof Error ? err.message : String(err) };
        }
        const now = clock.now();
        const known = { state: s, revision: c.revision! };
        if (outcome.kind === 'accepted') {
          out.push({ messageId: c.messageId, known, command: { type: 'RecordSent', now, provider: provider.name, providerMessageId: outcome.providerMessageId } });
        } else if (outcome.kind === 'rejected') {
          out.push({ messageId: c.messageId, known, command: { type: 'RecordFailed', now, reason: outcome.reason, stage: 'provider', provider: provider.name, ...(outcome.code ? { providerData: { code: outcome.code } } : {}) } });
        } else if (s.attempts >= config.DISPATCH_MAX_ATTEMPTS) {
          out.push({ messageId: c.messageId, known, command: { type: 'RecordFailed', now, reason: `provider_unavailable: ${outcome.error}`, stage: 'provider', provider: provider.name } });
        } else {
          // the later of our doubling delay and the provider's Retry-After, within the same cap
          const delay = Math.min(Math.max(doublingDelay(s.attempts, config.DISPATCH_RETRY_BASE_MS, 5 * 60_000), outcome.retryAfterMs ?? 0), 5 * 60_000);
          out.push({ messageId: c.messageId, known, command: { type: 'Defer', now, error: `${provider.name}: ${outcome.error}`, retryAt: new Date(now.getTime() + delay) } });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(config.DISPATCH_CONCURRENCY, claimed.length) }, worker));
    return out;
  }
}

