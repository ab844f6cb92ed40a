// Suppressing a recipient and lifting it: the one way a suppression is written (complaints,
// erasures, unsubscribes, the suppression list API), on the stream named by the keyed hash of the address.
import { type SuppressionChannel, type SuppressionReason, suppressionDecider, suppressionStream } from '../../commands/suppression.ts';
import { handleCommand } from '../command-handler.ts';
import type { Engage } from '../context.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { addressHasher } from '../personal-data/address-hash.ts';

export interface SuppressRecipient {
  accountId: string;
  /** the address, when it may be kept (sealed); an erasure gives only its hash */
  address?: string;
  addressHash?: string;
  reason: SuppressionReason;
  source: string;
  messageId?: string;
}

/** Email addresses have an @; everything else suppressed is a phone number (E.164). */
export const channelOfAddress = (address: string): SuppressionChannel => (address.includes('@') ? 'email' : 'phone');

export async function suppressRecipient(engage: Engage, s: SuppressRecipient, metadata: EventMetadata) {
  const addressHash = s.addressHash ?? (await addressHasher(engage.pool))(s.address!);
  return handleCommand(engage.store, suppressionDecider, suppressionStream(s.accountId, addressHash), {
    type: 'Suppress', accountId: s.accountId, addressHash, ...(s.address !== undefined ? { address: s.address, channel: channelOfAddress(s.address) } : {}),
    reason: s.reason, source: s.source, ...(s.messageId ? { messageId: s.messageId } : {}), now: engage.clock.now(),
  }, metadata);
}

/**
 * Lifts a suppression. Appends nothing when the address is not suppressed, or when an erasure
 * suppressed it (never lifted): the result's state says which.
 */
export async function unsuppressRecipient(engage: Engage, s: { accountId: string; address: string; source: string; reasons?: readonly SuppressionReason[] }, metadata: EventMetadata) {
  const addressHash = (await addressHasher(engage.pool))(s.address);
  return handleCommand(engage.store, suppressionDecider, suppressionStream(s.accountId, addressHash), {
    type: 'Unsuppress', accountId: s.accountId, addressHash, address: s.address, source: s.source, ...(s.reasons ? { reasons: s.reasons } : {}), now: engage.clock.now(),
  }, metadata);
}
