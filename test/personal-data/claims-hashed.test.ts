// Issue 25 (finding 4): unique_claims keeps who holds each unique value (a contact's email and phone,
// a user's email, a sender, a tracked event's client id) by a keyed hash of the value, never the
// value itself, so a claim left behind keeps no address in clear; uniqueness holds as before, and a
// database whose claims were written in clear is converted once at start.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/service.ts';
import { claimHasher } from '../../src/claims.ts';
import { migrate } from '../../src/schema.ts';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { imported } from '../imports/helpers.ts';

const server = testServerForSuite();

/** Values unique to this run: finding one in the table can only mean it is stored in clear. */
function values() {
  const tag = randomBytes(5).toString('hex');
  const n = parseInt(tag.slice(0, 8), 16);
  // exchange 4NN with N in 2-9, then four digits: a valid US number unique enough to this run
  const phone = (i: number) => `+1415${4 + i}${2 + (n % 8)}${2 + (Math.floor(n / 8) % 8)}${String(Math.floor(n / 64) % 10_000).padStart(4, '0')}`;
  return { tag, email: (what: string) => `${what}.${tag}@example.com`, phone };
}

/** The whole unique_claims table as text, and how many rows each owner holds. */
async function claimsTable(): Promise<{ text: string; rowsOf: (owner: string) => number }> {
  const { rows } = await server.engage.pool.query<{ t: string; owner_id: string }>(`SELECT t::text AS t, owner_id FROM unique_claims t`);
  return { text: rows.map((r) => r.t).join('\n'), rowsOf: (owner) => rows.filter((r) => r.owner_id === owner).length };
}

const inClear = (text: string, wanted: readonly string[]) => wanted.filter((v) => text.includes(v) || text.includes(v.toLowerCase()));

async function newContact(key: string, body: Record<string, unknown>, status = 201) {
  const res = await server.call('POST', '/v1/contacts', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

describe('unique_claims', () => {
  it('holds no email, phone, sender or event id in clear, whichever way it was claimed, and uniqueness holds as before', async () => {
    const v = values();
    const acct = await readyAccount(server);
    // the API
    const byApi = await newContact(acct.key, { email: v.email('api'), phone: v.phone(0), first_name: 'Api' });
    // POST /v1/events creating its contact, with a client event id
    const eventId = `evt-${v.tag}`;
    const tracked = await server.call('POST', '/v1/events', { key: acct.key, body: { id: eventId, contact: { email: v.email('events'), phone: v.phone(1) }, name: 'Signed up' } });
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
    expect(tracked.body.results[0]).toMatchObject({ status: 'accepted' });
    const byEvents = tracked.body.results[0].contact_id as string;
    // a CSV import
    const imp = await imported(server, acct.key, `email,phone,first_name\n${v.email('import')},${v.phone(2)},Imported\n`);
    expect(imp).toMatchObject({ rows_imported: 1, rows_failed: 0 });
    const byImport = (await server.call('GET', `/v1/contacts?email=${encodeURIComponent(v.email('import'))}`, { key: acct.key })).body.data[0].id as string;
    // a user (sign-up) and a sender
    const userEmail = v.email('user');
    const created = await createAccount(server.engage, { name: 'Second', email: userEmail, password: 'correct horse battery' });
    const senderNumber = v.phone(3);
    const sender = await server.call('POST', '/v1/senders', { key: acct.key, body: { sender: senderNumber, channel: 'sms', country: 'US' } });
    expect(sender.status, JSON.stringify(sender.body)).toBe(201);

    const table = await claimsTable();
    expect(inClear(table.text, [v.email('api'), v.phone(0), v.email('events'), v.phone(1), eventId, v.email('import'), v.phone(2), userEmail, senderNumber, acct.email])).toEqual([]);
    // not vacuous: the claims are there, by their owners
    expect([table.rowsOf(byApi.id), table.rowsOf(byEvents), table.rowsOf(byImport), table.rowsOf(created.user_id), table.rowsOf(sender.body.id)]).toEqual([2, 2, 2, 1, 1]);

    // uniqueness as before, whoever asks
    for (const email of [v.email('api'), v.email('events'), v.email('import'), v.email('IMPORT')]) {
      const again = await server.call('POST', '/v1/contacts', { key: acct.key, body: { email } });
      expect(again.status, email).toBe(409);
    }
    expect((await server.call('POST', '/v1/contacts', { key: acct.key, body: { phone: v.phone(1) } })).status).toBe(409);
    // an import finds contacts by their claims: a row of one contact naming another's phone is refused for it
    const conflicting = await imported(server, acct.key, `email,phone\n${v.email('events')},${v.phone(0)}\n${v.email('api')},\n`);
    expect(conflicting).toMatchObject({ rows_imported: 0, rows_failed: 1, rows_updated: 1 });
    expect(conflicting.errors).toEqual([{ row: 2, column: 'phone', message: 'another contact has this phone number' }]);
    const repeated = await server.call('POST', '/v1/events', { key: acct.key, body: { id: eventId, contact: { email: v.email('events') }, name: 'Signed up' } });
    expect(repeated.body.results[0]).toMatchObject({ status: 'duplicate', contact_id: byEvents });
    const byEmail = await server.call('POST', '/v1/events', { key: acct.key, body: { contact: { email: v.email('api') }, name: 'Seen' } });
    expect(byEmail.body.results[0]).toMatchObject({ status: 'accepted', contact_id: byApi.id });
    await expect(createAccount(server.engage, { name: 'Third', email: userEmail.toUpperCase(), password: 'correct horse battery' })).rejects.toMatchObject({ statusCode: 409 });
    expect((await server.call('POST', '/v1/senders', { key: acct.key, body: { sender: senderNumber, channel: 'sms', country: 'US' } })).status).toBe(409);
  });

  it("frees an erased contact's email and phone: its claims are gone and a new contact takes them", async () => {
    const v = values();
    const acct = await readyAccount(server);
    const erased = await newContact(acct.key, { email: v.email('erased'), phone: v.phone(0) });
    expect((await claimsTable()).rowsOf(erased.id)).toBe(2);
    const erasure = await server.call('POST', `/v1/contacts/${erased.id}/erase`, { key: acct.key, body: {} });
    expect(erasure.status, JSON.stringify(erasure.body)).toBe(200);
    const table = await claimsTable();
    expect(table.rowsOf(erased.id)).toBe(0);
    expect(inClear(table.text, [v.email('erased'), v.phone(0)])).toEqual([]);
    const next = await newContact(acct.key, { email: v.email('erased'), phone: v.phone(0) });
    expect(next.id).not.toBe(erased.id);
    await newContact(acct.key, { email: v.email('erased') }, 409);
  });


  it("frees them too when the erasure is carried out again after the contact's values became unreadable (a run cut off before its release)", async () => {
    const v = values();
    const acct = await readyAccount(server);
    const erased = await newContact(acct.key, { email: v.email('resumed'), phone: v.phone(0) });
    const pool = server.engage.pool;
    const { rows: held } = await pool.query(`SELECT account_id, kind, value, owner_id FROM unique_claims WHERE owner_id = $1`, [erased.id]);
    expect(held).toHaveLength(2);
    const erasure = await server.call('POST', `/v1/contacts/${erased.id}/erase`, { key: acct.key, body: {} });
    expect(erasure.status, JSON.stringify(erasure.body)).toBe(200);
    expect((await claimsTable()).rowsOf(erased.id)).toBe(0);
    // the claims as a run that stopped after destroying the keys and appending, before releasing, left them
    for (const r of held) {
      await pool.query(`INSERT INTO unique_claims (key, account_id, kind, value, owner_id) VALUES (unique_claim_key($1, $2, $3), $1, $2, $3, $4)`, [r.account_id, r.kind, r.value, r.owner_id]);
    }
    expect((await claimsTable()).rowsOf(erased.id)).toBe(2);
    const again = await server.call('POST', `/v1/contacts/${erased.id}/erase`, { key: acct.key, body: {} });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.erasure_id).toBe(erasure.body.erasure_id);
    expect((await claimsTable()).rowsOf(erased.id)).toBe(0);
    await newContact(acct.key, { email: v.email('resumed'), phone: v.phone(0) });
  });
  it('converts claims written in clear before this, once, at start (two starts at once convert each row once), and they still hold', async () => {
    const v = values();
    const acct = await readyAccount(server);
    const holder = await newContact(acct.key, { email: v.email('old'), phone: v.phone(0) });
    const userEmail = v.email('olduser');
    const user = await createAccount(server.engage, { name: 'Old', email: userEmail, password: 'correct horse battery' });
    const eventId = `old-evt-${v.tag}`;
    const tracked = await server.call('POST', '/v1/events', { key: acct.key, body: { id: eventId, contact: { id: holder.id }, name: 'Old' } });
    expect(tracked.body.results[0]).toMatchObject({ status: 'accepted' });
    // the rows as a database written before this holds them: each value in clear
    const pool = server.engage.pool;
    await pool.query(`UPDATE unique_claims SET value = $3 WHERE owner_id = $1 AND kind = $2`, [holder.id, 'contact_email', v.email('old')]);
    await pool.query(`UPDATE unique_claims SET value = $3 WHERE owner_id = $1 AND kind = $2`, [holder.id, 'contact_phone', v.phone(0)]);
    await pool.query(`UPDATE unique_claims SET value = $2 WHERE owner_id = $1 AND kind = 'user_email'`, [user.user_id, userEmail]);
    await pool.query(`UPDATE unique_claims SET value = $2 WHERE account_id = $1 AND kind LIKE 'tracked_event%'`, [acct.accountId, eventId]);
    // a left-behind claim of an address nobody holds any more (keyed as migration 59, after this
    // conversion, keys the row it converted: by the value's hash)
    const orphan = v.email('orphan');
    await pool.query(
      `INSERT INTO unique_claims (key, account_id, kind, value, owner_id, created_at)
       VALUES (unique_claim_key($1, 'contact_email', $3), $1, 'contact_email', $2, 'ct_01ARZ3NDEKTSV4RRFFQ69GHOST', now() - interval '1 hour')`,
      [acct.accountId, orphan, (await claimHasher(pool))(orphan)],
    );
    const before = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM unique_claims');
    expect(inClear((await claimsTable()).text, [v.email('old'), v.phone(0), userEmail, eventId, orphan]).length).toBe(5);

    // the upgrade has run on this database already (at its start): run it again as on a database
    // that never had it, from two processes starting at once
    await pool.query(`DELETE FROM schema_migrations WHERE name = 'unique claims hold keyed hashes'`);
    await Promise.all([migrate(pool), migrate(pool)]);

    const table = await claimsTable();
    expect(inClear(table.text, [v.email('old'), v.phone(0), userEmail, eventId, orphan])).toEqual([]);
    expect((await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM unique_claims')).rows[0].n).toBe(before.rows[0].n);
    // converted once, to the hash every claim uses: they hold as before
    await newContact(acct.key, { email: v.email('old') }, 409);
    await newContact(acct.key, { phone: v.phone(0) }, 409);
    await expect(createAccount(server.engage, { name: 'Again', email: userEmail, password: 'correct horse battery' })).rejects.toMatchObject({ statusCode: 409 });
    const repeated = await server.call('POST', '/v1/events', { key: acct.key, body: { id: eventId, contact: { id: holder.id }, name: 'Old' } });
    expect(repeated.body.results[0]).toMatchObject({ status: 'duplicate', contact_id: holder.id });
    // the left-behind claim is judged stale as before: the address is free
    const taken = await newContact(acct.key, { email: orphan });
    expect((await claimsTable()).rowsOf('ct_01ARZ3NDEKTSV4RRFFQ69GHOST')).toBe(0);
    expect((await claimsTable()).rowsOf(taken.id)).toBe(1);
  });
});
