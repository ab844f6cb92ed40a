// The suppression list of an account (README "Suppressions and unsubscribes"): adding and removing
// suppressions by hand, and the one-click unsubscribe a marketing email's link leads to. Every
// change is an event on the address's suppression stream (src/messages/suppressions.ts writes it).
import type { SuppressionChannel, SuppressionReason } from '../../commands/suppression.ts';
import { findMessage } from '../../projections/messages.ts';
import { findSuppression, type SuppressionRow } from '../../projections/suppressions.ts';
import { waitForReadModels } from '../command-handler.ts';
import type { Engage } from '../context.ts';
import { conflict, notFound } from '../errors.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { channelOfAddress, suppressRecipient, unsuppressRecipient } from '../messages/suppressions.ts';
import { addressHasher } from '../personal-data/address-hash.ts';
import { ERASED } from '../personal-data/codec.ts';
import { keysById } from '../personal-data/keys.ts';
import { UnsubscribeTokens } from './unsubscribe-token.ts';

/** The read model every suppression write's answer waits for. */
export const SUPPRESSIONS = ['suppressions'];

/** A suppression as the API shows it. */
export interface SuppressionOut {
  /** null once the address was erased */
  address: string | null;
  channel: SuppressionChannel | null;
  reason: string;
  source: string;
  created_at: string;
  message_id?: string;
}

export const suppressionOut = (r: SuppressionRow): SuppressionOut => ({
  address: r.address,
  channel: r.channel,
  reason: r.reason,
  source: r.source,
  created_at: new Date(r.created_at).toISOString(),
  ...(r.message_id ? { message_id: r.message_id } : {}),
});

/** The read model's row of a suppression the stream already has, once the read model has caught up with the log. */
async function rowOnceCaughtUp(engage: Engage, accountId: string, address: string): Promise<SuppressionRow | undefined> {
  const hash = (await addressHasher(engage.pool))(address);
  const row = await findSuppression(engage.pool, accountId, hash);
  if (row) return row;
  // written by something that did not wait for the read model (a complaint report): wait for it now
  await waitForReadModels(engage, SUPPRESSIONS, await engage.store.headPosition());
  return findSuppression(engage.pool, accountId, hash);
}

/**
 * Suppresses an address (normalised: an email lower-cased, a phone number in E.164). `created` is
 * false when it was suppressed already: that suppression stays as it was and is what is answered.
 */
export async function addSuppression(
  engage: Engage,
  accountId: string,
  s: { address: string; reason: SuppressionReason; source: string },
  metadata: EventMetadata,
): Promise<{ created: boolean; suppression: SuppressionOut }> {
  const result = await suppressRecipient(engage, { accountId, address: s.address, reason: s.reason, source: s.source }, metadata);
  await waitForReadModels(engage, SUPPRESSIONS, result.position);
  const [event] = result.events;
  if (event && event.type === 'RecipientSuppressed') {
    return { created: true, suppression: { address: s.address, channel: channelOfAddress(s.address), reason: event.data.reason, source: event.data.source, created_at: event.data.at } };
  }
  const row = await rowOnceCaughtUp(engage, accountId, s.address);
  const existing: SuppressionOut = row
    ? suppressionOut(row)
    : { address: s.address, channel: channelOfAddress(s.address), reason: result.state.reason ?? s.reason, source: 'unknown', created_at: engage.clock.now().toISOString() };
  return { created: false, suppression: existing };
}

/** Lifts the suppression of an address: 404 when it is not suppressed, 409 when an erasure suppressed it. */
export async function removeSuppression(engage: Engage, accountId: string, address: string, source: string, metadata: EventMetadata) {
  const result = await unsuppressRecipient(engage, { accountId, address, source }, metadata);
  if (result.events.length === 0) {
    if (result.state.suppressed && result.state.reason === 'erasure') {
      throw conflict('this address was erased at its owner’s request: its suppression can never be removed');
    }
    throw notFound('suppression');
  }
  await waitForReadModels(engage, SUPPRESSIONS, result.position);
  return { address, channel: channelOfAddress(address), deleted: true as const };
}

/** Where an unsubscribe link leads: its message's account and recipient, or nothing to do. */
export type UnsubscribeTarget =
  | { kind: 'recipient'; accountId: string; messageId: string; address: string }
  /** the recipient was erased since: there is no one left to unsubscribe */
  | { kind: 'erased'; accountId: string; messageId: string };

/** The target of a token; 404 for a forged, altered or unknown one (or one of a message that is not email). */
export async function unsubscribeTarget(engage: Engage, token: string): Promise<UnsubscribeTarget> {
  const named = (await UnsubscribeTokens.of(engage.pool)).verify(token);
  const message = named && (await findMessage(engage.pool, named.accountId, named.messageId));
  if (!named || !message || message.channel !== 'email') throw notFound('unsubscribe link');
  // the read model may not show an erasure yet; the keys are destroyed before anything else
  const keyGone = message.personal_key !== null && (await keysById(engage.pool, [message.personal_key])).get(message.personal_key) === null;
  if (message.to_address === ERASED || keyGone) return { kind: 'erased', ...named };
  return { kind: 'recipient', ...named, address: message.to_address };
}

/**
 * Unsubscribes the recipient of the token's message from marketing (reason `unsubscribe`, naming the
 * message). Repeating it changes nothing; an erased recipient is left alone.
 */
export async function unsubscribeByToken(engage: Engage, token: string, source: string, metadata: EventMetadata): Promise<UnsubscribeTarget> {
  const target = await unsubscribeTarget(engage, token);
  if (target.kind === 'erased') return target;
  const result = await suppressRecipient(
    engage,
    { accountId: target.accountId, address: target.address, reason: 'unsubscribe', source, messageId: target.messageId },
    { ...metadata, accountId: target.accountId, actor: 'recipient' },
  );
  await waitForReadModels(engage, SUPPRESSIONS, result.position);
  return target;
}
