// README "Quick start", run as written: its shell blocks are taken from README.md and run with bash
// against a real `engage serve` the test starts (the README's start command is the one thing the test
// does itself: the service on a database of its own, with the settings that command line gives it).
// The webhook receiver block runs in the background, the other blocks in one bash session in order,
// each command required to succeed (set -e, curl --fail-with-body). Then the email the commands sent
// must reach the sandbox's final status, delivered, and the receiver must have printed its webhooks.
// Substituted: the API's address (http://localhost:3000, the port the service got) and the
// receiver's port (4000, a free one), so the test runs beside anything else on this machine.
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase } from './support/harness.ts';
import { type EngageProcess, killAllEngageProcesses, startEngage } from './support/processes.ts';
import { eventually } from './support/waits.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/**
 * The ```sh blocks of the README's Quick start section, in order, after its first: the README's two
 * commands (install and start, run the tests), which CI runs as they are.
 */
function quickStartBlocks(): string[] {
  const start = README.indexOf('\n## Quick start\n');
  expect(start).toBeGreaterThan(0);
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end);
  const [twoCommands, ...blocks] = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  expect(twoCommands).toMatch(/\bnpm start\b[\s\S]*\bnpm test\b/);
  return blocks;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

let engage: EngageProcess | undefined;
let receiver: ChildProcess | undefined;
let dir: string | undefined;

afterAll(async () => {
  // the receiver runs in a process group of its own: bash and the node it started
  if (receiver?.pid && receiver.exitCode === null) {
    try {
      process.kill(-receiver.pid, 'SIGKILL');
    } catch {
      /* gone already */
    }
  }
  await killAllEngageProcesses();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('README "Quick start"', () => {
  it('runs as written: a key from the first start, an email and an sms receipt, status, timeline, and webhooks on a local receiver', async () => {
    const blocks = quickStartBlocks();
    const [startBlock, receiverBlock, ...commandBlocks] = blocks;
    expect(startBlock).toMatch(/\bnpm start\b/);
    expect(receiverBlock).toMatch(/\.listen\(4000\)/);
    expect(commandBlocks.length).toBeGreaterThan(0);
    const commands = commandBlocks.join('\n');
    expect(commands).toContain('http://localhost:3000');
    expect(commands).toContain('http://localhost:4000/');

    // the start: the settings its command line gives (VAR=value before npm start), a database of its own
    const startLine = startBlock.split('\n').find((l) => /\bnpm start\b/.test(l))!;
    const settings = Object.fromEntries([...startLine.slice(0, startLine.indexOf('npm start')).matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
    expect(startLine).toMatch(/\| tee engage\.log\s*$/);
    dir = mkdtempSync(path.join(tmpdir(), 'engage-quickstart-'));
    const databaseUrl = await freshDatabase();
    engage = await startEngage('serve', databaseUrl, { ...settings, ENGAGE_DATA_DIR: path.join(dir, '.engage') });
    // what `| tee engage.log` keeps: everything the service prints, from its start on
    const log = path.join(dir, 'engage.log');
    writeFileSync(log, engage.output().stdout);
    engage.child.stdout!.on('data', (d: Buffer) => appendFileSync(log, d));

    const hookPort = await freePort();
    // the shell a developer has: vitest's own variables left out
    const env = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('VITEST') || k === 'NODE_ENV' || k === 'TEST') delete env[k];

    let received = '';
    receiver = spawn('bash', ['-c', receiverBlock.replace('.listen(4000)', `.listen(${hookPort})`)], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    receiver.stdout!.on('data', (d) => (received += d));
    let receiverErrors = '';
    receiver.stderr!.on('data', (d) => (receiverErrors += d));
    await eventually(`the receiver to listen on ${hookPort} (${receiverErrors})`, async () => ((await listening(hookPort)) ? true : undefined), 15_000, 50);

    const script = [
      'set -euo pipefail',
      commands.replaceAll('http://localhost:3000', engage.url!).replaceAll('http://localhost:4000/', `http://localhost:${hookPort}/`),
      // what the test checks afterwards (not a README command)
      'echo "QUICKSTART KEY=$KEY ID=$ID"',
    ].join('\n');
    const run = await bash(script, dir, env, 60_000);
    expect({ code: run.code, stderr: run.stderr }, run.stdout).toEqual({ code: 0, stderr: '' });
    const [, key, id] = /QUICKSTART KEY=(\S*) ID=(\S*)/.exec(run.stdout) ?? [];
    expect(key).toMatch(/^ek_live_/);
    expect(id).toMatch(/^msg_/);
    // the sms receipt was accepted too
    expect(run.stdout).toMatch(/"channel":"sms"/);
    // the timeline was read: the message's events
    expect(run.stdout).toMatch(/"events":\[/);

    // the email reaches the sandbox's final status
    const final = await eventually(
      'the email to be delivered',
      async () => {
        const res = await fetch(`${engage!.url}/v1/messages/${id}`, { headers: { 'x-api-key': key } });
        const body = (await res.json()) as { status: string };
        return body.status === 'delivered' || body.status === 'failed' ? body : undefined;
      },
      30_000,
      50,
    );
    expect(final.status).toBe('delivered');
    // and the receiver printed its webhooks, the delivery among them
    await eventually('the receiver to print message.delivered', async () => (received.includes('"message.delivered"') ? true : undefined), 30_000, 50);
    const deliveries = received.split('\n').filter((line) => line.startsWith('POST /engage '));
    const types = deliveries.map((line) => JSON.parse(line.slice('POST /engage '.length)) as { type: string; data: { message_id: string } });
    expect(types.every((t) => t.data.message_id === id)).toBe(true);
    expect(types.map((t) => t.type)).toEqual(expect.arrayContaining(['message.queued', 'message.sent', 'message.delivered']));
  }, 150_000);
});
