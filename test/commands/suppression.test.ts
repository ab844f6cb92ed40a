// The suppression decider's rules (commands/suppression.ts): one recipient address in one account
// is suppressed (opted out) or not; repeating either command changes nothing.
import { describe, it } from 'vitest';
import { suppressionDecider, type SuppressionEvent, type SuppressionReason } from '../../commands/suppression.ts';
import { DeciderSpecification } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(suppressionDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const recipient = { account_id: 'acct_1', address_hash: 'h1', address: '+15551230000' };
const command = { accountId: 'acct_1', addressHash: 'h1', address: '+15551230000' };
const suppressed = (minutes: number, reason: SuppressionReason = 'stop'): SuppressionEvent => ({
  type: 'RecipientSuppressed',
  data: { ...recipient, reason, source: 'inbound', at: iso(minutes) },
});
const unsuppressed = (minutes: number): SuppressionEvent => ({ type: 'RecipientUnsuppressed', data: { ...recipient, source: 'api', at: iso(minutes) } });
const suppress = (minutes: number, reason: 'stop' | 'complaint' | 'erasure' = 'stop') => ({ type: 'Suppress' as const, ...command, reason, source: 'inbound', now: at(minutes) });
const unsuppress = (minutes: number) => ({ type: 'Unsuppress' as const, ...command, source: 'api', now: at(minutes) });

describe('suppressing a recipient', () => {
  it('a recipient is suppressed with a reason and the source that reported it', () => {
    given([]).when(suppress(1)).then([suppressed(1)]);
  });

  it('a suppression caused by a message names that message', () => {
    given([])
      .when({ ...suppress(1, 'complaint'), messageId: 'msg_1' })
      .then([{ type: 'RecipientSuppressed', data: { ...recipient, reason: 'complaint', source: 'inbound', message_id: 'msg_1', at: iso(1) } }]);
  });

  it('the kind of address (email or phone) is kept in clear beside the sealed address', () => {
    given([])
      .when({ ...suppress(1), channel: 'phone' })
      .then([{ type: 'RecipientSuppressed', data: { ...recipient, channel: 'phone', reason: 'stop', source: 'inbound', at: iso(1) } }]);
  });

  it('a suppressed recipient stays suppressed for its first reason: suppressing again changes nothing', () => {
    given([suppressed(1, 'stop')]).when(suppress(2, 'complaint')).thenNothingHappened();
  });
});

describe('lifting a suppression', () => {
  it('a suppressed recipient is unsuppressed', () => {
    given([suppressed(1)]).when(unsuppress(2)).then([unsuppressed(2)]);
  });

  it('unsuppressing a recipient that is not suppressed changes nothing', () => {
    given([]).when(unsuppress(1)).thenNothingHappened();
    given([suppressed(1), unsuppressed(2)]).when(unsuppress(3)).thenNothingHappened();
  });

  it('a lift restricted to some reasons lifts only a suppression of one of them (a double opt-in undoes an unsubscribe, never a complaint)', () => {
    given([suppressed(1, 'unsubscribe')]).when({ ...unsuppress(2), reasons: ['unsubscribe'] }).then([unsuppressed(2)]);
    given([suppressed(1, 'complaint')]).when({ ...unsuppress(2), reasons: ['unsubscribe'] }).thenNothingHappened();
    given([suppressed(1, 'stop')]).when({ ...unsuppress(2), reasons: ['unsubscribe'] }).thenNothingHappened();
  });

  it('a recipient can be suppressed again after a suppression was lifted', () => {
    given([suppressed(1), unsuppressed(2)]).when(suppress(3)).then([suppressed(3)]);
  });
});

describe('the suppression an erasure leaves', () => {
  const byErasure: SuppressionEvent = { type: 'RecipientSuppressed', data: { account_id: 'acct_1', address_hash: 'h1', reason: 'erasure', source: 'erasure', at: iso(5) } };

  it('is kept by the hash alone: the address is not in it', () => {
    given([]).when({ type: 'Suppress', accountId: 'acct_1', addressHash: 'h1', reason: 'erasure', source: 'erasure', now: at(5) }).then([byErasure]);
  });

  it('replaces an earlier suppression of another reason, so it outlives that one being lifted', () => {
    given([suppressed(1, 'stop')]).when({ type: 'Suppress', accountId: 'acct_1', addressHash: 'h1', reason: 'erasure', source: 'erasure', now: at(5) }).then([byErasure]);
  });

  it('is never lifted, and is not replaced by a later suppression', () => {
    given([byErasure]).when(unsuppress(6)).thenNothingHappened();
    given([byErasure]).when(suppress(6, 'complaint')).thenNothingHappened();
    given([byErasure]).when({ type: 'Suppress', accountId: 'acct_1', addressHash: 'h1', reason: 'erasure', source: 'erasure', now: at(7) }).thenNothingHappened();
  });
});

