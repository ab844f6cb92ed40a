// Erasure and backups (issue 10): a database restored from a backup taken before an erasure has the
// person's keys again. `engage erasures export` (kept apart from the backups) and `engage erasures
// apply` after the restore erase them again, with everything they sealed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { freshDatabase, startTestServer, type TestServer } from '../support/harness.ts';
import { runEngage } from '../support/processes.ts';
import { eventually } from '../support/waits.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'engage-erasures-'));
const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close().catch(() => undefined)));
  rmSync(dir, { recursive: true, force: true });
});

async function start(databaseUrl: string): Promise<TestServer> {
  const server = await startTestServer({}, databaseUrl);
  servers.push(server);
  return server;
}

async function stop(server: TestServer): Promise<void> {
  await server.close();
  servers.splice(servers.indexOf(server), 1);
}

/** A copy of a database nobody is connected to, as a backup restored elsewhere would be. */
async function copyOf(databaseUrl: string): Promise<string> {
  const source = new URL(databaseUrl).pathname.slice(1);
  const name = `${source}_restored`;
  const admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${source}`);
  } finally {
    await admin.end();
  }
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

describe('erasures applied again after a restore from an older backup', () => {
  it('erases the contact and its messages again in the restored database', async () => {
    const live = await freshDatabase();
    let server = await start(live);
    const acct = await server.newAccount();
    const email = `restore.${Date.now()}@example.com`;
    const contact = await server.call('POST', '/v1/contacts', { key: acct.key, body: { email, first_name: 'Grace' } });
    const message = await server.call('POST', '/v1/messages/send', { key: acct.key, body: { to: email, channel: 'email', subject: 'Hello Grace', message: 'secret body', transactional: true } });
    expect([contact.status, message.status]).toEqual([201, 202]);
    await stop(server);
    const backup = await copyOf(live);

    // the erasure happens after the backup was taken
    server = await start(live);
    expect((await server.call('POST', `/v1/contacts/${contact.body.id}/erase`, { key: acct.key, body: { reason: 'gdpr' } })).status).toBe(200);
    await stop(server);
    const exported = await runEngage(['erasures', 'export'], live);
    expect(exported.code, exported.stderr).toBe(0);
    const lines = exported.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ kind: 'contact', contact_id: contact.body.id, reason: 'gdpr', address_hashes: [expect.any(String)] });
    expect(exported.stdout).not.toContain(email);
    const file = path.join(dir, 'erasures.jsonl');
    writeFileSync(file, exported.stdout);

    // the restored backup still has the person
    const restored = await start(backup);
    expect((await restored.call('GET', `/v1/contacts/${contact.body.id}`, { key: acct.key })).body.email).toBe(email);
    await stop(restored);

    const applied = await runEngage(['erasures', 'apply', file], backup);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('1 erasure(s) applied');

    const after = await start(backup);
    expect((await after.call('GET', `/v1/contacts/${contact.body.id}`, { key: acct.key })).status).toBe(404);
    const m = await eventually('the message read model to show the erasure', async () => {
      const r = await after.call('GET', `/v1/messages/${message.body.id}`, { key: acct.key });
      return r.body.to === '[erased]' ? r.body : undefined;
    });
    expect(m.to).toBe('[erased]');
    const { rows } = await after.engage.pool.query<{ t: string }>(`SELECT data::text AS t FROM es_events UNION ALL SELECT row_to_json(m)::text FROM messages m`);
    expect(rows.filter((r) => r.t.includes(email) || r.t.includes('secret body'))).toEqual([]);
    // applying the same file again changes nothing
    await stop(after);
    const again = await runEngage(['erasures', 'apply', file], backup);
    expect(again.code, again.stderr).toBe(0);
  }, 180_000);

  it('refuses a file that is not an export, with a clear message', async () => {
    const file = path.join(dir, 'bad.jsonl');
    writeFileSync(file, '{"erasure_id":"nope"}\n');
    const res = await runEngage(['erasures', 'apply', file], await freshDatabase());
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/bad\.jsonl:1 is not an exported erasure/);
    expect(res.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
