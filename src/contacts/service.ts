// Contact commands with their cross-aggregate rule: email and phone are unique per account,
// held by claims that are taken before the append and released if it fails.
import { currentState } from '../eventstore/snapshots.ts';
import { contactDecider, contactStream, type ContactCommand, type ContactFields, type ContactState } from '../../commands/contact.ts';
import { customFieldsDecider, customFieldsStream, type FieldDefinition } from '../../commands/custom-fields.ts';
import { type ContactRow, standardColumns } from '../../projections/contacts.ts';
import { claim, claimIsFresh, release } from '../claims.ts';
import type { Engage } from '../context.ts';
import { handleCommand } from '../command-handler.ts';
import { fold } from '../decider.ts';
import { AppError } from '../errors.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { newId } from '../ids.ts';

/** The contact fields unique per account, each held by a claim (src/claims.ts) of kind contactClaimKind(field). */
export const UNIQUE_CONTACT_FIELDS = ['email', 'phone'] as const;
const UNIQUE = UNIQUE_CONTACT_FIELDS;
export type UniqueField = (typeof UNIQUE)[number];
export const contactClaimKind = (field: UniqueField) => `contact_${field}`;

/** A contact as the API shows it. */
export type ContactView = Omit<ContactRow, 'account_id' | 'created_at' | 'updated_at' | 'bounce_count' | 'last_bounced_at'> & {
  created_at: string;
  updated_at: string;
};

/** The view of a contact from its stream's state (what a command returns before the read model has it). */
export function contactView(id: string, s: { fields: ContactFields; custom: Record<string, unknown>; createdAt?: string; updatedAt?: string }): ContactView {
  return {
    id,
    ...standardColumns(s.fields),
    custom_fields: s.custom,
    created_at: s.createdAt ?? '',
    updated_at: s.updatedAt ?? s.createdAt ?? '',
  };
}

/** The view of a contact from its read model row. */
export function contactOut(r: ContactRow): ContactView {
  return {
    id: r.id,
    ...standardColumns(r),
    custom_fields: r.custom_fields,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/** The definitions a write of these custom values is checked against: none are read for a write without any. */
function definitionsFor(engage: Engage, accountId: string, custom: Record<string, unknown>): Promise<FieldDefinition[]> {
  return Object.keys(custom).length ? loadDefinitions(engage, accountId) : Promise.resolve([]);
}

export async function loadDefinitions(engage: Engage, accountId: string): Promise<FieldDefinition[]> {
  return [...(await currentState(engage.store, customFieldsDecider, customFieldsStream(accountId))).state.byId.values()];
}

/** A contact's state as its own stream folds it (the decider's view: status, account, addresses). */
export async function loadContact(engage: Engage, id: string): Promise<ContactState> {
  const events = await engage.store.readStream(contactStream(id));
  return fold(contactDecider, events.map((e) => ({ type: e.type, data: e.data }) as never));
}

/** The claims that keep a contact's email or phone unique in its account (src/claims.ts): who holds a value. */
export function contactClaimScope(accountId: string, field: UniqueField) {
  return { accountId, kind: contactClaimKind(field) };
}

/** How long a claim whose owner does not show the value yet counts as a write still in flight. */
export const CLAIM_IN_FLIGHT_MS = 30_000;

/** True when `owner` took its claim on `value` moments ago: its create or update has not been appended yet. */
const claimInFlight = (engage: Engage, scope: { accountId: string; kind: string }, value: string, owner: string) =>
  claimIsFresh(engage.pool, scope, value, owner, CLAIM_IN_FLIGHT_MS);

/**
 * Claims the unique values in `fields` for `contactId`; throws 409 naming the field on a duplicate
 * (the first of UNIQUE's order that is taken). The values are claimed together, in one round trip
 * (claims made at once share a statement: src/claims.ts); on a duplicate the others are given back.
 */
async function claimUnique(engage: Engage, accountId: string, contactId: string, fields: ContactFields): Promise<() => Promise<void>> {
  const wanted = UNIQUE.flatMap((field) => (typeof fields[field] === 'string' ? [{ field, value: fields[field] as string }] : []));
  const holders = await Promise.all(
    wanted.map(({ field, value }) =>
      claim(engage.pool, contactClaimScope(accountId, field), value, contactId, async (owner) => {
        const s = await loadContact(engage, owner);
        if (s.status === 'active' && s.accountId === accountId && s.fields[field] === value) return true;
        // not (yet) in the owner's stream: stale only once the owner's write can no longer be in flight,
        // else two concurrent creates of one email would both take the claim
        return claimInFlight(engage, contactClaimScope(accountId, field), value, owner);
      }),
    ),
  );
  const taken = wanted.filter((_, i) => holders[i] === null);
  const undo = async () => {
    for (const t of taken) await release(engage.pool, contactClaimScope(accountId, t.field), t.value, contactId);
  };
  const lost = holders.findIndex((h) => h !== null);
  if (lost >= 0) {
    await undo();
    const { field } = wanted[lost]!;
    throw new AppError(409, 'conflict', `a contact with this ${field} already exists`, { field, contact_id: holders[lost] });
  }
  return undo;
}

/**
 * Appends a contact command while holding claims on the unique values it sets; the claims are given
 * back when the write (or `afterAppend`) fails. The command is built once the claims are held.
 */
async function appendHoldingClaims(
  engage: Engage,
  accountId: string,
  id: string,
  values: ContactFields,
  command: () => ContactCommand,
  metadata: EventMetadata,
  afterAppend: (state: ContactState) => Promise<void> = async () => {},
  /** the contact's id was made for this command: its stream is not read first */
  fresh = false,
): Promise<{ contact: ContactView; position?: Position }> {
  const undo = await claimUnique(engage, accountId, id, values);
  try {
    const result = await handleCommand(engage.store, contactDecider, contactStream(id), command(), metadata, { fresh });
    await afterAppend(result.state);
    return { contact: contactView(id, result.state), position: result.position };
  } catch (err) {
    await undo();
    throw err;
  }
}

export async function createContact(
  engage: Engage,
  accountId: string,
  input: ContactFields & { custom_fields?: Record<string, unknown> },
  metadata: EventMetadata,
): Promise<{ contact: ContactView; position?: Position }> {
  const id = newId('contact');
  const { custom_fields = {}, ...fields } = input;
  const definitions = await definitionsFor(engage, accountId, custom_fields);
  const create = (): ContactCommand => ({ type: 'CreateContact', accountId, id, fields, custom: custom_fields, definitions, now: engage.clock.now() });
  return appendHoldingClaims(engage, accountId, id, fields, create, metadata, undefined, true);
}

export async function updateContact(
  engage: Engage,
  accountId: string,
  id: string,
  input: ContactFields & { custom_fields?: Record<string, unknown> },
  metadata: EventMetadata,
): Promise<{ contact: ContactView; position?: Position }> {
  const { custom_fields = {}, ...changes } = input;
  const before = await loadContact(engage, id);
  const newValues: ContactFields = {};
  for (const f of UNIQUE) if (typeof changes[f] === 'string' && changes[f] !== before.fields[f]) newValues[f] = changes[f];
  const definitions = await definitionsFor(engage, accountId, custom_fields);
  const update = (): ContactCommand => ({ type: 'UpdateContact', accountId, changes, custom: custom_fields, definitions, now: engage.clock.now() });
  // not-found checks first, so a missing contact never takes a claim
  if (before.status !== 'active' || before.accountId !== accountId) await handleCommand(engage.store, contactDecider, contactStream(id), update(), metadata);
  return appendHoldingClaims(engage, accountId, id, newValues, update, metadata, async (after) => {
    // release the values this contact no longer holds
    for (const f of UNIQUE) {
      const old = before.fields[f];
      if (typeof old === 'string' && after.fields[f] !== old) await release(engage.pool, contactClaimScope(accountId, f), old, id);
    }
  });
}

export async function deleteContact(engage: Engage, accountId: string, id: string, metadata: EventMetadata): Promise<{ position?: Position }> {
  const result = await handleCommand(engage.store, contactDecider, contactStream(id), { type: 'DeleteContact', accountId, now: engage.clock.now() }, metadata);
  await releaseContactClaims(engage, accountId, id, result.state.fields);
  return { position: result.position };
}

/** Releases the claims of a contact's email and phone, as `fields` has them (each only if the contact still holds it). */
export async function releaseContactClaims(engage: Engage, accountId: string, id: string, fields: ContactFields): Promise<void> {
  for (const f of UNIQUE) {
    const v = fields[f];
    if (typeof v === 'string') await release(engage.pool, contactClaimScope(accountId, f), v, id);
  }
}
