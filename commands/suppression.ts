// Suppressions (opt-outs) of one recipient address in one account (stream suppression-<acct>:<hash>,
// named by the keyed hash of the address, never the address itself). The address travels sealed
// (src/personal-data); a suppression kept after an erasure has only the hash.
import type { Decider } from '../src/decider.ts';

export type SuppressionReason = 'complaint' | 'unsubscribe' | 'stop' | 'bounce' | 'manual' | 'erasure';
export const SUPPRESSION_REASONS = ['complaint', 'unsubscribe', 'stop', 'bounce', 'manual', 'erasure'] as const satisfies readonly SuppressionReason[];
/** What kind of address is suppressed; kept in clear, so an erased address still shows it. */
export type SuppressionChannel = 'email' | 'phone';

export type SuppressionEvent =
  | {
      type: 'RecipientSuppressed';
      data: {
        account_id: string;
        address_hash: string;
        address?: string;
        /** absent in events written before it, and in an erasure's suppression (it has only the hash) */
        channel?: SuppressionChannel;
        reason: SuppressionReason;
        source: string;
        message_id?: string;
        at: string;
      };
    }
  | { type: 'RecipientUnsuppressed'; data: { account_id: string; address_hash: string; address?: string; source: string; at: string } };

export interface SuppressionState {
  suppressed: boolean;
  reason?: SuppressionReason;
}

export type SuppressionCommand =
  | { type: 'Suppress'; accountId: string; addressHash: string; address?: string; channel?: SuppressionChannel; reason: SuppressionReason; source: string; messageId?: string; now: Date }
  /** `reasons`: lift only a suppression of one of these (absent: any but an erasure's) */
  | { type: 'Unsuppress'; accountId: string; addressHash: string; address?: string; source: string; reasons?: readonly SuppressionReason[]; now: Date };

export const suppressionDecider: Decider<SuppressionCommand, SuppressionState, SuppressionEvent> = {
  initialState: { suppressed: false },
  evolve: (state, e) => (e.type === 'RecipientSuppressed' ? { suppressed: true, reason: e.data.reason } : { suppressed: false }),
  decide(c, state) {
    const at = c.now.toISOString();
    const who = { account_id: c.accountId, address_hash: c.addressHash, ...(c.address !== undefined ? { address: c.address } : {}) };
    if (c.type === 'Suppress') {
      // an erasure's suppression replaces any other: it must outlive an unsubscribe being undone
      if (state.suppressed && (c.reason !== 'erasure' || state.reason === 'erasure')) return [];
      return [{ type: 'RecipientSuppressed', data: { ...who, ...(c.channel ? { channel: c.channel } : {}), reason: c.reason, source: c.source, ...(c.messageId ? { message_id: c.messageId } : {}), at } }];
    }
    // a person who asked to be erased is never messaged again: no undoing that suppression
    if (!state.suppressed || state.reason === 'erasure') return [];
    if (c.reasons && !(state.reason && c.reasons.includes(state.reason))) return [];
    return [{ type: 'RecipientUnsuppressed', data: { ...who, source: c.source, at } }];
  },
};

export const suppressionStream = (accountId: string, addressHash: string) => `suppression-${accountId}:${addressHash}`;
