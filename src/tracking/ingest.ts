// What the browser SDK sends to POST /v1/track (README "Browser tracking"), once the key, the origin
// and the identity have been checked: `identify` (traits) updates the contact, creating an unknown
// one identified by email or phone, with the traits a browser may set (the rest ignored); `track` and `page` calls become tracked events exactly as
// POST /v1/events stores them (src/events: the same validation, contact resolution and sealing of
// properties under the contact's key). A bad event fails alone, as there.
import { z } from 'zod';
import { contactFieldShape } from '../contacts/validation.ts';
import { updateContact } from '../contacts/service.ts';
import type { Engage } from '../context.ts';
import type { BrowserTraitRules } from '../../commands/tracking.ts';
import { AppError, describeIssues, validationError } from '../errors.ts';
import { resolveOne } from '../events/contacts.ts';
import type { EventSource } from '../events/event-ids.ts';
import { trackEvents, type TrackResult } from '../events/service.ts';
import { type ContactRef, type Traits, type ValidEvent, validateEvent } from '../events/validation.ts';
import { type EventMetadata, type Position, comparePositions } from '../eventstore/port.ts';
import { toIssues } from '../validation.ts';
import { contactRefOf, IdentitySchema } from './identity.ts';

/** Calls per request at most (the SDK sends the calls of one tick together, in requests of this many). */
export const MAX_TRACK_CALLS = 50;
/** The largest body POST /v1/track reads: fetch's keepalive and sendBeacon carry at most 64 KiB. */
export const TRACK_BODY_LIMIT = 64 * 1024;
/** The name of the event a `page` call records. */
export const PAGE_EVENT_NAME = 'page_viewed';

// A visitor may describe themselves, not rename themselves: the identifiers the identity was proven
// for (and which the next identity would be checked against) cannot be changed from a browser.
const notFromBrowser = z.never({ error: 'an identifier cannot be changed from the browser (change it through the API)' }).optional();
/** Traits as sent: identifiers refused; which of the rest apply is the account's (browserTraits). */
export const BrowserTraits = z.looseObject({ email: notFromBrowser, phone: notFromBrowser, external_id: notFromBrowser });

/** The profile traits (README "Browser tracking"): what any browser may set about its visitor. */
export const PROFILE_TRAITS = ['first_name', 'last_name', 'country', 'language', 'timezone'] as const;
const { first_name, last_name, country, language, timezone, tags, custom_fields } = contactFieldShape;
const AppliedTraits = z.strictObject({ first_name, last_name, country, language, timezone, tags, custom_fields });

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The traits a browser may set under the account's rules, validated as PATCH /v1/contacts/:id takes
 * them (400 on a bad value, paths under `traits`), and the names of those ignored: tags and custom
 * fields the account does not allow, and anything else. Ignored rather than refused: the SDK sends
 * traits with the visitor's events, which a trait the site should not have sent must not lose.
 */
export function browserTraits(input: Record<string, unknown>, rules: BrowserTraitRules): { traits: Traits; ignored: string[] } {
  const kept: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [name, value] of Object.entries(input)) {
    if ((PROFILE_TRAITS as readonly string[]).includes(name)) kept[name] = value;
    else if (name === 'tags' && rules.tags) kept.tags = value;
    else if (name === 'custom_fields' && isPlainObject(value)) {
      const fields: Record<string, unknown> = {};
      for (const [key, v] of Object.entries(value)) {
        if (rules.customFields.includes(key)) fields[key] = v;
        else ignored.push(`custom_fields.${key}`);
      }
      if (Object.keys(fields).length > 0) kept.custom_fields = fields;
    } else if (name === 'custom_fields' && rules.customFields.length > 0) kept.custom_fields = value;
    else if (value !== undefined) ignored.push(name);
  }
  const parsed = AppliedTraits.safeParse(kept);
  if (!parsed.success) {
    const issues = toIssues(parsed.error, 'traits');
    throw validationError(`invalid body: ${describeIssues(issues)}`, issues);
  }
  return { traits: parsed.data as Traits, ignored };
}

const TrackCall = z.strictObject({
  type: z.literal('track'),
  name: z.unknown(),
  properties: z.unknown().optional(),
  timestamp: z.unknown().optional(),
  id: z.unknown().optional(),
});
const PageCall = z.strictObject({ type: z.literal('page'), properties: z.unknown().optional(), timestamp: z.unknown().optional(), id: z.unknown().optional() });
/** One call's shape; its values are checked by the events service's own validation. */
const Call = z.discriminatedUnion('type', [TrackCall, PageCall]);

export const TrackBody = z.strictObject({
  /** the public key; may come as ?key= instead (README "Browser tracking") */
  key: z.string().min(1).max(100).optional(),
  identity: IdentitySchema,
  traits: BrowserTraits.optional(),
  events: z.array(z.unknown()).max(MAX_TRACK_CALLS, `at most ${MAX_TRACK_CALLS} events per request`).optional(),
});
export type TrackRequest = z.output<typeof TrackBody>;

/** The documented body: the calls' fields as the events service takes them. */
export const TrackBodyDoc = TrackBody.extend({
  traits: AppliedTraits.optional(),
  events: z
    .array(
      z.discriminatedUnion('type', [
        z.strictObject({ type: z.literal('track'), name: z.string().max(200), properties: z.record(z.string(), z.unknown()).optional(), timestamp: z.string().optional(), id: z.string().max(255).optional() }),
        z.strictObject({ type: z.literal('page'), properties: z.record(z.string(), z.unknown()).optional(), timestamp: z.string().optional(), id: z.string().max(255).optional() }),
      ]),
    )
    .max(MAX_TRACK_CALLS)
    .optional(),
});

/** A result as the browser sees it: POST /v1/events's, without the contact id (internal to the account). */
export type PublicResult = { index: number; status: 'accepted' | 'duplicate'; id: string } | Extract<TrackResult, { status: 'failed' }>;

const publicResult = (r: TrackResult): PublicResult => (r.status === 'failed' ? r : { index: r.index, status: r.status, id: r.id });

/** The tracked event a call asks for, as POST /v1/events would take it. */
function eventOf(call: z.output<typeof Call>, contact: ContactRef): Record<string, unknown> {
  const event: Record<string, unknown> = { contact, name: call.type === 'track' ? call.name : PAGE_EVENT_NAME };
  for (const field of ['properties', 'timestamp', 'id'] as const) if (call[field] !== undefined) event[field] = call[field];
  return event;
}

export async function ingest(
  engage: Engage,
  accountId: string,
  request: TrackRequest,
  /** what the account lets a browser set besides the profile traits (its tracking settings) */
  rules: BrowserTraitRules,
  metadata: EventMetadata,
): Promise<{ results: PublicResult[]; position?: Position; ignoredTraits: string[] }> {
  let position: Position | undefined;
  const reached = (p: Position | undefined) => {
    if (p && (!position || comparePositions(p, position) > 0)) position = p;
  };
  const allowed = request.traits === undefined ? undefined : browserTraits(request.traits, rules);
  let contact = contactRefOf(request.identity);
  const calls = request.events ?? [];
  const results: PublicResult[] = new Array(calls.length);
  let source: EventSource = { source: 'browser' };
  let unresolved: AppError | undefined;

  // identify: the contact found (or created) now, with its traits; the events then name it by id.
  // Calls with ids need it too: a visitor's ids are its contact's own (src/events/event-ids.ts). The
  // SDK sends no ids, so its events alone are resolved with the batch (no read of the contact's stream).
  const withIds = calls.some((c) => c !== null && typeof c === 'object' && (c as { id?: unknown }).id !== undefined);
  if (request.traits !== undefined || calls.length === 0 || withIds) {
    const traits = allowed?.traits;
    try {
      const found = await resolveOne(engage, accountId, { contact, traits }, metadata);
      reached(found.position);
      if (traits && !found.traitsApplied) reached((await updateContact(engage, accountId, found.contactId, traits, metadata)).position);
      contact = { id: found.contactId };
      source = { source: 'browser', contactId: found.contactId };
    } catch (err) {
      // events alone, for a contact that cannot be found: each fails as POST /v1/events fails it
      if (!(err instanceof AppError) || request.traits !== undefined || calls.length === 0) throw err;
      unresolved = err;
    }
  }

  const valid: { index: number; event: ValidEvent }[] = [];
  calls.forEach((item, index) => {
    const call = Call.safeParse(item);
    const checked = call.success ? validateEvent(eventOf(call.data, contact)) : { ok: false as const, issues: toIssues(call.error) };
    if (!checked.ok) results[index] = { index, status: 'failed', error: 'validation_error', message: describeIssues(checked.issues), issues: checked.issues };
    else if (unresolved) results[index] = { index, status: 'failed', error: unresolved.code, message: unresolved.message };
    else valid.push({ index, event: checked.value });
  });
  if (valid.length > 0) {
    const tracked = await trackEvents(engage, accountId, valid, metadata, source);
    reached(tracked.position);
    for (const r of tracked.results) results[r.index] = publicResult(r);
  }
  return { results, position, ignoredTraits: allowed?.ignored ?? [] };
}
