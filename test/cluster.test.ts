// `engage serve --processes 2` (issue 11) as an operator runs it: the real CLI, a primary with one
// child for the read models and workers and two API children on one port. Requests reach both API
// children, a write is seen by the next read whichever child serves it, an account's rate limit is
// one budget across the children (no Redis), a killed child is replaced while the other keeps
// answering, and SIGTERM stops everything with code 0 (the embedded Postgres last); a killed
// primary leaves no children behind.
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { portOpen } from '../src/db/embedded.ts';
import { SERVICE_NODE_FLAGS } from '../src/node-flags.ts';
import { migratedDatabase } from './support/harness.ts';
import { type EngageProcess, killAllEngageProcesses, printedApiKey, runEngage, startEngage, TEST_APPLICATION_NAME } from './support/processes.ts';
import { acrossTheTurnOfAMinute, burst } from './support/rate-limits.ts';
import { eventually, until } from './support/waits.ts';

const PROCESSES = ['--processes', '2'];
/** what every cluster here runs with: writes wait long for their read models (a loaded machine), quiet hours off */
const ENV = { READ_YOUR_WRITES_TIMEOUT_MS: '15000', QUIET_HOURS: 'off' };

interface Answer {
  status: number;
  body: any;
}

/**
 * One request on a connection of its own: the cluster hands each new connection to the next API
 * child in turn, so consecutive requests are served by different children (a kept-alive connection
 * would stay with one).
 */
function onNewConnection(base: string, method: string, urlPath: string, opts: { key?: string; body?: unknown } = {}): Promise<Answer> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${urlPath}`,
      {
        method,
        agent: false,
        headers: { ...(opts.key ? { 'x-api-key': opts.key } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
      },
    );
    req.once('error', reject);
    // a lost connection fails the test here, saying so, instead of at the test's timeout
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${urlPath}: no answer within 30 s`)));
    req.end(body);
  });
}

/** The pid /health reports: the API child that answered. */
async function servingPid(base: string): Promise<number> {
  const res = await onNewConnection(base, 'GET', '/health');
  expect(res.status).toBe(200);
  return res.body.process.pid;
}

/** The live engage processes (the CLI's main.js, not the embedded Postgres) whose parent is `pid`: the cluster's children. */
function engageChildren(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    const child = Number(name);
    if (!Number.isInteger(child)) continue;
    try {
      const stat = readFileSync(`/proc/${child}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      if (Number(ppid) !== pid || state === 'Z') continue;
      if (readFileSync(`/proc/${child}/cmdline`, 'utf8').includes(inject('cliMain'))) out.push(child);
    } catch {
      /* gone meanwhile */
    }
  }
  return out.sort((a, b) => a - b);
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(') ') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}


describe('engage serve --processes 2', () => {
  let databaseUrl: string;
  let db: pg.Pool;
  let serve: EngageProcess;
  let base: string;
  let key: string;
  let apiPids: number[] = [];

  beforeAll(async () => {
    databaseUrl = await migratedDatabase();
    db = new pg.Pool({ connectionString: databaseUrl, max: 2, application_name: TEST_APPLICATION_NAME });
    serve = await startEngage('serve', databaseUrl, ENV, 180_000, PROCESSES);
    base = serve.url!;
    key = printedApiKey(serve);
  }, 240_000);
  afterAll(async () => {
    await killAllEngageProcesses();
    await db?.end();
  }, 60_000);

  it('runs one worker child and two API children under the primary, creates the first account once, and answers from both API children', async () => {
    const children = engageChildren(serve.child.pid!);
    expect(children).toHaveLength(3);
    // each with the service's V8 flags, though the primary was started without them (src/node-flags.ts)
    for (const pid of children) expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining([...SERVICE_NODE_FLAGS]));
    expect(serve.output().stdout.match(/First start: created an account/g)).toHaveLength(1);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM es_streams WHERE stream_id LIKE 'account-%'`);
    expect(rows[0].n).toBe(1);

    const seen = await until(
      async () => {
        const pids = new Set<number>();
        for (let i = 0; i < 4; i++) pids.add(await servingPid(base));
        return [...pids];
      },
      (pids) => pids.length === 2,
      30_000,
    );
    expect(seen).toHaveLength(2);
    // both are children of the primary, and neither is the worker child (it does not listen)
    for (const pid of seen) expect(engageChildren(serve.child.pid!)).toContain(pid);
    apiPids = seen;
  }, 60_000);

  it('shows every write in the very next read, whichever API child serves either', async () => {
    for (let i = 0; i < 10; i++) {
      const created = await onNewConnection(base, 'POST', '/v1/contacts', { key, body: { email: `ryw${i}@example.com`, first_name: `Ann${i}` } });
      expect(created.status).toBe(201);
      const listed = await onNewConnection(base, 'GET', '/v1/contacts?limit=1', { key });
      expect(listed.body.data[0]).toMatchObject({ id: created.body.id, email: `ryw${i}@example.com` });
      const shown = await onNewConnection(base, 'GET', `/v1/contacts/${created.body.id}`, { key });
      expect(shown.body).toMatchObject({ id: created.body.id, first_name: `Ann${i}` });
    }
  }, 120_000);

  it("counts an account's requests once across the API children (no Redis): exactly 500 of 520 concurrent requests pass, across the turn of a minute too", async () => {
    const made = await runEngage(['accounts', 'create', '--name', 'Busy', '--email', `busy-${Date.now()}@example.com`, '--password', 'correct horse battery', '--json'], databaseUrl);
    expect(made.code, made.stderr).toBe(0);
    const busy = JSON.parse(made.stdout).api_key as string;
    /** `n` requests at once, each on a connection of its own: spread over both children */
    const atOnce = (n: number) => Promise.all(Array.from({ length: n }, () => onNewConnection(base, 'GET', '/v1/account/me', { key: busy })));
    // the minute turns between the halves: the edge of the windows a window-counting limiter keeps,
    // where it let more than 500 through
    const [before, after] = await acrossTheTurnOfAMinute(
      async () => {
        // request 1: the first that the key answers (before the auth read model has it, a 401 counts per IP, not per account)
        await eventually('the new key to work', async () => ((await onNewConnection(base, 'GET', '/v1/account/me', { key: busy })).status === 200 ? true : undefined), 60_000, 100);
        return atOnce(259);
      },
      () => atOnce(260),
      15_000,
    );
    expect(before.map((r) => r.status)).toEqual(Array(259).fill(200));
    // one process's own log would admit up to 500 per child
    expect(after.filter((r) => r.status === 200)).toHaveLength(240);
    const over = after.filter((r) => r.status === 429);
    expect(over).toHaveLength(20);
    expect(over[0].body).toMatchObject({ error: 'rate_limit_exceeded', limit: 500, window: '1 minute' });
  }, 180_000);

  it('replaces an API child killed with SIGKILL, and keeps answering meanwhile', async () => {
    expect(apiPids).toHaveLength(2);
    const [victim, survivor] = apiPids;
    process.kill(victim, 'SIGKILL');
    // reaped, so the primary has seen it die: a connection the primary hands a child in the instant it
    // dies is lost (node:cluster's round-robin never takes it back; README), which is not what this tests
    await eventually('the primary to reap the killed child', async () => (existsSync(`/proc/${victim}`) ? undefined : true), 10_000, 20);
    // while it is being replaced, the other child answers every new connection
    const meanwhile = await burst(10, 5, () => onNewConnection(base, 'GET', '/v1/account/me', { key }));
    expect(meanwhile.map((r) => r.status)).toEqual(Array(10).fill(200));

    const children = await eventually(
      'a third engage child again',
      async () => {
        const now = engageChildren(serve.child.pid!);
        return now.length === 3 && !now.includes(victim) ? now : undefined;
      },
      60_000,
      100,
    );
    expect(children).toContain(survivor);
    // ready: the primary says so once the new child listens
    await eventually('the primary to report the restart', async () => (serve.output().stdout.includes('engage child process restarted') ? true : undefined), 60_000, 100);
    expect(serve.output().stdout).toContain('engage child process exited; restarting it');
    const replacement = await until(
      async () => {
        const pids = new Set<number>();
        for (let i = 0; i < 4; i++) pids.add(await servingPid(base));
        return [...pids].filter((p) => p !== survivor);
      },
      (others) => others.length > 0,
      10_000,
      200,
    );
    expect(replacement).toHaveLength(1);
    expect(children).toContain(replacement[0]);
    apiPids = [survivor, replacement[0]];

    const created = await onNewConnection(base, 'POST', '/v1/contacts', { key, body: { email: 'after-restart@example.com' } });
    expect(created.status).toBe(201);
  }, 120_000);

  it('stops every child, then itself, with code 0 on SIGTERM', async () => {
    const children = engageChildren(serve.child.pid!);
    expect(children).toHaveLength(3);
    serve.child.kill('SIGTERM');
    const exit = await serve.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    for (const pid of children) expect(alive(pid), `child ${pid}`).toBe(false);
    expect(serve.output().stderr).toBe('');
  }, 60_000);
});

describe('engage serve --processes 2 on the embedded Postgres (DATABASE_URL unset)', () => {
  let dataDir: string;
  afterAll(async () => {
    await killAllEngageProcesses();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('starts one cluster for all its processes and stops it after them on SIGTERM', async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'engage-cluster-'));
    // open to the postgres user (as root the cluster runs as it), so its files stay in here
    chmodSync(dataDir, 0o755);
    // an empty DATABASE_URL counts as unset
    const serve = await startEngage('serve', '', { ...ENV, ENGAGE_DATA_DIR: dataDir }, 180_000, PROCESSES);
    const pgPort = JSON.parse(readFileSync(path.join(dataDir, 'postgres.json'), 'utf8')).port as number;
    expect(await portOpen(pgPort)).toBe(true);
    const key = printedApiKey(serve);
    const created = await onNewConnection(serve.url!, 'POST', '/v1/contacts', { key, body: { email: 'embedded@example.com' } });
    expect(created.status).toBe(201);
    expect((await onNewConnection(serve.url!, 'GET', '/v1/contacts', { key })).body.data).toHaveLength(1);

    const children = engageChildren(serve.child.pid!);
    expect(children).toHaveLength(3);
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toEqual({ code: 0, signal: null });
    for (const pid of children) expect(alive(pid), `child ${pid}`).toBe(false);
    expect(await portOpen(pgPort)).toBe(false);
  }, 300_000);
});

describe('engage serve --processes 2 whose primary is killed', () => {
  afterAll(async () => {
    await killAllEngageProcesses();
  }, 60_000);

  it('leaves no child behind: each ends when its channel to the primary closes', async () => {
    const serve = await startEngage('serve', await migratedDatabase(), ENV, 180_000, PROCESSES);
    const children = engageChildren(serve.child.pid!);
    expect(children).toHaveLength(3);
    await serve.kill();
    await eventually('every child of the killed primary to end', async () => (children.some(alive) ? undefined : true), 30_000, 50);
  }, 240_000);
});
