// Rule sets without a server (src/segments/rules.ts, src/segments/compile.ts): the stored form of a
// valid rule set, every problem reported at once, and compilation that never puts input in the SQL
// text — values, custom keys and event names travel only as parameters, so the SQL of two rule sets
// that differ only in them is the same text.
import { describe, expect, it } from 'vitest';
import type { SegmentGroup } from '../../commands/segment.ts';
import { compileRules } from '../../src/segments/compile.ts';
import { checkRuleSet, EVENT_COUNT, OPERATORS, type RuleFieldDefinition, type RuleFieldType, type ValueType } from '../../src/segments/rules.ts';

const definitions: RuleFieldDefinition[] = [
  { key: 'plan', type: 'select', options: ['free', 'pro'] },
  { key: 'score', type: 'number' },
  { key: 'active', type: 'boolean' },
  { key: 'birthday', type: 'date' },
  { key: 'note', type: 'text' },
];
const ctx = { accountId: 'acct_1', now: new Date('2026-03-01T00:30:00.000Z') };
const LIST = 'lst_01ARZ3NDEKTSV4RRFFQ69G5FAV';

describe('checking a rule set', () => {
  it('answers a valid set in its stored form: keys in one order, phone numbers in E.164, the lists it names', () => {
    const checked = checkRuleSet(
      {
        rules: [
          { value: '+1 (415) 555-0101', operator: 'eq', field: 'contact.phone' },
          { match: 'any', rules: [{ operator: 'in', field: 'list', value: LIST }, { within_days: 7, field: 'event.signup', operator: 'performed', count: 2 }] },
        ],
        match: 'all',
      },
      definitions,
    );
    expect(checked.issues).toEqual([]);
    expect(JSON.stringify(checked.rules)).toBe(
      JSON.stringify({
        match: 'all',
        rules: [
          { field: 'contact.phone', operator: 'eq', value: '+14155550101' },
          { match: 'any', rules: [{ field: 'list', operator: 'in', value: LIST }, { field: 'event.signup', operator: 'performed', count: 2, within_days: 7 }] },
        ],
      }),
    );
    expect(checked.lists).toEqual([{ id: LIST, path: 'rules[1].rules[0].value' }]);
  });

  it('reports every problem at once, each at its path, and no rule set', () => {
    const checked = checkRuleSet(
      {
        match: 'all',
        rules: [
          { field: 'custom.nope', operator: 'eq', value: 'x' },
          { field: 'custom.score', operator: 'between', value: [3, 1] },
          { match: 'any', rules: [{ field: 'tag', operator: 'has' }, { field: 'custom.plan', operator: 'like', value: 'p' }] },
        ],
      },
      definitions,
    );
    expect(checked.rules).toBeUndefined();
    expect(checked.issues.map((i) => i.path)).toEqual(['rules[0].field', 'rules[1].value', 'rules[2].rules[0].value', 'rules[2].rules[1].operator']);
    for (const i of checked.issues) expect(i.message.length).toBeGreaterThan(5);
  });

  it('counts rules across nested groups against the limit of 50', () => {
    const leaf = { field: 'tag', operator: 'has', value: 't' };
    const set = (n: number) => ({ match: 'any', rules: [{ match: 'all', rules: Array.from({ length: n - 1 }, () => leaf) }, leaf] });
    expect(checkRuleSet(set(50), definitions).issues).toEqual([]);
    expect(checkRuleSet(set(51), definitions).issues).toEqual([{ path: 'rules', message: 'at most 50 rules in all (this rule set has 51)' }]);
  });
});

/** A value of each type, with `hostile` text wherever text goes. */
function sampleValue(type: ValueType, hostile: string): unknown {
  switch (type) {
    case 'none':
      return undefined;
    case 'string':
      return hostile;
    case 'string[]':
      return [hostile, `${hostile}2`];
    case 'number':
      return 42;
    case 'number_range':
      return [1, 2];
    case 'date':
      return '2026-01-01';
    case 'day':
      return '2026-01-01';
    case 'days':
      return 30;
    case 'option':
      return hostile;
    case 'option[]':
      return [hostile];
    case 'list_id':
      return hostile;
  }
}

/** One rule for every operator of every field type, with hostile text in every text position. */
function everyRule(hostile: string): SegmentGroup {
  const fieldOf: Record<RuleFieldType, string> = {
    text: 'contact.first_name',
    number: `custom.${hostile}`,
    boolean: `custom.${hostile}`,
    date: `custom.${hostile}`,
    select: `custom.${hostile}`,
    list: 'list',
    tag: 'tag',
    event: `event.${hostile}`,
    suppressed: 'suppressed',
  };
  const rules = Object.entries(OPERATORS).flatMap(([type, operators]) =>
    Object.entries(operators).map(([operator, valueType]) => {
      const value = sampleValue(valueType, hostile);
      const count = type === 'event' && EVENT_COUNT[operator] !== 'none' ? { count: 3 } : {};
      return { field: fieldOf[type as RuleFieldType], operator, ...(value === undefined ? {} : { value }), ...count, ...(type === 'event' ? { within_days: 7 } : {}) };
    }),
  );
  // every standard field too, and the email's own form
  rules.push({ field: 'contact.email', operator: 'eq', value: hostile }, { field: 'contact.country', operator: 'in', value: [hostile] });
  rules.push({ field: 'contact.created_at', operator: 'within_last_days', value: 3 });
  return { match: 'any', rules: [{ match: 'all', rules }, { field: 'custom.x', operator: 'eq', value: hostile }] };
}

describe('compiling a rule set', () => {
  const HOSTILE = [`'); DROP TABLE contacts; --`, `o'brien" OR 1=1 --`, `$99 = $99`, `\\' ; SELECT pg_sleep(10)`, `%_\\`];

  it('puts values, custom keys and event names only in the parameters, never in the SQL text', () => {
    for (const hostile of HOSTILE) {
      const { where, params } = compileRules(everyRule(hostile), ctx);
      expect(where).not.toContain(hostile);
      // input brings no quote or comment into the SQL: the fragments' own literals are known
      const withoutOwnLiterals = where.replace(/'(true|false|number|UTC|timestamptz|T00:00:00Z)'|'\^[^']*\$'|''/g, '');
      expect(withoutOwnLiterals, hostile).not.toMatch(/['";]|--/);
      expect(params[0]).toBe('acct_1');
      expect(params.flat()).toEqual(expect.arrayContaining([hostile]));
      // every placeholder is numbered within the parameters, and every parameter has one
      const used = new Set([...where.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
      expect([...used].sort((a, b) => a - b)).toEqual(params.map((_, i) => i + 1));
    }
  });

  it('compiles two rule sets that differ only in their input to the same SQL text', () => {
    const [first, ...others] = HOSTILE.map((h) => compileRules(everyRule(h), ctx).where);
    for (const other of others) expect(other).toBe(first);
  });

  it('counts event days in UTC from today − within_days, and other relative dates from the given now', () => {
    const { params } = compileRules({ match: 'all', rules: [{ field: 'event.signup', operator: 'performed', within_days: 1 }] }, ctx);
    // 00:30 UTC on March 1st: today is 2026-03-01 whatever the machine's time zone
    expect(params).toEqual(['acct_1', '2026-02-28', 'signup']);
    const relative = compileRules({ match: 'all', rules: [{ field: 'contact.created_at', operator: 'more_than_days_ago', value: 3 }] }, ctx);
    expect(relative.params).toEqual(['acct_1', '2026-03-01T00:30:00.000Z', 3]);
  });

  it('compares columns stored in one case as stored, and the others lower-cased', () => {
    const values = (field: string, value: string) => compileRules({ match: 'all', rules: [{ field, operator: 'eq', value }] }, ctx);
    expect(values('contact.email', ' Ada@Example.COM ')).toEqual({ where: '((c.email = $2::text))', params: ['acct_1', 'ada@example.com'] });
    expect(values('contact.country', 'gb').params[1]).toBe('GB');
    expect(values('contact.language', 'PT-br').params[1]).toBe('pt-BR');
    expect(values('contact.first_name', 'ADA')).toEqual({ where: '((lower(c.first_name) = $2::text))', params: ['acct_1', 'ada'] });
  });
});
