// Exactly once across a crash: `engage serve` (API and workers in one process, the real CLI) is
// SIGKILLed while it imports a file of 20,000 rows in batches of 200; a new process on the same
// database resumes the import where its last batch ended. Every row is imported exactly once: the
// counts are exact, one ContactCreated per contact, no two contacts share an email, and the batches
// cover the file without overlap or gap.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { importStream } from '../../commands/import.ts';
import { migratedDatabase } from '../support/harness.ts';
import { type EngageProcess, killAllEngageProcesses, printedApiKey, startEngage, TEST_APPLICATION_NAME, untilOtherSessionsEnd } from '../support/processes.ts';
import { eventually } from '../support/waits.ts';

const ENV = { RATE_LIMITS_ENABLED: 'false', IMPORT_BATCH_ROWS: '200' };
const UNIQUE = 6_000;

/** 6,000 contacts, then 50 rows repeating earlier emails (merged: updated) and 10 bad rows. */
function file(): string {
  const lines = ['email,first_name,last_name'];
  for (let i = 0; i < UNIQUE; i++) lines.push(`person-${i}@example.com,First ${i},Last ${i}`);
  for (let i = 0; i < 50; i++) lines.push(`PERSON-${i * 7}@example.com,,Again ${i}`);
  for (let i = 0; i < 10; i++) lines.push(`not-an-email-${i},x,y`);
  return `${lines.join('\r\n')}\r\n`;
}

async function getImport(url: string, key: string, id: string) {
  const res = await fetch(`${url}/v1/contacts/imports/${id}`, { headers: { 'x-api-key': key } });
  expect(res.status).toBe(200);
  return res.json();
}

describe('kill -9 of engage serve mid-import, then a restart on the same data', () => {
  let db: pg.Pool | undefined;
  afterAll(async () => {
    await killAllEngageProcesses();
    await db?.end();
  });

  it('resumes the import where its last batch ended and imports every row exactly once', async () => {
    const databaseUrl = await migratedDatabase();
    db = new pg.Pool({ connectionString: databaseUrl, application_name: TEST_APPLICATION_NAME, max: 2 });
    let proc: EngageProcess = await startEngage('serve', databaseUrl, ENV);
    const key = printedApiKey(proc);
    const form = new FormData();
    form.append('file', new Blob([file()], { type: 'text/csv' }), 'people.csv');
    const res = await fetch(`${proc.url}/v1/contacts/import`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
    const accepted = await res.json();
    expect(res.status, JSON.stringify(accepted)).toBe(202);
    expect(accepted.rows_total).toBe(UNIQUE + 60);

    // some batches in, not all: kill it
    await eventually(
      'a few batches of the import to be applied',
      async () => {
        const imp = await getImport(proc.url!, key, accepted.id);
        return imp.rows_imported >= 1000 ? imp : undefined;
      },
      60_000,
      10,
    );
    await proc.kill();
    await untilOtherSessionsEnd(db);
    const atKill = (await db.query(`SELECT type FROM es_events WHERE stream_id = $1`, [importStream(accepted.id)])).rows.map((r) => r.type);
    expect(atKill, 'the kill came after the import had ended: make the file bigger').not.toContain('ImportCompleted');
    expect(atKill.filter((t) => t === 'ImportBatchApplied').length).toBeLessThan((UNIQUE + 60) / 200);

    proc = await startEngage('serve', databaseUrl, ENV);
    const done = await eventually(
      'the resumed import to complete',
      async () => {
        const imp = await getImport(proc.url!, key, accepted.id);
        return imp.status === 'completed' || imp.status === 'failed' ? imp : undefined;
      },
      120_000,
      50,
    );
    expect(done).toMatchObject({ status: 'completed', rows_total: UNIQUE + 60, rows_imported: UNIQUE, rows_updated: 50, rows_failed: 10 });
    expect(done.errors.map((e: { row: number }) => e.row)).toEqual(Array.from({ length: 10 }, (_, i) => UNIQUE + 52 + i));

    // the log: one ContactCreated per contact; the batches cover the file once, in order
    const created = await db.query<{ n: number; emails: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT stream_id)::int AS emails FROM es_events WHERE type = 'ContactCreated' AND metadata->>'causationId' = $1`,
      [accepted.id],
    );
    expect(created.rows[0]).toEqual({ n: UNIQUE, emails: UNIQUE });
    const batches = (await db.query<{ data: { rows_through: number; imported: number; updated: number; failed: number } }>(
      `SELECT data FROM es_events WHERE stream_id = $1 AND type = 'ImportBatchApplied' ORDER BY stream_revision`,
      [importStream(accepted.id)],
    )).rows.map((r) => r.data);
    expect(batches.map((b) => b.rows_through)).toEqual([...batches.map((b) => b.rows_through)].sort((a, b) => a - b));
    expect(new Set(batches.map((b) => b.rows_through)).size).toBe(batches.length);
    expect(batches.at(-1)!.rows_through).toBe(UNIQUE + 60);
    expect(batches.reduce((n, b) => n + b.imported + b.updated + b.failed, 0)).toBe(UNIQUE + 60);

    // the read model: every email once, the merged rows' values in place
    await eventually('the contacts read model to show every contact', async () => {
      const { rows } = await db!.query<{ n: number }>('SELECT count(*)::int AS n FROM contacts');
      return rows[0].n === UNIQUE ? true : undefined;
    });
    const { rows } = await db.query<{ n: number; emails: number }>('SELECT count(*)::int AS n, count(DISTINCT email)::int AS emails FROM contacts');
    expect(rows[0]).toEqual({ n: UNIQUE, emails: UNIQUE });
    const merged = await db.query<{ first_name: string; last_name: string }>(`SELECT first_name, last_name FROM contacts WHERE email = 'person-14@example.com'`);
    expect(merged.rows).toEqual([{ first_name: 'First 14', last_name: 'Again 2' }]);
    // its stored file is gone
    expect((await db.query('SELECT 1 FROM import_uploads')).rows).toEqual([]);
    await proc.kill();
  }, 240_000);
});
