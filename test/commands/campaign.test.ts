// The campaign decider's rules (commands/campaign.ts): created scheduled or to be sent now; a
// scheduled campaign cancelled only before its send starts; a send started once, when due; batches
// recorded in contact order, each once; sent with the totals of its batches; failed when its
// audience is gone; another account's campaign is missing.
import { describe, expect, it } from 'vitest';
import { type CampaignEvent, campaignDecider } from '../../commands/campaign.ts';
import { fold } from '../../src/decider.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(campaignDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const accountId = 'acct_1';
const base = { account_id: accountId, id: 'cmp_1' };
const audience = { type: 'list' as const, id: 'lst_1' };
const template = { channel: 'email' as const, message: 'Hello', subject: 'News', transactional: false };

const create = (scheduledAt?: Date) => ({ type: 'CreateCampaign' as const, accountId, id: 'cmp_1', name: 'Spring', audience, template, scheduledAt, now: at(0) });
const createdNow: CampaignEvent = { type: 'CampaignCreated', data: { ...base, name: 'Spring', audience, template, scheduled_at: null, created_at: iso(0) } };
const createdFor = (minutes: number): CampaignEvent => ({ type: 'CampaignCreated', data: { ...createdNow.data, scheduled_at: iso(minutes) } });
const started = (minutes = 1): CampaignEvent => ({ type: 'CampaignSendStarted', data: { ...base, started_at: iso(minutes) } });
const batch = (through: string, accepted: number, skipped: number): CampaignEvent => ({
  type: 'CampaignBatchAccepted', data: { ...base, through_contact_id: through, accepted, skipped, at: iso(2) },
});

describe('creating a campaign', () => {
  it('without scheduled_at it is to be sent now; with a future one it is scheduled', () => {
    given([]).when(create()).then([createdNow]);
    given([]).when(create(at(60))).then([createdFor(60)]);
    expect(fold(campaignDecider, [createdNow]).status).toBe('sending');
    expect(fold(campaignDecider, [createdFor(60)]).status).toBe('scheduled');
  });

  it('a scheduled_at that is not in the future sends now', () => {
    given([]).when(create(at(0))).then([createdNow]);
  });

  it('is created once', () => {
    given([createdNow]).when(create()).thenThrows(domainError('conflict', 409));
  });
});

describe('cancelling a campaign', () => {
  const cancel = (account = accountId) => ({ type: 'CancelCampaign' as const, accountId: account, now: at(5) });

  it('a scheduled campaign is cancelled, and cancelling it again changes nothing', () => {
    const cancelled: CampaignEvent = { type: 'CampaignCancelled', data: { ...base, cancelled_at: iso(5) } };
    given([createdFor(60)]).when(cancel()).then([cancelled]);
    given([createdFor(60), cancelled]).when(cancel()).thenNothingHappened();
  });

  it('a campaign being sent or sent is not cancellable (409 naming its status)', () => {
    const notCancellable = (status: string) => (e: unknown) => domainError('not_cancellable', 409)(e) !== false && (e as { extra?: { status?: string } }).extra?.status === status;
    given([createdNow]).when(cancel()).thenThrows(notCancellable('sending'));
    given([createdFor(1), started(1)]).when(cancel()).thenThrows(notCancellable('sending'));
    given([createdNow, started(), { type: 'CampaignSent', data: { ...base, name: 'Spring', accepted: 0, skipped: 0, sent_at: iso(3) } }]).when(cancel()).thenThrows(notCancellable('sent'));
  });

  it("another account's campaign and a missing one are not found", () => {
    given([createdFor(60)]).when(cancel('acct_2')).thenThrows(domainError('not_found', 404));
    given([]).when(cancel()).thenThrows(domainError('not_found', 404));
  });
});

describe('sending a campaign', () => {
  const start = (minutes: number) => ({ type: 'StartSend' as const, now: at(minutes) });
  const record = (through: string, accepted: number, skipped: number) => ({ type: 'RecordBatch' as const, throughContactId: through, accepted, skipped, now: at(2) });
  const complete = { type: 'CompleteSend' as const, now: at(3) };

  it('starts once: a campaign to be sent now at once, a scheduled one when due and not before', () => {
    given([createdNow]).when(start(1)).then([started(1)]);
    given([createdNow, started(1)]).when(start(2)).thenNothingHappened();
    given([createdFor(10)]).when(start(5)).thenThrows(domainError('conflict', 409));
    given([createdFor(10)]).when(start(10)).then([started(10)]);
  });

  it('a cancelled, sent or failed campaign is not started again', () => {
    given([createdFor(10), { type: 'CampaignCancelled', data: { ...base, cancelled_at: iso(5) } }]).when(start(10)).thenNothingHappened();
    given([createdNow, started(), { type: 'CampaignSent', data: { ...base, name: 'Spring', accepted: 0, skipped: 0, sent_at: iso(3) } }]).when(start(10)).thenNothingHappened();
    given([createdNow, started(), { type: 'CampaignFailed', data: { ...base, reason: 'x', failed_at: iso(3) } }]).when(start(10)).thenNothingHappened();
    given([]).when(start(10)).thenThrows(domainError('not_found', 404));
  });

  it('records batches in contact order, each once, and is sent with their totals', () => {
    given([createdNow, started()]).when(record('ct_5', 4, 1)).then([batch('ct_5', 4, 1)]);
    given([createdNow, started(), batch('ct_5', 4, 1)]).when(record('ct_5', 4, 1)).thenThrows(domainError('conflict', 409));
    given([createdNow, started(), batch('ct_5', 4, 1)]).when(record('ct_3', 1, 0)).thenThrows(domainError('conflict', 409));
    given([createdNow, started(), batch('ct_5', 4, 1), batch('ct_9', 3, 0)])
      .when(complete)
      .then([{ type: 'CampaignSent', data: { ...base, name: 'Spring', accepted: 7, skipped: 1, sent_at: iso(3) } }]);
  });

  it('records no batch before its send started, and is sent once', () => {
    given([createdNow]).when(record('ct_5', 1, 0)).thenThrows(domainError('conflict', 409));
    const sent: CampaignEvent = { type: 'CampaignSent', data: { ...base, name: 'Spring', accepted: 0, skipped: 0, sent_at: iso(3) } };
    given([createdNow, started(), sent]).when(complete).thenNothingHappened();
    given([createdNow, started(), sent]).when(record('ct_9', 1, 0)).thenThrows(domainError('conflict', 409));
  });

  it('fails when its audience is gone, once', () => {
    const failed: CampaignEvent = { type: 'CampaignFailed', data: { ...base, reason: 'the list was deleted', failed_at: iso(2) } };
    given([createdNow, started()]).when({ type: 'FailSend', reason: 'the list was deleted', now: at(2) }).then([failed]);
    given([createdNow, started(), failed]).when({ type: 'FailSend', reason: 'x', now: at(3) }).thenNothingHappened();
  });
});
