// How the header row of an imported file maps to contact fields (README "Contacts import"): an
// explicit mapping wins; otherwise a header names a standard field (by its name or a common synonym
// of the tools people export from: Mailchimp, HubSpot, Klaviyo, Customer.io, Brevo), or a custom
// field (by key or label), forgiving case, spacing, accents, `_`, `-` and `.`; anything else is
// ignored. Decided once, when the file is accepted, and kept in ImportAccepted.
import { STANDARD_FIELDS, type StandardField } from '../../commands/contact.ts';
import type { FieldDefinition } from '../../commands/custom-fields.ts';
import type { ImportColumn } from '../../commands/import.ts';
import { type Issue, validationError } from '../errors.ts';

export const IGNORE = 'ignore';
const CUSTOM_PREFIX = 'custom_fields.';

/** What one column of a file holds. */
export type ColumnTarget = { kind: 'standard'; field: StandardField } | { kind: 'custom'; key: string } | { kind: 'ignore' };

/** A header as it is compared: lower case, without accents, spaces, `_`, `-`, `.` and the like. */
export const normaliseHeader = (h: string) =>
  h
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[\s_\-.:'"()/\\#*]+/g, '');

/** Synonyms of the standard fields, normalised; the field's own name is one too. */
const SYNONYMS: Record<StandardField, string[]> = {
  email: ['email', 'emailaddress', 'mail', 'emailaddr', 'emails', 'primaryemail', 'courriel'],
  phone: ['phone', 'phonenumber', 'mobile', 'mobilephone', 'mobilenumber', 'mobilephonenumber', 'cell', 'cellphone', 'sms', 'smsnumber', 'telephone', 'tel', 'phonemobile'],
  first_name: ['firstname', 'first', 'givenname', 'forename', 'fname', 'prenom'],
  last_name: ['lastname', 'last', 'surname', 'familyname', 'lname'],
  country: ['country', 'countrycode', 'countryiso', 'countryname'],
  language: ['language', 'lang', 'locale', 'languagecode', 'preferredlanguage'],
  timezone: ['timezone', 'tz', 'timezonename'],
  external_id: ['externalid', 'extid', 'userid', 'customerid', 'clientid', 'contactid'],
  tags: ['tags', 'tag', 'labels'],
};

const BY_NAME = new Map<string, StandardField>(STANDARD_FIELDS.map((f) => [normaliseHeader(f), f]));
const BY_SYNONYM = new Map<string, StandardField>(Object.entries(SYNONYMS).flatMap(([field, names]) => names.map((n) => [n, field as StandardField] as const)));

export function targetName(t: ColumnTarget): string {
  return t.kind === 'standard' ? t.field : t.kind === 'custom' ? `${CUSTOM_PREFIX}${t.key}` : IGNORE;
}

/** A mapping target as written (`email`, `custom_fields.plan`, `ignore`), or why it is none. */
function parseTarget(value: unknown, definitions: ReadonlyMap<string, FieldDefinition>): ColumnTarget | string {
  if (typeof value !== 'string') return 'must be a field name, custom_fields.<key> or ignore';
  if (value === IGNORE) return { kind: 'ignore' };
  if ((STANDARD_FIELDS as readonly string[]).includes(value)) return { kind: 'standard', field: value as StandardField };
  if (value.startsWith(CUSTOM_PREFIX)) {
    const key = value.slice(CUSTOM_PREFIX.length);
    return definitions.has(key) ? { kind: 'custom', key } : `no custom field with key "${key}" is defined`;
  }
  return `must be one of ${STANDARD_FIELDS.join(', ')}, custom_fields.<key> or ignore`;
}

/** The target a header maps to without an explicit mapping. */
function guess(header: string, customByName: ReadonlyMap<string, string>): ColumnTarget {
  const n = normaliseHeader(header);
  if (!n) return { kind: 'ignore' };
  const standard = BY_NAME.get(n);
  if (standard) return { kind: 'standard', field: standard };
  const custom = customByName.get(n);
  if (custom) return { kind: 'custom', key: custom };
  const synonym = BY_SYNONYM.get(n);
  return synonym ? { kind: 'standard', field: synonym } : { kind: 'ignore' };
}

/**
 * The mapping of each header of a file: an explicit mapping (header → target) wins; headers it does
 * not name are guessed. Two columns never fill one field: a guessed one that would is ignored (the
 * first keeps it), an explicit one is a 400. Also a 400: a mapping naming a header the file does not
 * have, or an unknown target; and a file with no column for email, phone or external_id.
 */
export function planColumns(headers: readonly string[], definitions: readonly FieldDefinition[], mapping: Readonly<Record<string, unknown>> | null): ImportColumn[] {
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  const customByName = new Map<string, string>();
  // keys first: a key matches before another field's label
  for (const d of definitions) customByName.set(normaliseHeader(d.label), d.key);
  for (const d of definitions) customByName.set(normaliseHeader(d.key), d.key);
  const issues: Issue[] = [];
  const explicit = new Map<number, ColumnTarget>();
  for (const [name, value] of Object.entries(mapping ?? {})) {
    const path = `mapping.${name}`;
    // the header as written, else the one it names with case and spacing forgiven
    let index = headers.findIndex((h) => h.trim() === name.trim());
    if (index < 0) index = headers.findIndex((h) => normaliseHeader(h) === normaliseHeader(name) && normaliseHeader(h) !== '');
    if (index < 0) {
      issues.push({ path, message: 'the file has no column with this header' });
      continue;
    }
    const target = parseTarget(value, byKey);
    if (typeof target === 'string') issues.push({ path, message: target });
    else if (explicit.has(index)) issues.push({ path, message: `names the same column as another entry of the mapping ("${headers[index]}")` });
    else explicit.set(index, target);
  }
  // explicit targets first: a guessed column never takes a field the mapping gave to another
  const taken = new Map<string, number>();
  for (const [i, target] of [...explicit].sort(([a], [b]) => a - b)) {
    const name = targetName(target);
    if (target.kind === 'ignore') continue;
    const first = taken.get(name);
    if (first === undefined) taken.set(name, i);
    else issues.push({ path: `mapping.${headers[i]}`, message: `"${headers[first]}" is mapped to ${name} too` });
  }
  const columns = headers.map((header, i): ImportColumn => {
    const given = explicit.get(i);
    if (given) return { header, field: targetName(given) };
    const target = guess(header, customByName);
    const name = targetName(target);
    if (target.kind === 'ignore' || taken.has(name)) return { header, field: IGNORE };
    taken.set(name, i);
    return { header, field: name };
  });
  if (!columns.some((c) => c.field === 'email' || c.field === 'phone' || c.field === 'external_id')) {
    issues.push({ path: 'file', message: 'no column maps to email, phone or external_id (name one in the header, or map one with mapping)' });
  }
  if (issues.length) throw validationError(issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues);
  return columns;
}

/** The targets of the columns an import was accepted with, by column index. */
export function targetsOf(columns: readonly ImportColumn[]): ColumnTarget[] {
  return columns.map(({ field }): ColumnTarget => {
    if (field.startsWith(CUSTOM_PREFIX)) return { kind: 'custom', key: field.slice(CUSTOM_PREFIX.length) };
    if ((STANDARD_FIELDS as readonly string[]).includes(field)) return { kind: 'standard', field: field as StandardField };
    return { kind: 'ignore' };
  });
}
