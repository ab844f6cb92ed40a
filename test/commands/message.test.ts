// The message decider's rules (commands/message.ts): accepted → (scheduled →) queued → dispatching →
// sent → delivered | failed, or cancelled before dispatch; holds, deferrals, leases, late reports.
import { describe, expect, it } from 'vitest';
import { failureCode, failureReasonOf, messageDecider, type MessageAcceptedData, type MessageEvent } from '../../commands/message.ts';
import { AppError } from '../../src/errors.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(messageDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
/** the instant `seconds` after T0; commands carry their time */
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const iso = (seconds: number) => at(seconds).toISOString();

const base = { id: 'msg_1', account_id: 'acct_1' };
const content = { channel: 'sms' as const, to: '+15551230000', message: 'hello', transactional: true };
const queuedData: MessageAcceptedData = { ...base, ...content, status: 'queued', created_at: iso(0) };
const scheduledData: MessageAcceptedData = { ...queuedData, status: 'scheduled', scheduled_at: iso(3600) };

const accepted: MessageEvent = { type: 'MessageAccepted', data: queuedData };
const acceptedScheduled: MessageEvent = { type: 'MessageAccepted', data: scheduledData };
const queuedWhenDue: MessageEvent = { type: 'MessageQueued', data: { ...base, at: iso(3600), reason: 'due' } };
const LEASE_MS = 30_000;
const claimed = (seconds: number, attempt = 1, worker = 'w1'): MessageEvent => ({
  type: 'MessageDispatching',
  data: { ...base, at: iso(seconds), worker, attempt, lease_until: new Date(at(seconds).getTime() + LEASE_MS).toISOString() },
});
/** a status event's own fields: the message's, and its channel (StatusFacts) */
const status = { ...base, channel: 'sms' as const };
const sent = (seconds: number, provider = 'sandbox', providerMessageId = 'prov_1'): MessageEvent => ({
  type: 'MessageSent',
  data: { ...status, at: iso(seconds), provider, provider_message_id: providerMessageId },
});
const delivered = (seconds: number, providerMessageId = 'prov_1'): MessageEvent => ({ type: 'MessageDelivered', data: { ...status, at: iso(seconds), provider: 'sandbox', provider_message_id: providerMessageId } });
const failed = (seconds: number): MessageEvent => ({ type: 'MessageFailed', data: { ...status, at: iso(seconds), reason: 'rejected', stage: 'provider', provider: 'sandbox' } });
const cancelled = (seconds: number, previous: 'scheduled' | 'queued' = 'queued'): MessageEvent => ({
  type: 'MessageCancelled',
  data: { ...base, at: iso(seconds), previous_status: previous },
});
const deferred = (seconds: number, retrySeconds: number, attempt = 1): MessageEvent => ({
  type: 'MessageDispatchDeferred',
  data: { ...base, at: iso(seconds), attempt, error: 'sandbox: timeout', retry_at: iso(retrySeconds) },
});
const held = (seconds: number, untilSeconds: number): MessageEvent => ({
  type: 'MessageHeld',
  data: { ...base, at: iso(seconds), until: iso(untilSeconds), reason: 'quiet_hours' },
});
const claim = (seconds: number, worker = 'w1') => ({ type: 'Claim' as const, worker, now: at(seconds), leaseMs: LEASE_MS });

describe('accepting a message', () => {
  it('a new message is accepted as given, queued or scheduled', () => {
    given([]).when({ type: 'Accept', data: queuedData }).then([accepted]);
    given([]).when({ type: 'Accept', data: scheduledData }).then([acceptedScheduled]);
  });

  it('a resend is a new message that names the one it resends (and a bulk item its bulk)', () => {
    const resend: MessageAcceptedData = { ...queuedData, id: 'msg_2', resend_of: 'msg_1', bulk_id: 'bulk_1' };
    given([]).when({ type: 'Accept', data: resend }).then([{ type: 'MessageAccepted', data: resend }]);
  });

  it('a message id is accepted only once', () => {
    given([accepted]).when({ type: 'Accept', data: queuedData }).thenThrows(domainError('conflict', 409));
  });

  it('every other command on a message that was never accepted is a 404', () => {
    given([]).when(claim(1)).thenThrows(domainError('not_found', 404));
    given([]).when({ type: 'Cancel', accountId: 'acct_1', now: at(1) }).thenThrows(domainError('not_found', 404));
    given([]).when({ type: 'RecordDelivered', now: at(1) }).thenThrows(domainError('not_found', 404));
  });
});

describe('scheduled messages', () => {
  it('a scheduled message is queued when it falls due', () => {
    given([acceptedScheduled]).when({ type: 'QueueDue', now: at(3600) }).then([queuedWhenDue]);
  });

  it('a message that is not scheduled is not queued again', () => {
    given([accepted]).when({ type: 'QueueDue', now: at(3600) }).thenNothingHappened();
    given([acceptedScheduled, queuedWhenDue]).when({ type: 'QueueDue', now: at(3601) }).thenNothingHappened();
  });

  it('a cancelled scheduled message is never queued', () => {
    given([acceptedScheduled, cancelled(10, 'scheduled')]).when({ type: 'QueueDue', now: at(3600) }).thenNothingHappened();
  });

  it('a scheduled message is not dispatched before it is queued', () => {
    given([acceptedScheduled]).when(claim(3600)).thenNothingHappened();
  });

  it('a scheduled message fails only once queued: a report about it is ignored', () => {
    given([acceptedScheduled]).when({ type: 'RecordFailed', now: at(5), reason: 'x', stage: 'report' }).thenNothingHappened();
  });
});

describe('cancelling', () => {
  it('a scheduled message can be cancelled, and the event says it was scheduled', () => {
    given([acceptedScheduled]).when({ type: 'Cancel', accountId: 'acct_1', now: at(10) }).then([cancelled(10, 'scheduled')]);
  });

  it('a queued message that no dispatcher has claimed can be cancelled', () => {
    given([accepted]).when({ type: 'Cancel', accountId: 'acct_1', now: at(10) }).then([cancelled(10, 'queued')]);
    given([acceptedScheduled, queuedWhenDue]).when({ type: 'Cancel', accountId: 'acct_1', now: at(3601) }).then([cancelled(3601, 'queued')]);
  });

  it("another account's message is as invisible as a missing one", () => {
    given([accepted]).when({ type: 'Cancel', accountId: 'acct_2', now: at(10) }).thenThrows(domainError('not_found', 404));
  });

  it('a message a dispatcher has claimed cannot be cancelled: 409 not_cancellable with its status', () => {
    given([accepted, claimed(1)])
      .when({ type: 'Cancel', accountId: 'acct_1', now: at(2) })
      .thenThrows(AppError, (e) => e.statusCode === 409 && e.code === 'not_cancellable' && e.extra.status === 'queued');
  });

  it('a claimed message cannot be cancelled even after its lease ran out, until a deferral or hold gives it back', () => {
    given([accepted, claimed(1)]).when({ type: 'Cancel', accountId: 'acct_1', now: at(3600) }).thenThrows(domainError('not_cancellable', 409));
  });

  it('a message given back by a deferral or a hold can be cancelled again', () => {
    given([accepted, claimed(1), deferred(2, 60)]).when({ type: 'Cancel', accountId: 'acct_1', now: at(3) }).then([cancelled(3)]);
    given([accepted, claimed(1), held(2, 600)]).when({ type: 'Cancel', accountId: 'acct_1', now: at(3) }).then([cancelled(3)]);
  });

  it('a message already sent, delivered, failed or cancelled cannot be cancelled', () => {
    for (const history of [
      [accepted, claimed(1), sent(2)],
      [accepted, claimed(1), sent(2), delivered(3)],
      [accepted, claimed(1), failed(2)],
      [accepted, cancelled(1)],
    ]) {
      given(history)
        .when({ type: 'Cancel', accountId: 'acct_1', now: at(10) })
        .thenThrows(AppError, (e) => e.code === 'not_cancellable' && !e.message.includes('picked up for dispatch'));
    }
  });
});

describe('the cancel/dispatch race: both append at the revision they read, so exactly one wins', () => {
  it('when the claim is appended first, the cancel re-decides and is refused', () => {
    given([accepted]).when(claim(1)).then([claimed(1)]);
    given([accepted, claimed(1)]).when({ type: 'Cancel', accountId: 'acct_1', now: at(1) }).thenThrows(domainError('not_cancellable', 409));
  });

  it('when the cancel is appended first, the claim re-decides and takes nothing', () => {
    given([accepted]).when({ type: 'Cancel', accountId: 'acct_1', now: at(1) }).then([cancelled(1)]);
    given([accepted, cancelled(1)]).when(claim(1)).thenNothingHappened();
  });
});

describe('claiming for dispatch', () => {
  it('a queued message is claimed with a lease, as attempt 1', () => {
    given([accepted]).when(claim(1)).then([claimed(1)]);
  });

  it('a cancelled message cannot be dispatched', () => {
    given([accepted, cancelled(1)]).when(claim(2)).thenNothingHappened();
  });

  it('a live lease belongs to another dispatcher: the claim is left alone', () => {
    given([accepted, claimed(1, 1, 'w1')]).when(claim(2, 'w2')).thenNothingHappened();
  });

  it('an expired lease is reclaimed, as the next attempt', () => {
    given([accepted, claimed(1, 1, 'w1')]).when(claim(1 + LEASE_MS / 1000 + 1, 'w2')).then([claimed(1 + LEASE_MS / 1000 + 1, 2, 'w2')]);
  });

  it('a lease ends at its lease_until: a claim at that instant takes the message over', () => {
    given([accepted, claimed(1)]).when(claim(1 + LEASE_MS / 1000 - 1)).thenNothingHappened();
    given([accepted, claimed(1)]).when(claim(1 + LEASE_MS / 1000)).then([claimed(1 + LEASE_MS / 1000, 2)]);
  });

  it('a deferred message is claimed again only from its retry time, as the next attempt', () => {
    given([accepted, claimed(1), deferred(2, 60)]).when(claim(59)).thenNothingHappened();
    given([accepted, claimed(1), deferred(2, 60)]).when(claim(60)).then([claimed(60, 2)]);
  });

  it('a held message is claimed again only when the hold ends, and the hold does not count as an attempt', () => {
    given([accepted, claimed(1), held(2, 600)]).when(claim(599)).thenNothingHappened();
    given([accepted, claimed(1), held(2, 600)]).when(claim(600)).then([claimed(600, 1)]);
  });

  it('a message that is sent, delivered or failed is not dispatched again', () => {
    given([accepted, claimed(1), sent(2)]).when(claim(100)).thenNothingHappened();
    given([accepted, claimed(1), sent(2), delivered(3)]).when(claim(100)).thenNothingHappened();
    given([accepted, claimed(1), failed(2)]).when(claim(100)).thenNothingHappened();
  });
});

describe('holding and deferring a claimed message', () => {
  it('a policy hold gives the claim back until a given time, with its reason and detail', () => {
    given([accepted, claimed(1)])
      .when({ type: 'Hold', now: at(2), until: at(600), reason: 'marketing_cap', detail: 'daily cap reached' })
      .then([{ type: 'MessageHeld', data: { ...base, at: iso(2), until: iso(600), reason: 'marketing_cap', detail: 'daily cap reached' } }]);
    given([accepted, claimed(1)]).when({ type: 'Hold', now: at(2), until: at(600), reason: 'quiet_hours' }).then([held(2, 600)]);
  });

  it('a transient provider error defers the message to a retry time, naming the attempt that failed', () => {
    given([accepted, claimed(1), deferred(2, 60), claimed(60, 2)])
      .when({ type: 'Defer', now: at(61), error: 'sandbox: timeout', retryAt: at(180) })
      .then([deferred(61, 180, 2)]);
  });

  it('only a queued message is held or deferred', () => {
    for (const history of [[accepted, cancelled(1)], [accepted, claimed(1), sent(2)], [accepted, claimed(1), failed(2)], [acceptedScheduled]]) {
      given(history).when({ type: 'Hold', now: at(5), until: at(600), reason: 'quiet_hours' }).thenNothingHappened();
      given(history).when({ type: 'Defer', now: at(5), error: 'x', retryAt: at(60) }).thenNothingHappened();
    }
  });
});

describe('recording the outcome of dispatch', () => {
  it('a provider acceptance records the message as sent, with the provider and its message id', () => {
    given([accepted, claimed(1)]).when({ type: 'RecordSent', now: at(2), provider: 'sandbox', providerMessageId: 'prov_1' }).then([sent(2)]);
  });

  it('a message is recorded as sent only once: the dispatcher late after a report is ignored', () => {
    given([accepted, claimed(1), sent(2)]).when({ type: 'RecordSent', now: at(3), provider: 'sandbox', providerMessageId: 'prov_1' }).thenNothingHappened();
    given([accepted, claimed(1), sent(2), delivered(3)]).when({ type: 'RecordSent', now: at(4), provider: 'sandbox', providerMessageId: 'prov_1' }).thenNothingHappened();
  });

  it('a cancelled message is never recorded as sent', () => {
    given([accepted, cancelled(1)]).when({ type: 'RecordSent', now: at(2), provider: 'sandbox', providerMessageId: 'prov_1' }).thenNothingHappened();
  });

  it('a provider rejection fails the message, with the stage, provider and provider data', () => {
    given([accepted, claimed(1)])
      .when({ type: 'RecordFailed', now: at(2), reason: 'invalid_number', stage: 'provider', provider: 'sandbox', providerData: { code: '21211' } })
      .then([{ type: 'MessageFailed', data: { ...status, at: iso(2), reason: 'invalid_number', stage: 'provider', provider: 'sandbox', provider_data: { code: '21211' } } }]);
  });

  it("a reason in the provider's words keeps its category readable and the words apart (reason_text: sealed with the recipient's data)", () => {
    given([accepted, claimed(1), sent(2, 'smtp', 'prov_1')])
      .when({ type: 'RecordFailed', now: at(3), reason: 'bounced:550 mailbox ada@example.com unknown', stage: 'report', provider: 'smtp' })
      .then([{ type: 'MessageFailed', data: { ...status, at: iso(3), reason: 'bounced', reason_text: 'bounced:550 mailbox ada@example.com unknown', stage: 'report', provider: 'smtp', provider_message_id: 'prov_1' } }]);
    // an SMTP reply starts with no category of its own
    given([accepted, claimed(1)])
      .when({ type: 'RecordFailed', now: at(2), reason: '550 5.1.1 <ada@example.com>: Recipient address rejected', stage: 'provider', provider: 'smtp' })
      .then([{ type: 'MessageFailed', data: { ...status, at: iso(2), reason: 'provider_error', reason_text: '550 5.1.1 <ada@example.com>: Recipient address rejected', stage: 'provider', provider: 'smtp' } }]);
  });

  it('failureCode and failureReasonOf read both shapes of MessageFailed: the whole reason (before the split) and category + reason_text', () => {
    for (const [reason, code] of [
      ['provider_unavailable: greylisted', 'provider_unavailable'], ['undelivered:30003 Unreachable', 'undelivered'], ['no-answer', 'no-answer'],
      ['Failed:131026 Message undeliverable', 'failed'], ['suppressed', 'suppressed'], ['  550 <a@b.c> no', 'provider_error'],
    ]) expect(failureCode(reason), reason).toBe(code);
    expect(failureReasonOf({ reason: 'bounced:550 x' })).toBe('bounced:550 x');
    expect(failureReasonOf({ reason: 'bounced', reason_text: 'bounced:550 x', personal_data: { key: 'k', erased: false } })).toBe('bounced:550 x');
    expect(failureReasonOf({ reason: 'bounced', reason_text: '[erased]', personal_data: { key: 'k', erased: true } })).toBe('bounced');
    // read sealed: the words are not there at all
    expect(failureReasonOf({ reason: 'bounced' })).toBe('bounced');
  });

  it('a policy failure (a suppressed recipient) fails the message without naming a provider', () => {
    given([accepted, claimed(1)])
      .when({ type: 'RecordFailed', now: at(2), reason: 'suppressed', stage: 'policy' })
      .then([{ type: 'MessageFailed', data: { ...status, at: iso(2), reason: 'suppressed', stage: 'policy' } }]);
  });
});

describe('delivery reports', () => {
  it('a delivery report for a sent message records it delivered', () => {
    given([accepted, claimed(1), sent(2)])
      .when({ type: 'RecordDelivered', now: at(5), provider: 'sandbox', providerData: { status: 'DELIVRD' } })
      .then([{ type: 'MessageDelivered', data: { ...status, at: iso(5), provider: 'sandbox', provider_message_id: 'prov_1', provider_data: { status: 'DELIVRD' } } }]);
  });

  it('a report that overtakes our own sent record proves the message was sent: sent is recorded first', () => {
    given([accepted, claimed(1)])
      .when({ type: 'RecordDelivered', now: at(5), provider: 'sandbox', providerMessageId: 'prov_9' })
      .then([sent(5, 'sandbox', 'prov_9'), delivered(5, 'prov_9')]);
  });

  it('a report that names neither provider nor provider id still records sent, from an unknown provider', () => {
    given([accepted, claimed(1)])
      .when({ type: 'RecordDelivered', now: at(5) })
      .then([
        { type: 'MessageSent', data: { ...status, at: iso(5), provider: 'unknown' } } as MessageEvent,
        { type: 'MessageDelivered', data: { ...status, at: iso(5) } },
      ]);
  });

  it('duplicate and late delivery reports are ignored', () => {
    for (const history of [[accepted, claimed(1), sent(2), delivered(3)], [accepted, claimed(1), failed(2)], [accepted, cancelled(1)], [acceptedScheduled]]) {
      given(history).when({ type: 'RecordDelivered', now: at(10), provider: 'sandbox' }).thenNothingHappened();
    }
  });

  it('a failure report for a sent message fails it', () => {
    given([accepted, claimed(1), sent(2)])
      .when({ type: 'RecordFailed', now: at(5), reason: 'undelivered', stage: 'report', provider: 'sandbox' })
      .then([{ type: 'MessageFailed', data: { ...status, at: iso(5), reason: 'undelivered', stage: 'report', provider: 'sandbox', provider_message_id: 'prov_1' } }]);
  });

  it('a failure report that overtakes our own sent record records sent first, then failed', () => {
    given([accepted, claimed(1)])
      .when({ type: 'RecordFailed', now: at(5), reason: 'undelivered', stage: 'report', provider: 'sandbox', providerMessageId: 'prov_9' })
      .then([sent(5, 'sandbox', 'prov_9'), { type: 'MessageFailed', data: { ...status, at: iso(5), reason: 'undelivered', stage: 'report', provider: 'sandbox', provider_message_id: 'prov_9' } }]);
  });

  it('a message that is delivered, failed or cancelled stays so: later failures are ignored', () => {
    for (const history of [[accepted, claimed(1), sent(2), delivered(3)], [accepted, claimed(1), failed(2)], [accepted, cancelled(1)]]) {
      given(history).when({ type: 'RecordFailed', now: at(10), reason: 'undelivered', stage: 'report' }).thenNothingHappened();
    }
  });
});
