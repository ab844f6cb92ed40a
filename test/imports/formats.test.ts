// The contacts import reads the files people bring (README "Contacts import"): multipart or a text/csv
// body; UTF-8 with or without a BOM; `,`, `;` or tab; quoted fields with line breaks and doubled
// quotes; CRLF; headers of the common tools' exports and their synonyms; an explicit mapping that
// wins; phones normalised with the row's country, else the upload's default_country, else the
// account's default country; custom values read by their type;
// bad rows reported by row (as a spreadsheet numbers them) and column without their value, the
// others imported.
import { beforeAll, describe, expect, it } from 'vitest';
import { importStream } from '../../commands/import.ts';
import { readyAccount, type TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { expectRejected } from '../support/http.ts';
import { accepted, contactsByEmail, ended, imported, upload } from './helpers.ts';

const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false' });
const IMPORT_ID_RE = /^imp_[0-9A-HJKMNP-TV-Z]{26}$/;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const pick = (c: any, keys: string[]) => Object.fromEntries(keys.map((k) => [k, c[k]]));

async function storedUploads(accountId: string): Promise<number> {
  const { rows } = await server.engage.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM import_uploads WHERE account_id = $1', [accountId]);
  return rows[0].n;
}

describe('files as the common tools export them', () => {
  it('a Mailchimp export (multipart, BOM, CRLF, quoted cells): 202 at once, then completed with every contact', async () => {
    const { key } = await readyAccount(server);
    const csv =
      '\ufeff"Email Address","First Name","Last Name","Phone Number",TAGS,MEMBER_RATING,OPTIN_TIME\r\n' +
      'ann@example.com,Ann,Archer,+14155550123,"""vip"",""beta""",2,"2024-01-01 10:00:00"\r\n' +
      'BOB@Example.com,Bob,"Brown, Jr.",,"customer",1,\r\n';
    const before = Date.now();
    const res = await upload(server, key, csv, { fileName: 'members_export.csv' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toEqual({
      id: expect.stringMatching(IMPORT_ID_RE),
      status: 'queued',
      list_id: null,
      file_name: 'members_export.csv',
      rows_total: 2,
      rows_imported: 0,
      rows_updated: 0,
      rows_failed: 0,
      columns: [
        { header: 'Email Address', field: 'email' },
        { header: 'First Name', field: 'first_name' },
        { header: 'Last Name', field: 'last_name' },
        { header: 'Phone Number', field: 'phone' },
        { header: 'TAGS', field: 'tags' },
        { header: 'MEMBER_RATING', field: 'ignore' },
        { header: 'OPTIN_TIME', field: 'ignore' },
      ],
      errors: [],
      failure_reason: null,
      created_at: expect.stringMatching(RFC3339_UTC),
      updated_at: expect.stringMatching(RFC3339_UTC),
      completed_at: null,
    });
    expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 1000);

    const done = await ended(server, key, res.body.id);
    expect(done).toMatchObject({ status: 'completed', rows_total: 2, rows_imported: 2, rows_updated: 0, rows_failed: 0, errors: [], completed_at: expect.stringMatching(RFC3339_UTC) });
    const contacts = await contactsByEmail(server, key);
    expect(contacts.size).toBe(2);
    expect(pick(contacts.get('ann@example.com'), ['first_name', 'last_name', 'phone', 'tags'])).toEqual({ first_name: 'Ann', last_name: 'Archer', phone: '+14155550123', tags: ['vip', 'beta'] });
    expect(pick(contacts.get('bob@example.com'), ['first_name', 'last_name', 'phone', 'tags'])).toEqual({ first_name: 'Bob', last_name: 'Brown, Jr.', phone: null, tags: ['customer'] });
  });

  it('a text/csv body with `;`, CRLF, quoted line breaks and doubled quotes; options as query parameters', async () => {
    const { key } = await readyAccount(server);
    const csv =
      'email;first_name;last_name;phone;country\r\n' +
      'fr@example.com;"Zoë";"O""Brien";06 12 34 56 78;\r\n' +
      'us@example.com;Sam;"Multi\r\nline";(415) 555-0124;US\r\n';
    const imp = await imported(server, key, csv, { as: 'csv', options: { default_country: 'fr', tags: 'imported, spring;imported', file_name: 'export.csv' } });
    expect(imp).toMatchObject({ rows_total: 2, rows_imported: 2, rows_failed: 0, file_name: 'export.csv' });
    const contacts = await contactsByEmail(server, key);
    // a number without + takes the row's country, else the default one
    expect(pick(contacts.get('fr@example.com'), ['first_name', 'last_name', 'phone', 'country', 'tags'])).toEqual({
      first_name: 'Zoë', last_name: 'O"Brien', phone: '+33612345678', country: null, tags: ['imported', 'spring'],
    });
    expect(pick(contacts.get('us@example.com'), ['last_name', 'phone', 'country', 'tags'])).toEqual({ last_name: 'Multi\r\nline', phone: '+14155550124', country: 'US', tags: ['imported', 'spring'] });
  });

  it('tab-separated HubSpot/Klaviyo headers, and Brevo’s EMAIL/SMS/FIRSTNAME', async () => {
    const { key } = await readyAccount(server);
    await imported(server, key, 'E-mail\tMobile\tGiven name\tSurname\tCountry Code\tTime zone\tLanguage\tUser ID\nk@example.com\t+447911123456\tKim\tKay\tgb\tEurope/London\ten-gb\tu-1\n');
    await imported(server, key, 'EMAIL,SMS,FIRSTNAME,LASTNAME,Country\nb@example.com,0612345679,Brice,Blanc,France\n');
    const contacts = await contactsByEmail(server, key);
    expect(pick(contacts.get('k@example.com'), ['phone', 'first_name', 'last_name', 'country', 'timezone', 'language', 'external_id'])).toEqual({
      phone: '+447911123456', first_name: 'Kim', last_name: 'Kay', country: 'GB', timezone: 'Europe/London', language: 'en-GB', external_id: 'u-1',
    });
    // a country name stands for its code, and reads the row's phone
    expect(pick(contacts.get('b@example.com'), ['phone', 'first_name', 'last_name', 'country'])).toEqual({ phone: '+33612345679', first_name: 'Brice', last_name: 'Blanc', country: 'FR' });
  });

  it('a file without a BOM, with LF, and a header of one column', async () => {
    const { key } = await readyAccount(server);
    const imp = await imported(server, key, 'email\none@example.com\ntwo@example.com', { as: 'csv' });
    expect(imp).toMatchObject({ rows_total: 2, rows_imported: 2, columns: [{ header: 'email', field: 'email' }] });
  });
});

describe('the country of phone numbers without +', () => {
  /** an account whose default country (PATCH /v1/account/settings) is `country` */
  async function accountIn(country: string) {
    const { key } = await readyAccount(server);
    const set = await server.call('PATCH', '/v1/account/settings', { key, body: { default_country: country } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    return key;
  }
  const acceptedCountry = async (importId: string) => {
    const [first] = await server.engage.store.readStream(importStream(importId));
    expect(first.type).toBe('ImportAccepted');
    return (first.data as { default_country: string | null }).default_country;
  };

  it('an upload without default_country takes the account’s, and keeps it in the accepted import', async () => {
    const key = await accountIn('FR');
    const imp = await imported(server, key, 'email,phone\nfr@example.com,06 12 34 56 78\n');
    expect(imp).toMatchObject({ rows_imported: 1, rows_failed: 0, errors: [] });
    expect((await contactsByEmail(server, key)).get('fr@example.com').phone).toBe('+33612345678');
    // decided when accepted: a later change of the setting does not change this import (nor its resume)
    expect(await acceptedCountry(imp.id)).toBe('FR');
  });

  it('the upload’s default_country wins over the account’s', async () => {
    const key = await accountIn('FR');
    const imp = await imported(server, key, 'email,phone\nus@example.com,(415) 555-0125\n', { options: { default_country: 'US' } });
    expect(imp).toMatchObject({ rows_imported: 1, rows_failed: 0 });
    expect((await contactsByEmail(server, key)).get('us@example.com').phone).toBe('+14155550125');
    expect(await acceptedCountry(imp.id)).toBe('US');
  });

  it('a row’s own country wins over both', async () => {
    const key = await accountIn('FR');
    // over the account's FR
    expect(await imported(server, key, 'email,phone,country\ngb1@example.com,07911 123456,GB\n')).toMatchObject({ rows_imported: 1, rows_failed: 0 });
    // over the upload's US (and the account's FR)
    expect(await imported(server, key, 'email,phone,country\ngb2@example.com,07911 123457,GB\n', { options: { default_country: 'US' } })).toMatchObject({ rows_imported: 1, rows_failed: 0 });
    const contacts = await contactsByEmail(server, key);
    expect(pick(contacts.get('gb1@example.com'), ['phone', 'country'])).toEqual({ phone: '+447911123456', country: 'GB' });
    expect(pick(contacts.get('gb2@example.com'), ['phone', 'country'])).toEqual({ phone: '+447911123457', country: 'GB' });
  });
});

describe('bad rows are reported and skipped, never the file', () => {
  it('reports each bad row by its spreadsheet row number (header = 1) and column, and imports the others', async () => {
    const { key } = await readyAccount(server);
    const csv = [
      'email,phone,first_name', // row 1
      'ok1@example.com,,"two\nlines"', // row 2: one row, two lines
      'not-an-email,,x', // row 3
      '', // row 4: blank, not counted
      'ok2@example.com,12345,y', // row 5: no valid phone
      ',,', // row 6: blank
      'ok3@example.com,+14155550125,', // row 7
      ',,nobody', // row 8: no email, phone or external id
    ].join('\n');
    const imp = await imported(server, key, csv);
    expect(imp).toMatchObject({ rows_total: 5, rows_imported: 2, rows_updated: 0, rows_failed: 3 });
    expect(imp.errors).toEqual([
      { row: 3, column: 'email', message: 'must be a valid email address' },
      { row: 5, column: 'phone', message: expect.stringContaining('must be a valid phone number') },
      { row: 8, column: null, message: 'the row has no email, phone or external_id' },
    ]);
    const contacts = await contactsByEmail(server, key);
    expect([...contacts.keys()].sort()).toEqual(['ok1@example.com', 'ok3@example.com']);
    expect(contacts.get('ok1@example.com').first_name).toBe('two\nlines');
  });

  it('a cell Postgres cannot hold (a NUL character) fails its row; the same in an ignored column does not', async () => {
    const { key } = await readyAccount(server);
    const imp = await imported(server, key, 'email,first_name,notes\nnul@example.com,A\u0000B,\nfine@example.com,Fine,x\u0000y\n');
    expect(imp).toMatchObject({ rows_imported: 1, rows_failed: 1, errors: [{ row: 2, column: 'first_name', message: 'contains a NUL character' }] });
    expect([...(await contactsByEmail(server, key)).keys()]).toEqual(['fine@example.com']);
  });

  it('reads custom values by their type (by key or label), and reports the bad ones without echoing them', async () => {
    const acct = await readyAccount(server);
    const { key } = acct;
    for (const f of [
      { key: 'plan', label: 'Plan', type: 'select', options: ['free', 'pro'] },
      { key: 'score', label: 'Lead score', type: 'number' },
      { key: 'vip', type: 'boolean' },
      { key: 'birthday', label: 'Birth date', type: 'date' },
      { key: 'note', type: 'text' },
    ]) {
      expect((await server.call('POST', '/v1/contacts/fields', { key, body: f })).status).toBe(201);
    }
    const bad = ['gold', 'abc12', 'maybe', '1990-02-30'];
    const csv = [
      'email,PLAN,Lead Score,vip,Birth-Date,note',
      'a@example.com,Pro,42,yes,1990-04-01,hello',
      `b@example.com,${bad.join(',')},fine`,
      'c@example.com,free,"3,5",0,,',
    ].join('\r\n');
    const imp = await imported(server, key, csv);
    expect(imp.columns).toEqual([
      { header: 'email', field: 'email' },
      { header: 'PLAN', field: 'custom_fields.plan' },
      { header: 'Lead Score', field: 'custom_fields.score' },
      { header: 'vip', field: 'custom_fields.vip' },
      { header: 'Birth-Date', field: 'custom_fields.birthday' },
      { header: 'note', field: 'custom_fields.note' },
    ]);
    expect(imp).toMatchObject({ rows_total: 3, rows_imported: 2, rows_failed: 1 });
    expect(imp.errors.map((e: any) => [e.row, e.column])).toEqual([
      [3, 'PLAN'],
      [3, 'Lead Score'],
      [3, 'vip'],
      [3, 'Birth-Date'],
    ]);
    for (const e of imp.errors) for (const value of bad) expect(e.message).not.toContain(value);
    const contacts = await contactsByEmail(server, key);
    expect(contacts.get('a@example.com').custom_fields).toEqual({ plan: 'pro', score: 42, vip: true, birthday: '1990-04-01', note: 'hello' });
    expect(contacts.get('c@example.com').custom_fields).toEqual({ plan: 'free', score: 3.5, vip: false });
    expect(contacts.has('b@example.com')).toBe(false);
  });
});

describe('mapping the header', () => {
  let acct: TestAccount;
  beforeAll(async () => {
    acct = await readyAccount(server);
    expect((await server.call('POST', '/v1/contacts/fields', { key: acct.key, body: { key: 'plan', type: 'text' } })).status).toBe(201);
  });

  it('an explicit mapping wins over the guess; a guessed second column for one field is ignored', async () => {
    const csv = 'Mail,Work Email,Code,Phone,Mobile,Tier\nhome@example.com,work@example.com,c-9,+14155550126,+14155550127,gold\n';
    const imp = await imported(server, acct.key, csv, { options: { mapping: JSON.stringify({ 'work email': 'email', Mail: 'ignore', Code: 'external_id', Tier: 'custom_fields.plan' }) } });
    expect(imp.columns).toEqual([
      { header: 'Mail', field: 'ignore' },
      { header: 'Work Email', field: 'email' },
      { header: 'Code', field: 'external_id' },
      { header: 'Phone', field: 'phone' },
      { header: 'Mobile', field: 'ignore' },
      { header: 'Tier', field: 'custom_fields.plan' },
    ]);
    const c = (await contactsByEmail(server, acct.key)).get('work@example.com');
    expect(pick(c, ['external_id', 'phone', 'custom_fields'])).toEqual({ external_id: 'c-9', phone: '+14155550126', custom_fields: { plan: 'gold' } });
  });

  it('refuses a mapping it cannot apply, and a file with no email, phone or external_id column, with 400 naming it; nothing is stored', async () => {
    const csv = 'Mail,Work Email,Notes\na@example.com,b@example.com,x\n';
    const cases: [Record<string, string>, string][] = [
      [{ mapping: JSON.stringify({ Nope: 'email' }) }, 'mapping.Nope'],
      [{ mapping: JSON.stringify({ Mail: 'emial' }) }, 'mapping.Mail'],
      [{ mapping: JSON.stringify({ Mail: 'custom_fields.undefined_key' }) }, 'mapping.Mail'],
      [{ mapping: JSON.stringify({ Mail: 'email', 'Work Email': 'email' }) }, 'mapping.Work Email'],
      [{ mapping: '{not json' }, 'mapping'],
      [{ mapping: '["email"]' }, 'mapping'],
      [{ mapping: JSON.stringify({ Mail: 'ignore', 'Work Email': 'ignore' }) }, 'file'],
      [{ default_country: 'XX' }, 'default_country'],
      [{ tags: 'x'.repeat(101) }, 'tags'],
    ];
    for (const [options, path] of cases) {
      for (const as of ['multipart', 'csv'] as const) {
        const res = await upload(server, acct.key, csv, { as, options });
        expectRejected(res, path);
      }
    }
    expectRejected(await upload(server, acct.key, 'Notes,Name\nx,y\n'), 'file');
    expect(await storedUploads(acct.accountId)).toBe(0);
    const listed = await server.call('GET', '/v1/contacts/imports', { key: acct.key });
    expect(listed.body.data.every((i: any) => i.status === 'completed')).toBe(true);
  });

  it('refuses unknown options and fields with 400 naming them', async () => {
    const csv = 'email\na@example.com\n';
    expectRejected(await upload(server, acct.key, csv, { as: 'csv', options: { colour: 'red' } }), 'colour');
    expectRejected(await upload(server, acct.key, csv, { options: { colour: 'red' } }), 'colour');
    // the file in another field, or none at all
    const form = new FormData();
    form.append('upload', new Blob([csv], { type: 'text/csv' }), 'a.csv');
    const other = await fetch(`${server.url}/v1/contacts/import`, { method: 'POST', headers: { 'x-api-key': acct.key }, body: form });
    expectRejected({ status: other.status, body: await other.json() }, 'upload');
    const fieldsOnly = new FormData();
    fieldsOnly.append('tags', 'x');
    const none = await fetch(`${server.url}/v1/contacts/import`, { method: 'POST', headers: { 'x-api-key': acct.key }, body: fieldsOnly });
    expectRejected({ status: none.status, body: await none.json() }, 'file');
    // an option both as a field and in the query
    const twice = new FormData();
    twice.append('tags', 'a');
    twice.append('file', new Blob([csv], { type: 'text/csv' }), 'a.csv');
    const both = await fetch(`${server.url}/v1/contacts/import?tags=b`, { method: 'POST', headers: { 'x-api-key': acct.key }, body: twice });
    expectRejected({ status: both.status, body: await both.json() }, 'tags');
    expect(await storedUploads(acct.accountId)).toBe(0);
  });

  it('accepts the options as multipart fields before or after the file', async () => {
    const form = new FormData();
    form.append('file', new Blob(['email,phone\nafter@example.com,0612345670\n'], { type: 'text/csv' }), 'a.csv');
    form.append('default_country', 'FR');
    form.append('tags', 'late');
    const res = await fetch(`${server.url}/v1/contacts/import`, { method: 'POST', headers: { 'x-api-key': acct.key }, body: form });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(202);
    expect((await ended(server, acct.key, body.id)).status).toBe('completed');
    expect(pick((await contactsByEmail(server, acct.key)).get('after@example.com'), ['phone', 'tags'])).toEqual({ phone: '+33612345670', tags: ['late'] });
  });
});

describe('progress', () => {
  it('GET /v1/contacts/imports pages the account’s imports newest first; another account sees none of them', async () => {
    const a = await readyAccount(server);
    const b = await readyAccount(server);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await accepted(server, a.key, `email\np${i}@example.com\n`)).id);
    for (const id of ids) await ended(server, a.key, id);
    const page1 = await server.call('GET', '/v1/contacts/imports?limit=2', { key: a.key });
    expect(page1.body.data.map((i: any) => i.id)).toEqual([ids[2], ids[1]]);
    const page2 = await server.call('GET', `/v1/contacts/imports?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`, { key: a.key });
    expect(page2.body).toEqual({ data: [expect.objectContaining({ id: ids[0], status: 'completed', rows_imported: 1 })], next_cursor: null });
    expect((await server.call('GET', '/v1/contacts/imports', { key: b.key })).body).toEqual({ data: [], next_cursor: null });
    const theirs = await server.call('GET', `/v1/contacts/imports/${ids[0]}`, { key: b.key });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual((await server.call('GET', '/v1/contacts/imports/imp_01ARZ3NDEKTSV4RRFFQ69G5FAV', { key: b.key })).body);
  });

  it('the OpenAPI document shows the uploads as multipart (field file and the options) or text/csv, and the progress routes', async () => {
    const doc = (await server.call('GET', '/v1/openapi.json')).body;
    for (const path of ['/v1/contacts/import', '/v1/lists/{id}/import']) {
      const content = doc.paths[path].post.requestBody.content;
      expect(Object.keys(content).sort()).toEqual(['multipart/form-data', 'text/csv']);
      expect(Object.keys(content['multipart/form-data'].schema.properties)).toEqual(['file', 'mapping', 'default_country', 'tags']);
      expect(Object.keys(doc.paths[path].post.responses)).toContain('202');
    }
    expect(doc.paths['/v1/contacts/imports'].get).toBeDefined();
    expect(doc.paths['/v1/contacts/imports/{id}'].get).toBeDefined();
  });
});
