// The sandbox provider, the default for all six channels: accepts, then reports delivered after a
// short delay. Documented test recipients fail in documented ways so failure paths can be tested.
import { isId } from '../ids.ts';
import { RecentMap } from '../recent-map.ts';
import { type ChannelProvider, type DeliveryReport, listUnsubscribeHeaders, type OutboundMessage, type ReportSink, type SendOutcome } from './port.ts';

/** Test recipients (README: "Sandbox test recipients"). */
export const SANDBOX_RECIPIENTS = {
  phone: {
    '+15005550001': { at: 'send', outcome: 'rejected', reason: 'invalid_number' },
    '+15005550002': { at: 'send', outcome: 'transient', reason: 'carrier_unavailable' },
    '+15005550003': { at: 'report', outcome: 'failed', reason: 'undelivered' },
    '+15005550004': { at: 'report', outcome: 'failed', reason: 'unreachable' },
  },
  email: {
    'reject@sandbox.engage.test': { at: 'send', outcome: 'rejected', reason: 'mailbox_unavailable' },
    'transient@sandbox.engage.test': { at: 'send', outcome: 'transient', reason: 'greylisted' },
    'bounce@sandbox.engage.test': { at: 'report', outcome: 'failed', reason: 'bounced', feedback: 'bounce' },
    'complaint@sandbox.engage.test': { at: 'report', outcome: 'delivered', reason: 'complaint', feedback: 'complaint' },
  },
  push: {
    'sandbox-invalid-token': { at: 'send', outcome: 'rejected', reason: 'invalid_token' },
    'sandbox-unregistered-token': { at: 'report', outcome: 'failed', reason: 'unregistered' },
  },
} as const;

type Rule = { at: 'send' | 'report'; outcome: string; reason: string; feedback?: 'bounce' | 'complaint' };

function ruleFor(message: Pick<OutboundMessage, 'channel' | 'to'>): Rule | undefined {
  const table: Record<string, Rule> =
    message.channel === 'email' ? SANDBOX_RECIPIENTS.email : message.channel === 'push' ? SANDBOX_RECIPIENTS.push : SANDBOX_RECIPIENTS.phone;
  return table[message.to];
}

/** The delivery report the sandbox gives for a message it accepted (documented test recipients, else delivered). */
export function sandboxReport(message: Pick<OutboundMessage, 'id' | 'channel' | 'to'>, extraData: Record<string, unknown> = {}): DeliveryReport {
  const rule = ruleFor(message);
  const reported = rule?.at === 'report' ? rule : undefined;
  return {
    provider: 'sandbox',
    // the id is derived from ours, so a re-send after a dispatcher crash is recognisably the same message
    providerMessageId: `sbx_${message.id}`,
    messageId: message.id,
    status: reported ? (reported.outcome as 'delivered' | 'failed') : 'delivered',
    ...(reported ? { reason: reported.reason } : {}),
    ...(reported?.feedback ? { feedback: reported.feedback, recipient: message.to } : {}),
    // the device it was called for; a report resumed from the message's row (a push to a contact
    // names the contact there, not the device) names none
    ...(message.channel === 'push' && !isId('contact', message.to) ? { pushToken: message.to } : {}),
    providerData: { sandbox: true, channel: message.channel, ...extraData },
  };
}

export class SandboxProvider implements ChannelProvider {
  readonly name = 'sandbox';
  /** provider calls per message id (the most recent 50,000 to 100,000): lets tests prove what was (not) handed to a provider */
  readonly calls = new RecentMap<string, number>(50_000);
  /** the list headers an email would have carried (List-Unsubscribe…), per message id (5,000 to 10,000): what SMTP would write */
  readonly emailHeaders = new RecentMap<string, Record<string, string>>(5_000);
  /**
   * What each phone number's handset shows: the last 5 texts (or call scripts) it was sent, oldest
   * first, for the most recent 5,000 to 10,000 numbers. A test reads a verification code here as the
   * number's owner would (README "Senders and sender rules").
   */
  readonly handsets = new RecentMap<string, string[]>(5_000);
  private pending: { due: number; report: DeliveryReport }[] = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly sink: ReportSink,
    private readonly delayMs = 200,
  ) {}

  async send(message: OutboundMessage): Promise<SendOutcome> {
    // bounded: at most 100,000 ids (~20 MB); 2,000,000 ids held ~400 MB before a clear
    this.calls.set(message.id, (this.calls.get(message.id) ?? 0) + 1);
    if (message.channel === 'email') this.emailHeaders.set(message.id, listUnsubscribeHeaders(message));
    const rule = ruleFor(message);
    if (rule?.at === 'send') {
      return rule.outcome === 'transient' ? { kind: 'transient', error: rule.reason } : { kind: 'rejected', reason: rule.reason };
    }
    if (message.channel !== 'email' && message.channel !== 'push') {
      const texts = this.handsets.get(message.to) ?? [];
      this.handsets.set(message.to, [...texts.slice(-4), message.message]);
    }
    const report = sandboxReport(message);
    this.pending.push({ due: Date.now() + this.delayMs, report });
    this.schedule();
    return { kind: 'accepted', providerMessageId: report.providerMessageId! };
  }

  private schedule() {
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), Math.min(this.delayMs, 50));
    this.timer.unref?.();
  }

  private flush() {
    this.timer = undefined;
    const now = Date.now();
    const due: DeliveryReport[] = [];
    const later: typeof this.pending = [];
    for (const p of this.pending) {
      if (p.due <= now) due.push(p.report);
      else later.push(p);
    }
    this.pending = later;
    if (due.length) this.sink(due);
    if (this.pending.length) this.schedule();
  }

  async close() {
    if (this.timer) clearTimeout(this.timer);
    // reports still pending are delivered now, so nothing the provider accepted goes unreported
    const rest = this.pending.map((p) => p.report);
    this.pending = [];
    if (rest.length) this.sink(rest);
  }
}
