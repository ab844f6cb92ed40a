// Which contact a tracked event belongs to: the identifiers the client gave, tried in the order id,
// email, phone, external_id; an unknown contact identified by email or phone is created.
//
// Two ways, the same answers:
// - resolveMany, for a batch: one look-up per kind of identifier. Emails and phones are looked up in
//   unique_claims (authoritative for who holds one); ids and external ids in the contacts read model
//   — the one read of a read model on this write path (an id the read model does not have yet is
//   read from its stream). A claim may name a contact whose create is still in flight, or never
//   happened: the batch appends to existing contacts with the expectation stream_exists, so such an
//   event fails its stream's append and is tracked by resolveOne instead.
// - resolveOne, for one event: the contacts service's own rules (its claims and their staleness
//   checks, createContact), reading the contact's stream before it trusts a claim.
import { type ContactEvent, type ContactFields, type CustomValues, contactDecider } from '../../commands/contact.ts';
import { contactIdsByExternalId, findContacts } from '../../projections/contacts.ts';
import { holdersOf } from '../claims.ts';
import { contactClaimScope, createContact, loadContact, loadDefinitions, type UniqueField } from '../contacts/service.ts';
import type { Engage } from '../context.ts';
import { AppError, conflict, invalidField, notFound } from '../errors.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { newId } from '../ids.ts';
import { pollFor } from '../sleep.ts';
import { IN_FLIGHT_WAIT_MS } from './event-ids.ts';
import type { ContactRef, Traits } from './validation.ts';

const UNIQUE: readonly UniqueField[] = ['email', 'phone'];

/** A contact the batch creates: its ContactCreated, decided once its identifiers and traits are known. */
export interface NewContact {
  id: string;
  created: Extract<ContactEvent, { type: 'ContactCreated' }>;
}

export type Resolution = { contactId: string; created?: NewContact } | { error: AppError };

const ambiguous = () => conflict('several contacts have this external_id; identify the contact by id, email or phone');

/**
 * The fields of a contact created for an event: the identifiers, then the traits over them (as a
 * create followed by the traits' PATCH would leave it). It must keep one identifier.
 */
export function newContactInput(ref: ContactRef, traits: Traits | undefined): { fields: ContactFields; custom: CustomValues } {
  const { custom_fields = {}, ...standard } = traits ?? {};
  const fields: Record<string, unknown> = {};
  for (const f of ['email', 'phone', 'external_id'] as const) if (ref[f] !== undefined) fields[f] = ref[f];
  for (const [k, v] of Object.entries(standard)) {
    if (v === null || v === undefined) delete fields[k];
    else fields[k] = v;
  }
  if (!fields.email && !fields.phone && !fields.external_id) {
    throw invalidField('traits', 'must leave the contact this event creates an email, phone or external_id');
  }
  const custom = Object.fromEntries(Object.entries(custom_fields).filter(([, v]) => v !== null));
  return { fields: fields as ContactFields, custom };
}

/**
 * Resolves a batch's contacts in order: each event to an existing contact, to a contact created by an
 * earlier event of the batch (by the fields it is created with), to a new contact, or to an error.
 */
export async function resolveMany(engage: Engage, accountId: string, events: readonly { contact: ContactRef; traits?: Traits }[], now: Date): Promise<Resolution[]> {
  const refs = events.map((e) => e.contact);
  const wanted = (f: keyof ContactRef) => [...new Set(refs.map((r) => r[f]).filter((v): v is string => v !== undefined))];
  const ids = wanted('id');
  const [rows, emails, phones, byExternalId] = await Promise.all([
    findContacts(engage.pool, accountId, ids),
    holdersOf(engage.pool, contactClaimScope(accountId, 'email'), wanted('email')),
    holdersOf(engage.pool, contactClaimScope(accountId, 'phone'), wanted('phone')),
    contactIdsByExternalId(engage.pool, accountId, wanted('external_id')),
  ]);
  const known = new Set(rows.map((r) => r.id));
  // a contact created moments ago by a write that did not wait for the read model
  for (const id of ids.filter((i) => !known.has(i))) {
    const s = await loadContact(engage, id);
    if (s.status === 'active' && s.accountId === accountId) known.add(id);
  }
  const existing = { email: new Map([...emails].map(([v, h]) => [v, h.owner])), phone: new Map([...phones].map(([v, h]) => [v, h.owner])) };
  const fresh = { email: new Map<string, NewContact>(), phone: new Map<string, NewContact>(), external_id: new Map<string, NewContact>() };
  let definitions: Awaited<ReturnType<typeof loadDefinitions>> | undefined;

  const results: Resolution[] = [];
  for (const { contact: ref, traits } of events) {
    if (ref.id !== undefined) {
      results.push(known.has(ref.id) ? { contactId: ref.id } : { error: notFound('contact') });
      continue;
    }
    let found: Resolution | undefined;
    for (const f of UNIQUE) {
      const value = ref[f];
      if (found || value === undefined) continue;
      const made = fresh[f].get(value);
      const holder = existing[f].get(value);
      if (made) found = { contactId: made.id, created: made };
      else if (holder) found = { contactId: holder };
    }
    if (!found && ref.external_id !== undefined) {
      const made = fresh.external_id.get(ref.external_id);
      const matches = byExternalId.get(ref.external_id) ?? [];
      if (made) found = { contactId: made.id, created: made };
      else if (matches.length > 1) found = { error: ambiguous() };
      else if (matches.length === 1) found = { contactId: matches[0] };
    }
    if (!found && ref.email === undefined && ref.phone === undefined) found = { error: notFound('contact') };
    if (!found) {
      try {
        definitions ??= await loadDefinitions(engage, accountId);
        const { fields, custom } = newContactInput(ref, traits);
        const id = newId('contact');
        const [created] = contactDecider.decide({ type: 'CreateContact', accountId, id, fields, custom, definitions, now }, contactDecider.initialState);
        const made: NewContact = { id, created: created as NewContact['created'] };
        for (const f of ['email', 'phone', 'external_id'] as const) if (typeof fields[f] === 'string') fresh[f].set(fields[f], made);
        found = { contactId: id, created: made };
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        found = { error: err };
      }
    }
    results.push(found);
  }
  return results;
}

/**
 * Resolves one event's contact by the contacts service's rules, creating it if it is unknown and
 * identified by email or phone (with the traits, which then need no PATCH of their own).
 */
export async function resolveOne(
  engage: Engage,
  accountId: string,
  event: { contact: ContactRef; traits?: Traits },
  metadata: EventMetadata,
): Promise<{ contactId: string; traitsApplied: boolean; position?: Position }> {
  const ref = event.contact;
  const live = async (id: string, field?: UniqueField, value?: string) => {
    const s = await loadContact(engage, id);
    return s.status === 'active' && s.accountId === accountId && (field === undefined || s.fields[field] === value);
  };
  if (ref.id !== undefined) {
    if (await live(ref.id)) return { contactId: ref.id, traitsApplied: false };
    throw notFound('contact');
  }
  for (const f of UNIQUE) {
    const value = ref[f];
    if (value === undefined) continue;
    const holder = (await holdersOf(engage.pool, contactClaimScope(accountId, f), [value])).get(value);
    if (holder && (await live(holder.owner, f, value))) return { contactId: holder.owner, traitsApplied: false };
  }
  if (ref.external_id !== undefined) {
    const matches = (await contactIdsByExternalId(engage.pool, accountId, [ref.external_id])).get(ref.external_id) ?? [];
    if (matches.length > 1) throw ambiguous();
    if (matches.length === 1) return { contactId: matches[0], traitsApplied: false };
  }
  if (ref.email === undefined && ref.phone === undefined) throw notFound('contact');
  const { fields, custom } = newContactInput(ref, event.traits);
  try {
    const { contact, position } = await createContact(engage, accountId, { ...fields, custom_fields: custom }, metadata);
    return { contactId: contact.id, traitsApplied: true, position };
  } catch (err) {
    // someone else holds one of the identifiers: that contact is the one the event is about (when the
    // client identified it so, and it is live: its create may still be in flight); a value only the
    // traits bring is a conflict, as a PATCH would answer
    const field = err instanceof AppError && err.code === 'conflict' ? (err.extra.field as UniqueField | undefined) : undefined;
    const holder = err instanceof AppError ? err.extra.contact_id : undefined;
    if (field === undefined || typeof holder !== 'string' || ref[field] !== fields[field]) throw err;
    // (its create took the claim moments ago: wait for it to be stored)
    if (await pollFor(async () => ((await live(holder)) ? true : undefined), IN_FLIGHT_WAIT_MS)) return { contactId: holder, traitsApplied: false };
    throw conflict('this contact is being created by another request; send the event again');
  }
}
