// Sender rules (/v1/sender/rules, /v1/sender/validate: API key only) from the dataset in
// src/senders/rules-data.ts, and registered senders (/v1/senders: key or login), with the proof of a
// number by a code sent to it (README "Proving a number").
import { z } from 'zod';
import { findSender, listSenders } from '../../../projections/senders.ts';
import { runCommand } from '../../command-handler.ts';
import { AppError, invalidField } from '../../errors.ts';
import { SENDER_CHANNELS, checkSender, rulesFor } from '../../senders/classify.ts';
import { KNOWN_COUNTRIES } from '../../senders/rules-data.ts';
import { registerSender, removeSender, senderOut, unknownCountry } from '../../senders/service.ts';
import { requestVerification, verifySender } from '../../senders/verification.ts';
import type { AppDeps } from '../deps.ts';
import { Deleted, metadataOf, pageById, pageQuery } from '../common.ts';
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

export function senderRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/sender/rules',
      auth: 'key',
      summary: "A country's sender requirements (alphanumeric IDs, registration, lead time); guidance, not legal advice",
      tags: ['senders'],
      query: RulesQuery,
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
      scope: 'read',
      summary: 'Classify a sender and check it against a country and channel',
      tags: ['senders'],
      body: ValidateBody,
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
      summary: "The account's registered senders, newest first, with their review status",
      tags: ['senders'],
      query: SendersQuery,
      async handler({ query, auth }) {
        return pageById(query, (range) => listSenders(engage.pool, auth.accountId, range, query.status), (r) => senderOut(r, engage.clock.now()));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/senders',
      auth: 'key_or_login',
      summary: 'Register a sender: pending until reviewed, or approved at once where its country needs no registration',
      tags: ['senders'],
      body: RegisterBody,
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
      summary: "Send a 6-digit code to the sender's number (by text or call) from the service's own number; enter it at /verify to prove the number is the account's",
      tags: ['senders'],
      params: IdParams,
      body: VerificationBody,
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
      summary: 'Enter the code sent to the number: proves it (wrong: 400 with attempts_left; expired, spent or none pending: 409)',
      tags: ['senders'],
      params: IdParams,
      body: VerifyBody,
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
      summary: 'Remove a sender; its sender, channel and country may be registered again',
      tags: ['senders'],
      params: IdParams,
      responses: { 200: Deleted },
      async handler({ params, auth, req }) {
        await runCommand(engage, metadataOf(req), SENDERS, (metadata) => removeSender(engage, auth.accountId, params.id, metadata));
        return { id: params.id, deleted: true };
      },
    }),
  ];
}
