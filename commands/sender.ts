// A registered sender identity (stream sender-<id>): registered pending, or approved at once when
// its country's rules need no registration for its type; an operator approves or rejects a pending
// one; the account may remove it at any time. A phone number that can receive a code is proven the
// account's by a code sent to it and entered back (README "Senders and sender rules", "Proving a
// number"); a whatsapp number by the operator's approval after the platform's review.
import { timingSafeEqual } from 'node:crypto';
import type { Decider } from '../src/decider.ts';
import { AppError, conflict, notFound } from '../src/errors.ts';

export type SenderStatus = 'pending' | 'approved' | 'rejected';
export type RegisteredSenderType = 'alphanumeric' | 'long_code' | 'short_code' | 'toll_free';
export type RegisteredSenderChannel = 'sms' | 'voice' | 'whatsapp';
/** How a code reaches the number: a text, or a call that reads it out. */
export type VerificationMethod = 'sms' | 'voice';

export interface SenderIdentity {
  sender: string;
  channel: RegisteredSenderChannel;
  country: string;
  type: RegisteredSenderType;
}

/** A code is good for 10 minutes and 5 tries; a new one at most once a minute and 5 times a day. */
export const CODE_TTL_MS = 10 * 60_000;
export const CODE_ATTEMPTS = 5;
export const CODE_RESEND_INTERVAL_MS = 60_000;
export const CODES_PER_DAY = 5;
const DAY_MS = 24 * 60 * 60_000;

export type SenderEvent =
  | { type: 'SenderRegistered'; data: { id: string; account_id: string } & SenderIdentity & { registration_required: boolean; created_at: string } }
  | { type: 'SenderApproved'; data: { id: string; account_id: string; approved_at: string; automatic: boolean } }
  | { type: 'SenderRejected'; data: { id: string; account_id: string; reason: string; rejected_at: string } }
  | { type: 'SenderRemoved'; data: { id: string; account_id: string; removed_at: string } }
  /** the account asked for a code; the service's courier makes and sends it */
  | { type: 'SenderVerificationRequested'; data: { id: string; account_id: string; method: VerificationMethod; requested_at: string } }
  /** a code was made and is on its way: only its keyed hash is kept */
  | { type: 'SenderVerificationStarted'; data: { id: string; account_id: string; method: VerificationMethod; code_hash: string; started_at: string; expires_at: string } }
  | { type: 'SenderVerificationUndelivered'; data: { id: string; account_id: string; reason: string; undelivered_at: string } }
  /** a wrong code; at 0 attempts left the code is spent */
  | { type: 'SenderVerificationFailed'; data: { id: string; account_id: string; attempts_left: number; failed_at: string } }
  | { type: 'SenderVerified'; data: { id: string; account_id: string; sender: string; method: VerificationMethod; verified_at: string } };

export const SENDER_EVENT_TYPES = [
  'SenderRegistered', 'SenderApproved', 'SenderRejected', 'SenderRemoved',
  'SenderVerificationRequested', 'SenderVerificationStarted', 'SenderVerificationUndelivered', 'SenderVerificationFailed', 'SenderVerified',
] as const satisfies readonly SenderEvent['type'][];

/** Where a sender is on the way to proof. (A read model adds `lost`: another account proved the number since.) */
export type VerificationStatus = 'not_applicable' | 'unverified' | 'sending' | 'code_sent' | 'undelivered' | 'locked' | 'verified';

export interface SenderVerificationState {
  status: VerificationStatus;
  method?: VerificationMethod | 'operator_review';
  codeHash?: string;
  expiresAt?: string;
  attemptsLeft?: number;
  verifiedAt?: string;
  /** when codes were asked for, the last day's worth: the resend limits */
  requests: string[];
  /** a code was asked for and none made for it yet */
  pendingRequest?: boolean;
}

export interface SenderState {
  exists: boolean;
  removed: boolean;
  id?: string;
  accountId?: string;
  identity?: SenderIdentity;
  registrationRequired?: boolean;
  status?: SenderStatus;
  rejectionReason?: string;
  createdAt?: string;
  updatedAt?: string;
  verification?: SenderVerificationState;
}

export type SenderCommand =
  | { type: 'Register'; id: string; accountId: string; identity: SenderIdentity; registrationRequired: boolean; now: Date }
  /** an operator's decision: no account, the operator acts across accounts */
  | { type: 'Approve'; now: Date }
  | { type: 'Reject'; reason: string; now: Date }
  | { type: 'Remove'; accountId: string; now: Date }
  /** `serviceNumber`: the sender is one of the service's own default numbers (the handler knows the configuration) */
  | { type: 'RequestVerification'; accountId: string; method: VerificationMethod; serviceNumber: boolean; now: Date }
  /** the courier's: the keyed hash of the code it made (the code never comes here) */
  | { type: 'StartVerification'; codeHash: string; now: Date }
  | { type: 'RecordUndelivered'; codeHash: string; reason: string; now: Date }
  | { type: 'Verify'; accountId: string; codeHash: string; now: Date };

/** Numbers that can receive a code: long codes and toll-free numbers (not brand names, not short codes). */
export const canReceiveCode = (type: RegisteredSenderType) => type === 'long_code' || type === 'toll_free';

/** Whatsapp numbers are proven by the operator's approval after the platform's review; other numbers by a code, when they can receive one. */
const initialVerification = (identity: SenderIdentity): SenderVerificationState => ({
  status: identity.channel === 'whatsapp' || canReceiveCode(identity.type) ? 'unverified' : 'not_applicable',
  requests: [],
});

/** Hashes compared in constant time: how long a comparison takes says nothing about the code. */
function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The 429 of README "Rate limits": `window` in words ("1 minute"), `retry_after` in seconds. */
const tooSoon = (retryAfterMs: number, limit: number, window: '1 minute' | '1 day') => {
  const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError(429, 'rate_limit_exceeded', `at most ${limit} code(s) per ${window.slice(2)} for a sender; retry after ${retryAfter} s`, { limit, window, retry_after: retryAfter });
};

export const senderDecider: Decider<SenderCommand, SenderState, SenderEvent> = {
  initialState: { exists: false, removed: false },
  evolve(state, e) {
    const v = state.verification ?? { status: 'unverified' as const, requests: [] };
    switch (e.type) {
      case 'SenderRegistered': {
        const { id, account_id, registration_required, created_at, ...identity } = e.data;
        return { exists: true, removed: false, id, accountId: account_id, identity, registrationRequired: registration_required, status: 'pending', createdAt: created_at, updatedAt: created_at, verification: initialVerification(identity) };
      }
      case 'SenderApproved': {
        // the operator's approval of a whatsapp number follows the platform's own check of it
        const proven = state.identity?.channel === 'whatsapp' && !e.data.automatic;
        return { ...state, status: 'approved', updatedAt: e.data.approved_at, ...(proven ? { verification: { status: 'verified', method: 'operator_review', verifiedAt: e.data.approved_at, requests: [] } } : {}) };
      }
      case 'SenderRejected':
        return { ...state, status: 'rejected', rejectionReason: e.data.reason, updatedAt: e.data.rejected_at };
      case 'SenderRemoved':
        return { ...state, removed: true, updatedAt: e.data.removed_at };
      case 'SenderVerificationRequested': {
        const dayAgo = Date.parse(e.data.requested_at) - DAY_MS;
        const requests = [...v.requests.filter((r) => Date.parse(r) > dayAgo), e.data.requested_at];
        // a proven sender stays proven while a new proof is under way
        const status: VerificationStatus = v.status === 'verified' ? 'verified' : 'sending';
        return { ...state, verification: { ...v, status, method: e.data.method, requests, codeHash: undefined, expiresAt: undefined, attemptsLeft: undefined, pendingRequest: true } };
      }
      case 'SenderVerificationStarted':
        return { ...state, verification: { ...v, status: v.status === 'verified' ? 'verified' : 'code_sent', method: e.data.method, codeHash: e.data.code_hash, expiresAt: e.data.expires_at, attemptsLeft: CODE_ATTEMPTS, pendingRequest: false } };
      case 'SenderVerificationUndelivered':
        return { ...state, verification: { ...v, status: v.status === 'verified' ? 'verified' : 'undelivered', codeHash: undefined, expiresAt: undefined, attemptsLeft: undefined } };
      case 'SenderVerificationFailed': {
        const spent = e.data.attempts_left === 0;
        return { ...state, verification: { ...v, status: spent && v.status !== 'verified' ? 'locked' : v.status, attemptsLeft: e.data.attempts_left, ...(spent ? { codeHash: undefined, expiresAt: undefined } : {}) } };
      }
      case 'SenderVerified':
        return { ...state, updatedAt: e.data.verified_at, verification: { status: 'verified', method: e.data.method, verifiedAt: e.data.verified_at, requests: v.requests } };
    }
  },
  decide(c, state) {
    const at = c.now.toISOString();
    if (c.type === 'Register') {
      if (state.exists) throw conflict('sender already exists');
      const base = { id: c.id, account_id: c.accountId };
      const registered: SenderEvent = { type: 'SenderRegistered', data: { ...base, ...c.identity, registration_required: c.registrationRequired, created_at: at } };
      // nothing to wait for: the sender is usable at once, through the same transition an operator makes
      if (!c.registrationRequired) return [registered, { type: 'SenderApproved', data: { ...base, approved_at: at, automatic: true } }];
      return [registered];
    }
    if (!state.exists || state.removed) throw notFound('sender');
    if ((c.type === 'Remove' || c.type === 'RequestVerification' || c.type === 'Verify') && state.accountId !== c.accountId) throw notFound('sender');
    const base = { id: state.id!, account_id: state.accountId! };
    const identity = state.identity!;
    const v = state.verification ?? initialVerification(identity);
    switch (c.type) {
      case 'Remove':
        return [{ type: 'SenderRemoved', data: { ...base, removed_at: at } }];
      case 'Approve':
        if (state.status === 'approved') return [];
        if (state.status === 'rejected') throw conflict('a rejected sender cannot be approved; the account removes it and registers it again', { status: state.status });
        return [{ type: 'SenderApproved', data: { ...base, approved_at: at, automatic: false } }];
      case 'Reject':
        if (state.status === 'rejected') return [];
        if (state.status === 'approved') throw conflict('an approved sender cannot be rejected; remove it instead', { status: state.status });
        return [{ type: 'SenderRejected', data: { ...base, reason: c.reason, rejected_at: at } }];
      case 'RequestVerification': {
        if (identity.channel === 'whatsapp') throw conflict("a whatsapp number is proven by the platform's review: an operator approves it after it");
        if (!canReceiveCode(identity.type)) throw conflict(`a ${identity.type.replace('_', ' ')} sender cannot receive a code, so it is not proven this way (and routes no replies by registration)`);
        if (c.serviceNumber) throw conflict("this is one of the service's own numbers: no account can prove it");
        if (state.status === 'rejected') throw conflict('a rejected sender cannot be proven; the account removes it and registers it again', { status: state.status });
        const now = c.now.getTime();
        const recent = v.requests.map((r) => Date.parse(r)).filter((t) => t > now - DAY_MS);
        const last = recent.length ? Math.max(...recent) : undefined;
        if (last !== undefined && now - last < CODE_RESEND_INTERVAL_MS) throw tooSoon(last + CODE_RESEND_INTERVAL_MS - now, 1, '1 minute');
        if (recent.length >= CODES_PER_DAY) throw tooSoon(Math.min(...recent) + DAY_MS - now, CODES_PER_DAY, '1 day');
        return [{ type: 'SenderVerificationRequested', data: { ...base, method: c.method, requested_at: at } }];
      }
      case 'StartVerification': {
        // one code per request: a second courier (or a retry) finds the request served
        if (!v.pendingRequest) return [];
        const expires = new Date(c.now.getTime() + CODE_TTL_MS).toISOString();
        return [{ type: 'SenderVerificationStarted', data: { ...base, method: v.method as VerificationMethod, code_hash: c.codeHash, started_at: at, expires_at: expires } }];
      }
      case 'RecordUndelivered':
        if (!v.codeHash || !sameHash(v.codeHash, c.codeHash)) return [];
        return [{ type: 'SenderVerificationUndelivered', data: { ...base, reason: c.reason, undelivered_at: at } }];
      case 'Verify': {
        if (v.status === 'locked') throw conflict('too many wrong codes: ask for a new code (POST /v1/senders/:id/verification)', { verification: 'locked' });
        if (!v.codeHash || !v.expiresAt) {
          throw conflict(v.status === 'verified' ? 'this sender is already verified; no code is pending' : 'no code is pending: ask for one (POST /v1/senders/:id/verification)', { verification: v.status });
        }
        if (c.now.getTime() >= Date.parse(v.expiresAt)) throw conflict('the code has expired: ask for a new code (POST /v1/senders/:id/verification)', { verification: 'expired' });
        if (!sameHash(v.codeHash, c.codeHash)) return [{ type: 'SenderVerificationFailed', data: { ...base, attempts_left: Math.max(0, (v.attemptsLeft ?? CODE_ATTEMPTS) - 1), failed_at: at } }];
        return [{ type: 'SenderVerified', data: { ...base, sender: identity.sender, method: v.method as VerificationMethod, verified_at: at } }];
      }
    }
  },
};

export const senderStream = (id: string) => `sender-${id}`;
