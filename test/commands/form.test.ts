// The signup form decider's rules (commands/form.ts): a form is created once; an update records
// only what changes (nothing when nothing does); a deleted, missing or another account's form is
// not found for an update or a delete.
import { describe, expect, it } from 'vitest';
import { type FormDefinition, type FormEvent, formDecider } from '../../commands/form.ts';
import { fold } from '../../src/decider.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(formDecider).given;
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const account_id = 'acct_1';
const definition: FormDefinition = {
  name: 'Newsletter',
  fields: [{ name: 'email', label: 'Email', required: true }],
  list_id: 'lst_1',
  double_opt_in: true,
  confirmation: { channel: 'email', subject: 'Confirm', message: 'Click {{ confirm_url }}' },
  consent_text: 'I agree to receive the newsletter.',
  redirect_url: null,
  min_fill_seconds: 3,
};
const created: FormEvent = { type: 'FormCreated', data: { account_id, id: 'frm_1', ...definition, created_at: iso(0) } };
const create = { type: 'CreateForm' as const, accountId: account_id, id: 'frm_1', definition, now: at(0) };
const update = (changes: Partial<FormDefinition>, accountId = account_id) => ({ type: 'UpdateForm' as const, accountId, changes, now: at(5) });
const deleted: FormEvent = { type: 'FormDeleted', data: { account_id, id: 'frm_1', deleted_at: iso(9) } };

describe('a signup form', () => {
  it('is created with its whole definition, once', () => {
    given([]).when(create).then([created]);
    expect(fold(formDecider, [created])).toMatchObject({ status: 'active', id: 'frm_1', accountId: account_id, definition });
    given([created]).when(create).thenThrows(domainError('conflict', 409));
  });

  it('records only the fields an update changes, and nothing when none does', () => {
    given([created]).when(update({ ...definition, name: 'Weekly news' })).then([
      { type: 'FormUpdated', data: { account_id, id: 'frm_1', changes: { name: 'Weekly news' }, updated_at: iso(5) } },
    ]);
    given([created]).when(update(definition)).thenNothingHappened();
    const changed: FormEvent = { type: 'FormUpdated', data: { account_id, id: 'frm_1', changes: { double_opt_in: false }, updated_at: iso(5) } };
    expect(fold(formDecider, [created, changed]).definition).toEqual({ ...definition, double_opt_in: false });
  });

  it("is not found for another account, once deleted, or when it never existed", () => {
    given([created]).when(update({ name: 'x' }, 'acct_2')).thenThrows(domainError('not_found', 404));
    given([created, deleted]).when(update({ name: 'x' })).thenThrows(domainError('not_found', 404));
    given([]).when({ type: 'DeleteForm', accountId: account_id, now: at(1) }).thenThrows(domainError('not_found', 404));
    given([created]).when({ type: 'DeleteForm', accountId: account_id, now: at(9) }).then([deleted]);
    given([created, deleted]).when({ type: 'DeleteForm', accountId: account_id, now: at(10) }).thenThrows(domainError('not_found', 404));
  });
});
