// Validation of one tracked event (POST /v1/events, README "Events"): who did it (the identifiers
// the client has), its name, properties, time, the client's id, and contact traits to set.
import { z } from 'zod';
import type { ContactFields } from '../../commands/contact.ts';
import { ContactPatchBody, EmailSchema, PhoneSchema } from '../contacts/validation.ts';
import type { Issue } from '../errors.ts';
import { Timestamp } from '../timestamps.ts';
import { toIssues } from '../validation.ts';

/** Events per request at most. */
export const MAX_EVENTS = 1000;
/** The most a tracked event's properties may take, serialised as JSON. */
export const MAX_PROPERTIES_BYTES = 32 * 1024;

const ContactRef = z
  .strictObject({
    id: z.string().min(1).max(64).optional(),
    email: EmailSchema.optional(),
    phone: PhoneSchema.optional(),
    external_id: z.string().trim().min(1).max(255).optional(),
  })
  .refine((c) => c.id !== undefined || c.email !== undefined || c.phone !== undefined || c.external_id !== undefined, {
    message: 'identify the contact by id, email, phone or external_id',
  });

function serialisedBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value), 'utf8');
  } catch {
    return Infinity; // nested deeper than JSON.stringify can go: far too big anyway
  }
}

export const TrackedEventBody = z.strictObject({
  contact: ContactRef,
  name: z.string().trim().min(1).max(200),
  properties: z
    .record(z.string(), z.unknown())
    .refine((p) => serialisedBytes(p) <= MAX_PROPERTIES_BYTES, `must be at most ${MAX_PROPERTIES_BYTES / 1024} KiB as JSON`)
    .optional(),
  timestamp: Timestamp.optional(),
  id: z.string().min(1).max(255).optional(),
  traits: ContactPatchBody.optional(),
});

/** How the contact is identified: exactly what the client gave (email and phone normalised). */
export interface ContactRef {
  id?: string;
  email?: string;
  phone?: string;
  external_id?: string;
}

export type Traits = ContactFields & { custom_fields?: Record<string, unknown> };

export interface ValidEvent {
  contact: ContactRef;
  name: string;
  properties: Record<string, unknown>;
  /** RFC 3339 as given; absent: now */
  timestamp?: string;
  /** the client's id: ingestion is idempotent on it per account */
  id?: string;
  traits?: Traits;
}

/** Validates one event; returns it or the issues, each naming its field within the event. */
export function validateEvent(input: unknown): { ok: true; value: ValidEvent } | { ok: false; issues: Issue[] } {
  const parsed = TrackedEventBody.safeParse(input);
  if (!parsed.success) return { ok: false, issues: toIssues(parsed.error) };
  const { contact, name, properties, timestamp, id, traits } = parsed.data;
  return { ok: true, value: { contact, name, properties: properties ?? {}, timestamp, id, traits } };
}
