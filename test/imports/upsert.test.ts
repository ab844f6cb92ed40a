// What an import does to contacts and lists: upsert on email, then phone, then external_id (an
// existing contact gets a ContactUpdated with only what changes; empty cells erase nothing; tags are
// added), duplicates within the file merged into one contact (later non-empty values win) across
// batches too, a phone of another contact refused for its row, our own export imported back into a
// fresh account as the same contacts, and list imports that add members once.
// The server writes batches of 2 rows, so every file here spans several batches.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { contactStream } from '../../commands/contact.ts';
import { importStream } from '../../commands/import.ts';
import { listStream } from '../../commands/list.ts';
import { holdersOf } from '../../src/claims.ts';
import { contactClaimKind } from '../../src/contacts/service.ts';
import { GENERATION_LOCK_NAMESPACE } from '../../src/read-models/state.ts';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { eventually } from '../support/waits.ts';
import { accepted, contactsByEmail, ended, imported, upload } from './helpers.ts';

const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false', IMPORT_BATCH_ROWS: '2' });

async function ok(key: string, method: string, path: string, body?: unknown, status = 200) {
  const res = await server.call(method, path, { key, body });
  expect(res.status, `${method} ${path} → ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

const events = async (streamId: string) => (await server.engage.store.readStream(streamId)).map((e) => ({ type: e.type, data: e.data }));
const STANDARD = ['email', 'phone', 'first_name', 'last_name', 'country', 'language', 'timezone', 'external_id', 'tags', 'custom_fields'];
const fieldsOf = (c: any) => Object.fromEntries(STANDARD.map((k) => [k, c[k]]));
const pick = (c: any, keys: string[]) => Object.fromEntries(keys.map((k) => [k, c[k]]));

describe('upsert', () => {
  it('an existing contact found by email (any case) is updated with only what changes; empty cells erase nothing; tags are added', async () => {
    const { key } = await readyAccount(server);
    await ok(key, 'POST', '/v1/contacts/fields', { key: 'plan', type: 'select', options: ['free', 'pro'] }, 201);
    const before = await ok(key, 'POST', '/v1/contacts', { email: 'ann@example.com', first_name: 'Ann', last_name: 'Archer', phone: '+14155550131', tags: ['old'], custom_fields: { plan: 'free' } }, 201);
    const imp = await imported(server, key, 'email,first_name,last_name,phone,tags,plan\nANN@example.com,Annie,Archer,,new,pro\n');
    expect(imp).toMatchObject({ rows_total: 1, rows_imported: 0, rows_updated: 1, rows_failed: 0 });
    const after = await ok(key, 'GET', `/v1/contacts/${before.id}`);
    expect(fieldsOf(after)).toEqual({ ...fieldsOf(before), first_name: 'Annie', tags: ['old', 'new'], custom_fields: { plan: 'pro' } });
    const history = await events(contactStream(before.id));
    expect(history.map((e) => e.type)).toEqual(['ContactCreated', 'ContactUpdated']);
    expect(history[1].data).toMatchObject({ changes: { first_name: 'Annie', tags: ['old', 'new'] }, custom_fields: { plan: 'pro' } });
    expect(Object.keys(history[1].data.changes).sort()).toEqual(['first_name', 'tags']);

    // the same file again changes nothing: counted as updated, nothing appended
    const again = await imported(server, key, 'email,first_name,last_name,phone,tags,plan\nann@example.com,Annie,Archer,,new,pro\n');
    expect(again).toMatchObject({ rows_imported: 0, rows_updated: 1 });
    expect((await events(contactStream(before.id))).length).toBe(2);
  });

  it('by phone when the email is unknown (the number in any format, with the default country), then by external_id', async () => {
    const { key } = await readyAccount(server);
    const byPhone = await ok(key, 'POST', '/v1/contacts', { phone: '+14155550132', first_name: 'Phil' }, 201);
    const byExternal = await ok(key, 'POST', '/v1/contacts', { external_id: 'crm-7', first_name: 'Ext' }, 201);
    const imp = await imported(server, key, 'email,phone,external_id,last_name\nphil@example.com,(415) 555-0132,,Phone\nnew-ext@example.com,,crm-7,External\n', {
      options: { default_country: 'US' },
    });
    expect(imp).toMatchObject({ rows_imported: 0, rows_updated: 2, rows_failed: 0 });
    expect(fieldsOf(await ok(key, 'GET', `/v1/contacts/${byPhone.id}`))).toMatchObject({ email: 'phil@example.com', phone: '+14155550132', first_name: 'Phil', last_name: 'Phone' });
    expect(fieldsOf(await ok(key, 'GET', `/v1/contacts/${byExternal.id}`))).toMatchObject({ email: 'new-ext@example.com', external_id: 'crm-7', first_name: 'Ext', last_name: 'External' });
    expect((await contactsByEmail(server, key)).size).toBe(2);
  });

  it('email comes before phone: a row whose phone is another contact’s is refused for that column', async () => {
    const { key } = await readyAccount(server);
    const x = await ok(key, 'POST', '/v1/contacts', { email: 'x@example.com' }, 201);
    await ok(key, 'POST', '/v1/contacts', { email: 'y@example.com', phone: '+14155550133' }, 201);
    const imp = await imported(server, key, 'email,phone,first_name\nx@example.com,+14155550133,Xavier\nz@example.com,+14155550134,Zed\n');
    expect(imp).toMatchObject({ rows_imported: 1, rows_updated: 0, rows_failed: 1 });
    expect(imp.errors).toEqual([{ row: 2, column: 'phone', message: 'another contact has this phone number' }]);
    expect((await ok(key, 'GET', `/v1/contacts/${x.id}`)).first_name).toBeNull();
    // the claim on the phone stays with its holder: creating it again is still a conflict
    expect((await server.call('POST', '/v1/contacts', { key, body: { phone: '+14155550133' } })).status).toBe(409);
    expect((await server.call('POST', '/v1/contacts', { key, body: { phone: '+14155550134' } })).status).toBe(409);
  });

  it('each email and phone claim ends with the contact that got the value; a value no contact got is not held', async () => {
    const account = await readyAccount(server);
    const { key } = account;
    const existing = await ok(key, 'POST', '/v1/contacts', { phone: '+14155550141', first_name: 'Known' }, 201);
    const csv = [
      'email,phone,first_name',
      'known@example.com,+14155550141,', // a new email for the contact with this phone
      'fresh@example.com,,Fresh', // a new contact
      'first@example.com,+14155550142,', // a new contact (batch 2) ...
      'second@example.com,+14155550142,', // ... whose email the next row of its batch changes
    ].join('\n');
    const imp = await imported(server, key, csv);
    expect(imp).toMatchObject({ rows_total: 4, rows_imported: 2, rows_updated: 2, rows_failed: 0 });
    const contacts = await contactsByEmail(server, key);
    expect([...contacts.keys()].sort()).toEqual(['fresh@example.com', 'known@example.com', 'second@example.com']);
    expect(contacts.get('known@example.com').id).toBe(existing.id);
    const holder = async (kind: 'email' | 'phone', value: string) =>
      (await holdersOf(server.engage.pool, { accountId: account.accountId, kind: contactClaimKind(kind) }, [value])).get(value)?.owner ?? null;
    expect(await holder('email', 'known@example.com')).toBe(existing.id);
    expect(await holder('phone', '+14155550141')).toBe(existing.id);
    expect(await holder('email', 'fresh@example.com')).toBe(contacts.get('fresh@example.com').id);
    expect(await holder('email', 'second@example.com')).toBe(contacts.get('second@example.com').id);
    expect(await holder('phone', '+14155550142')).toBe(contacts.get('second@example.com').id);
    // the email the contact no longer has after its batch: nobody holds it
    expect(await holder('email', 'first@example.com')).toBeNull();
  });

  it('a batch written whose give-back of claims then fails keeps the claims its contacts hold', async () => {
    const account = await readyAccount(server);
    const { key } = account;
    // the first DELETE of claims from here on fails once: the give-back after the first batch's append
    await server.engage.pool.query(`
      CREATE SEQUENCE test_claim_deletes;
      CREATE FUNCTION test_fail_first_claim_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('test_claim_deletes') = 1 THEN RAISE EXCEPTION 'the give-back of claims fails once'; END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER test_fail_first_claim_delete BEFORE DELETE ON unique_claims FOR EACH STATEMENT EXECUTE FUNCTION test_fail_first_claim_delete();`);
    try {
      // one batch of two rows: one contact, whose email the second row changes (the first email's claim is given back)
      await imported(server, key, 'email,phone\nbefore@example.com,+14155550151\nafter@example.com,+14155550151\n');
    } finally {
      await server.engage.pool.query(`
        DROP TRIGGER test_fail_first_claim_delete ON unique_claims;
        DROP FUNCTION test_fail_first_claim_delete();
        DROP SEQUENCE test_claim_deletes;`);
    }
    const contacts = await contactsByEmail(server, key);
    expect([...contacts.keys()]).toEqual(['after@example.com']);
    const holder = async (kind: 'email' | 'phone', value: string) =>
      (await holdersOf(server.engage.pool, { accountId: account.accountId, kind: contactClaimKind(kind) }, [value])).get(value)?.owner ?? null;
    const id = contacts.get('after@example.com').id;
    expect(await holder('phone', '+14155550151')).toBe(id);
    expect(await holder('email', 'after@example.com')).toBe(id);
  });

  it('merges duplicates within the file into one contact, across batches: later non-empty values win', async () => {
    const { key } = await readyAccount(server);
    const csv = [
      'email,phone,first_name,last_name,tags',
      'dup@example.com,,Ann,,a',
      'other@example.com,,Otto,,',
      'dup@example.com,,,Smith,b',
      'DUP@example.com,+14155550135,Annie,,',
      ',(415) 555-0135,,Smythe,', // the same contact by its phone (written differently), with the default country
    ].join('\n');
    const imp = await imported(server, key, csv, { options: { default_country: 'US' } });
    expect(imp).toMatchObject({ rows_total: 5, rows_imported: 2, rows_updated: 3, rows_failed: 0 });
    const contacts = await contactsByEmail(server, key);
    expect(contacts.size).toBe(2);
    expect(fieldsOf(contacts.get('dup@example.com'))).toMatchObject({ phone: '+14155550135', first_name: 'Annie', last_name: 'Smythe', tags: ['a', 'b'] });
    // one ContactCreated per contact in the whole log of this account
    const { rows } = await server.engage.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM es_events WHERE type = 'ContactCreated' AND stream_id = ANY($1::text[])`,
      [[...contacts.values()].map((c) => contactStream(c.id))],
    );
    expect(rows[0].n).toBe(2);
  });
  it('merges rows naming one contact by external id only, across batches, though the contacts read model lags behind', async () => {
    const { key } = await readyAccount(server);
    const existing = await ok(key, 'POST', '/v1/contacts', { external_id: 'crm-old', first_name: 'Old' }, 201);
    // the contacts read model is held back (its generation's lock) until the first batch is written:
    // the second batch, whose crm-1 the first one created, must wait for it rather than read it stale
    const generation = (await server.engage.pool.query(`SELECT generation FROM projection_state WHERE name = 'contacts' AND active`)).rows[0].generation;
    const holder = new pg.Client({ connectionString: server.databaseUrl });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1, hashtext($2))', [GENERATION_LOCK_NAMESPACE, `contacts:${generation}`]);
      const csv = ['external_id,first_name,last_name', 'crm-1,Ann,', 'crm-2,Bob,', 'crm-old,,Known', 'crm-1,,Archer', 'crm-3,Cy,', 'crm-1,Annie,'].join('\n');
      const imp = await accepted(server, key, csv);
      await eventually('the first batch to be written', async () => {
        const { rows } = await server.engage.pool.query(`SELECT 1 FROM es_events WHERE stream_id = $1 AND type = 'ImportBatchApplied'`, [importStream(imp.id)]);
        return rows.length > 0 ? true : undefined;
      });
      await holder.query('SELECT pg_advisory_unlock($1, hashtext($2))', [GENERATION_LOCK_NAMESPACE, `contacts:${generation}`]);
      expect(await ended(server, key, imp.id)).toMatchObject({ status: 'completed', rows_total: 6, rows_imported: 3, rows_updated: 3, rows_failed: 0 });
    } finally {
      await holder.end();
    }
    await server.caughtUp(['contacts']);
    const { data } = await ok(key, 'GET', '/v1/contacts?limit=500');
    const byExternal = new Map(data.map((c: any) => [c.external_id, c]));
    expect(data).toHaveLength(4);
    expect(pick(byExternal.get('crm-1'), ['first_name', 'last_name'])).toEqual({ first_name: 'Annie', last_name: 'Archer' });
    expect(byExternal.get('crm-old')).toMatchObject({ id: existing.id, first_name: 'Old', last_name: 'Known' });
  });
});

describe('our own export imports back', () => {
  it('into a fresh account as the same contacts (formula-guarded cells and `\'+` phones included)', async () => {
    const a = await readyAccount(server);
    const b = await readyAccount(server);
    const fields = [
      { key: 'plan', type: 'select', options: ['free', 'pro'] },
      { key: 'score', type: 'number' },
      { key: 'vip', type: 'boolean' },
      { key: 'birthday', type: 'date' },
      { key: 'note', type: 'text' },
    ];
    for (const f of fields) for (const acct of [a, b]) await ok(acct.key, 'POST', '/v1/contacts/fields', f, 201);
    const made = [
      { email: 'zoe@example.com', phone: '+33612345678', first_name: 'Zoë', last_name: 'O"Brien, Jr.\nsecond line', country: 'FR', language: 'fr', timezone: 'Europe/Paris', external_id: 'crm=1', tags: ['vip', 'early adopter'], custom_fields: { plan: 'pro', score: 42.5, vip: true, birthday: '1990-04-01', note: '@mention' } },
      { email: 'minus@example.com', first_name: '-2', last_name: '+1', tags: ['+tag', 'x'], custom_fields: { vip: false, score: -3 } },
      { phone: '+14155550136', first_name: 'Phone only' },
      { external_id: 'ext-only', first_name: '=SUM(A1)' },
    ];
    for (const c of made) await ok(a.key, 'POST', '/v1/contacts', c, 201);
    const exported = await fetch(`${server.url}/v1/contacts/export`, { headers: { 'x-api-key': a.key } });
    expect(exported.status).toBe(200);
    const file = Buffer.from(await exported.arrayBuffer());

    const imp = await imported(server, b.key, file, { fileName: 'contacts.csv' });
    expect(imp).toMatchObject({ rows_total: 4, rows_imported: 4, rows_failed: 0, errors: [] });
    expect(imp.columns.filter((c: any) => c.field === 'ignore').map((c: any) => c.header)).toEqual(['id', 'created_at', 'updated_at']);
    const mine = [...(await contactsByEmail(server, a.key)).values()].map(fieldsOf);
    const theirs = [...(await contactsByEmail(server, b.key)).values()].map(fieldsOf);
    const byKey = (c: any) => c.email ?? c.phone ?? c.external_id;
    expect(theirs.sort((x, y) => byKey(x).localeCompare(byKey(y)))).toEqual(mine.sort((x, y) => byKey(x).localeCompare(byKey(y))));
  });
});

describe('list imports', () => {
  it('every imported or updated row’s contact becomes a member once; the count is exact; a re-import adds nothing', async () => {
    const { key } = await readyAccount(server);
    const list = await ok(key, 'POST', '/v1/lists', { name: 'Imported' }, 201);
    const member = await ok(key, 'POST', '/v1/contacts', { email: 'member@example.com' }, 201);
    const outsider = await ok(key, 'POST', '/v1/contacts', { email: 'outsider@example.com' }, 201);
    await ok(key, 'POST', `/v1/lists/${list.id}/contacts`, { contact_id: member.id }, 201);
    const csv = 'email,first_name\nmember@example.com,M\noutsider@example.com,O\nnew@example.com,N\nbad-email,B\nnew@example.com,Again\n';
    const imp = await imported(server, key, csv, { listId: list.id });
    expect(imp).toMatchObject({ list_id: list.id, rows_total: 5, rows_imported: 1, rows_updated: 3, rows_failed: 1 });
    expect((await ok(key, 'GET', `/v1/lists/${list.id}`)).member_count).toBe(3);
    const members = (await ok(key, 'GET', `/v1/lists/${list.id}/contacts`)).data.map((c: any) => c.email).sort();
    expect(members).toEqual(['member@example.com', 'new@example.com', 'outsider@example.com']);
    const added = (await events(listStream(list.id))).filter((e) => e.type === 'ListMemberAdded').map((e) => e.data.contact_id);
    expect(added).toHaveLength(3);
    expect(added.slice(0, 2)).toEqual([member.id, outsider.id]);

    const again = await imported(server, key, csv, { listId: list.id, as: 'csv' });
    expect(again).toMatchObject({ rows_imported: 0, rows_updated: 4, rows_failed: 1 });
    expect((await events(listStream(list.id))).filter((e) => e.type === 'ListMemberAdded')).toHaveLength(3);
    expect((await ok(key, 'GET', `/v1/lists/${list.id}`)).member_count).toBe(3);
  });

  it('another account’s list, a missing one or a malformed id is 404 before anything is stored', async () => {
    const a = await readyAccount(server);
    const b = await readyAccount(server);
    const theirs = await ok(a.key, 'POST', '/v1/lists', { name: 'Theirs' }, 201);
    const missing = await upload(server, b.key, 'email\nx@example.com\n', { listId: 'lst_01ARZ3NDEKTSV4RRFFQ69G5FAV' });
    for (const listId of [theirs.id, 'lst_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'nope']) {
      for (const as of ['multipart', 'csv'] as const) {
        const res = await upload(server, b.key, 'email\nx@example.com\n', { listId, as });
        expect(res.status, `${listId} ${as}`).toBe(404);
        expect(res.body).toEqual(missing.body);
      }
    }
    expect(missing.body).toMatchObject({ error: 'not_found', message: 'list not found' });
    const { rows } = await server.engage.pool.query('SELECT 1 FROM import_uploads WHERE account_id = $1', [b.accountId]);
    expect(rows).toEqual([]);
    expect((await ok(b.key, 'GET', '/v1/contacts/imports')).data).toEqual([]);
  });
});
