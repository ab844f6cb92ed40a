// The custom field definitions decider's rules (commands/custom-fields.ts): one definition per key
// among the live ones, options only on select fields, deletion. The rules for the values a contact
// holds in these fields are in contact.test.ts.
import { describe, it } from 'vitest';
import { customFieldsDecider, type CustomFieldEvent } from '../../commands/custom-fields.ts';
import { AppError } from '../../src/errors.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(customFieldsDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const account_id = 'acct_1';
const defined = (id: string, key: string, minutes = 0): CustomFieldEvent => ({
  type: 'CustomFieldDefined',
  data: { account_id, id, key, label: key.toUpperCase(), type: 'text', created_at: iso(minutes) },
});
const deleted = (id: string, key: string, minutes: number): CustomFieldEvent => ({ type: 'CustomFieldDeleted', data: { account_id, id, key, deleted_at: iso(minutes) } });
const defineText = (id: string, key: string, minutes = 0) => ({ type: 'DefineField' as const, accountId: account_id, id, key, label: key.toUpperCase(), fieldType: 'text' as const, now: at(minutes) });
const invalidOptions = (e: AppError) => e.statusCode === 400 && e.code === 'validation_error' && (e.extra.issues as { path: string }[])[0].path === 'options';

describe('defining a custom field', () => {
  it('a field is defined with its key, label and type', () => {
    given([]).when(defineText('cf_1', 'plan')).then([defined('cf_1', 'plan')]);
  });

  it('a select field is defined with its options', () => {
    given([])
      .when({ type: 'DefineField', accountId: account_id, id: 'cf_1', key: 'tier', label: 'Tier', fieldType: 'select', options: ['gold', 'silver'], now: at(0) })
      .then([{ type: 'CustomFieldDefined', data: { account_id, id: 'cf_1', key: 'tier', label: 'Tier', type: 'select', options: ['gold', 'silver'], created_at: iso(0) } }]);
  });

  it('a key is unique among the live definitions: a second one is a 409 naming the existing field', () => {
    given([defined('cf_1', 'plan')])
      .when(defineText('cf_2', 'plan', 1))
      .thenThrows(AppError, (e) => e.statusCode === 409 && e.code === 'conflict' && e.extra.field_id === 'cf_1');
  });

  it('the key of a deleted field can be defined again', () => {
    given([defined('cf_1', 'plan'), deleted('cf_1', 'plan', 1)]).when(defineText('cf_2', 'plan', 2)).then([defined('cf_2', 'plan', 2)]);
  });

  it('other keys do not conflict', () => {
    given([defined('cf_1', 'plan')]).when(defineText('cf_2', 'region', 1)).then([defined('cf_2', 'region', 1)]);
  });

  it('a select field needs at least one option', () => {
    const select = { type: 'DefineField' as const, accountId: account_id, id: 'cf_1', key: 'tier', label: 'Tier', fieldType: 'select' as const, now: at(0) };
    given([]).when(select).thenThrows(AppError, invalidOptions);
    given([]).when({ ...select, options: [] }).thenThrows(AppError, invalidOptions);
  });

  it('only select fields take options', () => {
    for (const fieldType of ['text', 'number', 'boolean', 'date'] as const) {
      given([]).when({ ...defineText('cf_1', 'plan'), fieldType, options: ['a'] }).thenThrows(AppError, invalidOptions);
    }
  });
});

describe('deleting a custom field', () => {
  it('a field is deleted, and the event names its key', () => {
    given([defined('cf_1', 'plan')]).when({ type: 'DeleteField', accountId: account_id, id: 'cf_1', now: at(5) }).then([deleted('cf_1', 'plan', 5)]);
  });

  it('deleting an unknown or already deleted field is a 404', () => {
    given([]).when({ type: 'DeleteField', accountId: account_id, id: 'cf_1', now: at(5) }).thenThrows(domainError('not_found', 404));
    given([defined('cf_1', 'plan'), deleted('cf_1', 'plan', 1)])
      .when({ type: 'DeleteField', accountId: account_id, id: 'cf_1', now: at(5) })
      .thenThrows(domainError('not_found', 404));
  });
});
