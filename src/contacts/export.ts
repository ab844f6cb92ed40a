// GET /v1/contacts/export: the account's contacts (optionally one list's or one segment's) as a CSV stream (README
// "Contacts export"). Paged through the contacts read model by id, one bounded page at a time, so the
// file is never whole in memory; the CSV library's stream pulls the next page only when the socket
// has taken the last one (backpressure).
import { pipeline, Readable, type Transform } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FieldType } from '../../commands/custom-fields.ts';
import { type ContactRow, contactsInIdOrder } from '../../projections/contacts.ts';
import type { CustomFieldRow } from '../../projections/custom-fields.ts';
import type { Db } from '../../projections/queries.ts';

/** Rows read from the database per query. */
export const EXPORT_PAGE_SIZE = 1_000;

/** Between a contact's tags in their one cell. */
export const TAG_SEPARATOR = ';';

export const STANDARD_EXPORT_COLUMNS = [
  'id', 'email', 'phone', 'first_name', 'last_name', 'country', 'language', 'timezone', 'external_id', 'tags', 'created_at', 'updated_at',
] as const;

/**
 * Neutralises what a spreadsheet app would run as a formula (OWASP "CSV Injection"): a cell that
 * starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'` (phone numbers
 * `+33…` included), and so does every piece after a `,` or `;` inside the cell that starts so
 * (after any spaces): an app whose list separator is `;` splits a cell there (`ok;=2+2`), and the
 * `'` goes right after the separator. Every field is also quoted (contactsCsv).
 */
export function escapeFormula(cell: string): string {
  const inner = cell.replace(/([,;])(?=[ ]*[=+\-@\t\r])/g, "$1'");
  return /^[=+\-@\t\r]/.test(inner) ? `'${inner}` : inner;
}

/** A number as JSON writes it (`-5`, `4.2e-7`): a spreadsheet reads it as a number, never a formula. */
class NumberCell {
  constructor(readonly text: string) {}
}

/** A custom value as text: dates ISO, booleans true/false, numbers as JSON writes them (left unescaped). */
function customCell(type: FieldType | undefined, value: unknown): string | NumberCell {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' && Number.isFinite(value)) return new NumberCell(String(value));
  if (typeof value === 'string') {
    if (type === 'date' && value.includes('T')) {
      const d = new Date(value);
      return Number.isNaN(d.getTime()) ? value : d.toISOString();
    }
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

const text = (v: string | null | undefined) => v ?? '';

function record(c: ContactRow, fields: readonly CustomFieldRow[]): string[] {
  const custom = c.custom_fields ?? {};
  return [
    c.id, text(c.email), text(c.phone), text(c.first_name), text(c.last_name), text(c.country), text(c.language), text(c.timezone),
    text(c.external_id), (c.tags ?? []).join(TAG_SEPARATOR), c.created_at.toISOString(), c.updated_at.toISOString(),
    ...fields.map((f) => customCell(f.type, custom[f.key])),
  ].map((cell) => (cell instanceof NumberCell ? cell.text : escapeFormula(cell)));
}

export interface ExportScope {
  accountId: string;
  /** only this list's members (the caller has checked the list is the account's) */
  listId?: string;
  /**
   * Instead of the account's contacts or a list's members: the contacts this gives, page by page in
   * id order (a segment's members, src/segments/service.ts matchingContacts)
   */
  pages?: (page: { after?: string; limit: number }) => Promise<ContactRow[]>;
  /** the account's custom field definitions: one column each, by key, in this order */
  fields: readonly CustomFieldRow[];
}

/**
 * The CSV (UTF-8 with a BOM, a header row, `\r\n` between records) as a stream. Everything a 4xx
 * depends on must be checked before this is called: once the first byte is out, a failure can only
 * cut the response short.
 */
export function contactsCsv(db: Db, scope: ExportScope, pageSize = EXPORT_PAGE_SIZE): Transform {
  async function* records() {
    let after: string | undefined;
    for (;;) {
      const rows = scope.pages
        ? await scope.pages({ after, limit: pageSize })
        : await contactsInIdOrder(db, scope.accountId, { listId: scope.listId, after, limit: pageSize });
      for (const row of rows) yield record(row, scope.fields);
      if (rows.length < pageSize) return;
      after = rows[rows.length - 1]!.id;
    }
  }
  const csv = stringify({
    bom: true,
    header: true,
    columns: [...STANDARD_EXPORT_COLUMNS, ...scope.fields.map((f) => f.key)],
    record_delimiter: 'windows',
    // every field in quotes: an app splitting at its own list separator (`;`) keeps a cell whole
    quoted: true,
    // our own escapeFormula covers every cell the same way
    escape_formulas: false,
  });
  // a failure mid-way destroys the CSV stream, and with it the response (the client sees it cut short)
  pipeline(Readable.from(records()), csv, () => undefined);
  return csv;
}
