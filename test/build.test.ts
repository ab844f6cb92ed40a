// `npm run build`: the TypeScript sources compile to plain JavaScript that plain `node` runs (no tsx),
// as the Dockerfile's CMD does. Built into a scratch folder, never over a developer's dist/.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from './support/harness.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// inside the checkout (.engage is ignored), so the built files find node_modules as dist/ does
const OUT = path.join(ROOT, '.engage', `build-check-${randomBytes(4).toString('hex')}`);
const MAIN = path.join(OUT, 'src', 'main.js');
const run = promisify(execFile);

function plainEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('VITEST') || k === 'NODE_ENV' || k === 'TEST' || k === 'NODE_OPTIONS') delete env[k];
  return { ...env, ...extra };
}

describe('the build', () => {
  let serve: ChildProcess | undefined;

  beforeAll(async () => {
    const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');
    await run(tsc, ['-p', 'tsconfig.build.json', '--outDir', OUT], { cwd: ROOT });
  }, 60_000);
  afterAll(() => {
    serve?.kill('SIGKILL');
    rmSync(OUT, { recursive: true, force: true });
  });

  it('leaves no import of a .ts file in the output', () => {
    const files = (readdirSync(OUT, { recursive: true }) as string[]).filter((f) => f.endsWith('.js'));
    expect(files).toContain(path.join('src', 'main.js'));
    for (const f of files) expect(readFileSync(path.join(OUT, f), 'utf8'), f).not.toMatch(/from ['"]\.{1,2}\/[^'"]*\.ts['"]|import\(['"]\.{1,2}\/[^'"]*\.ts['"]\)/);
  });

  it('runs with plain node: --help exits 0', async () => {
    const { stdout } = await run(process.execPath, [MAIN, '--help'], { cwd: ROOT, env: plainEnv({}) });
    expect(stdout).toMatch(/serve/);
  });

  it('serves: GET /health answers 200 on a given database, with empty variables as unset', async () => {
    const url = await freshDatabase();
    const child = spawn(process.execPath, [MAIN, 'serve'], {
      cwd: ROOT,
      env: plainEnv({ DATABASE_URL: url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE: '', REDIS_URL: '' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    serve = child;
    let output = '';
    child.stderr!.on('data', (d) => (output += d));
    const base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 30_000);
      child.once('exit', (code) => reject(new Error(`serve exited (${code}):\n${output}`)));
      child.stdout!.on('data', (d) => {
        output += d;
        const m = /"url":"(http:\/\/[^"]+)","docs"/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', database: 'ok' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});
