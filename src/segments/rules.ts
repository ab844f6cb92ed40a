// Segment rule sets (README "Segments"): the fields and operators a rule may use, each
// operator's value type, the limits, and the validation of a rule set against an account's custom
// field definitions, with issue paths that name the rule exactly (`rules[1].rules[0].value`).
//
// Paths are relative to the rule set: its own keys are `match` and `rules`, the rule at index 2 of
// the top group is `rules[2]`; a problem with the set as a whole (missing, not a group, too many
// rules) is `rules`. Whether a list id is the account's is the caller's to check (a write reads the
// list's stream, a preview the lists read model): validation returns the list ids it saw, with paths.
import { z } from 'zod';
import type { FieldType as CustomFieldType } from '../../commands/custom-fields.ts';
import { isGroup, type SegmentGroup, type SegmentRule } from '../../commands/segment.ts';
import { normalisePhone } from '../contacts/validation.ts';
import type { Issue } from '../errors.ts';
import { isId } from '../ids.ts';
import { calendarDateProblem, timestampProblem } from '../timestamps.ts';

/** Groups nest at most this deep (the top group is 1). */
export const MAX_DEPTH = 3;
/** Rules (not counting groups) in one rule set, at most. */
export const MAX_RULES = 50;
/** Values of one `in` or `not_in`, at most. */
export const MAX_IN_VALUES = 1_000;
/** Characters of one text value, at most (a custom text value holds up to 10,000). */
export const MAX_TEXT = 10_000;
/** The largest `within_days`, `within_last_days` and `more_than_days_ago` (100 years). */
export const MAX_DAYS = 36_500;
export const MAX_EVENT_COUNT = 1_000_000_000;

export type RuleFieldType = 'text' | 'number' | 'boolean' | 'date' | 'select' | 'list' | 'tag' | 'event' | 'suppressed';

/** What an operator's `value` must be. */
export type ValueType = 'none' | 'string' | 'string[]' | 'number' | 'number_range' | 'date' | 'day' | 'days' | 'option' | 'option[]' | 'list_id';

export const VALUE_TYPES: Readonly<Record<ValueType, string>> = {
  none: 'no value (leave value out)',
  string: `a string of 1 to ${MAX_TEXT} characters`,
  'string[]': `an array of 1 to ${MAX_IN_VALUES} strings`,
  number: 'a number',
  number_range: 'an array [min, max] of two numbers, min ≤ max, both included',
  date: 'a date (YYYY-MM-DD, a whole UTC day) or an RFC 3339 date-time with an offset',
  day: 'a date, YYYY-MM-DD (a UTC day)',
  days: `a whole number of days, 1 to ${MAX_DAYS}`,
  option: "one of the field's options",
  'option[]': `an array of 1 to ${MAX_IN_VALUES} of the field's options`,
  list_id: "the id of one of the account's lists (lst_…)",
};

/** Every operator of every field type, with its value type. */
export const OPERATORS: Readonly<Record<RuleFieldType, Readonly<Record<string, ValueType>>>> = {
  text: {
    eq: 'string', neq: 'string', contains: 'string', not_contains: 'string', starts_with: 'string', ends_with: 'string',
    in: 'string[]', not_in: 'string[]', is_set: 'none', is_not_set: 'none',
  },
  number: { eq: 'number', neq: 'number', gt: 'number', gte: 'number', lt: 'number', lte: 'number', between: 'number_range', is_set: 'none', is_not_set: 'none' },
  date: { before: 'date', after: 'date', on: 'day', within_last_days: 'days', more_than_days_ago: 'days', is_set: 'none', is_not_set: 'none' },
  boolean: { is_true: 'none', is_false: 'none', is_set: 'none', is_not_set: 'none' },
  select: { eq: 'option', neq: 'option', in: 'option[]', not_in: 'option[]', is_set: 'none', is_not_set: 'none' },
  list: { in: 'list_id', not_in: 'list_id' },
  tag: { has: 'string', not_has: 'string' },
  event: { performed: 'none', not_performed: 'none', performed_at_most: 'none' },
  suppressed: { is_true: 'none', is_false: 'none' },
};

/** How event operators take `count` (and every one of them takes an optional `within_days`). */
export const EVENT_COUNT: Readonly<Record<string, 'optional' | 'required' | 'none'>> = {
  performed: 'optional',
  performed_at_most: 'required',
  not_performed: 'none',
};

/** The standard contact fields a rule may name (`contact.<name>`), with their types and labels. */
export const STANDARD_RULE_FIELDS = {
  email: { type: 'text', label: 'Email' },
  phone: { type: 'text', label: 'Phone' },
  first_name: { type: 'text', label: 'First name' },
  last_name: { type: 'text', label: 'Last name' },
  country: { type: 'text', label: 'Country' },
  language: { type: 'text', label: 'Language' },
  timezone: { type: 'text', label: 'Time zone' },
  external_id: { type: 'text', label: 'External id' },
  created_at: { type: 'date', label: 'Created' },
} as const satisfies Record<string, { type: RuleFieldType; label: string }>;

export type StandardRuleField = keyof typeof STANDARD_RULE_FIELDS;

/** What a custom field definition contributes to rules. */
export interface RuleFieldDefinition {
  key: string;
  type: CustomFieldType;
  options?: readonly string[] | null;
}

/** What a rule's field names, read from the field alone. */
export type FieldRef =
  | { kind: 'contact'; name: StandardRuleField; type: 'text' | 'date' }
  | { kind: 'custom'; key: string }
  | { kind: 'list'; type: 'list' }
  | { kind: 'tag'; type: 'tag' }
  | { kind: 'event'; name: string; type: 'event' }
  | { kind: 'suppressed'; type: 'suppressed' };

/** A rule's field with its type: a custom field's from its definition. */
export type ResolvedField = Exclude<FieldRef, { kind: 'custom' }> | { kind: 'custom'; key: string; type: CustomFieldType; options?: readonly string[] | null };

const FIELD_FORMS = 'contact.<field>, custom.<key>, list, tag, event.<name> or suppressed';

/** The field a rule names, or why it names none (a custom key is not looked up here). */
export function fieldRef(field: string): FieldRef | string {
  if (field === 'list') return { kind: 'list', type: 'list' };
  if (field === 'tag') return { kind: 'tag', type: 'tag' };
  if (field === 'suppressed') return { kind: 'suppressed', type: 'suppressed' };
  const dot = field.indexOf('.');
  const [prefix, rest] = dot < 0 ? [field, ''] : [field.slice(0, dot), field.slice(dot + 1)];
  switch (prefix) {
    case 'contact':
      if (Object.hasOwn(STANDARD_RULE_FIELDS, rest)) {
        const name = rest as StandardRuleField;
        return { kind: 'contact', name, type: STANDARD_RULE_FIELDS[name].type };
      }
      if (rest === 'tags') return 'tags are matched with the field tag (operators has, not_has)';
      return `unknown contact field "${rest}"; one of: ${Object.keys(STANDARD_RULE_FIELDS).join(', ')}`;
    case 'custom':
      if (rest.length === 0) return 'a custom field rule names its key: custom.<key>';
      return { kind: 'custom', key: rest };
    case 'event':
      if (rest.length === 0 || rest.length > 200) return 'an event rule names its event: event.<name>, the name 1 to 200 characters';
      return { kind: 'event', name: rest, type: 'event' };
  }
  return `"${field}" is not a field: use ${FIELD_FORMS}`;
}

/** The field a rule names with its type, or why it names none: a custom key must be defined. */
export function resolveField(field: string, definitions: ReadonlyMap<string, RuleFieldDefinition>): ResolvedField | string {
  const ref = fieldRef(field);
  if (typeof ref === 'string' || ref.kind !== 'custom') return ref;
  const def = definitions.get(ref.key);
  if (!def) return `no custom field with key "${ref.key}" is defined`;
  return { kind: 'custom', key: def.key, type: def.type, options: def.options };
}

const GroupShape = z.strictObject({
  match: z.enum(['all', 'any']),
  rules: z.array(z.unknown()).min(1, 'a group needs at least one rule').max(MAX_RULES),
});

const RuleShape = z.strictObject({
  field: z.string().min(1).max(300),
  operator: z.string().min(1).max(64),
  value: z.unknown().optional(),
  count: z.int().min(0).max(MAX_EVENT_COUNT).optional(),
  within_days: z.int().min(1).max(MAX_DAYS).optional(),
});

/** A list id a rule set names, and where. */
export interface ListReference {
  id: string;
  path: string;
}

export interface RuleSetCheck {
  /** the rule set as stored (key order fixed, phone numbers in E.164); absent when there are issues */
  rules?: SegmentGroup;
  issues: Issue[];
  /** the list ids named, for the caller to check they are the account's */
  lists: ListReference[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Validates a rule set against the account's custom field definitions. Every problem is reported,
 * each at its exact path; a rule set with none comes back in its stored form.
 */
export function checkRuleSet(input: unknown, definitions: readonly RuleFieldDefinition[]): RuleSetCheck {
  const defs = new Map(definitions.map((d) => [d.key, d]));
  const issues: Issue[] = [];
  const lists: ListReference[] = [];
  let ruleCount = 0;
  const at = (node: string, key: string) => (node ? `${node}.${key}` : key);
  const fail = (path: string, message: string) => {
    issues.push({ path: path || 'rules', message });
  };
  /** zod's issues of one node, at paths under it */
  const zodIssues = (node: string, error: z.ZodError) => {
    for (const i of error.issues) {
      const sub = i.path.reduce<string>((p, k) => (typeof k === 'number' ? `${p}[${k}]` : at(p, String(k))), node);
      if (i.code === 'unrecognized_keys') for (const k of i.keys) fail(at(sub, k), 'unknown field');
      else fail(sub, i.message);
    }
  };

  function group(node: string, value: unknown, depth: number): SegmentGroup | undefined {
    if (depth > MAX_DEPTH) {
      fail(node, `groups nest at most ${MAX_DEPTH} deep`);
      return undefined;
    }
    const parsed = GroupShape.safeParse(value);
    if (!parsed.success) {
      zodIssues(node, parsed.error);
      return undefined;
    }
    const children = parsed.data.rules.map((child, i) => item(at(node, `rules[${i}]`), child, depth));
    if (children.some((c) => c === undefined)) return undefined;
    return { match: parsed.data.match, rules: children as (SegmentRule | SegmentGroup)[] };
  }

  function item(node: string, value: unknown, depth: number): SegmentRule | SegmentGroup | undefined {
    if (isObject(value) && ('field' in value || 'operator' in value || 'value' in value)) return rule(node, value);
    if (isObject(value) && ('match' in value || 'rules' in value)) return group(node, value, depth + 1);
    fail(node, 'must be a rule {field, operator, value} or a group {match, rules}');
    return undefined;
  }

  function rule(node: string, value: Record<string, unknown>): SegmentRule | undefined {
    ruleCount++;
    const parsed = RuleShape.safeParse(value);
    if (!parsed.success) {
      zodIssues(node, parsed.error);
      return undefined;
    }
    const r = parsed.data;
    const field = resolveField(r.field, defs);
    if (typeof field === 'string') {
      fail(at(node, 'field'), field);
      return undefined;
    }
    const operators = OPERATORS[field.type];
    const valueType = Object.hasOwn(operators, r.operator) ? operators[r.operator] : undefined;
    if (!valueType) {
      fail(at(node, 'operator'), `"${r.operator}" is not an operator of ${field.type} fields; one of: ${Object.keys(operators).join(', ')}`);
      return undefined;
    }
    const before = issues.length;
    const checked = checkValue(at(node, 'value'), valueType, r.value, field, r.operator, fail);
    if (valueType === 'list_id' && typeof checked === 'string') lists.push({ id: checked, path: at(node, 'value') });
    const out: SegmentRule = { field: r.field, operator: r.operator };
    if (valueType !== 'none') out.value = checked;
    if (field.type === 'event') {
      const countUse = EVENT_COUNT[r.operator];
      if (countUse === 'required' && r.count === undefined) fail(at(node, 'count'), `${r.operator} needs a count`);
      if (countUse === 'none' && r.count !== undefined) fail(at(node, 'count'), `${r.operator} takes no count`);
      if (r.operator === 'performed' && r.count === 0) fail(at(node, 'count'), 'performed needs a count of at least 1 (not_performed is count 0)');
      if (r.count !== undefined) out.count = r.count;
      if (r.within_days !== undefined) out.within_days = r.within_days;
    } else {
      for (const key of ['count', 'within_days'] as const) if (r[key] !== undefined) fail(at(node, key), 'only event rules take count and within_days');
    }
    return issues.length === before ? out : undefined;
  }

  let rules: SegmentGroup | undefined;
  if (isObject(input) && 'field' in input) fail('', 'the rule set must be a group {match, rules}, its rules inside');
  else if (input === undefined) fail('', 'required');
  else rules = group('', input, 1);
  if (ruleCount > MAX_RULES) fail('', `at most ${MAX_RULES} rules in all (this rule set has ${ruleCount})`);
  return issues.length ? { issues, lists } : { rules, issues, lists };
}

/** Checks one value against its type; returns it as stored (phone numbers in E.164). */
function checkValue(path: string, type: ValueType, value: unknown, field: ResolvedField, operator: string, fail: (path: string, message: string) => void): unknown {
  // a phone number compared whole is compared in E.164, as contacts hold it
  const phone = field.kind === 'contact' && field.name === 'phone' && ['eq', 'neq', 'in', 'not_in'].includes(operator);
  const text = (v: unknown, p: string): unknown => {
    if (typeof v !== 'string' || v.length === 0 || v.length > MAX_TEXT) return fail(p, VALUE_TYPES.string);
    return v;
  };
  const exactPhone = (v: unknown, p: string): unknown => {
    if (typeof v !== 'string') return fail(p, VALUE_TYPES.string);
    const e164 = v.length <= 32 ? normalisePhone(v) : null;
    return e164 ?? fail(p, 'must be a valid phone number, e.g. +14155550123');
  };
  const option = (v: unknown, p: string): unknown => {
    const options = field.kind === 'custom' ? (field.options ?? []) : [];
    // an option in any case is that option (select values match case-insensitively), saved as defined
    const wanted = typeof v === 'string' ? v.trim().toLowerCase() : undefined;
    const match = options.find((o) => o.toLowerCase() === wanted);
    return match ?? fail(p, `must be one of: ${options.join(', ')}`);
  };
  const many = (each: (v: unknown, p: string) => unknown, name: ValueType): unknown => {
    if (!Array.isArray(value) || value.length === 0 || value.length > MAX_IN_VALUES) return fail(path, VALUE_TYPES[name]);
    return value.map((v, i) => each(v, `${path}[${i}]`));
  };
  switch (type) {
    case 'none':
      if (value !== undefined) fail(path, 'this operator takes no value');
      return undefined;
    case 'string':
      return phone ? exactPhone(value, path) : text(value, path);
    case 'string[]':
      return many(phone ? exactPhone : text, 'string[]');
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return fail(path, VALUE_TYPES.number);
      return value;
    case 'number_range':
      if (!Array.isArray(value) || value.length !== 2 || !value.every((v) => typeof v === 'number' && Number.isFinite(v)) || value[0] > value[1]) {
        return fail(path, VALUE_TYPES.number_range);
      }
      return value;
    case 'date': {
      const problem = typeof value === 'string' && !value.includes('T') ? calendarDateProblem(value) : timestampProblem(value);
      return problem ? fail(path, VALUE_TYPES.date) : value;
    }
    case 'day':
      return calendarDateProblem(value) ? fail(path, VALUE_TYPES.day) : value;
    case 'days':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_DAYS) return fail(path, VALUE_TYPES.days);
      return value;
    case 'option':
      return option(value, path);
    case 'option[]':
      return many(option, 'option[]');
    case 'list_id':
      if (typeof value !== 'string' || !isId('list', value)) return fail(path, VALUE_TYPES.list_id);
      return value;
  }
}

/** One field of GET /v1/segments/schema: what the rule builder can offer for it. */
export interface SchemaField {
  field: string;
  label: string;
  type: RuleFieldType;
  options?: readonly string[];
  operators: { operator: string; value: ValueType; count?: 'optional' | 'required'; within_days?: 'optional' }[];
}

const operatorsOf = (type: RuleFieldType): SchemaField['operators'] =>
  Object.entries(OPERATORS[type]).map(([operator, value]) => {
    if (type !== 'event') return { operator, value };
    const count = EVENT_COUNT[operator];
    return { operator, value, ...(count !== 'none' ? { count } : {}), within_days: 'optional' as const };
  });

/** The fields and operators a rule set may use in an account with these custom field definitions. */
export function ruleSchema(definitions: readonly (RuleFieldDefinition & { label: string })[]) {
  const fields: SchemaField[] = [
    ...Object.entries(STANDARD_RULE_FIELDS).map(([name, f]) => ({ field: `contact.${name}`, label: f.label, type: f.type, operators: operatorsOf(f.type) })),
    ...definitions.map((d) => ({
      field: `custom.${d.key}`, label: d.label, type: d.type, ...(d.type === 'select' ? { options: d.options ?? [] } : {}), operators: operatorsOf(d.type),
    })),
    { field: 'list', label: 'List membership', type: 'list', operators: operatorsOf('list') },
    { field: 'tag', label: 'Tag', type: 'tag', operators: operatorsOf('tag') },
    { field: 'event.<name>', label: 'Tracked event (any name after "event.")', type: 'event', operators: operatorsOf('event') },
    { field: 'suppressed', label: 'Suppressed (email or phone opted out)', type: 'suppressed', operators: operatorsOf('suppressed') },
  ];
  return {
    fields,
    value_types: VALUE_TYPES,
    event_keys: {
      count: `a whole number: performed at least this many times (default 1), or performed_at_most this many (0 to ${MAX_EVENT_COUNT})`,
      within_days: `only the events of the UTC days from today − within_days to today (1 to ${MAX_DAYS}: 1 is yesterday and today, so every event of the last 24 h counts); left out: all time`,
    },
    limits: { max_depth: MAX_DEPTH, max_rules: MAX_RULES, max_in_values: MAX_IN_VALUES },
  };
}
