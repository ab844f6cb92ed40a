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
import { type MessageState, type Channel } from '../../commands/message.ts';
import type { ProviderRegistry } from '../channels/index.ts';
import type { OutboundMessage, SendOutcome } from '../channels/port.ts';
import type { Engage } from '../context.ts';
import { Wakeup } from '../eventstore/wakeup.ts';
import { applyTransitions, type Transition, type TransitionResult } from '../messages/outcomes.ts';
import { Policy } from '../messages/policy.ts';

interface QueuedRow {
  id: string;
  account_id: string;
  channel: Channel;
  to_address: string;
  message: string;
  htmlmessage: string | null;
  subject: string | null;
  reply_to: string | null;
  from_name: string | null;
  headers: Record<string, string> | null;
  sender: string | null;
  transactional: boolean;
  category: string | null;
  marketing: boolean;
  webhook_url: string | null;
  not_before: Date | null;
  claimed_until: Date | null;
  attempts: number;
  revision: string;
}

export function stateFromRow(r: QueuedRow): MessageState {
  return {
    exists: true,
    id: r.id,
    accountId: r.account_id,
    status: 'queued',
    claimed: r.claimed_until !== null,
    leaseUntil: r.claimed_until?.toISOString(),
    attempts: r.attempts,
    notBefore: r.not_before?.toISOString(),
    content: {
      channel: r.channel,
      to: r.to_address,
      message: r.message,
      transactional: r.transactional,
      ...(r.htmlmessage !== null ? { htmlmessage: r.htmlmessage } : {}),
      ...(r.subject !== null ? { subject: r.subject } : {}),
      ...(r.reply_to !== null ? { reply_to: r.reply_to } : {}),
      ...(r.from_name !== null ? { from_name: r.from_name } : {}),
      ...(r.headers !== null ? { headers: r.headers } : {}),
      ...(r.sender !== null ? { sender: r.sender } : {}),
      ...(r.category !== null ? { category: r.category } : {}),
      ...(r.webhook_url !== null ? { webhook_url: r.webhook_url } : {}),
    },
  };
}

export class Dispatcher {
  readonly worker = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  private readonly wakeup = new Wakeup();
  private readonly inFlight = new Set<string>();
  private readonly policy: Policy;
  private stopped = false;
  private loopDone?: Promise<void>;
  private readonly meta = { actor: 'dispatcher' };

  constructor(
    private readonly engage: Engage,
    private readonly providers: ProviderRegistry,
  ) {
    this.policy = new Policy(engage.pool, engage.config);
  }

  start(): void {
    const onAdvance = (name: string) => {
      if (name === 'messages') this.wakeup.wake();
    };
    this.engage.runner.on('advanced', onAdvance);
    this.loopDone = this.loop().finally(() => this.engage.runner.off('advanced', onAdvance));
  }

  wake(): void {
    this.wakeup.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeup.close();
    await this.loopDone;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const ticket = this.wakeup.ticket();
      let worked = 0;
      try {
        worked = await this.dispatchBatch();
      } catch (err) {
        this.engage.log.error({ err }, 'dispatcher batch failed; retrying');
        await new Promise((r) => setTimeout(r, 500));
      }
      if (worked === 0) await this.wakeup.wait(ticket, 250);
    }
  }

  /** One round: claim up to a batch, decide, send, record. Returns how many messages it claimed. */
  async dispatchBatch(): Promise<number> {
    const { config, pool, clock } = this.engage;
    const { rows } = await pool.query<QueuedRow>(
      `SELECT id, account_id, channel, to_address, message, htmlmessage, subject, reply_to, from_name, headers, sender,
              transactional, category, marketing, webhook_url, not_before, claimed_until, attempts, revision::text
       FROM messages
       WHERE status = 'queued' AND (not_before IS NULL OR not_before <= now())
         AND (claimed_until IS NULL OR claimed_until < now()) AND NOT (id = ANY($2::text[]))
       ORDER BY not_before NULLS FIRST, id LIMIT $1`,
      [config.DISPATCH_BATCH_SIZE, [...this.inFlight]],
    );
    if (rows.length === 0) return 0;
    const now = clock.now();
    for (const r of rows) this.inFlight.add(r.id);
    try {
      const claims = await applyTransitions(
        this.engage,
        rows.map((r) => ({
          messageId: r.id,
          command: { type: 'Claim', worker: this.worker, now, leaseMs: config.DISPATCH_LEASE_MS },
          known: { state: stateFromRow(r), revision: BigInt(r.revision) },
        })),
        this.meta,
      );
      const claimed = claims.filter((c) => c.ok && c.state?.content);
      if (claimed.length === 0) return rows.length;
      const byId = new Map(rows.map((r) => [r.id, r]));
      const decisions = await this.policy.decide(
        claimed.map((c) => ({ id: c.messageId, account_id: c.state!.accountId!, channel: c.state!.content!.channel, to_address: c.state!.content!.to, marketing: byId.get(c.messageId)?.marketing ?? true })),
        now,
      );
      const outcomes: Transition[] = [];
      const toSend: TransitionResult[] = [];
      for (const c of claimed) {
        const d = decisions.get(c.messageId)!;
        const known = { state: c.state!, revision: c.revision! };
        if (d.action === 'fail') outcomes.push({ messageId: c.messageId, known, command: { type: 'RecordFailed', now, reason: 'suppressed', stage: 'policy' } });
        else if (d.action === 'hold') outcomes.push({ messageId: c.messageId, known, command: { type: 'Hold', now, until: d.until, reason: d.reason, detail: d.detail } });
        else toSend.push(c);
      }
      const sent = await this.sendAll(toSend);
      outcomes.push(...sent);
      await applyTransitions(this.engage, outcomes, this.meta);
      return rows.length;
    } finally {
      for (const r of rows) this.inFlight.delete(r.id);
    }
  }

  /** Provider calls with bounded concurrency; each outcome becomes a transition. */
  private async sendAll(claimed: TransitionResult[]): Promise<Transition[]> {
    const { config, clock } = this.engage;
    const out: Transition[] = [];
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        const c = claimed[next++];
        const s = c.state!;
        const content = s.content!;
        const message: OutboundMessage = { id: c.messageId, accountId: s.accountId!, ...content };
        const provider = this.providers.for(content.channel);
        let outcome: SendOutcome;
        try {
          outcome = await provider.send(message);
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
          const delay = Math.min(config.DISPATCH_RETRY_BASE_MS * 2 ** (s.attempts - 1), 5 * 60_000);
          out.push({ messageId: c.messageId, known, command: { type: 'Defer', now, error: `${provider.name}: ${outcome.error}`, retryAt: new Date(now.getTime() + delay) } });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(config.DISPATCH_CONCURRENCY, claimed.length) }, worker));
    return out;
  }
}

