// One data row of an imported file → the contact values it gives, or the problems that make it a
// bad row (each naming its column, never the value). The cells are read with the API's own rules
// (src/contacts/validation.ts, the custom field types), made lenient only where files are: phones
// without their + take the row's country or the import's default country, country names stand for
// their codes, custom values are read from their text (numbers, yes/no, dates, select options in any
// case), tags are split on `,` and `;`. Empty cells give nothing: an import never erases a value.
import type { ContactFields } from '../../commands/contact.ts';
import { checkCustomValue, type FieldDefinition } from '../../commands/custom-fields.ts';
import { EmailSchema, isCountryCode, LanguageSchema, normalisePhone, TimezoneSchema } from '../contacts/validation.ts';
import type { z } from 'zod';
import type { ColumnTarget } from './columns.ts';

/** What a row sets on its contact. */
export interface RowValues {
  fields: Omit<ContactFields, 'tags'>;
  tags: string[];
  custom: Record<string, unknown>;
}

export interface RowProblem {
  column: string | null;
  message: string;
}

export type ReadRow = { values: RowValues } | { problems: RowProblem[] };

export interface RowReader {
  /** the file's headers, by column */
  headers: readonly string[];
  targets: readonly ColumnTarget[];
  definitions: ReadonlyMap<string, FieldDefinition>;
  /** for phones written without a + and with no country on their row */
  defaultCountry: string | null;
  /** added to every row's tags (the import's `tags` option) */
  tags: readonly string[];
}

/** Fields read with the API's schema, and the problem a cell that fails it has. */
const BY_SCHEMA: Record<'email' | 'language' | 'timezone', [z.ZodType<string>, string]> = {
  email: [EmailSchema, 'must be a valid email address'],
  language: [LanguageSchema, 'must be a BCP 47 language tag, e.g. en or pt-BR'],
  timezone: [TimezoneSchema, 'must be an IANA time zone, e.g. Europe/Paris'],
};

const MAX_TAGS = 100;
const MAX_TAG = 100;
const TEXT_MAX: Partial<Record<string, number>> = { first_name: 200, last_name: 200, external_id: 255 };

// English country names (and a few common short forms) → ISO alpha-2, for files that name countries
const NAMES = new Map<string, string>();
{
  const display = new Intl.DisplayNames(['en'], { type: 'region' });
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      if (!isCountryCode(code)) continue;
      const name = display.of(code);
      if (name && name !== code) NAMES.set(name.toLowerCase(), code);
    }
  }
  for (const [alias, code] of Object.entries({ usa: 'US', 'united states of america': 'US', uk: 'GB', 'great britain': 'GB', england: 'GB', 'south korea': 'KR', russia: 'RU' })) NAMES.set(alias, code);
}

/** An ISO alpha-2 code from a code (any case) or an English country name; null when neither. */
export function countryOf(text: string): string | null {
  const upper = text.toUpperCase();
  if (upper.length === 2 && isCountryCode(upper)) return upper;
  return NAMES.get(text.toLowerCase()) ?? null;
}

/**
 * A cell as given: trimmed, and without the `'` our export puts before a cell that a spreadsheet
 * would take for a formula (`'+33612345678`, `'-x`), so an exported file imports back as it was.
 */
export function cellText(raw: string | undefined): string {
  if (raw === undefined) return '';
  const t = raw.trim();
  return t.length > 1 && t[0] === "'" && /[=+\-@\t\r]/.test(t[1]) ? t.slice(1).trim() : t;
}

/** Tags in one cell: split on `,` and `;`, each trimmed and unquoted (Mailchimp writes `"a","b"`). */
export function splitTags(text: string): string[] {
  return text
    .split(/[,;]/)
    .map((t) => t.trim().replace(/^"(.*)"$/, '$1').trim())
    .filter((t) => t.length > 0);
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const DECIMAL_COMMA = /^[+-]?\d+,\d+$/;
const TRUE = new Set(['true', 'yes', 'y', '1']);
const FALSE = new Set(['false', 'no', 'n', '0']);

/** A custom value read from its text (typed as its definition says), or the problem with it. */
function customValue(def: FieldDefinition, text: string): { value: unknown } | { problem: string } {
  let value: unknown = text;
  switch (def.type) {
    case 'number': {
      const n = NUMBER.test(text) ? Number(text) : DECIMAL_COMMA.test(text) ? Number(text.replace(',', '.')) : NaN;
      if (!Number.isFinite(n)) return { problem: 'must be a number' };
      value = n;
      break;
    }
    case 'boolean': {
      const lower = text.toLowerCase();
      if (TRUE.has(lower)) value = true;
      else if (FALSE.has(lower)) value = false;
      else return { problem: 'must be yes/no, true/false or 1/0' };
      break;
    }
    case 'select':
      // the option as defined, whatever the case in the file
      value = def.options?.find((o) => o === text) ?? def.options?.find((o) => o.toLowerCase() === text.toLowerCase()) ?? text;
      break;
  }
  const problem = checkCustomValue(def, value);
  return problem ? { problem } : { value };
}

export function readRow(record: readonly string[], reader: RowReader): ReadRow {
  const fields: Record<string, string> = {};
  const custom: Record<string, unknown> = {};
  const tags = new Set(reader.tags);
  const problems: RowProblem[] = [];
  const { targets, headers } = reader;
  // the row's country first: it reads the row's phone
  let country: string | null = null;
  let phoneAt = -1;
  for (let i = 0; i < targets.length; i++) {
    const target = targets[i];
    if (target.kind === 'ignore') continue;
    const text = cellText(record[i]);
    if (text === '') continue;
    const column = headers[i];
    if (text.includes('\u0000')) {
      problems.push({ column, message: 'contains a NUL character' });
      continue;
    }
    if (target.kind === 'custom') {
      const def = reader.definitions.get(target.key);
      if (!def) {
        problems.push({ column, message: `no custom field with key "${target.key}" is defined (any more)` });
        continue;
      }
      const read = customValue(def, text);
      if ('problem' in read) problems.push({ column, message: read.problem });
      else custom[target.key] = read.value;
      continue;
    }
    switch (target.field) {
      case 'email':
      case 'language':
      case 'timezone': {
        // the API's own schema, with a message of ours (zod's may quote the value)
        const [schema, message] = BY_SCHEMA[target.field];
        const r = schema.safeParse(text);
        if (r.success) fields[target.field] = r.data;
        else problems.push({ column, message });
        break;
      }
      case 'phone':
        phoneAt = i;
        break;
      case 'country': {
        const code = countryOf(text);
        if (code) fields.country = country = code;
        else problems.push({ column, message: 'must be an ISO 3166-1 alpha-2 country code or an English country name' });
        break;
      }
      case 'tags':
        for (const tag of splitTags(text)) {
          if (tag.length > MAX_TAG) problems.push({ column, message: `a tag is longer than ${MAX_TAG} characters` });
          else tags.add(tag);
        }
        break;
      default: {
        const max = TEXT_MAX[target.field]!;
        if (text.length > max) problems.push({ column, message: `must be at most ${max} characters` });
        else fields[target.field] = text;
      }
    }
  }
  if (phoneAt >= 0) {
    const phone = normalisePhone(cellText(record[phoneAt]), country ?? reader.defaultCountry ?? undefined);
    if (phone) fields.phone = phone;
    else {
      const hint = country || reader.defaultCountry ? '' : ' (a number without + needs the row’s country, default_country or the account’s default country)';
      problems.push({ column: headers[phoneAt], message: `must be a valid phone number${hint}` });
    }
  }
  if (tags.size > MAX_TAGS) problems.push({ column: null, message: `a contact has at most ${MAX_TAGS} tags` });
  if (problems.length === 0 && !fields.email && !fields.phone && !fields.external_id) {
    problems.push({ column: null, message: 'the row has no email, phone or external_id' });
  }
  if (problems.length) return { problems };
  return { values: { fields, tags: [...tags], custom } };
}

/** True for a row whose every cell is empty (or only spaces): not a data row, and not counted. */
export const isBlank = (record: readonly string[]) => record.every((c) => c.trim() === '');
