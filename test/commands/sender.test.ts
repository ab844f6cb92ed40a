// The sender decider's rules (commands/sender.ts): registration pending or approved at once, the
// operator's review (pending → approved | rejected, repeats change nothing, no way back), removal,
// and account isolation.
import { describe, it } from 'vitest';
import { senderDecider, type SenderEvent, type SenderIdentity } from '../../commands/sender.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(senderDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const accountId = 'acct_1';
const base = { id: 'snd_1', account_id: accountId };
const identity: SenderIdentity = { sender: 'ACME', channel: 'sms', country: 'SG', type: 'alphanumeric' };
const register = (registrationRequired: boolean) => ({ type: 'Register' as const, id: 'snd_1', accountId, identity, registrationRequired, now: at(0) });
const registered = (registrationRequired = true): SenderEvent => ({ type: 'SenderRegistered', data: { ...base, ...identity, registration_required: registrationRequired, created_at: iso(0) } });
const approved = (minutes = 5, automatic = false): SenderEvent => ({ type: 'SenderApproved', data: { ...base, approved_at: iso(minutes), automatic } });
const rejected = (minutes = 5): SenderEvent => ({ type: 'SenderRejected', data: { ...base, reason: 'brand not verified', rejected_at: iso(minutes) } });
const removed = (minutes = 9): SenderEvent => ({ type: 'SenderRemoved', data: { ...base, removed_at: iso(minutes) } });

describe('registering a sender', () => {
  it('a sender whose country requires registration is registered pending', () => {
    given([]).when(register(true)).then([registered(true)]);
  });

  it('a sender that needs no registration is registered and approved at once, marked automatic', () => {
    given([]).when(register(false)).then([registered(false), approved(0, true)]);
  });

  it('a stream already holding a sender refuses a second registration (409)', () => {
    given([registered()]).when(register(true)).thenThrows(domainError('conflict', 409));
  });
});

describe('the operator review', () => {
  it('approves a pending sender', () => {
    given([registered()]).when({ type: 'Approve', now: at(5) }).then([approved(5)]);
  });

  it('rejects a pending sender with the reason', () => {
    given([registered()]).when({ type: 'Reject', reason: 'brand not verified', now: at(5) }).then([rejected(5)]);
  });

  it('a repeated decision changes nothing', () => {
    given([registered(), approved()]).when({ type: 'Approve', now: at(6) }).thenNothingHappened();
    given([registered(), rejected()]).when({ type: 'Reject', reason: 'again', now: at(6) }).thenNothingHappened();
  });

  it('a decision is final: an approved sender cannot be rejected, nor a rejected one approved (409)', () => {
    given([registered(), approved()]).when({ type: 'Reject', reason: 'late', now: at(6) }).thenThrows(domainError('conflict', 409));
    given([registered(), rejected()]).when({ type: 'Approve', now: at(6) }).thenThrows(domainError('conflict', 409));
  });

  it('a missing or removed sender cannot be reviewed (404)', () => {
    given([]).when({ type: 'Approve', now: at(5) }).thenThrows(domainError('not_found', 404));
    given([registered(), removed()]).when({ type: 'Reject', reason: 'x', now: at(10) }).thenThrows(domainError('not_found', 404));
  });
});

describe('removing a sender', () => {
  it('the account removes its sender in any status', () => {
    given([registered()]).when({ type: 'Remove', accountId, now: at(9) }).then([removed(9)]);
    given([registered(), approved()]).when({ type: 'Remove', accountId, now: at(9) }).then([removed(9)]);
    given([registered(), rejected()]).when({ type: 'Remove', accountId, now: at(9) }).then([removed(9)]);
  });

  it("another account's sender, a missing one and a removed one are all 404", () => {
    given([registered()]).when({ type: 'Remove', accountId: 'acct_2', now: at(9) }).thenThrows(domainError('not_found', 404));
    given([]).when({ type: 'Remove', accountId, now: at(9) }).thenThrows(domainError('not_found', 404));
    given([registered(), removed()]).when({ type: 'Remove', accountId, now: at(10) }).thenThrows(domainError('not_found', 404));
  });
});

// Proof of ownership (README "Senders and sender rules", "Proving a number"): a code sent to the
// number, entered back. The code itself never reaches the decider: only its keyed hash.
describe('proving a phone-number sender', () => {
  const number: SenderIdentity = { sender: '+447700900555', channel: 'voice', country: 'US', type: 'long_code' };
  const phoneRegistered: SenderEvent = { type: 'SenderRegistered', data: { ...base, ...number, registration_required: false, created_at: iso(0) } };
  const autoApproved = approved(0, true);
  const HASH = 'a'.repeat(43);
  const OTHER = 'b'.repeat(43);
  const request = (minutes: number, method: 'sms' | 'voice' = 'sms', extra: Partial<{ accountId: string; serviceNumber: boolean }> = {}) =>
    ({ type: 'RequestVerification' as const, accountId, method, serviceNumber: false, now: at(minutes), ...extra });
  const requested = (minutes: number, method: 'sms' | 'voice' = 'sms'): SenderEvent => ({ type: 'SenderVerificationRequested', data: { ...base, method, requested_at: iso(minutes) } });
  const started = (minutes: number, method: 'sms' | 'voice' = 'sms', hash = HASH): SenderEvent =>
    ({ type: 'SenderVerificationStarted', data: { ...base, method, code_hash: hash, started_at: iso(minutes), expires_at: iso(minutes + 10) } });
  const failed = (minutes: number, attemptsLeft: number): SenderEvent => ({ type: 'SenderVerificationFailed', data: { ...base, attempts_left: attemptsLeft, failed_at: iso(minutes) } });
  const verified = (minutes: number, method: 'sms' | 'voice' = 'sms'): SenderEvent => ({ type: 'SenderVerified', data: { ...base, sender: number.sender, method, verified_at: iso(minutes) } });
  const verify = (minutes: number, hash = HASH, who = accountId) => ({ type: 'Verify' as const, accountId: who, codeHash: hash, now: at(minutes) });
  const codeOut = [phoneRegistered, autoApproved, requested(1), started(1)];

  it('the account asks for a code by sms or voice call; the courier makes one (only its hash is kept), valid for 10 minutes', () => {
    given([phoneRegistered, autoApproved]).when(request(1, 'voice')).then([requested(1, 'voice')]);
    given([phoneRegistered, autoApproved, requested(1, 'voice')]).when({ type: 'StartVerification', codeHash: HASH, now: at(1) }).then([started(1, 'voice')]);
  });

  it('a code is started once per request: a second courier finds nothing to send', () => {
    given(codeOut).when({ type: 'StartVerification', codeHash: OTHER, now: at(1) }).thenNothingHappened();
    given([phoneRegistered, autoApproved]).when({ type: 'StartVerification', codeHash: OTHER, now: at(1) }).thenNothingHappened();
  });

  it('the right code proves the number; a wrong one counts down 5 attempts, then the code is spent (409 until a new one)', () => {
    given(codeOut).when(verify(2)).then([verified(2)]);
    given(codeOut).when(verify(2, OTHER)).then([failed(2, 4)]);
    const fourWrong = [...codeOut, failed(2, 4), failed(2, 3), failed(2, 2), failed(2, 1)];
    given(fourWrong).when(verify(3, OTHER)).then([failed(3, 0)]);
    given([...fourWrong, failed(3, 0)]).when(verify(4)).thenThrows(domainError('conflict', 409));
    // a new code gives 5 attempts again
    given([...fourWrong, failed(3, 0), requested(5), started(5)]).when(verify(6)).then([verified(6)]);
  });

  it('an expired code is refused (409), right or wrong', () => {
    given(codeOut).when(verify(11)).thenThrows(domainError('conflict', 409));
    given(codeOut).when(verify(12, OTHER)).thenThrows(domainError('conflict', 409));
  });

  it('without a code sent, or once proven, there is nothing to enter (409); another account’s sender is 404', () => {
    given([phoneRegistered, autoApproved]).when(verify(2)).thenThrows(domainError('conflict', 409));
    given([phoneRegistered, autoApproved, requested(1)]).when(verify(2)).thenThrows(domainError('conflict', 409));
    given([...codeOut, verified(2)]).when(verify(3)).thenThrows(domainError('conflict', 409));
    given(codeOut).when(verify(2, HASH, 'acct_2')).thenThrows(domainError('not_found', 404));
    given([phoneRegistered]).when(request(1, 'sms', { accountId: 'acct_2' })).thenThrows(domainError('not_found', 404));
  });

  it('a code that could not be delivered is recorded; a new one may be asked for', () => {
    given(codeOut).when({ type: 'RecordUndelivered', codeHash: HASH, reason: 'invalid_number', now: at(1) })
      .then([{ type: 'SenderVerificationUndelivered', data: { ...base, reason: 'invalid_number', undelivered_at: iso(1) } }]);
    given(codeOut).when({ type: 'RecordUndelivered', codeHash: OTHER, reason: 'late', now: at(1) }).thenNothingHappened();
  });

  it('codes are rate-limited: one a minute, five a day (429)', () => {
    given(codeOut).when(request(1.5)).thenThrows(domainError('rate_limit_exceeded', 429));
    given(codeOut).when(request(2)).then([requested(2)]);
    const five = [phoneRegistered, autoApproved, requested(0), requested(60), requested(120), requested(180), requested(240)];
    given(five).when(request(300)).thenThrows(domainError('rate_limit_exceeded', 429));
    given(five).when(request(24 * 60 + 1)).then([requested(24 * 60 + 1)]);
  });

  it('a proven number may be proven again (numbers change hands: the newest proof holds it)', () => {
    given([...codeOut, verified(2)]).when(request(3)).then([requested(3)]);
  });

  it('only numbers that can receive a code are proven this way (409): not alphanumeric IDs, short codes, whatsapp (its review is the proof) or the service’s own number', () => {
    given([registered(false), approved(0, true)]).when(request(1)).thenThrows(domainError('conflict', 409));
    const shortCode: SenderEvent = { type: 'SenderRegistered', data: { ...base, sender: '12345', channel: 'sms', country: 'DE', type: 'short_code', registration_required: true, created_at: iso(0) } };
    given([shortCode]).when(request(1)).thenThrows(domainError('conflict', 409));
    const whatsapp: SenderEvent = { type: 'SenderRegistered', data: { ...base, ...number, channel: 'whatsapp', registration_required: true, created_at: iso(0) } };
    given([whatsapp]).when(request(1)).thenThrows(domainError('conflict', 409));
    given([phoneRegistered, autoApproved]).when(request(1, 'sms', { serviceNumber: true })).thenThrows(domainError('conflict', 409));
    given([registered(), rejected()]).when(request(6)).thenThrows(domainError('conflict', 409));
  });
});
