// A signup form submission's rules (commands/form-submission.ts): submitted once; confirmed once
// (a link followed again decides nothing), never after its link expired or once the sweep expired
// it; the sweep expires only a pending submission past its expiry.
import { describe, it } from 'vitest';
import { type FormSubmissionEvent, type FormSubmittedData, formSubmissionDecider } from '../../commands/form-submission.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(formSubmissionDecider).given;
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const submission: Omit<FormSubmittedData, 'submitted_at'> = {
  account_id: 'acct_1', id: 'fsub_1', form_id: 'frm_1', fields: { email: 'ann@example.com', custom_fields: {} }, address_hash: 'h1', ip: '203.0.113.9',
  user_agent: 'Mozilla/5.0', consent_text: 'I agree.', double_opt_in: true, expires_at: iso(60),
};
const submitted: FormSubmissionEvent = { type: 'FormSubmitted', data: { ...submission, submitted_at: iso(0) } };
const confirm = (minutes: number) => ({ type: 'Confirm' as const, contactId: 'ct_1', now: at(minutes) });
const confirmed: FormSubmissionEvent = { type: 'FormSubmissionConfirmed', data: { account_id: 'acct_1', id: 'fsub_1', form_id: 'frm_1', contact_id: 'ct_1', confirmed_at: iso(10) } };
const expired: FormSubmissionEvent = { type: 'FormSubmissionExpired', data: { account_id: 'acct_1', id: 'fsub_1', form_id: 'frm_1', expired_at: iso(61) } };

describe('a form submission', () => {
  it('is recorded once', () => {
    given([]).when({ type: 'Submit', submission, now: at(0) }).then([submitted]);
    given([submitted]).when({ type: 'Submit', submission, now: at(1) }).thenThrows(domainError('conflict', 409));
  });

  it('is confirmed once, before its link expires; a link followed again changes nothing', () => {
    given([submitted]).when(confirm(10)).then([confirmed]);
    given([submitted, confirmed]).when(confirm(11)).thenNothingHappened();
    given([submitted]).when(confirm(60)).thenThrows(domainError('gone', 410));
    given([submitted, expired]).when(confirm(30)).thenThrows(domainError('gone', 410));
    given([]).when(confirm(1)).thenThrows(domainError('not_found', 404));
  });

  it('is expired by the sweep only while pending and past its expiry', () => {
    given([submitted]).when({ type: 'Expire', now: at(61) }).then([expired]);
    given([submitted]).when({ type: 'Expire', now: at(59) }).thenNothingHappened();
    given([submitted, confirmed]).when({ type: 'Expire', now: at(61) }).thenNothingHappened();
    given([submitted, expired]).when({ type: 'Expire', now: at(62) }).thenNothingHappened();
  });
});
