// Suppressions (opt-outs) of one recipient address in one account (stream suppression-<acct>:<address>).
import type { Decider } from '../src/decider.ts';

export type SuppressionReason = 'complaint' | 'unsubscribe' | 'stop' | 'bounce' | 'manual';

export type SuppressionEvent =
  | { type: 'RecipientSuppressed'; data: { account_id: string; address: string; reason: SuppressionReason; source: string; message_id?: string; at: string } }
  | { type: 'RecipientUnsuppressed'; data: { account_id: string; address: string; source: string; at: string } };

export interface SuppressionState {
  suppressed: boolean;
  reason?: SuppressionReason;
}

export type SuppressionCommand =
  | { type: 'Suppress'; accountId: string; address: string; reason: SuppressionReason; source: string; messageId?: string; now: Date }
  | { type: 'Unsuppress'; accountId: string; address: string; source: string; now: Date };

export const suppressionDecider: Decider<SuppressionCommand, SuppressionState, SuppressionEvent> = {
  initialState: { suppressed: false },
  evolve: (state, e) => (e.type === 'RecipientSuppressed' ? { suppressed: true, reason: e.data.reason } : { suppressed: false }),
  decide(c, state) {
    const at = c.now.toISOString();
    if (c.type === 'Suppress') {
      if (state.suppressed) return [];
      return [{ type: 'RecipientSuppressed', data: { account_id: c.accountId, address: c.address, reason: c.reason, source: c.source, ...(c.messageId ? { message_id: c.messageId } : {}), at } }];
    }
    if (!state.suppressed) return [];
    return [{ type: 'RecipientUnsuppressed', data: { account_id: c.accountId, address: c.address, source: c.source, at } }];
  },
};

export const suppressionStream = (accountId: string, address: string) => `suppression-${accountId}:${address}`;
