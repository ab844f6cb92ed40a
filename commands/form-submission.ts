// One submission of a signup form (stream formsubmission-<id>), README "Signup forms": what the
// person entered, sealed under the submission's own key (src/personal-data: subject
// `submission:<id>`), and, with double opt-in, its confirmation by the signed link. Until then
// nothing of it is stored in clear; its key is destroyed once it is confirmed or has expired, or
// when its address is erased.
import type { Decider } from '../src/decider.ts';
import { AppError, notFound } from '../src/errors.ts';

export interface FormSubmittedData {
  account_id: string;
  id: string;
  form_id: string;
  /** the contact fields entered (email, phone, first_name, last_name, custom_fields): personal data */
  fields: Record<string, unknown>;
  /** the keyed hash of the address the confirmation goes to (never the address): what an erasure of that address finds */
  address_hash: string | null;
  /** where the submission came from: personal data */
  ip: string | null;
  user_agent: string | null;
  /** the form's consent text as the person saw it */
  consent_text: string;
  double_opt_in: boolean;
  submitted_at: string;
  /** a pending submission's link works until then (null: no confirmation asked) */
  expires_at: string | null;
}

export type FormSubmissionEvent =
  | { type: 'FormSubmitted'; data: FormSubmittedData }
  /** the person followed the link (double opt-in), or submitted a form without one: the contact is on the list */
  | { type: 'FormSubmissionConfirmed'; data: { account_id: string; id: string; form_id: string; contact_id: string; confirmed_at: string } }
  /** its link ran out before anyone followed it: its key is destroyed, so what was entered reads as erased */
  | { type: 'FormSubmissionExpired'; data: { account_id: string; id: string; form_id: string; expired_at: string } };

export const FORM_SUBMISSION_EVENT_TYPES = ['FormSubmitted', 'FormSubmissionConfirmed', 'FormSubmissionExpired'] as const satisfies readonly FormSubmissionEvent['type'][];

export interface FormSubmissionState {
  status: 'none' | 'pending' | 'confirmed' | 'expired';
  submitted?: FormSubmittedData;
  contactId?: string;
  confirmedAt?: string;
}

export type FormSubmissionCommand =
  | { type: 'Submit'; submission: Omit<FormSubmittedData, 'submitted_at'>; now: Date }
  /** `contactId`: the contact the submission became (found or created by the handler) */
  | { type: 'Confirm'; contactId: string; now: Date }
  /** the sweep of pending submissions past their expiry (nothing for one confirmed or not yet expired) */
  | { type: 'Expire'; now: Date };

const expired = (s: FormSubmittedData, now: Date) => s.expires_at !== null && Date.parse(s.expires_at) <= now.getTime();
/** 410: the link can no longer confirm anything (expired, or its submission erased) */
export const linkExpired = () => new AppError(410, 'gone', 'this confirmation link has expired: submit the form again');

export const formSubmissionDecider: Decider<FormSubmissionCommand, FormSubmissionState, FormSubmissionEvent> = {
  initialState: { status: 'none' },
  evolve(state, event) {
    switch (event.type) {
      case 'FormSubmitted':
        return { status: 'pending', submitted: event.data };
      case 'FormSubmissionConfirmed':
        return { ...state, status: 'confirmed', contactId: event.data.contact_id, confirmedAt: event.data.confirmed_at };
      case 'FormSubmissionExpired':
        return { ...state, status: 'expired' };
    }
  },
  decide(command, state) {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'Submit':
        if (state.status !== 'none') throw new AppError(409, 'conflict', 'submission already exists');
        return [{ type: 'FormSubmitted', data: { ...command.submission, submitted_at: at } }];
      case 'Confirm': {
        if (state.status === 'none') throw notFound('submission');
        // a link followed again confirms nothing more
        if (state.status === 'confirmed') return [];
        const s = state.submitted!;
        if (state.status === 'expired' || expired(s, command.now)) throw linkExpired();
        return [{ type: 'FormSubmissionConfirmed', data: { account_id: s.account_id, id: s.id, form_id: s.form_id, contact_id: command.contactId, confirmed_at: at } }];
      }
      case 'Expire': {
        const s = state.submitted;
        if (state.status !== 'pending' || !s || !expired(s, command.now)) return [];
        return [{ type: 'FormSubmissionExpired', data: { account_id: s.account_id, id: s.id, form_id: s.form_id, expired_at: at } }];
      }
    }
  },
};

export const formSubmissionStream = (id: string) => `formsubmission-${id}`;
