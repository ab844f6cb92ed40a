// Erasures of an address (stream erasure-<erasure id>): the data of a recipient address that
// belongs to no contact (or to several) is erased by destroying that address's data keys. The
// event holds no personal data: the keyed hash of the address, the keys destroyed, who, when, why.
import type { Decider } from '../src/decider.ts';

export interface AddressErasedData {
  account_id: string;
  erasure_id: string;
  address_hash: string;
  key_ids: string[];
  /** the contacts that had this address, erased by the same request */
  contact_ids: string[];
  reason: string | null;
  erased_by: string;
  erased_at: string;
}

export type ErasureEvent = { type: 'AddressErased'; data: AddressErasedData };

export interface ErasureState {
  done: boolean;
}

export type ErasureCommand = {
  type: 'EraseAddress';
  accountId: string;
  erasureId: string;
  addressHash: string;
  keyIds: string[];
  contactIds: string[];
  reason?: string;
  erasedBy: string;
  now: Date;
};

export const erasureDecider: Decider<ErasureCommand, ErasureState, ErasureEvent> = {
  initialState: { done: false },
  evolve: () => ({ done: true }),
  decide(c, state) {
    // one erasure, one stream: carried out again (cut off half-way, or after a restore), it is recorded once
    if (state.done) return [];
    return [
      {
        type: 'AddressErased',
        data: {
          account_id: c.accountId, erasure_id: c.erasureId, address_hash: c.addressHash, key_ids: c.keyIds, contact_ids: c.contactIds,
          reason: c.reason ?? null, erased_by: c.erasedBy, erased_at: c.now.toISOString(),
        },
      },
    ];
  },
};

export const erasureStream = (erasureId: string) => `erasure-${erasureId}`;
