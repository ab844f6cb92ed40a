// The address erasure decider's rules (commands/erasure.ts): one erasure, one stream, recorded once.
import { describe, it } from 'vitest';
import { erasureDecider, type ErasureEvent } from '../../commands/erasure.ts';
import { DeciderSpecification } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(erasureDecider).given;
const now = new Date('2026-03-01T10:00:00.000Z');
const command = {
  type: 'EraseAddress' as const, accountId: 'acct_1', erasureId: 'er_1', addressHash: 'h1', keyIds: ['dk_1'], contactIds: ['ct_1'], reason: 'asked', erasedBy: 'key_1', now,
};
const erased: ErasureEvent = {
  type: 'AddressErased',
  data: { account_id: 'acct_1', erasure_id: 'er_1', address_hash: 'h1', key_ids: ['dk_1'], contact_ids: ['ct_1'], reason: 'asked', erased_by: 'key_1', erased_at: now.toISOString() },
};

describe('erasing an address', () => {
  it('an address erasure records the keyed hash, the keys destroyed, the contacts erased with it, who and why: no address', () => {
    given([]).when(command).then([erased]);
  });

  it('an erasure without a reason records null', () => {
    const { reason: _reason, ...withoutReason } = command;
    given([]).when(withoutReason).then([{ type: 'AddressErased', data: { ...erased.data, reason: null } }]);
  });

  it('an erasure carried out again (cut off half-way, or after a restore) is recorded once', () => {
    given([erased]).when(command).thenNothingHappened();
  });
});
