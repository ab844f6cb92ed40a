// The zero-setup Postgres (issue 8: setup as a newcomer meets it, finding 13): a port and a random
// superuser password per data directory, remembered in a 0600 file; 127.0.0.1 only; and, as root,
// a checkout or data directory that the postgres user cannot reach still works.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type EmbeddedDatabase, clusterOwner, nativeDir, startEmbeddedPostgres, usableBinaries } from '../../src/db/embedded.ts';

const started: EmbeddedDatabase[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const db of started) await db.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(mode: number): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'engage-embedded-'));
  chmodSync(d, mode);
  dirs.push(d);
  return d;
}

async function show(url: string, setting: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(`SHOW ${setting}`)).rows[0][setting];
  } finally {
    await c.end();
  }
}

describe('the embedded Postgres of a data directory', () => {
  it('picks a free port and a random password per data directory, keeps them in a 0600 file, and listens on 127.0.0.1 only', async () => {
    const a = tempDir(0o755);
    const b = tempDir(0o755);
    const dbA = await startEmbeddedPostgres({ dataDir: a, database: 'one' });
    started.push(dbA);
    const dbB = await startEmbeddedPostgres({ dataDir: b, database: 'two' });
    started.push(dbB);
    expect(dbA.port).not.toBe(dbB.port);
    for (const [dir, db] of [[a, dbA], [b, dbB]] as const) {
      const file = path.join(dir, 'postgres.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const saved = JSON.parse(readFileSync(file, 'utf8'));
      expect(saved.port).toBe(db.port);
      expect(saved.password).not.toBe('engage');
      expect(saved.password.length).toBeGreaterThanOrEqual(24);
      expect(await show(db.connectionString, 'listen_addresses')).toBe('127.0.0.1');
      expect(await show(db.connectionString, 'unix_socket_directories')).toBe('');
      // the old constant password does not get in
      const guess = new URL(db.connectionString);
      guess.password = 'engage';
      await expect(show(guess.toString(), 'port')).rejects.toThrow(/password authentication failed/);
    }
    expect(dbA.connectionString).not.toBe(dbB.connectionString);
    // a second start of the same directory reuses the running cluster, on the remembered port
    const again = await startEmbeddedPostgres({ dataDir: a, database: 'three' });
    expect(again.port).toBe(dbA.port);
    expect(await show(again.connectionString, 'port')).toBe(String(dbA.port));
  });

  it.runIf(process.getuid?.() === 0)('as root, works in a data directory the postgres user cannot reach', async () => {
    const closed = tempDir(0o700); // like a `mktemp -d` checkout or root's home
    const dataDir = path.join(closed, '.engage');
    const db = await startEmbeddedPostgres({ dataDir, database: 'engage' });
    started.push(db);
    expect(await show(db.connectionString, 'port')).toBe(String(db.port));
    const dataDirectory = await show(db.urlOf('postgres'), 'data_directory');
    expect(dataDirectory.startsWith(closed)).toBe(false);
    dirs.push(path.dirname(dataDirectory));
    expect(existsSync(path.join(dataDir, 'postgres.json'))).toBe(true);
  });

  it.runIf(process.getuid?.() === 0)('as root, runs the binaries from a copy the postgres user can reach when the checkout is closed to it', async () => {
    const native = await nativeDir();
    const closed = tempDir(0o700);
    const copy = path.join(closed, 'native');
    execFileSync('cp', ['-a', native.dir, copy]);
    const version = `${native.version}-test-${path.basename(closed)}`;
    const owner = clusterOwner()!;
    const bin = usableBinaries({ dir: copy, version }, owner);
    dirs.push(bin);
    expect(bin.startsWith(closed)).toBe(false);
    // the postgres user really can run it from there
    const out = execFileSync(path.join(bin, 'bin', 'postgres'), ['--version'], { uid: owner.uid, gid: owner.gid, encoding: 'utf8' });
    expect(out).toMatch(/postgres \(PostgreSQL\) \d+/);
  });
});
