// Sender rules (/v1/sender/rules, /v1/sender/validate: API key only) from the dataset in
// src/senders/rules-data.ts, and registered senders (/v1/senders: key or login), with the proof of a
// number by a code sent to it (README "Proving a number").
import { z } from 'zod';
import { findSender, listSenders } from '../../../projections/senders.ts';
import { runCommand } from '../../command-handler.ts';
import { AppError, invalidField } from '../../errors.ts';
import { SENDER_CHANNELS, checkSender, rulesFor } from '../../senders/classify.ts';
import { KNOWN_COUNTRIES, SENDER_TYPES } from '../../senders/rules-data.ts';
import type { RegisteredSenderChannel, SenderStatus, VerificationMethod, VerificationStatus } from '../../../commands/sender.ts';
import { registerSender, removeSender, senderOut, unknownCountry } from '../../senders/service.ts';
import { requestVerification, verifySender } from '../../senders/verification.ts';
import type { AppDeps } from '../deps.ts';
import { Deleted, metadataOf, pageById, pageQuery } from '../common.ts';
import { DateTime, Page } from '../openapi.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

/** The read models a write's response waits for. */
const SENDERS = ['senders'];

const Country = z.string().min(1).max(8);
const Sender = z.string().min(1).max(320);
const RulesQuery = z.strictObject({ country: Country });
const ValidateBody = z.strictObject({ sender: Sender, channel: z.enum(SENDER_CHANNELS), country: Country.optional() });
// email identities are the email-domain area's: only phone-number channels register here
const RegisterBody = z.strictObject({ sender: z.string().min(1).max(32), channel: z.enum(['sms', 'voice', 'whatsapp']), country: Country });
const SendersQuery = z.strictObject({ ...pageQuery, status: z.enum(['pending', 'approved', 'rejected']).optional() });
const IdParams = z.object({ id: z.string().max(64) });
const VerificationBody = z.strictObject({ method: z.enum(['sms', 'voice']).default('sms') });
const VerifyBody = z.strictObject({ code: z.string().regex(/^\d{6}$/, 'the 6-digit code sent to the number') });

const CountryRulesOut = z
  .object({
    country: z.string().describe('ISO 3166-1 alpha-2'),
    name: z.string(),
    alphanumeric_allowed: z.boolean().describe('whether carriers deliver alphanumeric sender IDs at all'),
    registration_required: z.array(z.enum(SENDER_TYPES)).describe('sender types that must be registered or approved before use'),
    lead_time_days: z.int().nullable().describe('typical days from application to approval (null: nothing to register)'),
    notes: z.string(),
  })
  .meta({ id: 'CountrySenderRules', description: "A country's sender requirements: guidance, not legal advice" });

const SenderIssue = z.object({ code: z.string(), message: z.string() });
const SenderVerdictOut = z.object({
  valid: z.boolean(),
  type: z.enum([...SENDER_TYPES, 'email']).nullable().describe("the sender's format (null: none known)"),
  registration_required: z.boolean(),
  issues: z.array(SenderIssue),
  lead_time_days: z.int().nullable().describe('typical days to register it, when it must be (null otherwise, or not known)'),
});

const SenderOut = z
  .object({
    id: z.string(),
    sender: z.string(),
    channel: z.enum(['sms', 'voice', 'whatsapp'] satisfies RegisteredSenderChannel[]),
    country: z.string().describe('ISO 3166-1 alpha-2'),
    type: z.enum(SENDER_TYPES),
    status: z.enum(['pending', 'approved', 'rejected'] satisfies SenderStatus[]).describe('the review status'),
    registration_required: z.boolean(),
    rejection_reason: z.string().nullable(),
    verification: z
      .object({
        status: z.enum([
          ...(['not_applicable', 'unverified', 'sending', 'code_sent', 'undelivered', 'locked', 'verified'] satisfies VerificationStatus[]),
          // a code past its expiry; a number another account has proven since
          'expired',
          'lost',
        ]),
        method: z.enum([...(['sms', 'voice'] satisfies VerificationMethod[]), 'operator_review']).nullable(),
        expires_at: DateTime.nullable().describe('while a code is pending'),
        attempts_left: z.int().nullable().describe('while a code is pending, or locked'),
        verified_at: DateTime.nullable(),
      })
      .describe('how far the number is proven the account’s (README "Proving a number")'),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'Sender', description: 'A registered sender, its review status and the proof of its number' });

export function senderRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/sender/rules',
      auth: 'key',
      operationId: 'getSenderRules',
      summary: "A country's sender requirements (alphanumeric IDs, registration, lead time); guidance, not legal advice",
      tags: ['senders'],
      query: RulesQuery,
      responses: { 200: CountryRulesOut },
      // a country without rules (its body lists known_countries)
      errors: [404],
      async handler({ query }) {
        const rules = rulesFor(query.country);
        if (!rules) {
          throw new AppError(404, 'not_found', `no sender rules for ${JSON.stringify(query.country)}; known countries: ${KNOWN_COUNTRIES.join(', ')}`, {
            known_countries: KNOWN_COUNTRIES,
          });
        }
        return rules;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/sender/validate',
      auth: 'key',
      operationId: 'validateSender',
      scope: 'read',
      summary: 'Classify a sender and check it against a country and channel',
      tags: ['senders'],
      body: ValidateBody,
      responses: { 200: SenderVerdictOut.describe("the sender's format, and whether it may send there") },
      async handler({ body }) {
        const rules = body.country === undefined ? undefined : rulesFor(body.country);
        if (body.country !== undefined && !rules) throw unknownCountry(body.country);
        if (!rules && body.channel !== 'email') throw invalidField('country', `required for the ${body.channel} channel`);
        const verdict = checkSender(body.sender, body.channel, rules);
        return { ...verdict, lead_time_days: verdict.registration_required ? (rules?.lead_time_days ?? null) : null };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/senders',
      auth: 'key_or_login',
      operationId: 'listSenders',
      summary: "The account's registered senders, newest first, with their review status",
      tags: ['senders'],
      query: SendersQuery,
      responses: { 200: Page(SenderOut) },
      async handler({ query, auth }) {
        return pageById(query, (range) => listSenders(engage.pool, auth.accountId, range, query.status), (r) => senderOut(r, engage.clock.now()));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/senders',
      auth: 'key_or_login',
      operationId: 'createSender',
      summary: 'Register a sender: pending until reviewed, or approved at once where its country needs no registration',
      tags: ['senders'],
      body: RegisterBody,
      responses: { 201: SenderOut },
      async handler({ body, auth, req, reply }) {
        const write = await runCommand(engage, metadataOf(req), SENDERS, (metadata) => registerSender(engage, auth.accountId, body, metadata));
        const row = await findSender(engage.pool, auth.accountId, write.sender.id);
        reply.code(201);
        return row ? senderOut(row, engage.clock.now()) : write.sender;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/senders/:id/verification',
      auth: 'key_or_login',
      operationId: 'requestSenderVerification',
      summary: "Send a 6-digit code to the sender's number (by text or call) from the service's own number; enter it at /verify to prove the number is the account's",
      tags: ['senders'],
      params: IdParams,
      body: VerificationBody,
      responses: { 202: SenderOut.describe('the sender, its code on the way') },
      async handler({ params, body, auth, req, reply }) {
        const write = await runCommand(engage, metadataOf(req), SENDERS, (metadata) => requestVerification(engage, auth.accountId, params.id, body.method, metadata));
        const row = await findSender(engage.pool, auth.accountId, params.id);
        reply.code(202);
        return row ? senderOut(row, engage.clock.now()) : write.sender;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/senders/:id/verify',
      auth: 'key_or_login',
      operationId: 'verifySender',
      summary: 'Enter the code sent to the number: proves it (wrong: 400 with attempts_left; expired, spent or none pending: 409)',
      tags: ['senders'],
      params: IdParams,
      body: VerifyBody,
      responses: { 200: SenderOut.describe('the sender, its number proven') },
      async handler({ params, body, auth, req }) {
        const write = await runCommand(engage, metadataOf(req), SENDERS, (metadata) => verifySender(engage, auth.accountId, params.id, body.code, metadata));
        const row = await findSender(engage.pool, auth.accountId, params.id);
        return row ? senderOut(row, engage.clock.now()) : write.sender;
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/senders/:id',
      auth: 'key_or_login',
      operationId: 'deleteSender',
      summary: 'Remove a sender; its sender, channel and country may be registered again',
      tags: ['senders'],
      params: IdParams,
      responses: { 200: Deleted },
      // a write that met another on the same stream on every retry (write conflict)
      errors: [409],
      async handler({ params, auth, req }) {
        await runCommand(engage, metadataOf(req), SENDERS, (metadata) => removeSender(engage, auth.accountId, params.id, metadata));
        return { id: params.id, deleted: true };
      },
    }),
  ];
}
