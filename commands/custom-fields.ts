// Custom field definitions of one account (stream customfields-<accountId>): keys are unique
// among the live definitions, so the whole set is one aggregate.
import type { Decider } from '../src/decider.ts';
import { conflict, invalidField, notFound } from '../src/errors.ts';
import { calendarDateProblem, timestampProblem } from '../src/timestamps.ts';

export const FIELD_TYPES = ['text', 'number', 'boolean', 'date', 'select'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface FieldDefinition {
  id: string;
  key: string;
  label: string;
  type: FieldType;
  options?: string[];
  created_at: string;
}

export type CustomFieldEvent =
  | { type: 'CustomFieldDefined'; data: FieldDefinition & { account_id: string } }
  | { type: 'CustomFieldDeleted'; data: { account_id: string; id: string; key: string; deleted_at: string } };

export interface CustomFieldsState {
  byId: Map<string, FieldDefinition>;
}

export type CustomFieldCommand =
  | { type: 'DefineField'; accountId: string; id: string; key: string; label: string; fieldType: FieldType; options?: string[]; now: Date }
  | { type: 'DeleteField'; accountId: string; id: string; now: Date };

export const customFieldsDecider: Decider<CustomFieldCommand, CustomFieldsState, CustomFieldEvent> = {
  initialState: { byId: new Map() },
  snapshot: {
    kind: 'custom_fields',
    version: 1,
    every: 100,
    encode: (state) => [...state.byId.values()],
    decode: (value) => ({ byId: new Map((value as FieldDefinition[]).map((d) => [d.id, d])) }),
  },
  evolve(state, event) {
    const byId = new Map(state.byId);
    if (event.type === 'CustomFieldDefined') {
      const { account_id: _a, ...def } = event.data;
      byId.set(def.id, def);
    } else byId.delete(event.data.id);
    return { byId };
  },
  decide(command, state) {
    if (command.type === 'DefineField') {
      for (const d of state.byId.values()) if (d.key === command.key) throw conflict(`a custom field with key "${command.key}" already exists`, { field_id: d.id });
      if (command.fieldType === 'select' && (!command.options || command.options.length === 0)) {
        throw invalidField('options', 'a select field needs at least one option');
      }
      if (command.fieldType !== 'select' && command.options !== undefined) throw invalidField('options', 'only select fields take options');
      return [
        {
          type: 'CustomFieldDefined',
          data: {
            account_id: command.accountId,
            id: command.id,
            key: command.key,
            label: command.label,
            type: command.fieldType,
            ...(command.options ? { options: command.options } : {}),
            created_at: command.now.toISOString(),
          },
        },
      ];
    }
    const def = state.byId.get(command.id);
    if (!def) throw notFound('custom field');
    return [{ type: 'CustomFieldDeleted', data: { account_id: command.accountId, id: def.id, key: def.key, deleted_at: command.now.toISOString() } }];
  },
};

export const customFieldsStream = (accountId: string) => `customfields-${accountId}`;

/** Checks one custom value against its definition; returns an error message or undefined. */
export function checkCustomValue(def: FieldDefinition, value: unknown): string | undefined {
  switch (def.type) {
    case 'text':
      return typeof value === 'string' && value.length <= 10_000 ? undefined : 'must be a string of at most 10000 characters';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a finite number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'date':
      // a date, or a timestamp under the API's one timestamp rule (README "Timestamps")
      if (typeof value === 'string' && !value.includes('T')) return calendarDateProblem(value);
      {
        const problem = timestampProblem(value);
        return problem && `must be a date (YYYY-MM-DD) or an RFC 3339 date-time: ${problem}`;
      }
    case 'select':
      return typeof value === 'string' && def.options?.includes(value) ? undefined : `must be one of: ${(def.options ?? []).join(', ')}`;
  }
}
