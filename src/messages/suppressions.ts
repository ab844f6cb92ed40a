// Suppressing a recipient: the one way a suppression is written (complaints, erasures), on the
// stream named by the keyed hash of the address.
import { type SuppressionReason, suppressionDecider, suppressionStream } from '../../commands/suppression.ts';
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

export async function suppressRecipient(engage: Engage, s: SuppressRecipient, metadata: EventMetadata) {
  const addressHash = s.addressHash ?? (await addressHasher(engage.pool))(s.address!);
  return handleCommand(engage.store, suppressionDecider, suppressionStream(s.accountId, addressHash), {
    type: 'Suppress', accountId: s.accountId, addressHash, ...(s.address !== undefined ? { address: s.address } : {}),
    reason: s.reason, source: s.source, ...(s.messageId ? { messageId: s.messageId } : {}), now: engage.clock.now(),
  }, metadata);
}
