// `engage serve` on an empty database, as a container or a service manager runs it (its output is
// not a terminal and is kept in logs): the first account's key is printed once, its dashboard
// password never is, it is left in a file only the user may read; and a start without
// PUBLIC_BASE_URL warns that the links it makes cannot be opened (README "Security notes").
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/harness.ts';
import { requestJson } from '../support/http.ts';
import { killAllEngageProcesses, printedApiKey, startEngage } from '../support/processes.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'engage-first-start-'));
afterAll(async () => {
  await killAllEngageProcesses();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the first start, its output not a terminal', () => {
  it('prints the key, keeps the dashboard password out of the output (a 0600 file instead), and warns that PUBLIC_BASE_URL is unset', async () => {
    const serve = await startEngage('serve', await freshDatabase(), { ENGAGE_DATA_DIR: dataDir });
    const { stdout } = serve.output();
    expect(printedApiKey(serve)).toMatch(/^ek_live_/);
    const file = path.join(dataDir, 'first-start-password');
    expect(stdout).toContain(`password in ${file}`);
    const password = readFileSync(file, 'utf8').trim();
    expect(password.length).toBeGreaterThanOrEqual(16);
    expect(stdout).not.toContain(password);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const login = await requestJson(serve.url!, 'POST', '/v1/auth/login', { body: { email: 'owner@engage.local', password } });
    expect(login.status).toBe(200);
    const warning = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg: string }).find((l) => l.msg.startsWith('PUBLIC_BASE_URL is unset'));
    expect(warning?.level).toBe(40);
    await serve.kill();
  });

  it('does not warn when PUBLIC_BASE_URL is set', async () => {
    const serve = await startEngage('serve', await freshDatabase(), { ENGAGE_DATA_DIR: dataDir, PUBLIC_BASE_URL: 'https://engage.example' });
    expect(serve.output().stdout).not.toContain('PUBLIC_BASE_URL is unset');
    await serve.kill();
  });
});
