// What the read models need of an erasure (a contact's or an address's): which data keys it
// destroyed and which address hashes it covers. Every read model that keeps a copy of sealed
// personal data blanks the rows sealed under those keys when it applies the erasure.
import type { ContactErasedData } from '../commands/contact.ts';
import type { AddressErasedData } from '../commands/erasure.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';

export const ERASURE_EVENTS = ['ContactErased', 'AddressErased'] as const;

export type ErasureEvent = { type: 'ContactErased'; data: ContactErasedData } | { type: 'AddressErased'; data: AddressErasedData };

export const isErasure = (e: RecordedEvent) => (ERASURE_EVENTS as readonly string[]).includes(e.type);

/** The keys an erasure destroyed. */
export const erasedKeys = (e: RecordedEvent): string[] => (e.data as ErasureEvent['data']).key_ids;

/** The address hashes an erasure covers. */
export const erasedAddressHashes = (e: RecordedEvent): string[] => {
  const erasure = e as unknown as ErasureEvent;
  return erasure.type === 'ContactErased' ? erasure.data.address_hashes : [erasure.data.address_hash];
};
