// A validated rule set (src/segments/rules.ts) compiled to a parameterised WHERE over `contacts c`
// and the read models beside it, built only from the fixed fragments below and `$n` placeholders.
// Nothing from the input is ever spliced: values, custom keys, list ids and event names all go in
// as parameters (`c.custom_fields ->> $3::text`); column names come from a fixed map.
//
// Shape (what EXPLAIN ANALYZE showed robust on a million contacts): a rule that looks at another
// table (list, event, suppressed) is a correlated EXISTS / NOT EXISTS on that table's index. Where it
// sits in the top `all` chain, Postgres pulls it up into a semi- or anti-join and picks a hash join
// or index probes; under an `any` it is probed per contact through the index. No plan here rescans
// a derived table per contact (a LEFT JOIN of an aggregate did, on a misestimate, and took seconds).
// Count thresholds (performed with count > 1, performed_at_most) sum the account's rows per contact
// once, for an IN the planner hashes.
//
// Two tables to read from (README "Segments"): a count whose every rule reads only what
// segment_contacts holds (country, language, created_at, custom values as text, lists, events) reads
// that narrow copy of the contacts (projections/contacts.ts), about half the size of contacts, with
// each custom value lower-cased at its key's slot, so a text rule on a custom value is one array
// subscript instead of a lookup in a JSON object; any other rule set, and every page of members,
// reads `contacts` as before. Both copies are written in one transaction, so both give the same
// answer; a text rule on the narrow table compares exactly what `lower(custom_fields ->> key)` is.
//
// Semantics (README "Segments"):
// - text: case-insensitive. Columns stored in one canonical case compare as stored, so their
//   statistics and indexes serve: email (lower case), country (upper case), language (BCP 47
//   canonical form); phone numbers whole in E.164 (the validator normalised them). Other columns
//   and custom values compare lower-cased. Select values compare like text.
// - a negative operator (neq, not_contains, not_in, not_has, list not_in, suppressed is_false,
//   not_performed) holds exactly where its positive one does not, unset values included.
// - custom values are read by their JSON type, never cast blindly: a number rule matches only JSON
//   numbers, a date rule only strings that are dates or RFC 3339 date-times, a boolean rule only
//   true or false. A value of another type (a definition deleted and defined again with another
//   type) matches no positive rule and throws nothing. The definitions are not needed here: the
//   operator and its value say how to compare, so a rule whose definition was deleted since it was
//   saved keeps working as saved.
// - dates: a YYYY-MM-DD value is the whole UTC day (before = before it starts, after = after it
//   ends, on = within it); a date-time value is that instant; within_last_days N = in the N × 24 h
//   up to now; more_than_days_ago N = before now − N × 24 h.
// - events: `contact_event_counts` (the contact_events read model), summed per contact over the
//   UTC days from today − within_days; a contact with no rows counts 0.
// - suppressed: the contact's email or phone number is in the account's suppressions.
import { isGroup, type SegmentGroup, type SegmentRule } from '../../commands/segment.ts';
import { fieldRef, type StandardRuleField } from './rules.ts';

export interface CompiledRules {
  /** a boolean SQL expression over `c`; the query adds `c.account_id = $1` */
  where: string;
  /** the parameters, $1 being the account id */
  params: unknown[];
}

export interface CompileContext {
  accountId: string;
  /** the time relative rules count from (the service clock) */
  now: Date;
}

/** The table a rule set is compiled over: `contacts`, or the narrow segment_contacts (only for rules that read nothing else). */
export type RuleSource = 'contacts' | 'segment_contacts';

/** The text operators of custom values: what the narrow table's lower-cased text answers. */
const TEXT_OPERATORS = new Set(['eq', 'neq', 'in', 'not_in', 'contains', 'not_contains', 'starts_with', 'ends_with', 'is_set', 'is_not_set']);

/** The standard columns the narrow table holds. */
const NARROW_COLUMNS = new Set<StandardRuleField>(['country', 'language', 'created_at']);

function readsOnlyNarrow(r: SegmentRule | SegmentGroup): boolean {
  if (isGroup(r)) return r.rules.every(readsOnlyNarrow);
  const field = fieldRef(r.field);
  if (typeof field === 'string') return false;
  switch (field.kind) {
    case 'contact':
      return NARROW_COLUMNS.has(field.name);
    case 'custom':
      // a number compared with eq or neq compares as a JSON number: contacts
      return TEXT_OPERATORS.has(r.operator) && typeof r.value !== 'number';
    case 'list':
    case 'event':
      return true;
    default:
      return false;
  }
}

/** Where a count of these rules reads: the narrow segment_contacts when every rule can, else contacts. */
export const countSource = (rules: SegmentGroup): RuleSource => (readsOnlyNarrow(rules) ? 'segment_contacts' : 'contacts');

/** The standard columns, and the one case each is stored in when it has one (src/contacts/validation.ts). */
const COLUMNS: Readonly<Record<StandardRuleField, { column: string; stored?: (v: string) => string }>> = {
  email: { column: 'c.email', stored: (v) => v.trim().toLowerCase() },
  phone: { column: 'c.phone', stored: (v) => v },
  first_name: { column: 'c.first_name' },
  last_name: { column: 'c.last_name' },
  country: { column: 'c.country', stored: (v) => v.trim().toUpperCase() },
  language: { column: 'c.language', stored: canonicalLanguage },
  timezone: { column: 'c.timezone' },
  external_id: { column: 'c.external_id' },
  created_at: { column: 'c.created_at' },
};

function canonicalLanguage(v: string): string {
  try {
    return Intl.getCanonicalLocales(v.trim())[0] ?? v;
  } catch {
    // not a language tag: no contact holds it
    return v;
  }
}

/** A date-time as custom date values hold it (YYYY-MM-DD, or RFC 3339 with an offset: never the session's time zone). */
const DATE_SHAPE = String.raw`'^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,6})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d))?$'`;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/** The parameters of one query under construction. */
class Params {
  readonly values: unknown[];

  constructor(accountId: string) {
    this.values = [accountId];
  }

  /** A new placeholder for `value`, with a cast (every placeholder gets one: no guessing of types). */
  add(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}

/**
 * Compiles a validated rule set over `contacts c`, or over `segment_contacts c` (a rule set for which
 * countSource says so: anything else throws).
 */
export function compileRules(rules: SegmentGroup, ctx: CompileContext, source: RuleSource = 'contacts'): CompiledRules {
  if (source === 'segment_contacts' && !readsOnlyNarrow(rules)) throw new Error('these rules read columns segment_contacts does not hold');
  const p = new Params(ctx.accountId);
  const where = group(p, rules, { ...ctx, source });
  return { where, params: p.values };
}

type Context = CompileContext & { source: RuleSource };

function group(p: Params, g: SegmentGroup, ctx: Context): string {
  const parts = g.rules.map((r) => (isGroup(r) ? group(p, r, ctx) : rule(p, r, ctx)));
  return `(${parts.join(g.match === 'all' ? ' AND ' : ' OR ')})`;
}

/** The complement of a condition that may be NULL (an unset value): NULL counts as not holding. */
const not = (positive: string) => `(NOT coalesce(${positive}, false))`;

function rule(p: Params, r: SegmentRule, ctx: Context): string {
  // the rule set was validated when saved; a custom key is taken as it was then, defined or not
  const field = fieldRef(r.field);
  if (typeof field === 'string') throw new Error(`segment rule with an unknown field: ${field}`);
  switch (field.kind) {
    case 'contact': {
      const { column, stored } = COLUMNS[field.name];
      return field.type === 'date' ? dateRule(p, column, r, ctx) : textRule(p, column, r, stored);
    }
    case 'custom':
      return assumeHalf(ctx.source === 'segment_contacts' ? narrowCustomRule(p, field.key, r) : customRule(p, field.key, r, ctx));
    case 'tag': {
      const has = `(c.tags @> ARRAY[${p.add(r.value, 'text')}])`;
      return r.operator === 'has' ? has : `(NOT ${has})`;
    }
    case 'list': {
      // EXISTS is never NULL: its NOT is the complement, and stays an anti-join Postgres can pull up
      const member = `EXISTS (SELECT 1 FROM list_members m WHERE m.list_id = ${p.add(r.value, 'text')} AND m.contact_id = c.id AND m.account_id = $1)`;
      return r.operator === 'in' ? `(${member})` : `(NOT ${member})`;
    }
    case 'suppressed': {
      // by the contact's email or phone number as the suppression holds it (an erased address is not
      // there any more, and neither is the erased contact); one EXISTS per column, so that each is
      // an equality Postgres can hash or probe through the (account_id, address) index
      const by = (column: string) => `EXISTS (SELECT 1 FROM suppressions s WHERE s.account_id = $1 AND s.address = ${column})`;
      return r.operator === 'is_true' ? `(${by('c.email')} OR ${by('c.phone')})` : `(NOT ${by('c.email')} AND NOT ${by('c.phone')})`;
    }
    case 'event':
      return eventRule(p, field.name, r, ctx);
  }
}

/**
 * A text rule over `column`. `stored` maps a value to the case the column is stored in, if it has
 * one: then eq and in compare the column as it is (its statistics and indexes serve).
 */
function textRule(p: Params, column: string, r: SegmentRule, stored?: (v: string) => string): string {
  const col = stored ? column : `lower(${column})`;
  const norm = stored ?? ((v: string) => v.toLowerCase());
  const like = (pattern: string) => `(${column} ILIKE ${p.add(pattern, 'text')})`;
  const value = String(r.value);
  const list = () => p.add((r.value as string[]).map(norm), 'text[]');
  switch (r.operator) {
    case 'eq':
      return `(${col} = ${p.add(norm(value), 'text')})`;
    case 'neq':
      return not(`(${col} = ${p.add(norm(value), 'text')})`);
    case 'in':
      return `(${col} = ANY(${list()}))`;
    case 'not_in':
      return not(`(${col} = ANY(${list()}))`);
    case 'contains':
      return like(`%${escapeLike(value)}%`);
    case 'not_contains':
      return not(like(`%${escapeLike(value)}%`));
    case 'starts_with':
      return like(`${escapeLike(value)}%`);
    case 'ends_with':
      return like(`%${escapeLike(value)}`);
    case 'is_set':
      return `(coalesce(${column}, '') <> '')`;
    case 'is_not_set':
      return `(coalesce(${column}, '') = '')`;
  }
  throw new Error(`text operator ${r.operator}`);
}

/** The bounds of a date rule's value: a whole UTC day, or one instant. */
function dateBounds(p: Params, value: unknown): { start: string; end: string } {
  const v = String(value);
  if (v.includes('T')) {
    const t = p.add(v, 'timestamptz');
    return { start: t, end: t };
  }
  const day = p.add(v, 'date');
  return { start: `(${day}::timestamp AT TIME ZONE 'UTC')`, end: `((${day} + 1)::timestamp AT TIME ZONE 'UTC')` };
}

/** A date rule over `ts`, an expression of type timestamptz (NULL when unset or not a date). */
function dateRule(p: Params, ts: string, r: SegmentRule, ctx: CompileContext): string {
  const now = () => p.add(ctx.now.toISOString(), 'timestamptz');
  switch (r.operator) {
    case 'before':
      return `(${ts} < ${dateBounds(p, r.value).start})`;
    case 'after': {
      const { start, end } = dateBounds(p, r.value);
      // after a whole day is from the next day on; after an instant, strictly later
      return String(r.value).includes('T') ? `(${ts} > ${start})` : `(${ts} >= ${end})`;
    }
    case 'on': {
      const { start, end } = dateBounds(p, r.value);
      return `(${ts} >= ${start} AND ${ts} < ${end})`;
    }
    case 'within_last_days': {
      const n = now();
      return `(${ts} >= ${n} - make_interval(days => ${p.add(r.value, 'int')}) AND ${ts} <= ${n})`;
    }
    case 'more_than_days_ago':
      return `(${ts} < ${now()} - make_interval(days => ${p.add(r.value, 'int')}))`;
    case 'is_set':
      return `(${ts} IS NOT NULL)`;
    case 'is_not_set':
      return `(${ts} IS NULL)`;
  }
  throw new Error(`date operator ${r.operator}`);
}

/**
 * A condition the planner is to take as matching about half the rows. Postgres has no statistics for
 * a custom value (`custom_fields ->> key`) and guesses an equality on it matches 0.5% of the contacts;
 * on that guess it probes an event or list rule's index once per surviving contact (a nested loop)
 * where hashing the other side once is several times faster (psql, on the 1M contacts of the bench's
 * segment-count: 820 → 470 ms). A COALESCE is no operator clause, so the planner gives it its default of one half
 * (selfuncs.c boolvarsel), a better prior for a segment's rule than 0.5%. It changes no result: the
 * condition is already false where unset.
 */
const assumeHalf = (condition: string) => `coalesce(${condition}, false)`;

function customRule(p: Params, customKey: string, r: SegmentRule, ctx: CompileContext): string {
  const key = p.add(customKey, 'text');
  const json = `(c.custom_fields -> ${key})`;
  const text = `(c.custom_fields ->> ${key})`;
  const numeric = `(CASE WHEN jsonb_typeof(${json}) = 'number' THEN ${text}::numeric END)`;
  switch (r.operator) {
    case 'is_set':
      return `(coalesce(${text}, '') <> '')`;
    case 'is_not_set':
      return `(coalesce(${text}, '') = '')`;
    case 'is_true':
      return `(${json} = 'true'::jsonb)`;
    case 'is_false':
      return `(${json} = 'false'::jsonb)`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[r.operator];
      return `(${numeric} ${op} ${p.add(r.value, 'numeric')})`;
    }
    case 'between': {
      const [min, max] = r.value as [number, number];
      return `(${numeric} BETWEEN ${p.add(min, 'numeric')} AND ${p.add(max, 'numeric')})`;
    }
    case 'before':
    case 'after':
    case 'on':
    case 'within_last_days':
    case 'more_than_days_ago': {
      return dateRule(p, safeTimestamp(text), r, ctx);
    }
  }
  // eq, neq, in, not_in: a number compares as a JSON number (1 = 1.0), a string as text
  if ((r.operator === 'eq' || r.operator === 'neq') && typeof r.value === 'number') {
    const eq = `(${json} = to_jsonb(${p.add(r.value, 'numeric')}))`;
    return r.operator === 'eq' ? eq : not(eq);
  }
  return textRule(p, text, r);
}

/**
 * A text rule on a custom value in segment_contacts: the value at the key's slot, stored as
 * `lower(custom_fields ->> key)`, so it compares as stored. The slot is looked up once per query (a
 * subquery on no column of `c`); a key with no slot is held by no contact: NULL, unset.
 */
function narrowCustomRule(p: Params, customKey: string, r: SegmentRule): string {
  const slot = `(SELECT k.slot FROM segment_custom_keys k WHERE k.account_id = $1 AND k.key = ${p.add(customKey, 'text')})`;
  return textRule(p, `c.custom[${slot}]`, r, (v) => v.toLowerCase());
}

/**
 * A custom date value as a timestamptz, or null when it is not a real date (a value stored while the
 * key was defined with another type): never a cast error. The checks nest, because Postgres does
 * not promise to evaluate the operands of AND in order: the shape first (digits where numbers are
 * read), then a year of at least 1, then a day within its month (2026-02-30 is null). Plain SQL, so
 * it runs on every Postgres the service supports (pg_input_is_valid needs 16).
 */
function safeTimestamp(text: string): string {
  const int = (from: number, length: number) => `substr(${text}, ${from}, ${length})::int`;
  const lastDayOfMonth = `extract(day FROM make_date(${int(1, 4)}, ${int(6, 2)}, 1) + make_interval(months => 1) - make_interval(days => 1))`;
  return `(CASE WHEN ${text} ~ ${DATE_SHAPE} THEN (CASE WHEN ${int(1, 4)} >= 1 THEN (CASE WHEN ${int(9, 2)} <= ${lastDayOfMonth} THEN ${dayOrInstant(text)}::timestamptz END) END) END)`;
}

/** A custom date value as Postgres reads it in UTC: a plain date is midnight UTC. */
const dayOrInstant = (text: string) => `(CASE WHEN length(${text}) = 10 THEN ${text} || 'T00:00:00Z' ELSE ${text} END)`;

/** The UTC day `within_days` before today's (the first day an event rule counts). */
function firstDay(now: Date, withinDays: number): string {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today - withinDays * 86_400_000).toISOString().slice(0, 10);
}

function eventRule(p: Params, name: string, r: SegmentRule, ctx: CompileContext): string {
  // the account's rows of this event (on the days counted): a range of the (account_id, name,
  // contact_id, day) key; `AND e.contact_id = c.id` narrows it to the contact
  const rows = () => {
    const since = r.within_days === undefined ? '' : ` AND e.day >= ${p.add(firstDay(ctx.now, r.within_days), 'date')}`;
    return `FROM contact_event_counts e WHERE e.account_id = $1 AND e.name = ${p.add(name, 'text')}${since}`;
  };
  const count = r.count ?? 1;
  // every row counts at least once: performed once is a row existing, never once is none
  if (r.operator === 'not_performed' || (r.operator === 'performed_at_most' && count === 0)) return `(NOT EXISTS (SELECT 1 ${rows()} AND e.contact_id = c.id))`;
  if (r.operator === 'performed' && count === 1) return `(EXISTS (SELECT 1 ${rows()} AND e.contact_id = c.id))`;
  // a threshold: the contacts whose rows add up past it, summed once for the account (an IN the
  // planner hashes or joins) rather than once per contact (a correlated sum: 2.7 s against 0.74 s over
  // a million contacts). contact_id is never null, so NOT IN is the exact complement.
  const over = (op: '>=' | '>', n: number) => `c.id IN (SELECT e.contact_id ${rows()} GROUP BY e.contact_id HAVING sum(e.count) ${op} ${p.add(n, 'bigint')})`;
  return r.operator === 'performed' ? `(${over('>=', count)})` : `(NOT (${over('>', count)}))`;
}
