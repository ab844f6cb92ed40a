// Delivery reports from providers (sandbox timers, carrier callbacks, email feedback) become
// message events; an email bounce is also a contact bounce signal, a complaint a suppression, and a
// push whose token is reported gone loses that device (README "Push devices").
import { contactDecider, contactStream, type ContactCommand, type ContactEvent, type ContactState } from '../../commands/contact.ts';
import { messageDecider, type MessageCommand } from '../../commands/message.ts';
import { contactIdsWithEmail } from '../../projections/contacts.ts';
import { reportTargets } from '../../projections/messages.ts';
import type { DeliveryReport, OutboundMessage } from '../channels/port.ts';
import type { Engage } from '../context.ts';
import { handleCommand, waitForReadModels } from '../command-handler.ts';
import type { Decider } from '../decider.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { ERASED } from '../personal-data/codec.ts';
import { applyTransitions, type Transition } from './outcomes.ts';
import { afterPushReport, reportSaysTokenIsGone } from './push-devices.ts';
import { suppressRecipient } from './suppressions.ts';

interface Target {
  id: string;
  account_id: string;
  to_address: string;
  channel: string;
}

/**
 * A report that names a recipient (email feedback does) is about that message only when it names
 * the message's own recipient: a provider (or whoever holds its secret) must not be able to fail a
 * message, or suppress or bounce an arbitrary address, by naming someone else. Email addresses
 * compare case-insensitively, other recipients exactly.
 */
function namesTheRecipient(target: Target, recipient: string): boolean {
  const reported = recipient.trim();
  const own = target.to_address.trim();
  return target.channel === 'email' ? reported.toLowerCase() === own.toLowerCase() : reported === own;
}

/** The message as its stream has it, for a report the read model cannot place yet; undefined when there is no such message. */
async function targetFromStream(engage: Engage, messageId: string): Promise<Target | undefined> {
  const events = await engage.store.readStream(`message-${messageId}`);
  const state = events.reduce((s, e) => messageDecider.evolve(s, { type: e.type, data: e.data } as never), messageDecider.initialState);
  if (!state.exists || !state.accountId || !state.content) return undefined;
  return { id: messageId, account_id: state.accountId, to_address: state.content.to, channel: state.content.channel };
}

/**
 * Where the reports came from, when that is one account's: its own provider account (a Twilio
 * integration's callbacks, signed with that account's token) can speak only of that account's
 * messages.
 */
export interface ReportScope {
  accountId: string;
}

/** Rows by the provider's id; in a scope, the scope's account's row wins an id two accounts' messages share. */
function byProviderIdOf<R extends { account_id: string; provider_message_id: string | null }>(rows: readonly R[], scope: ReportScope | undefined): Map<string, R> {
  const ordered = scope ? [...rows.filter((r) => r.account_id !== scope.accountId), ...rows.filter((r) => r.account_id === scope.accountId)] : rows;
  return new Map(ordered.filter((r) => r.provider_message_id).map((r) => [r.provider_message_id!, r]));
}

/**
 * Records reports; unknown messages, duplicates, reports naming another recipient than the
 * message's and, in a scope, reports about another account's message are ignored. Returns how many
 * changed a message.
 */
export async function recordReports(
  engage: Engage,
  reports: readonly DeliveryReport[],
  metadata: EventMetadata = { actor: 'provider' },
  scope?: ReportScope,
): Promise<number> {
  if (reports.length === 0) return 0;
  const ids = reports.map((r) => r.messageId).filter((x): x is string => !!x);
  const providerIds = reports.filter((r) => !r.messageId && r.providerMessageId).map((r) => r.providerMessageId!);
  const rows = await reportTargets(engage.pool, ids, providerIds);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const byProviderId = byProviderIdOf(rows, scope);
  // A report that names only the provider's id (a carrier's, WhatsApp's) can come before the read
  // model has applied the MessageSent that recorded it (a busy service applies it seconds behind the
  // log): an unknown id is an answer only once the read model has caught up with the log as it is
  // now, waited for as a write waits for its read models.
  const unplaced = providerIds.filter((p) => !byProviderId.has(p));
  if (unplaced.length) {
    await waitForReadModels(engage, ['messages'], await engage.store.headPosition({ includeHeldBack: true }));
    for (const [providerId, r] of byProviderIdOf(await reportTargets(engage.pool, [], unplaced), scope)) byProviderId.set(providerId, r);
  }
  const now = engage.clock.now();
  const transitions: Transition[] = [];
  const feedback: { report: DeliveryReport; target: Target }[] = [];
  const goneTokens: { report: DeliveryReport; target: Target }[] = [];
  const seen = new Set<string>();
  const fromStream = new Map<string, Target | undefined>();
  for (const report of reports) {
    const row = report.messageId ? byId.get(report.messageId) : report.providerMessageId ? byProviderId.get(report.providerMessageId) : undefined;
    let target: Target | undefined = row;
    if (!target && report.messageId) {
      // the read model may not have the message yet: the stream decides (unknown ids are ignored
      // there); a report naming a recipient needs the message's own recipient to compare with
      if (report.recipient !== undefined) {
        if (!fromStream.has(report.messageId)) fromStream.set(report.messageId, await targetFromStream(engage, report.messageId));
        target = fromStream.get(report.messageId);
      } else {
        target = { id: report.messageId, account_id: '', to_address: '', channel: '' };
      }
    }
    if (!target) continue;
    if (scope && !(await inScope(engage, target, scope, fromStream))) {
      // acknowledged and otherwise ignored; no recipient or content in the log (personal data)
      engage.log.warn({ message_id: target.id, provider: report.provider, scope_account_id: scope.accountId }, "provider report through one account's integration names another account's message; ignored");
      continue;
    }
    if (report.recipient !== undefined && !namesTheRecipient(target, report.recipient)) {
      // acknowledged and otherwise ignored; the addresses stay out of the log (personal data)
      engage.log.warn({ message_id: target.id, provider: report.provider, feedback: report.feedback ?? null }, 'provider report names another recipient than the message\'s; ignored');
      continue;
    }
    if (report.feedback) feedback.push({ report, target });
    // before the repeat check: a push to a contact has one report per device, each naming its own
    if (reportSaysTokenIsGone(report)) goneTokens.push({ report, target });
    if (seen.has(target.id)) continue;
    seen.add(target.id);
    const command: MessageCommand =
      report.status === 'delivered'
        ? { type: 'RecordDelivered', now, provider: report.provider, providerMessageId: report.providerMessageId, providerData: report.providerData }
        : { type: 'RecordFailed', now, reason: report.reason ?? 'failed', stage: 'report', provider: report.provider, providerMessageId: report.providerMessageId, providerData: report.providerData };
    // what the read model shows (these commands decide on the status, and their events repeat the
    // channel and the provider's id: StatusFacts): the batch appends at its revisions in one
    // statement; a message it is behind on is decided again on its stream
    const known = row
      ? {
          state: { exists: true, id: row.id, accountId: row.account_id, status: row.status, channel: row.channel, claimed: false, attempts: 0, ...(row.provider_message_id ? { providerMessageId: row.provider_message_id } : {}) },
          revision: BigInt(row.revision),
        }
      : undefined;
    transitions.push({ messageId: target.id, command, ...(known ? { known } : {}) });
  }
  const results = await applyTransitions(engage, transitions, metadata);
  for (const { report, target } of feedback) await recordFeedback(engage, report, target, metadata);
  for (const { report, target } of goneTokens) await removeReportedDevice(engage, report, target, metadata);
  return results.filter((r) => r.ok).length;
}

/**
 * A failure report saying a push's token is gone: the device goes, as after a refusal at send
 * (afterPushReport, which never throws). A repeated report finds it gone and changes nothing.
 */
async function removeReportedDevice(engage: Engage, report: DeliveryReport, target: Target, metadata: EventMetadata) {
  const known = target.account_id ? target : await targetFromStream(engage, target.id);
  // an erased recipient's devices went with the contact's erasure
  if (!known || known.to_address === ERASED) return;
  const message = { accountId: known.account_id, channel: known.channel as OutboundMessage['channel'], to: known.to_address };
  await afterPushReport(engage, message, report, { ...metadata, accountId: known.account_id });
}

/** Whether the message is the scope's account's (one the read model does not have yet: as its stream says). */
async function inScope(engage: Engage, target: Target, scope: ReportScope, fromStream: Map<string, Target | undefined>): Promise<boolean> {
  if (target.account_id) return target.account_id === scope.accountId;
  if (!fromStream.has(target.id)) fromStream.set(target.id, await targetFromStream(engage, target.id));
  return fromStream.get(target.id)?.account_id === scope.accountId;
}

async function recordFeedback(engage: Engage, report: DeliveryReport, target: Target, metadata: EventMetadata) {
  // (the report named this address, or named none)
  const known = target.account_id ? target : await targetFromStream(engage, target.id);
  if (!known) return;
  const accountId = known.account_id;
  const address = known.to_address.toLowerCase();
  // an erased recipient is suppressed already, by the erasure
  if (!address || known.to_address === ERASED) return;
  const now = engage.clock.now();
  const meta = { ...metadata, accountId };
  if (report.feedback === 'complaint') {
    await suppressRecipient(engage, { accountId, address, reason: 'complaint', source: report.provider, messageId: target.id }, meta);
    return;
  }
  // a bounce is a signal on the contact with that email, if there is one
  for (const contactId of await contactIdsWithEmail(engage.pool, accountId, address)) {
    await handleCommand(engage.store, bounceOncePerMessage, contactStream(contactId), {
      type: 'RecordBounce', accountId, email: address, reason: report.reason ?? 'bounced', messageId: target.id, now,
    }, meta).catch((err: unknown) => {
      // the contact was deleted (or is not this account's) since the read model said otherwise
      if ((err as { statusCode?: number }).statusCode !== 404) throw err;
    });
  }
}

/**
 * The contact decider, recording at most one bounce per message: providers repeat reports (and
 * a batch that failed half-way is recorded again), which must not become a second bounce signal.
 */
const bounceOncePerMessage: Decider<ContactCommand, { contact: ContactState; bouncedMessages: ReadonlySet<string> }, ContactEvent> = {
  initialState: { contact: contactDecider.initialState, bouncedMessages: new Set() },
  evolve(state, event) {
    const contact = contactDecider.evolve(state.contact, event);
    if (event.type !== 'ContactBounced' || !event.data.message_id) return { contact, bouncedMessages: state.bouncedMessages };
    return { contact, bouncedMessages: new Set([...state.bouncedMessages, event.data.message_id]) };
  },
  decide(command, state) {
    if (command.type === 'RecordBounce' && command.messageId && state.bouncedMessages.has(command.messageId)) return [];
    return contactDecider.decide(command, state.contact);
  },
};
