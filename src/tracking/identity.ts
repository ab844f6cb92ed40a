// Signed identity for browser tracking (README "Browser tracking"): the visitor names one contact
// identifier, and, when the account requires it, proves it with user_hash = hex HMAC-SHA256 keyed
// with the identity secret over that identifier (README "Browser tracking"). Only the
// customer's backend holds the secret, so a visitor cannot name a contact the site did not sign.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { EmailSchema, PhoneSchema } from '../contacts/validation.ts';
import { unauthorized } from '../errors.ts';
import type { ContactRef } from '../events/validation.ts';

/** A new identity secret: shown to the account's settings holders, sealed in the log. */
export const newIdentitySecret = () => `eis_${randomBytes(32).toString('base64url')}`;

/**
 * Exactly one identifier, normalised as the hash covers it: the email trimmed and lower-cased, the
 * phone in E.164, the external_id as given (so one with surrounding spaces is refused rather than
 * trimmed: the contact it names and the string that was signed must be the same).
 */
export const IdentitySchema = z
  .strictObject({
    email: EmailSchema.optional(),
    phone: PhoneSchema.optional(),
    external_id: z
      .string()
      .min(1)
      .max(255)
      .refine((v) => v === v.trim(), 'must not start or end with white space')
      .optional(),
    user_hash: z.string().max(200).optional(),
  })
  .refine((i) => [i.email, i.phone, i.external_id].filter((v) => v !== undefined).length === 1, {
    message: 'name the visitor by exactly one of email, phone or external_id',
  });

export type Identity = z.output<typeof IdentitySchema>;

/** The string user_hash is computed over. */
export const identifierOf = (identity: Identity): string => (identity.email ?? identity.phone ?? identity.external_id)!;

/** How the events service finds (or creates) the contact the identity names. */
export function contactRefOf(identity: Identity): ContactRef {
  if (identity.email !== undefined) return { email: identity.email };
  if (identity.phone !== undefined) return { phone: identity.phone };
  return { external_id: identity.external_id };
}

/** hex HMAC-SHA256 keyed with the whole secret string (prefix included) as UTF-8, over the identifier. */
export const userHash = (secret: string, identifier: string): string => createHmac('sha256', secret).update(identifier, 'utf8').digest('hex');

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

/** Throws 401 unless the identity carries the user_hash of its identifier under `secret`; compared in constant time. */
export function verifyIdentity(secret: string, identity: Identity): void {
  if (identity.user_hash === undefined) {
    throw unauthorized('this account requires a signed identity: identify with user_hash, the hex HMAC-SHA256 of the identifier under the identity secret');
  }
  const expected = createHmac('sha256', secret).update(identifierOf(identity), 'utf8').digest();
  const given = HEX_SHA256.test(identity.user_hash) ? Buffer.from(identity.user_hash, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw unauthorized('user_hash does not match the identifier (made with another identity secret, or over another value)');
  }
}
