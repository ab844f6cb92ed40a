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
