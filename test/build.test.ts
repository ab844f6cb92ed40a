// `npm run build`: the TypeScript sources compile to plain JavaScript that plain `node` runs (no tsx),
// as the Dockerfile's CMD does: the build the global setup made for this run (test/support/global-setup.ts,
// into a scratch folder, never over a developer's dist/). And bin/engage.js, the `npx engage` entry,
// runs the sources through tsx when there is no current build.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freshDatabase } from './support/harness.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// inside the checkout (.engage is ignored), so the built files find node_modules as dist/ does
const MAIN = inject('cliMain');
const OUT = path.dirname(path.dirname(MAIN));
const run = promisify(execFile);

function plainEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('VITEST') || k === 'NODE_ENV' || k === 'TEST' || k === 'NODE_OPTIONS') delete env[k];
  return { ...env, ...extra };
}

describe('the build', () => {
  let serve: ChildProcess | undefined;

  afterAll(() => {
    serve?.kill('SIGKILL');
  });

  it('leaves no import of a .ts file in the output', () => {
    const files = (readdirSync(OUT, { recursive: true }) as string[]).filter((f) => f.endsWith('.js'));
    expect(files).toContain(path.join('src', 'main.js'));
    for (const f of files) expect(readFileSync(path.join(OUT, f), 'utf8'), f).not.toMatch(/from ['"]\.{1,2}\/[^'"]*\.ts['"]|import\(['"]\.{1,2}\/[^'"]*\.ts['"]\)/);
  });

  it('bin/engage.js runs the CLI from the TypeScript sources when there is no current build (npx engage on a fresh clone)', async () => {
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'bin', 'engage.js'), '--help'], { cwd: ROOT, env: plainEnv({}) });
    expect(stdout).toMatch(/Usage: engage/);
    expect(stdout).toMatch(/serve/);
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

describe('npm start (bin/build.js)', () => {
  // a checkout of its own: bin/ as it is, a source file, and a build script that records each run
  // (npm start's first step runs `npm run build` there, whatever that script does)
  const dir = mkdtempSync(path.join(tmpdir(), 'engage-start-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const buildRuns = () => readFileSync(path.join(dir, 'builds'), 'utf8').length;
  const buildFirst = () => run(process.execPath, [path.join(dir, 'bin', 'build.js')], { cwd: dir, env: plainEnv({}) });

  it('builds when there is no build, leaves a current one alone, and builds again after an edit', async () => {
    cpSync(path.join(ROOT, 'bin'), path.join(dir, 'bin'), { recursive: true });
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(path.join(dir, 'src', 'main.ts'), 'export {};\n');
    writeFileSync(path.join(dir, 'builds'), '');
    const script = "require('fs').mkdirSync('dist/src',{recursive:true});require('fs').writeFileSync('dist/src/main.js','');require('fs').appendFileSync('builds','x')";
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'start-check', type: 'module', scripts: { build: `node -e "${script}"` } }));

    const first = await buildFirst();
    expect(first.stderr).toMatch(/no build yet/);
    expect(buildRuns()).toBe(1);
    expect(statSync(path.join(dir, 'dist', 'src', 'main.js')).isFile()).toBe(true);

    const again = await buildFirst();
    expect(again.stderr).toBe('');
    expect(buildRuns()).toBe(1);

    // a source edited after the build
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(dir, 'src', 'main.ts'), later, later);
    const edited = await buildFirst();
    expect(edited.stderr).toMatch(/sources are newer than dist/);
    expect(buildRuns()).toBe(2);
  }, 60_000);

  it("builds when the dashboard's build is missing or older than its sources (dashboard/, client/src)", async () => {
    const hoursAgo = (n: number) => new Date(Date.now() - n * 3_600_000);
    const pages = path.join(dir, 'dashboard', 'src', 'App.tsx');
    const client = path.join(dir, 'client', 'src', 'index.ts');
    const built = path.join(dir, 'dist', 'dashboard', 'index.html');
    mkdirSync(path.dirname(pages), { recursive: true });
    mkdirSync(path.dirname(client), { recursive: true });
    writeFileSync(path.join(dir, 'dashboard', 'index.html'), '<!doctype html>\n');
    writeFileSync(pages, 'export {};\n');
    writeFileSync(client, 'export {};\n');
    const script = "const fs=require('fs');fs.mkdirSync('dist/src',{recursive:true});fs.writeFileSync('dist/src/main.js','');fs.mkdirSync('dist/dashboard',{recursive:true});fs.writeFileSync('dist/dashboard/index.html','');fs.appendFileSync('builds','x')";
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'start-check', type: 'module', scripts: { build: `node -e "${script}"` } }));
    const sources = [path.join(dir, 'src', 'main.ts'), path.join(dir, 'dashboard', 'index.html'), pages, client];
    /** every source two hours old, the builds one hour old: all current */
    const settle = () => {
      for (const f of sources) utimesSync(f, hoursAgo(2), hoursAgo(2));
      for (const f of [path.join(dir, 'dist', 'src', 'main.js'), built]) utimesSync(f, hoursAgo(1), hoursAgo(1));
    };
    const before = buildRuns();

    // the service's build is current, the dashboard's is missing
    utimesSync(sources[0], hoursAgo(2), hoursAgo(2));
    utimesSync(path.join(dir, 'dist', 'src', 'main.js'), hoursAgo(1), hoursAgo(1));
    expect((await buildFirst()).stderr).toMatch(/sources are newer than dist/);
    expect(buildRuns()).toBe(before + 1);
    expect(statSync(built).isFile()).toBe(true);
    settle();
    expect((await buildFirst()).stderr).toBe('');
    expect(buildRuns()).toBe(before + 1);

    // an edit of a page, then of the typed client the dashboard calls through
    for (const edited of [pages, client]) {
      settle();
      utimesSync(edited, new Date(), new Date());
      expect((await buildFirst()).stderr).toMatch(/sources are newer than dist/);
    }
    expect(buildRuns()).toBe(before + 3);
  }, 60_000);

  it('stops the start when the build fails, naming npm run dev', async () => {
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'start-check', type: 'module', scripts: { build: 'node -e "process.exit(3)"' } }));
    rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
    const failed = await buildFirst().then(() => undefined, (err: { code: number; stderr: string }) => err);
    expect(failed?.code).toBe(3);
    expect(failed?.stderr).toMatch(/the build failed.*npm run dev/);
  }, 60_000);
});
