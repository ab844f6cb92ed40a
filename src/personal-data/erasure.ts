// Erasure (right to erasure): a contact, or an address, is erased by destroying the data keys that
// sealed their personal data — the event log stays immutable and replayable, and everything sealed
// under those keys reads as erased from then on, in every read, rebuild and replay. An erasure also
// appends its event (who, when, why; no personal data) so the read models blank their copies,
// releases the contact's unique email/phone, and keeps a suppression by the keyed hash of each
// address so the person is not messaged again.
//
// Each erasure is recorded (src/personal-data/erasures-table.ts) before any key is destroyed, so a
// request cut off half-way resumes with what it knew (the contact's addresses are unreadable once its
// key is gone), and so that the list of erasures can be exported and applied again after a database
// is restored from a backup older than some of them (README: Erasure).
import { z } from 'zod';
import { contactDecider, contactStream } from '../../commands/contact.ts';
import { erasureDecider, erasureStream } from '../../commands/erasure.ts';
import { contactIdsWithAddress } from '../../projections/contacts.ts';
import { pendingSubmissionsTo } from '../../projections/forms.ts';
import { releaseAllOf } from '../claims.ts';
import { loadContact, releaseContactClaims, UNIQUE_CONTACT_FIELDS } from '../contacts/service.ts';
import { handleCommand } from '../command-handler.ts';
import type { Engage } from '../context.ts';
import { notFound } from '../errors.ts';
import { comparePositions, type EventMetadata, type Position } from '../eventstore/port.ts';
import { newId } from '../ids.ts';
import { bulkIntakes } from '../messages/bulk-intake.ts';
import { suppressRecipient } from '../messages/suppressions.ts';
import { addressHasher, normaliseAddress } from './address-hash.ts';
import { ERASED } from './codec.ts';
import { contactErasure, type ErasureRecord, markErasureCompleted, recordErasure } from './erasures-table.ts';
import { addressSubject, contactSubject, eraseKeys, submissionSubject } from './keys.ts';

/** The read models an erasure changes: its HTTP response waits until they show it. */
export const ERASURE_READ_MODELS = ['contacts', 'lists', 'messages', 'suppressions', 'webhook_outbox', 'contact_events', 'push_devices'];

/** What a request for an erasure may say. */
export const ErasureBody = z.strictObject({ reason: z.string().trim().min(1).max(500).optional() });

/** An erasure as `engage erasures export` writes it (one JSON line each). */
export const ExportedErasure = z.strictObject({
  erasure_id: z.string().regex(/^er_/),
  account_id: z.string().min(1),
  kind: z.enum(['contact', 'address']),
  contact_id: z.string().nullable(),
  address_hashes: z.array(z.string()),
  reason: z.string().nullable(),
  erased_by: z.string(),
});

export interface ErasureResult {
  erasure_id: string;
  erased_at: string;
  /** the contacts erased: the one asked for, or those that had the address */
  contact_ids: string[];
  keys_destroyed: number;
  position?: Position;
}

interface ErasureRequest {
  reason?: string;
  /** who asked: a key id or user id */
  actor: string;
}

/** Erases a contact: its own data and that of every address it ever had. Idempotent. */
export async function eraseContact(engage: Engage, accountId: string, contactId: string, request: ErasureRequest, metadata: EventMetadata): Promise<ErasureResult> {
  let record = await contactErasure(engage.pool, accountId, contactId);
  if (!record) {
    const state = await loadContact(engage, contactId);
    if (state.status === 'none' || state.accountId !== accountId) throw notFound('contact');
    const hash = await addressHasher(engage.pool);
    // an address erased before (by an address erasure) reads as erased: it is covered already
    const addresses = state.addresses.filter((a) => a !== ERASED);
    record = await recordErasure(engage.pool, {
      erasure_id: newId('erasure'), account_id: accountId, kind: 'contact', contact_id: contactId,
      address_hashes: [...new Set(addresses.map(hash))], reason: request.reason ?? null, erased_by: request.actor,
    });
  }
  const done = await completeErasure(engage, record, metadata);
  return { erasure_id: record.erasure_id, erased_at: done.erasedAt, contact_ids: [contactId], keys_destroyed: done.keyIds.length, position: done.position };
}

/**
 * Erases an address (an email or phone number) in an account: the data of messages sent to it, and
 * every contact that has it now. Each request is an erasure of its own.
 */
export async function eraseAddress(engage: Engage, accountId: string, address: string, request: ErasureRequest, metadata: EventMetadata): Promise<ErasureResult> {
  const hash = await addressHasher(engage.pool);
  const contactIds = await contactIdsWithAddress(engage.pool, accountId, normaliseAddress(address));
  const contacts: ErasureResult[] = [];
  for (const contactId of contactIds) contacts.push(await eraseContact(engage, accountId, contactId, request, metadata));
  const record = await recordErasure(engage.pool, {
    erasure_id: newId('erasure'), account_id: accountId, kind: 'address', contact_id: null, address_hashes: [hash(address)], reason: request.reason ?? null, erased_by: request.actor,
  });
  const done = await completeErasure(engage, record, metadata, contactIds);
  return {
    erasure_id: record.erasure_id,
    erased_at: done.erasedAt,
    contact_ids: contactIds,
    keys_destroyed: done.keyIds.length + contacts.reduce((n, c) => n + c.keys_destroyed, 0),
    // the address erasure comes after its contacts' in the log: waiting for it covers them
    position: done.position ?? contacts.at(-1)?.position,
  };
}

/**
 * Carries out a recorded erasure; every step is idempotent, so a request cut off half-way, or an
 * erasure applied again after a restore, completes it: the account's bulks not yet in the log
 * appended, the keys destroyed (subjects with none yet
 * are marked, so nothing written for them later is readable), the event appended, the suppressions
 * kept, the contact's unique values released, the record marked done.
 */
async function completeErasure(engage: Engage, record: ErasureRecord, metadata: EventMetadata, contactIds: string[] = []) {
  const { erasure_id: erasureId, account_id: accountId, address_hashes: hashes } = record;
  // with the pending signup-form submissions to those addresses, each under its own key (README "Signup forms")
  const submissions = await pendingSubmissionsTo(engage.pool, accountId, hashes);
  const subjects = [...(record.contact_id ? [contactSubject(record.contact_id)] : []), ...hashes.map(addressSubject), ...submissions.map(submissionSubject)];
  // the values the contact's claims hold, read while its keys still exist (a run resumed after they
  // were destroyed, or after the contact's erasure was appended, finds its claims by their owner)
  const contact = record.kind === 'contact' ? await loadContact(engage, record.contact_id!) : undefined;
  // a bulk accepted but not yet in the log keeps its messages in its intake, under a service key:
  // appended now, they are sealed under the keys this erasure destroys, and the intake is gone
  await bulkIntakes(engage).settleAccount(accountId);
  const keyIds = await eraseKeys(engage.pool, accountId, subjects, erasureId);
  const base = { accountId, erasureId, keyIds, ...(record.reason ? { reason: record.reason } : {}), erasedBy: record.erased_by, now: engage.clock.now() };
  let appended: { events: { data: unknown }[]; position?: Position } = { events: [] };
  if (record.kind === 'contact') {
    appended = await handleCommand(engage.store, contactDecider, contactStream(record.contact_id!), { type: 'EraseContact', ...base, addressHashes: hashes }, metadata).catch((err: unknown) => {
      // applied again on a database restored from before the contact existed: nothing in its events to erase
      if ((err as { statusCode?: number }).statusCode === 404) return { events: [] };
      throw err;
    });
    const { status, fields } = contact!;
    const readable = (status === 'active' || status === 'deleted') && UNIQUE_CONTACT_FIELDS.every((f) => fields[f] !== ERASED);
    if (readable) await releaseContactClaims(engage, accountId, record.contact_id!, fields);
    else await releaseAllOf(engage.pool, accountId, record.contact_id!);
  } else {
    appended = await handleCommand(engage.store, erasureDecider, erasureStream(erasureId), { type: 'EraseAddress', ...base, addressHash: hashes[0], contactIds }, metadata);
  }
  // the suppressions come after the erasure's event: the caller's read-your-writes wait must cover them too
  let position = appended.position;
  for (const addressHash of hashes) {
    const suppressed = await suppressRecipient(engage, { accountId, addressHash, reason: 'erasure', source: 'erasure' }, metadata);
    if (suppressed.position && (!position || comparePositions(suppressed.position, position) > 0)) position = suppressed.position;
  }
  await markErasureCompleted(engage.pool, erasureId);
  const erasedAt = (appended.events[0]?.data as { erased_at?: string } | undefined)?.erased_at ?? record.requested_at.toISOString();
  return { keyIds, position, erasedAt };
}

/**
 * Applies exported erasures again (after a restore from a backup older than some of them): each is
 * recorded again if the restore lost it, then carried out as the first time; those still in place
 * change nothing. Returns how many were applied.
 */
export async function applyErasures(engage: Engage, records: readonly Omit<ErasureRecord, 'requested_at' | 'completed_at'>[]): Promise<number> {
  for (const r of records) {
    const record = await recordErasure(engage.pool, r);
    await completeErasure(engage, record, { accountId: r.account_id, actor: r.erased_by, correlationId: r.erasure_id });
  }
  return records.length;
}
