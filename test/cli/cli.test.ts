// The `engage` CLI as an operator uses it: real processes against the database of a running
// `engage serve`, asserting on output, exit codes, the API and the read models.
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PROJECTIONS } from '../../projections/index.ts';
import { openEngage } from '../../src/context.ts';
import { comparePositions, parsePosition, positionToString } from '../../src/eventstore/port.ts';
import { migratedDatabase, startTestServer, testConfig } from '../support/harness.ts';
import { requestJson } from '../support/http.ts';
import { s3ServerForSuite } from '../support/s3-server.ts';
import { type CliResult, type EngageProcess, killAllEngageProcesses, runEngage, startEngage } from '../support/processes.ts';
import { eventually } from '../support/waits.ts';

const NO_STACK = /^\s+at\s/m;

afterAll(async () => {
  await killAllEngageProcesses();
});

function expectClean(r: CliResult) {
  expect(r.stderr).not.toMatch(NO_STACK);
  expect(r.stdout).not.toMatch(NO_STACK);
}

describe('the engage CLI beside a running `engage serve`', () => {
  let url: string;
  let serve: EngageProcess;
  let pool: pg.Pool;
  const engage = (...args: string[]) => runEngage(args, url);
  /** the API accepts the key once the service has projected it */
  const whenKeyWorks = (key: string) =>
    eventually(`the key ${key.slice(0, 12)}… to work`, async () => {
      const res = await requestJson(serve.url!, 'GET', '/v1/account/me', { key });
      return res.status === 200 ? res.body : undefined;
    });

  let account: { account_id: string; user_id: string; api_key: string; key_id: string };

  beforeAll(async () => {
    url = await migratedDatabase();
    serve = await startEngage('serve', url);
    pool = new pg.Pool({ connectionString: url, max: 2 });
  }, 300_000);
  afterAll(async () => {
    await pool?.end();
    await killAllEngageProcesses();
  });

  it('accounts create --json prints ids and an API key that works against the server', async () => {
    const r = await engage('accounts', 'create', '--name', 'Acme', '--email', 'ops@acme.example', '--password', 'correct horse battery', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    account = JSON.parse(r.stdout);
    expect(account).toEqual({
      account_id: expect.stringMatching(/^acct_[0-9A-Z]{26}$/),
      user_id: expect.stringMatching(/^usr_[0-9A-Z]{26}$/),
      api_key: expect.stringMatching(/^ek_live_/),
      key_id: expect.stringMatching(/^key_[0-9A-Z]{26}$/),
    });
    const me = await whenKeyWorks(account.api_key);
    expect(me).toMatchObject({ account: { id: account.account_id, name: 'Acme' }, credential: { type: 'api_key', key_id: account.key_id, scopes: null } });
    // the owner can log in with the password given
    const login = await requestJson(serve.url!, 'POST', '/v1/auth/login', { body: { email: 'ops@acme.example', password: 'correct horse battery' } });
    expect(login.status).toBe(200);
  });

  it('accounts create prints a readable summary, and refuses a taken email', async () => {
    const r = await engage('accounts', 'create', '--name', 'Plain', '--email', 'plain@acme.example', '--password', 'correct horse battery');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^account acct_\w+\nuser {4}usr_\w+\napi key ek_live_\S+ {3}\(shown once\)\n$/);
    const again = await engage('accounts', 'create', '--name', 'Again', '--email', 'PLAIN@acme.example', '--password', 'correct horse battery');
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('engage: a user with this email already exists\n');
    expect(again.stdout).toBe('');
  });

  it('keys create --scopes read issues a key limited to reading', async () => {
    const r = await engage('keys', 'create', '--account', account.account_id, '--scopes', 'read', '--name', 'reporting', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const issued = JSON.parse(r.stdout);
    expect(issued).toEqual({ key_id: expect.stringMatching(/^key_/), api_key: expect.stringMatching(/^ek_live_/), scopes: ['read'] });
    const me = await whenKeyWorks(issued.api_key);
    expect(me.credential).toEqual({ type: 'api_key', key_id: issued.key_id, scopes: ['read'] });
    expect((await requestJson(serve.url!, 'GET', '/v1/contacts', { key: issued.api_key })).status).toBe(200);
    const write = await requestJson(serve.url!, 'POST', '/v1/contacts', { key: issued.api_key, body: { email: 'nope@example.com' } });
    expect(write.status).toBe(403);
    expect(write.body.error).toBe('insufficient_scope');
  });

  it('keys rotate --key issues a replacement; the old key keeps working for 24 hours', async () => {
    const before = Date.now();
    const r = await engage('keys', 'rotate', '--key', account.key_id, '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rotated = JSON.parse(r.stdout);
    expect(rotated).toEqual({
      key_id: expect.stringMatching(/^key_/),
      api_key: expect.stringMatching(/^ek_live_/),
      replaces: account.key_id,
      old_key_expires_at: expect.any(String),
    });
    expect(rotated.key_id).not.toBe(account.key_id);
    const expires = Date.parse(rotated.old_key_expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 24 * 3600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 24 * 3600_000 + 1000);
    const me = await whenKeyWorks(rotated.api_key);
    expect(me.credential.key_id).toBe(rotated.key_id);
    expect((await requestJson(serve.url!, 'GET', '/v1/account/me', { key: account.api_key })).status).toBe(200);

    const plain = await engage('keys', 'rotate', '--key', rotated.key_id);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(new RegExp(`^key key_\\w+\\napi key ek_live_\\S+ {3}\\(shown once\\)\\nold key ${rotated.key_id} works until \\S+Z\\n$`));
  });

  it('streams show lists every event of a stream with revision, position, time, type, actor and data', async () => {
    const key = account.api_key;
    const created = await requestJson(serve.url!, 'POST', '/v1/contacts', { key, body: { email: 'audit@example.com', first_name: 'Ann' } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await requestJson(serve.url!, 'PATCH', `/v1/contacts/${id}`, { key, body: { first_name: 'Bea', tags: ['vip'] } })).status).toBe(200);
    expect((await requestJson(serve.url!, 'DELETE', `/v1/contacts/${id}`, { key })).status).toBe(200);

    const r = await engage('streams', 'show', `contact-${id}`, '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const events = JSON.parse(r.stdout);
    const { rows: stored } = await pool.query(
      `SELECT stream_revision::text AS revision, transaction_id::text || '/' || global_position AS position, type FROM es_events WHERE stream_id = $1 ORDER BY stream_revision`,
      [`contact-${id}`],
    );
    expect(stored).toHaveLength(3);
    expect(events.map((e: { revision: string; position: string; type: string }) => ({ revision: e.revision, position: e.position, type: e.type }))).toEqual(stored);
    expect(events.map((e: { type: string }) => e.type)).toEqual(['ContactCreated', 'ContactUpdated', 'ContactDeleted']);
    for (let i = 1; i < events.length; i++) expect(comparePositions(parsePosition(events[i].position), parsePosition(events[i - 1].position))).toBe(1);
    for (const e of events) {
      expect(e.actor).toMatch(/^key_/);
      expect(new Date(e.time).toISOString()).toBe(e.time);
      expect(e.request_id).toEqual(expect.any(String));
    }
    // the actor is the (rotated) key that made the calls
    const me = await requestJson(serve.url!, 'GET', '/v1/account/me', { key });
    expect(new Set(events.map((e: { actor: string }) => e.actor))).toEqual(new Set([me.body.credential.key_id]));
    expect(events[0].data).toMatchObject({ id, account_id: account.account_id, fields: { email: 'audit@example.com', first_name: 'Ann' } });
    expect(events[1].data).toMatchObject({ id, changes: { first_name: 'Bea', tags: ['vip'] } });
    expect(events[2].data).toMatchObject({ id });

    const plain = await engage('streams', 'show', `contact-${id}`);
    expect(plain.code).toBe(0);
    const lines = plain.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    events.forEach((e: { revision: string; position: string; time: string; type: string; actor: string; data: unknown }, i: number) => {
      expect(lines[2 * i]).toBe(`#${e.revision} ${e.position} ${e.time} ${e.type} by ${e.actor}`);
      expect(JSON.parse(lines[2 * i + 1])).toEqual(e.data);
    });
  });

  it('projections status shows every read model with position and lag (exit 0 when all run)', async () => {
    const json = await engage('projections', 'status', '--json');
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const statuses = JSON.parse(json.stdout);
    for (const name of ['auth', 'contacts', 'custom_fields']) {
      expect(statuses.find((s: { name: string }) => s.name === name)).toMatchObject({
        name,
        generation: 1,
        active: true,
        status: 'running',
        position: expect.stringMatching(/^\d+\/\d+$/),
        lag: expect.any(Number),
      });
    }
    const plain = await engage('projections', 'status');
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^auth\s+gen 1\s+running\s+active\s+position \d+\/\d+\s+lag \d+$/m);
    expect(plain.stdout).toMatch(/^contacts\s+gen 1\s+running\s+active\s+position \d+\/\d+\s+lag \d+$/m);
  });

  it('replay --projection contacts --from 0/0 re-applies every event and leaves the read model as it was', async () => {
    const key = account.api_key;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const c = await requestJson(serve.url!, 'POST', '/v1/contacts', { key, body: { email: `replay${i}@example.com`, tags: ['replay'] } });
      expect(c.status).toBe(201);
      ids.push(c.body.id);
    }
    await requestJson(serve.url!, 'PATCH', `/v1/contacts/${ids[1]}`, { key, body: { last_name: 'Changed' } });
    await requestJson(serve.url!, 'DELETE', `/v1/contacts/${ids[2]}`, { key });
    const snapshot = async () => (await pool.query(`SELECT row_to_json(c)::text AS r FROM contacts c ORDER BY id`)).rows.map((r) => r.r);
    const state = async () =>
      (await pool.query(`SELECT generation, commit_pos::text || '/' || prepare_pos AS position, status FROM projection_state WHERE name = 'contacts'`)).rows;
    const before = await snapshot();
    const stateBefore = await state();
    expect(before.some((r) => r.includes(ids[2]))).toBe(false);

    // damage the read model: only a real re-application of the events repairs it
    await pool.query(`UPDATE contacts SET first_name = 'tampered', tags = '{}' WHERE id = $1`, [ids[0]]);
    expect(await snapshot()).not.toEqual(before);

    const r = await engage('replay', '--projection', 'contacts', '--from', '0/0');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^contacts: running at \d+\/\d+ \(/m);
    expect(await snapshot()).toEqual(before);
    expect(await state()).toEqual(stateBefore);
    // the service keeps working on the replayed read model
    const listed = await requestJson(serve.url!, 'GET', '/v1/contacts?tag=replay', { key });
    expect(listed.body.data.map((c: { id: string }) => c.id).sort()).toEqual([ids[0], ids[1], ids[3], ids[4]].sort());
  });

  it.each([
    { args: ['bogus'], message: /error: unknown command 'bogus'/ },
    { args: ['accounts', 'create', '--name', 'X', '--password', 'correct horse battery'], message: /error: required option '--email <email>' not specified/ },
    { args: ['accounts', 'create', '--name', 'X', '--email', 'x@example.com', '--password', 'short'], message: /^engage: password must be at least 8 characters\n$/ },
    { args: ['keys', 'create', '--account', 'acct_x', '--scopes', 'read,admin'], message: /unknown scope admin \(read, write, settings\)/ },
    { args: ['keys', 'create', '--account', 'acct_01J0000000000000000000000', '--json'], message: /^engage: account not found\n$/ },
    { args: ['keys', 'rotate', '--key', 'key_missing'], message: /^engage: no key key_missing\n$/ },
    { args: ['keys', 'rotate'], message: /error: required option '--key <id>' not specified/ },
    { args: ['replay', '--projection', 'contacts', '--from', 'yesterday'], message: /not a position: yesterday \(expected <commit>\/<prepare>\)/ },
    { args: ['replay', '--projection', 'nope', '--from', '0/0'], message: /^engage: unknown projection nope\n$/ },
    // every read model is named, so a typo shows the right name
    { args: ['projections', 'rebuild', 'nope'], message: new RegExp(`^engage: unknown projection nope \\(${ALL_PROJECTIONS.map((p) => p.name).join(', ')}\\)\n$`) },
    { args: ['projections', 'rebuild'], message: new RegExp(`^engage: name a read model \\(${ALL_PROJECTIONS.map((p) => p.name).join(', ')}\\) or give --all\n$`) },
    { args: ['projections', 'rebuild', 'contacts', '--all'], message: /^engage: name read models or give --all, not both\n$/ },
    { args: ['projections', 'rebuild', 'contacts', 'nope'], message: /^engage: unknown projection nope \(/ },
    { args: ['streams', 'show'], message: /error: missing required argument 'stream'/ },
  ])('rejects `engage $args.0 …` ($message) with exit 1, a clear message and no stack trace', async ({ args, message }) => {
    const r = await engage(...args);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expectClean(r);
  });

  it('streams show of a stream with no events says so and exits 1', async () => {
    const r = await engage('streams', 'show', 'contact-ct_missing');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('no events in stream contact-ct_missing\n');
    expectClean(r);
  });
});

describe('the engage CLI with no service running', () => {
  it('keys rotate finds a key issued moments ago by another CLI call (no read model was up to date)', async () => {
    const url = await migratedDatabase();
    const created = await runEngage(['accounts', 'create', '--name', 'Solo', '--email', 'solo@example.com', '--password', 'correct horse battery', '--json'], url);
    expect(created.code).toBe(0);
    const account = JSON.parse(created.stdout);
    const issued = await runEngage(['keys', 'create', '--account', account.account_id, '--json'], url);
    expect(issued.code).toBe(0);
    const key = JSON.parse(issued.stdout);

    const rotated = await runEngage(['keys', 'rotate', '--key', key.key_id, '--json'], url);
    expect(rotated.stderr).toBe('');
    expect(rotated.code).toBe(0);
    const r = JSON.parse(rotated.stdout);
    expect(r.replaces).toBe(key.key_id);

    // when the service starts, the new key works and the rotated one is in its grace period
    const server = await startTestServer({}, url);
    try {
      await eventually('the service to project the keys', async () => {
        const res = await server.call('GET', '/v1/account/me', { key: r.api_key });
        return res.status === 200 ? true : undefined;
      });
      expect((await server.call('GET', '/v1/account/me', { key: r.api_key })).body.credential.key_id).toBe(r.key_id);
      expect((await server.call('GET', '/v1/account/me', { key: key.api_key })).status).toBe(200);
      expect((await server.call('GET', '/v1/account/me', { key: account.api_key })).status).toBe(200);
    } finally {
      await server.close();
    }
  }, 300_000);
});

describe('engage projections rebuild of a read model that cannot apply an event', () => {
  it('parks the event, swaps in, says so and exits 3; the new generation lists it as parked', async () => {
    const url = await migratedDatabase();
    const engage = await openEngage({ config: testConfig(url), log: pino({ level: 'silent' }) });
    try {
      const contact = (id: string, created_at: string) => ({
        type: 'ContactCreated',
        data: { account_id: 'acct_x', id, fields: { email: `${id}@example.com` }, custom_fields: {}, created_at },
      });
      await engage.store.append('contact-ct_good', [contact('ct_good', '2026-01-01T00:00:00Z')], 'no_stream');
      const poison = await engage.store.append('contact-ct_poison', [contact('ct_poison', 'not-a-time')], 'no_stream');

      const r = await runEngage(['projections', 'rebuild', 'contacts'], url);
      // the code with the output it came with: a wrong code shows what the command said
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: 3,
        stdout: expect.stringMatching(/^contacts: degraded at \d+\/\d+, 1 event parked \(engage projections parked contacts\)/m),
        stderr: expect.any(String),
      });
      expectClean(r);
      const { rows } = await engage.pool.query(`SELECT generation, active, status FROM projection_state WHERE name = 'contacts' ORDER BY generation`);
      expect(rows).toEqual([{ generation: 2, active: true, status: 'running' }]);
      // the old generation's parked events went with it
      const { rows: parked } = await engage.pool.query(`SELECT generation, stream_id, account_id, commit_pos::text || '/' || prepare_pos AS position FROM parked_events WHERE name = 'contacts'`);
      expect(parked).toEqual([{ generation: 2, stream_id: 'contact-ct_poison', account_id: 'acct_x', position: positionToString(poison.position) }]);
      expect((await engage.pool.query(`SELECT id FROM contacts`)).rows).toEqual([{ id: 'ct_good' }]);
    } finally {
      await engage.close();
    }
  }, 300_000);
});

describe('engage log with an archive in an S3-compatible bucket', () => {
  const s3 = s3ServerForSuite();

  it('archive writes closed partitions to the bucket; partitions and streams show read them; verify checks them and finds a changed file', async () => {
    const url = await migratedDatabase();
    const env = { LOG_PARTITION_EVENTS: '100', ...s3.config };
    const engage = await openEngage({ config: testConfig(url, env), log: pino({ level: 'silent' }) });
    try {
      const positions: bigint[] = [];
      for (let i = 0; i < 250; i++) {
        const data = { account_id: 'acct_x', id: `ct_cli${i}`, fields: { email: `cli${i}@example.com` }, custom_fields: {}, created_at: '2026-01-01T00:00:00Z' };
        positions.push((await engage.store.append(`contact-ct_cli${i}`, [{ type: 'ContactCreated', data }], 'no_stream')).position.prepare);
      }
      const target = `s3://${s3.bucket}/cli-log`;
      // a transaction open elsewhere in the cluster (another suite's) may hold a partition back: run again, as an operator would
      const archived = await eventually('the partitions before the bound archived', async () => {
        const r = await runEngage(['log', 'archive', '--before', positions[150].toString(), '--to', target], url, env);
        expectClean(r);
        expect(r.code).toBe(0);
        return /stopped at es_events_\d+: it holds events at or after --before/.test(r.stdout) ? r : undefined;
      }, 60_000, 200);
      expect(archived.stdout).toMatch(new RegExp(`archived es_events_\\d+: \\d+ events, \\d+ bytes, sha256 [0-9a-f]{64} → ${target}/es_events_\\d+\\.jsonl\\.gz`));

      const shown = await runEngage(['log', 'partitions', '--json'], url, env);
      expect(shown.code).toBe(0);
      const partitions = JSON.parse(shown.stdout) as { name: string; archive_file: string | null; events: string | null }[];
      const inBucket = partitions.filter((p) => p.archive_file !== null);
      expect(inBucket.length).toBeGreaterThanOrEqual(1);
      expect(inBucket.every((p) => p.archive_file!.startsWith(`${target}/`))).toBe(true);
      expect(inBucket.reduce((n, p) => n + Number(p.events), 0)).toBeGreaterThanOrEqual(100);
      // gone from the database: the stream's event is read from the bucket
      expect((await engage.pool.query(`SELECT 1 FROM es_events WHERE stream_id = 'contact-ct_cli0'`)).rowCount).toBe(0);
      const stream = await runEngage(['streams', 'show', 'contact-ct_cli0'], url, env);
      expect(stream.code).toBe(0);
      expect(stream.stdout).toMatch(/^#0 \d+\/\d+ \S+ ContactCreated/m);

      const verified = await runEngage(['log', 'verify', '--dir', target], url, env);
      expectClean(verified);
      expect(verified.code).toBe(0);
      expect(verified.stdout.trim().split('\n')).toEqual(inBucket.map((p) => `ok  ${p.name}  ${p.archive_file}`));

      const changed = inBucket.find((p) => Number(p.events) > 0)!;
      const key = changed.archive_file!.slice(`s3://${s3.bucket}/`.length);
      const bytes = await s3.get(key);
      bytes[20] ^= 0xff;
      await s3.put(key, bytes);
      const bad = await runEngage(['log', 'verify', '--dir', target], url, env);
      expectClean(bad);
      expect(bad.code).toBe(1);
      expect(bad.stdout).toMatch(new RegExp(`^BAD  ${changed.name} .*\\n\\s+its SHA-256 is not the manifest's`, 'm'));

      // a prefix holding no archive: said, no stack
      const none = await runEngage(['log', 'verify', '--dir', `s3://${s3.bucket}/nothing-here`], url, env);
      expectClean(none);
      expect(none.code).toBe(1);
      expect(none.stderr).toContain(`engage: s3://${s3.bucket}/nothing-here holds no manifest.json`);
    } finally {
      await engage.close();
    }
  }, 300_000);
});
