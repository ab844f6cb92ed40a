// The webhook replay decider's rules (commands/webhook-replay.ts): requested once; scanned, then
// completed, by the worker (repeats and a cancel meanwhile record nothing); cancelled by its own
// account only, and not once completed or cancelled.
import { describe, it } from 'vitest';
import { webhookReplayDecider, type WebhookReplayEvent } from '../../commands/webhook-replay.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(webhookReplayDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const accountId = 'acct_1';
const base = { id: 'rpl_1', account_id: accountId };
const request = {
  type: 'Request' as const, id: 'rpl_1', accountId, endpointId: 'we_1', from: '100/7', until: '900/52', fromInput: '2026-02-01T00:00:00Z', untilInput: null,
  types: ['contact.created' as const, 'message.failed' as const], now: at(0),
};
const requested: WebhookReplayEvent = {
  type: 'WebhookReplayRequested',
  data: { ...base, endpoint_id: 'we_1', from: '100/7', until: '900/52', from_input: '2026-02-01T00:00:00Z', until_input: null, types: ['contact.created', 'message.failed'], requested_at: iso(0) },
};
const scanned: WebhookReplayEvent = { type: 'WebhookReplayScanned', data: { ...base, found: 40, at: iso(1) } };
const completed: WebhookReplayEvent = { type: 'WebhookReplayCompleted', data: { ...base, delivered: 38, failed: 2, at: iso(2) } };
const cancelled = (minutes: number, reason?: string): WebhookReplayEvent => ({ type: 'WebhookReplayCancelled', data: { ...base, at: iso(minutes), ...(reason ? { reason } : {}) } });

describe('requesting a replay', () => {
  it('records the window as positions, what the caller gave, and the types', () => {
    given([]).when(request).then([requested]);
  });

  it('a replay is requested once', () => {
    given([requested]).when({ ...request, now: at(5) }).thenThrows(domainError('conflict', 409));
  });
});

describe('the worker moves it along', () => {
  it('the scan reaching until is recorded with what it found, once', () => {
    given([requested]).when({ type: 'MarkScanned', found: 40, now: at(1) }).then([scanned]);
    given([requested, scanned]).when({ type: 'MarkScanned', found: 40, now: at(3) }).thenNothingHappened();
  });

  it('a scanned replay completes with its counts, once', () => {
    given([requested, scanned]).when({ type: 'Complete', delivered: 38, failed: 2, now: at(2) }).then([completed]);
    given([requested, scanned, completed]).when({ type: 'Complete', delivered: 38, failed: 2, now: at(4) }).thenNothingHappened();
  });

  it('a replay still scanning cannot complete', () => {
    given([requested]).when({ type: 'Complete', delivered: 0, failed: 0, now: at(2) }).thenThrows(domainError('conflict', 409));
  });

  it('a replay cancelled meanwhile is neither scanned nor completed', () => {
    given([requested, cancelled(1)]).when({ type: 'MarkScanned', found: 3, now: at(2) }).thenNothingHappened();
    given([requested, scanned, cancelled(2)]).when({ type: 'Complete', delivered: 3, failed: 0, now: at(3) }).thenNothingHappened();
  });

  it('an unknown replay is not found', () => {
    given([]).when({ type: 'MarkScanned', found: 0, now: at(1) }).thenThrows(domainError('not_found', 404));
  });
});

describe('cancelling a replay', () => {
  it('a scanning or delivering replay is cancelled (with the reason, when the worker gives one)', () => {
    given([requested]).when({ type: 'Cancel', accountId, now: at(1) }).then([cancelled(1)]);
    given([requested, scanned]).when({ type: 'Cancel', accountId, now: at(2), reason: 'endpoint deleted' }).then([cancelled(2, 'endpoint deleted')]);
  });

  it('a completed or cancelled replay is a 409 naming its status', () => {
    given([requested, scanned, completed]).when({ type: 'Cancel', accountId, now: at(3) }).thenThrows(domainError('conflict', 409));
    given([requested, cancelled(1)]).when({ type: 'Cancel', accountId, now: at(3) }).thenThrows((e: unknown) => domainError('conflict', 409)(e) !== false && (e as { extra: { status: string } }).extra.status === 'cancelled');
  });

  it("another account's replay is not found", () => {
    given([requested]).when({ type: 'Cancel', accountId: 'acct_2', now: at(1) }).thenThrows(domainError('not_found', 404));
    given([]).when({ type: 'Cancel', accountId, now: at(1) }).thenThrows(domainError('not_found', 404));
  });
});
