// Sender registration: checks a sender against its country's rules, keeps one live registration
// per sender+channel+country in an account (a claim, src/claims.ts), and appends the sender's
// events; and the operator's review that approves or rejects a pending sender. (Proof of a number:
// ./verification.ts.)
import { senderDecider, senderStream, type RegisteredSenderChannel, type RegisteredSenderType, type SenderCommand, type SenderIdentity, type SenderState } from '../../commands/sender.ts';
import type { SenderRow } from '../../projections/senders.ts';
import { claim, claimIsFresh, release } from '../claims.ts';
import { handleCommand } from '../command-handler.ts';
import type { Engage } from '../context.ts';
import { fold } from '../decider.ts';
import { conflict, invalid, notFound } from '../errors.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { isId, newId } from '../ids.ts';
import { checkSender, rulesFor } from './classify.ts';
import { KNOWN_COUNTRIES } from './rules-data.ts';

/** How far a sender is proven the account's (README "Proving a number"). */
export interface VerificationView {
  /** not_applicable | unverified | sending | code_sent | expired | undelivered | locked | verified | lost */
  status: string;
  method: string | null;
  expires_at: string | null;
  attempts_left: number | null;
  verified_at: string | null;
}

/** A sender as the API shows it. */
export type SenderView = Pick<SenderRow, 'id' | 'sender' | 'channel' | 'country' | 'type' | 'status' | 'registration_required' | 'rejection_reason'> & {
  verification: VerificationView;
  created_at: string;
  updated_at: string;
};

/** A code past its expiry reads `expired` (the stored state cannot change by itself with time). */
const verificationOut = (v: { status: string; method: string | null; expiresAt: Date | null; attemptsLeft: number | null; verifiedAt: Date | null }, now: Date): VerificationView => {
  const expired = v.status === 'code_sent' && v.expiresAt !== null && v.expiresAt.getTime() <= now.getTime();
  return {
    status: expired ? 'expired' : v.status,
    method: v.method,
    expires_at: v.status === 'code_sent' && v.expiresAt ? v.expiresAt.toISOString() : null,
    attempts_left: v.status === 'code_sent' || v.status === 'locked' ? v.attemptsLeft : null,
    verified_at: v.verifiedAt?.toISOString() ?? null,
  };
};

export const senderOut = (r: SenderRow, now: Date): SenderView => ({
  id: r.id,
  sender: r.sender,
  channel: r.channel,
  country: r.country,
  type: r.type,
  status: r.status,
  registration_required: r.registration_required,
  rejection_reason: r.rejection_reason,
  verification: verificationOut(
    { status: r.verification, method: r.verification_method, expiresAt: r.verification_expires_at, attemptsLeft: r.verification_attempts_left, verifiedAt: r.verified_at },
    now,
  ),
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

/** A sender from its own stream (before the read model has it). It cannot know of a later proof by another account (`lost`). */
export const senderView = (s: SenderState, now = new Date()): SenderView => ({
  id: s.id!,
  sender: s.identity!.sender,
  channel: s.identity!.channel,
  country: s.identity!.country,
  type: s.identity!.type,
  status: s.status!,
  registration_required: s.registrationRequired!,
  rejection_reason: s.rejectionReason ?? null,
  verification: verificationOut(
    {
      status: s.verification?.status ?? 'unverified',
      method: s.verification?.method ?? null,
      expiresAt: s.verification?.expiresAt ? new Date(s.verification.expiresAt) : null,
      attemptsLeft: s.verification?.attemptsLeft ?? null,
      verifiedAt: s.verification?.verifiedAt ? new Date(s.verification.verifiedAt) : null,
    },
    now,
  ),
  created_at: s.createdAt!,
  updated_at: s.updatedAt!,
});

/** A 400 naming the country field, with every code the dataset knows. */
export const unknownCountry = (country: string) =>
  invalid([{ path: 'country', message: `no sender rules for ${JSON.stringify(country)}; known countries: ${KNOWN_COUNTRIES.join(', ')}` }]);

const CLAIM_KIND = 'sender';
/** How long a claim whose owner's stream does not show it yet counts as a registration in flight. */
const CLAIM_IN_FLIGHT_MS = 30_000;
// carriers do not tell "ACME" from "Acme" apart as brands: one registration per spelling would be a duplicate
const claimValue = (i: SenderIdentity) => `${i.channel}:${i.country}:${i.type === 'alphanumeric' ? i.sender.toUpperCase() : i.sender}`;

export async function loadSender(engage: Engage, id: string): Promise<SenderState> {
  const events = await engage.store.readStream(senderStream(id));
  return fold(senderDecider, events.map((e) => ({ type: e.type, data: e.data }) as never));
}

export interface SenderWrite {
  sender: SenderView;
  position?: Position;
}

export async function registerSender(
  engage: Engage,
  accountId: string,
  input: { sender: string; channel: RegisteredSenderChannel; country: string },
  metadata: EventMetadata,
): Promise<SenderWrite> {
  const rules = rulesFor(input.country);
  if (!rules) throw unknownCountry(input.country);
  const verdict = checkSender(input.sender, input.channel, rules);
  if (!verdict.valid) throw invalid(verdict.issues.map((i) => ({ path: 'sender', message: `${i.code}: ${i.message}` })));
  const identity: SenderIdentity = { sender: input.sender, channel: input.channel, country: rules.country, type: verdict.type as RegisteredSenderType };
  const id = newId('sender');
  const scope = { accountId, kind: CLAIM_KIND };
  const value = claimValue(identity);
  const holder = await claim(engage.pool, scope, value, id, async (owner) => {
    const s = await loadSender(engage, owner);
    if (s.exists) return !s.removed && s.accountId === accountId && claimValue(s.identity!) === value;
    // not appended yet: a registration still in flight holds it, else two concurrent ones would both pass
    return claimIsFresh(engage.pool, scope, value, owner, CLAIM_IN_FLIGHT_MS);
  });
  if (holder) throw conflictWith(holder);
  try {
    const command: SenderCommand = { type: 'Register', id, accountId, identity, registrationRequired: verdict.registration_required, now: engage.clock.now() };
    const result = await handleCommand(engage.store, senderDecider, senderStream(id), command, metadata);
    return { sender: senderView(result.state, engage.clock.now()), position: result.position };
  } catch (err) {
    await release(engage.pool, scope, value, id);
    throw err;
  }
}

/** A 409 naming the live registration of the same sender, channel and country. */
const conflictWith = (holder: string) =>
  conflict('this sender is already registered for this channel and country', holder === 'unknown' ? {} : { sender_id: holder });

/** Removes the account's sender and frees its sender+channel+country for a new registration. */
export async function removeSender(engage: Engage, accountId: string, id: string, metadata: EventMetadata): Promise<{ position?: Position }> {
  // a string that is not a sender id can only be a 404: no stream to read
  if (!isId('sender', id)) throw notFound('sender');
  const result = await handleCommand(engage.store, senderDecider, senderStream(id), { type: 'Remove', accountId, now: engage.clock.now() }, metadata);
  await release(engage.pool, { accountId, kind: CLAIM_KIND }, claimValue(result.state.identity!), id);
  return { position: result.position };
}

/** The operator's review of a pending sender (CLI `engage senders approve|reject`): any account's. */
export async function reviewSender(engage: Engage, id: string, decision: { approve: true } | { approve: false; reason: string }, metadata: EventMetadata): Promise<SenderWrite> {
  if (!isId('sender', id)) throw notFound('sender');
  const now = engage.clock.now();
  const command: SenderCommand = decision.approve ? { type: 'Approve', now } : { type: 'Reject', reason: decision.reason, now };
  const result = await handleCommand(engage.store, senderDecider, senderStream(id), command, metadata);
  return { sender: senderView(result.state, engage.clock.now()), position: result.position };
}
