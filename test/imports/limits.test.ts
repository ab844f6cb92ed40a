// What an upload is refused for, and when: over 100 MiB (declared, or counted while it streams) is a
// 413, over 1,000,000 data rows a 400 naming the limit, a file that is empty, not UTF-8 or not CSV a
// 400, another media type a 415, a read-only key a 403 — and nothing is stored or imported. Then the
// import's own life with the worker driven by hand: a run stopped between batches resumes where it
// stopped and imports every row once; a list deleted meanwhile fails the import; the imports read
// model rebuilds into the same rows.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { importsProjection } from '../../projections/imports.ts';
import { runImport } from '../../src/imports/run.ts';
import { requestRebuild } from '../../src/read-models/generations.ts';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite, type TestServer } from '../support/harness.ts';
import { expectRejected, expectUnsupportedMediaType } from '../support/http.ts';
import { eventually } from '../support/waits.ts';
import { accepted, contactsByEmail, upload } from './helpers.ts';

const MiB = 1024 * 1024;

/**
 * POSTs a text/csv body to `path` with node's own client: `header`, then `line` repeated until
 * `totalBytes` (chunked, or with `declaredLength` as Content-Length), stopping as soon as an answer
 * comes; the answer.
 */
function streamUpload(server: TestServer, key: string, opts: { header: string; line: string; totalBytes: number; declaredLength?: number }) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const headers: Record<string, string | number> = { 'x-api-key': key, 'content-type': 'text/csv' };
    if (opts.declaredLength !== undefined) headers['content-length'] = opts.declaredLength;
    const req = http.request(`${server.url}/v1/contacts/import`, { method: 'POST', headers });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        resolve({ status: res.statusCode!, body: JSON.parse(text) });
        req.destroy();
      });
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const block = Buffer.from(opts.line.repeat(Math.ceil(MiB / opts.line.length)));
    let sent = 0;
    req.write(opts.header);
    const pump = () => {
      while (!answered && sent < opts.totalBytes) {
        sent += block.length;
        if (!req.write(block)) return void req.once('drain', pump);
      }
      if (!answered && opts.declaredLength === undefined) req.end();
    };
    pump();
  });
}

describe('refused uploads store and import nothing', () => {
  const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false' });

  async function nothingStored(accountId: string, key: string) {
    const { rows } = await server.engage.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM import_uploads WHERE account_id = $1', [accountId]);
    expect(rows[0].n).toBe(0);
    expect((await server.call('GET', '/v1/contacts/imports', { key })).body.data).toEqual([]);
    expect((await server.call('GET', '/v1/contacts', { key })).body.data).toEqual([]);
  }

  it('over 100 MiB: 413 payload_too_large, whether declared up front or counted as it streams', async () => {
    const { key, accountId } = await readyAccount(server);
    const declared = await streamUpload(server, key, { header: 'email\n', line: 'a@example.com\n', totalBytes: MiB, declaredLength: 100 * MiB + 1 });
    expect(declared).toEqual({ status: 413, body: { error: 'payload_too_large', message: expect.stringContaining('100 MiB') } });
    // rows long enough that the size, not the row count, is what is over (quoted: the parser reads those fastest)
    const streamed = await streamUpload(server, key, { header: 'email,note\n', line: `a@example.com,"${'x'.repeat(230)}"\n`, totalBytes: 101 * MiB });
    expect(streamed).toEqual({ status: 413, body: { error: 'payload_too_large', message: expect.stringContaining('100 MiB') } });
    // a multipart body declares its length: one over the file limit and the room for the fields is refused unread
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(102 * MiB, 'a')]), 'big.csv');
    const multipart = await fetch(`${server.url}/v1/contacts/import`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
    expect(multipart.status).toBe(413);
    expect((await multipart.json()).error).toBe('payload_too_large');
    await nothingStored(accountId, key);
  });

  it('over 1,000,000 data rows: 400 naming the limit, before anything is imported', async () => {
    const { key, accountId } = await readyAccount(server);
    const rows = Buffer.from('email\n' + 'a\n'.repeat(1_000_001));
    const res = await upload(server, key, rows, { as: 'csv' });
    expectRejected(res, 'file');
    expect(res.body.message).toContain('more than 1,000,000 data rows');
    await nothingStored(accountId, key);
  });

  it('an empty file, one that is not UTF-8, not CSV or has no header: 400; another media type: 415', async () => {
    const { key, accountId } = await readyAccount(server);
    for (const [file, what] of [
      ['', 'is empty'],
      [Buffer.from('email,first_name\na@example.com,Ren\xe9\n', 'latin1'), 'not UTF-8'],
      ['email,first_name\na@example.com,"unclosed\n', 'not readable as CSV'],
      ['\n\n', 'no header row'],
      ['email,first\u0000name\na@example.com,x\n', 'NUL character in its header'],
    ] as const) {
      for (const as of ['multipart', 'csv'] as const) {
        const res = await upload(server, key, file, { as });
        expectRejected(res, 'file');
        expect(res.body.message, `${as}: ${res.body.message}`).toContain(what);
      }
    }
    const json = await server.call('POST', '/v1/contacts/import', { key, body: { email: 'a@example.com' } });
    expectUnsupportedMediaType(json);
    await nothingStored(accountId, key);
  });

  it('a header of more than 500 columns or a header line over 64 KiB: 400 naming the limit, before anything is stored', async () => {
    const { key, accountId } = await readyAccount(server);
    const columns = (n: number) => ['email', ...Array.from({ length: n - 1 }, (_, i) => `c${i}`)].join(',');
    for (const [file, what] of [
      [`${columns(501)}\na@example.com${',x'.repeat(500)}\n`, 'more than 500 columns'],
      // the reported one: 150,000 columns, a 1 MB header line
      [`${columns(150_000)}\na@example.com\n`, '64 KiB'],
      // few columns, one very long header (quoted: its line break does not end the line)
      [`email,"${'h'.repeat(70 * 1024)}\nstill the header"\na@example.com,x\n`, '64 KiB'],
    ] as const) {
      for (const as of ['multipart', 'csv'] as const) {
        const res = await upload(server, key, file, { as });
        expectRejected(res, 'file');
        expect(res.body.message, `${as}: ${res.body.message}`).toContain(what);
      }
    }
    await nothingStored(accountId, key);
    // at the limits: 500 columns, and an import listing carries no more than that
    const widest = await accepted(server, key, `${columns(500)}\na@example.com${',x'.repeat(499)}\n`);
    expect(widest.columns).toHaveLength(500);
    const listed = await server.call('GET', '/v1/contacts/imports', { key });
    expect(listed.body.data.map((i: { columns: unknown[] }) => i.columns.length)).toEqual([500]);
  });

  it('a read-only key gets 403 and no credential 401, before the body is read', async () => {
    const acct = await readyAccount(server);
    const reader = (await server.call('POST', '/v1/account/api-keys', { key: acct.key, body: { scopes: ['read'] } })).body.key as string;
    const res = await upload(server, reader, 'email\na@example.com\n');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'write' });
    expect((await server.call('GET', '/v1/contacts/imports', { key: reader })).status).toBe(200);
    expect((await upload(server, 'ek_live_nope', 'email\na@example.com\n')).status).toBe(401);
    await nothingStored(acct.accountId, acct.key);
  });

  it('a file with a header and no rows is an import of nothing', async () => {
    const { key } = await readyAccount(server);
    const imp = await accepted(server, key, 'email,first_name\r\n');
    expect(imp).toMatchObject({ rows_total: 0 });
    const done = await eventually('the import to complete', async () => {
      const r = await server.call('GET', `/v1/contacts/imports/${imp.id}`, { key });
      return r.body.status === 'completed' ? r.body : undefined;
    });
    expect(done).toMatchObject({ rows_total: 0, rows_imported: 0, rows_updated: 0, rows_failed: 0 });
  });
});

describe('runs driven by hand', () => {
  // no workers: the test runs each import itself
  const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false', WORKERS_ENABLED: 'false' });
  const getImport = async (key: string, id: string) => (await server.call('GET', `/v1/contacts/imports/${id}`, { key })).body;

  it('a run stopped between batches resumes where it stopped: every row once, progress visible meanwhile', async () => {
    const { key } = await readyAccount(server);
    const csv = ['email,first_name', ...Array.from({ length: 25 }, (_, i) => (i === 7 ? 'broken,x' : `r${i}@example.com,R${i}`))].join('\n');
    const imp = await accepted(server, key, csv);
    // a stop is seen between batches: a run told to stop from the start writes its first batch of 10, then stops
    expect(await runImport(server.engage, imp.id, { batchRows: 10, signal: AbortSignal.abort() })).toBe('stopped');
    await server.caughtUp(['imports', 'contacts']);
    const midway = await getImport(key, imp.id);
    expect(midway).toMatchObject({ status: 'processing', rows_total: 25, rows_imported: 9, rows_updated: 0, rows_failed: 1 });
    expect((await contactsByEmail(server, key)).size).toBe(midway.rows_imported);

    expect(await runImport(server.engage, imp.id, { batchRows: 10, signal: new AbortController().signal })).toBe('completed');
    await server.caughtUp(['imports', 'contacts']);
    expect(await getImport(key, imp.id)).toMatchObject({ status: 'completed', rows_total: 25, rows_imported: 24, rows_failed: 1, errors: [{ row: 9, column: 'email' }] });
    const contacts = await contactsByEmail(server, key);
    expect(contacts.size).toBe(24);
    // run again: an ended import does nothing, and its stored file is gone
    expect(await runImport(server.engage, imp.id, { batchRows: 10, signal: new AbortController().signal })).toBe('completed');
    const { rows } = await server.engage.pool.query('SELECT 1 FROM import_uploads WHERE import_id = $1', [imp.id]);
    expect(rows).toEqual([]);
  });

  it('a list deleted before its import runs fails the import, with the reason', async () => {
    const { key } = await readyAccount(server);
    const list = (await server.call('POST', '/v1/lists', { key, body: { name: 'Soon gone' } })).body;
    const imp = await accepted(server, key, 'email\na@example.com\n', { listId: list.id });
    expect((await server.call('DELETE', `/v1/lists/${list.id}`, { key })).status).toBe(200);
    expect(await runImport(server.engage, imp.id, { batchRows: 10, signal: new AbortController().signal })).toBe('failed');
    await server.caughtUp(['imports']);
    expect(await getImport(key, imp.id)).toMatchObject({ status: 'failed', failure_reason: 'the list was deleted', rows_imported: 0, completed_at: expect.any(String) });
  });

  it('a requested rebuild of the imports read model replays the log into the same rows', async () => {
    const { key } = await readyAccount(server);
    const imp = await accepted(server, key, 'email\nx@example.com\nnope\n');
    await runImport(server.engage, imp.id, { batchRows: 1, signal: new AbortController().signal });
    await server.caughtUp(['imports']);
    const snapshot = async () => (await server.engage.pool.query<{ r: string }>('SELECT row_to_json(t)::text AS r FROM imports t ORDER BY id')).rows.map((x) => x.r);
    const before = await snapshot();
    expect(before.length).toBeGreaterThanOrEqual(3);
    const generation = await requestRebuild(server.engage.pool, importsProjection);
    await eventually(
      'the rebuilt imports generation to swap in',
      async () => {
        const { rows } = await server.engage.pool.query<{ generation: number }>(`SELECT generation FROM projection_state WHERE name = 'imports' AND active`);
        return rows[0]?.generation === generation ? true : undefined;
      },
      120_000,
    );
    await server.caughtUp(['imports']);
    expect(await snapshot()).toEqual(before);
  });
});
