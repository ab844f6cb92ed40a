// The CLI in an operator's first hour (README "The CLI"): which version runs, which accounts and keys
// there are, passwords that never have to go on the command line, and a --help that answers at once.
// Real engage processes against a database of their own, with no service running unless a test
// starts one (the listings must bring their read models up to date themselves).
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshDatabase, startTestServer, type TestServer } from '../support/harness.ts';
import { type CliResult, killAllEngageProcesses, runEngage, runEngageOnTerminal } from '../support/processes.ts';
import { eventually } from '../support/waits.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const PASSWORD = 'correct horse battery';

afterAll(async () => {
  await killAllEngageProcesses();
});

function expectClean(r: CliResult) {
  expect(r.stderr).not.toMatch(/^\s+at\s/m);
  expect(r.stdout).not.toMatch(/^\s+at\s/m);
}

/** The output of a command that must have succeeded, with what it said when it did not. */
function succeeded(r: CliResult): CliResult {
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  return r;
}

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

describe('engage --version', () => {
  it.each([['--version'], ['-V']])('%s prints the version of package.json and exits 0', async (flag) => {
    // no database is reached for it: an unreachable one changes nothing
    const r = await runEngage([flag], 'postgres://nobody@127.0.0.1:1/none');
    expect(r).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('is in --help', async () => {
    const r = await runEngage(['--help'], 'postgres://nobody@127.0.0.1:1/none');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/-V, --version\s+print the version/);
  });
});

describe('engage --help and --version load only the table of commands', () => {
  // a module hook records every module the process loads (node's module.register), into a file
  const dir = mkdtempSync(path.join(tmpdir(), 'engage-loaded-'));
  const hooks = path.join(dir, 'hooks.mjs');
  const record = path.join(dir, 'record.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function load(url, context, next) { appendFileSync(file, url + '\\n'); return next(url, context); }
`,
  );
  writeFileSync(record, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { file: process.env.ENGAGE_TEST_LOADED } });\n`);
  const built = path.dirname(path.dirname(inject('cliMain')));

  it.each([['--help'], ['--version'], ['accounts', '--help'], ['keys', 'list', '--help']])('engage %s', async (...args) => {
    const loaded = path.join(dir, `loaded-${args.join('')}.txt`);
    const r = await runEngage(args, 'postgres://nobody@127.0.0.1:1/none', { NODE_OPTIONS: `--import=${pathToFileURL(record).href}`, ENGAGE_TEST_LOADED: loaded });
    expect(r.code).toBe(0);
    const urls = readFileSync(loaded, 'utf8').trim().split('\n').filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u));
    // of the packages, commander alone; of engage's own modules, the CLI's few light ones
    const packages = new Set(urls.filter((f) => f.includes(`${path.sep}node_modules${path.sep}`)).map((f) => f.split(`${path.sep}node_modules${path.sep}`).pop()!.split(path.sep)[0]));
    expect([...packages]).toEqual(['commander']);
    const own = urls.filter((f) => f.startsWith(built + path.sep)).map((f) => path.relative(built, f));
    expect(own).toContain(path.join('src', 'main.js'));
    // the command modules and the few constants their options name (scopes, tiers, add-ons), no more
    expect(own.length, own.join(', ')).toBeLessThanOrEqual(12);
    for (const heavy of ['context.js', 'server.js', 'config.js']) expect(own).not.toContain(path.join('src', heavy));
  });
});

describe('engage accounts list and keys list', () => {
  let url: string;
  const engage = (...args: string[]) => runEngage(args, url);
  let acme: { account_id: string; key_id: string; api_key: string };
  let beta: { account_id: string; key_id: string; api_key: string };
  let startedAt: number;

  beforeAll(async () => {
    url = await freshDatabase();
  }, 120_000);

  it('says there are none yet on an empty database', async () => {
    expect(succeeded(await engage('accounts', 'list')).stdout).toBe('no accounts yet (engage accounts create)\n');
    expect(JSON.parse(succeeded(await engage('accounts', 'list', '--json')).stdout)).toEqual([]);
  });

  it('lists every account oldest first with its id, name, creation time and plan, moments after the CLI created them', async () => {
    startedAt = Date.now() - 1000;
    acme = JSON.parse(succeeded(await engage('accounts', 'create', '--name', 'Acme', '--email', 'ops@acme.example', '--password', PASSWORD, '--json')).stdout);
    beta = JSON.parse(succeeded(await engage('accounts', 'create', '--name', 'Beta\u001b[31m red', '--email', 'ops@beta.example', '--password', PASSWORD, '--json')).stdout);
    succeeded(await engage('billing', 'plan', beta.account_id, '--tier', 'growth', '--period', 'annual'));

    const listed = JSON.parse(succeeded(await engage('accounts', 'list', '--json')).stdout);
    expect(listed).toEqual([
      { id: acme.account_id, name: 'Acme', created_at: iso, plan: { tier: 'free', period: 'monthly' } },
      { id: beta.account_id, name: 'Beta\u001b[31m red', created_at: iso, plan: { tier: 'growth', period: 'annual' } },
    ]);
    for (const a of listed) {
      expect(Date.parse(a.created_at)).toBeGreaterThanOrEqual(startedAt);
      expect(Date.parse(a.created_at)).toBeLessThanOrEqual(Date.now());
    }

    const table = succeeded(await engage('accounts', 'list')).stdout.trimEnd().split('\n');
    expect(table).toHaveLength(3);
    expect(table[0]).toMatch(/^ID\s+NAME\s+CREATED\s+PLAN$/);
    expect(table[1]).toMatch(new RegExp(`^${acme.account_id}\\s+Acme\\s+${listed[0].created_at.replace(/\./g, '\\.')}\\s+free \\(monthly\\)$`));
    // a name's control characters are never written to the terminal as they are
    expect(table[2]).toMatch(new RegExp(`^${beta.account_id}\\s+Beta\\?\\[31m red\\s+\\S+\\s+growth \\(annual\\)$`));
    // the columns line up
    const column = (header: string) => table[0].indexOf(header);
    for (const line of table.slice(1)) expect(line.indexOf(' ', column('NAME') - 1)).toBe(column('NAME') - 1);
    expect(table[1].indexOf('free')).toBe(column('PLAN'));
    expect(table[2].indexOf('growth')).toBe(column('PLAN'));
  });

  it("lists an account's keys newest first with name, scopes, creation and state; never a key or its hash", async () => {
    const reporting = JSON.parse(succeeded(await engage('keys', 'create', '--account', acme.account_id, '--scopes', 'read', '--name', 'reporting', '--json')).stdout);
    const doomed = JSON.parse(succeeded(await engage('keys', 'create', '--account', acme.account_id, '--scopes', 'read,write', '--json')).stdout);
    const rotated = JSON.parse(succeeded(await engage('keys', 'rotate', '--key', acme.key_id, '--json')).stdout);
    // revoked through the API, by the replacement key
    const server: TestServer = await startTestServer({}, url);
    try {
      await eventually('the replacement key to work', async () => ((await server.request('GET', '/v1/account/me', { key: rotated.api_key })).status === 200 ? true : undefined));
      expect((await server.request('DELETE', `/v1/account/api-keys/${doomed.key_id}`, { key: rotated.api_key })).status).toBe(200);
    } finally {
      await server.close();
    }

    const r = succeeded(await engage('keys', 'list', '--account', acme.account_id, '--json'));
    const keys = JSON.parse(r.stdout);
    const prefix = (key: string) => key.slice(0, 12);
    expect(keys).toEqual([
      { id: rotated.key_id, prefix: prefix(rotated.api_key), name: 'default', scopes: null, created_at: iso, state: 'active', expires_at: null, revoked_at: null, replaces: acme.key_id },
      { id: doomed.key_id, prefix: prefix(doomed.api_key), name: null, scopes: ['read', 'write'], created_at: iso, state: 'revoked', expires_at: null, revoked_at: iso, replaces: null },
      { id: reporting.key_id, prefix: prefix(reporting.api_key), name: 'reporting', scopes: ['read'], created_at: iso, state: 'active', expires_at: null, revoked_at: null, replaces: null },
      { id: acme.key_id, prefix: prefix(acme.api_key), name: 'default', scopes: null, created_at: iso, state: 'rotating', expires_at: rotated.old_key_expires_at, revoked_at: null, replaces: null },
    ]);
    const table = succeeded(await engage('keys', 'list', '--account', acme.account_id)).stdout;
    for (const out of [r.stdout, table]) {
      for (const key of [acme.api_key, reporting.api_key, doomed.api_key, rotated.api_key]) {
        expect(out).not.toContain(key);
        expect(out).not.toContain(createHash('sha256').update(key).digest('hex'));
      }
    }
    const lines = table.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^ID\s+NAME\s+SCOPES\s+CREATED\s+STATE$/);
    expect(lines[1]).toMatch(new RegExp(`^${rotated.key_id}\\s+default\\s+full access\\s+\\S+Z\\s+active \\(replaces ${acme.key_id}\\)$`));
    expect(lines[2]).toMatch(new RegExp(`^${doomed.key_id}\\s+-\\s+read,write\\s+\\S+Z\\s+revoked ${keys[1].revoked_at.replace(/\./g, '\\.')}$`));
    expect(lines[3]).toMatch(new RegExp(`^${reporting.key_id}\\s+reporting\\s+read\\s+\\S+Z\\s+active$`));
    expect(lines[4]).toMatch(new RegExp(`^${acme.key_id}\\s+default\\s+full access\\s+\\S+Z\\s+rotating: works until ${rotated.old_key_expires_at.replace(/\./g, '\\.')}$`));

    // another account's keys are its own
    expect(JSON.parse(succeeded(await engage('keys', 'list', '--account', beta.account_id, '--json')).stdout).map((k: { id: string }) => k.id)).toEqual([beta.key_id]);
  }, 120_000);

  it.each([
    { args: ['keys', 'list', '--account', 'acct_01J0000000000000000000000'], message: /^engage: no account acct_01J0000000000000000000000\n$/ },
    { args: ['keys', 'list'], message: /error: required option '--account <id>' not specified/ },
  ])('keys list rejects $args with exit 1 and a clear message', async ({ args, message }) => {
    const r = await engage(...args);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expectClean(r);
  });
});

describe('the password of engage accounts create', () => {
  let url: string;
  let server: TestServer | undefined;

  beforeAll(async () => {
    url = await freshDatabase();
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  /** Whether the owner can log in with this password, once the service has the user. */
  async function logsIn(email: string, password: string): Promise<boolean> {
    server ??= await startTestServer({}, url);
    const s = server;
    await eventually(`the user ${email}`, async () => ((await s.engage.pool.query('SELECT 1 FROM users WHERE email = $1', [email])).rowCount === 1 ? true : undefined));
    const login = await s.request('POST', '/v1/auth/login', { body: { email, password } });
    return login.status === 200;
  }
  const accountCount = async (email: string) => {
    const r = succeeded(await runEngage(['accounts', 'list', '--json'], url));
    const accounts = JSON.parse(r.stdout) as { name: string }[];
    return accounts.filter((a) => a.name === email).length;
  };

  it('--help says the argument form is visible to other users and names the other ways', async () => {
    const r = succeeded(await runEngage(['accounts', 'create', '--help'], url));
    expect(r.stdout).toMatch(/--password <password>\s+owner password \(at least 8 characters\)[^]*visible to other users/);
    expect(r.stdout).toMatch(/--password-stdin\s+read the owner password from the first line of stdin/);
    expect(r.stdout).toMatch(/asks for it without echo/);
  });

  it('--password-stdin takes the first line of a pipe', async () => {
    const r = await runEngage(['accounts', 'create', '--name', 'piped', '--email', 'piped@example.com', '--password-stdin', '--json'], url, {}, `${PASSWORD} piped\nnot this line\n`);
    succeeded(r);
    expect(JSON.parse(r.stdout).account_id).toMatch(/^acct_/);
    expect(await logsIn('piped@example.com', `${PASSWORD} piped`)).toBe(true);
    expect(await logsIn('piped@example.com', `${PASSWORD} piped\nnot this line`)).toBe(false);
  });

  it('--password-stdin takes a line without a newline at the end, and a CRLF line without its CR', async () => {
    succeeded(await runEngage(['accounts', 'create', '--name', 'bare', '--email', 'bare@example.com', '--password-stdin'], url, {}, `${PASSWORD} bare`));
    succeeded(await runEngage(['accounts', 'create', '--name', 'crlf', '--email', 'crlf@example.com', '--password-stdin'], url, {}, `${PASSWORD} crlf\r\n`));
    expect(await logsIn('bare@example.com', `${PASSWORD} bare`)).toBe(true);
    expect(await logsIn('crlf@example.com', `${PASSWORD} crlf`)).toBe(true);
  });

  it.each([
    { what: 'an empty stdin', args: ['--password-stdin'], input: '', message: /^engage: no password on stdin \(--password-stdin reads its first line\)\n$/ },
    { what: 'a short first line', args: ['--password-stdin'], input: 'short\nand a long second line\n', message: /^engage: password must be at least 8 characters\n$/ },
    { what: 'both forms', args: ['--password', PASSWORD, '--password-stdin'], input: `${PASSWORD}\n`, message: /^engage: give --password or --password-stdin, not both\n$/ },
    {
      what: 'no password, with stdin not a terminal',
      args: [],
      input: undefined,
      message: /^engage: no password given: stdin is not a terminal to ask on; pipe it with --password-stdin \(or give --password, visible to other users\)\n$/,
    },
  ])('refuses $what with exit 1 and creates nothing', async ({ args, input, message, what }) => {
    const email = `refused-${what.replace(/\W+/g, '-')}@example.com`;
    const r = await runEngage(['accounts', 'create', '--name', email, '--email', email, ...args], url, {}, input);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expectClean(r);
    expect(await accountCount(email)).toBe(0);
  });

  it('on a terminal, asks twice without echo when no password is given', async () => {
    const secret = 'typed on a terminal';
    const r = await runEngageOnTerminal(['accounts', 'create', '--name', 'typed', '--email', 'typed@example.com', '--json'], url, {}, [
      { after: /password for typed@example\.com: $/, type: `${secret}\r` },
      { after: /repeat the password: $/, type: `${secret}\r` },
    ]);
    expect(r.code).toBe(0);
    // the transcript of the terminal: the prompts, never what was typed
    expect(r.stdout).toMatch(/^password for typed@example\.com: \r?\nrepeat the password: \r?\n\{/);
    expect(r.stdout).not.toContain(secret);
    expect(JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))).account_id).toMatch(/^acct_/);
    expect(await logsIn('typed@example.com', secret)).toBe(true);
  });

  it('on a terminal, takes back what backspace erases', async () => {
    const r = await runEngageOnTerminal(['accounts', 'create', '--name', 'erased', '--email', 'erased@example.com'], url, {}, [
      { after: /password for erased@example\.com: $/, type: `${PASSWORD}X\u007f erased\r` },
      { after: /repeat the password: $/, type: `${PASSWORD} erased\r` },
    ]);
    expect(r.code).toBe(0);
    expect(await logsIn('erased@example.com', `${PASSWORD} erased`)).toBe(true);
  });

  it('on a terminal, refuses two different passwords and creates nothing', async () => {
    const r = await runEngageOnTerminal(['accounts', 'create', '--name', 'mismatch@example.com', '--email', 'mismatch@example.com'], url, {}, [
      { after: /password for mismatch@example\.com: $/, type: `${PASSWORD} one\r` },
      { after: /repeat the password: $/, type: `${PASSWORD} two\r` },
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/engage: the passwords do not match\r?\n$/);
    expect(r.stdout).not.toContain(PASSWORD);
    expect(await accountCount('mismatch@example.com')).toBe(0);
  });

  it('on a terminal, Ctrl-C at the prompt stops with exit 130 and creates nothing', async () => {
    const r = await runEngageOnTerminal(['accounts', 'create', '--name', 'interrupted@example.com', '--email', 'interrupted@example.com'], url, {}, [
      { after: /password for interrupted@example\.com: $/, type: 'half typed\u0003' },
    ]);
    expect(r.code).toBe(130);
    expect(r.stdout).not.toContain('half typed');
    expect(await accountCount('interrupted@example.com')).toBe(0);
  });
});
