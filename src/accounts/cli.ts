// The operator's account and key commands (`engage accounts create|list`, `engage keys
// create|list|rotate`, README "The CLI"). What they need of the service is imported when one runs,
// so that `engage --help` loads none of it.
import { type Command, InvalidArgumentError } from 'commander';
import type { ApiKeyRow } from '../../projections/auth.ts';
import type { Scope } from '../../commands/account.ts';
import type { Engage } from '../context.ts';

type WithEngage = <T>(fn: (engage: Engage) => Promise<T>) => Promise<T>;
type Out = (json: boolean, value: unknown, text: () => string) => void;

const SCOPES: readonly Scope[] = ['read', 'write', 'settings'];
const scopesOption = (v: string) => {
  const list = v.split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of list) if (!(SCOPES as readonly string[]).includes(s)) throw new InvalidArgumentError(`unknown scope ${s} (${SCOPES.join(', ')})`);
  return list as Scope[];
};

const MIN_PASSWORD = 8;

/** A value as a table cell: control characters (a name's escape sequences) never reach the terminal. */
const cell = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');

/** Rows under a header, each column as wide as its widest cell, two spaces apart. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows].map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** What a key is now: revoked, past the end of its rotation grace (expired), in it (rotating), or active. */
function keyState(k: ApiKeyRow, now: Date): 'active' | 'rotating' | 'expired' | 'revoked' {
  if (k.revoked_at) return 'revoked';
  if (k.expires_at) return k.expires_at.getTime() <= now.getTime() ? 'expired' : 'rotating';
  return 'active';
}

export function accountCommands(accounts: Command, keys: Command, withEngage: WithEngage, out: Out): void {
  accounts
    .command('create')
    .description('create an account with an owner user and a first API key')
    .requiredOption('--name <name>', 'account name')
    .requiredOption('--email <email>', 'owner email (dashboard login)')
    .option(
      '--password <password>',
      `owner password (at least ${MIN_PASSWORD} characters). On the command line it is visible to other users of this machine (ps) and stays in your shell history: prefer the prompt or --password-stdin`,
    )
    .option('--password-stdin', 'read the owner password from the first line of stdin (e.g. a pipe from a password manager)')
    .option('--json', 'machine-readable output')
    .addHelpText('after', '\nWith neither --password nor --password-stdin, engage asks for it without echo (twice) when stdin is a terminal.')
    .action(async (opts: { name: string; email: string; password?: string; passwordStdin?: boolean; json?: boolean }) => {
      const { readPassword } = await import('./password-input.ts');
      // asked before the service is opened: nothing waits on the operator's typing
      const password = await readPassword(opts, opts.email, (p) => (p.length < MIN_PASSWORD ? `password must be at least ${MIN_PASSWORD} characters` : undefined));
      const { createAccount } = await import('./service.ts');
      await withEngage(async (engage) => {
        const created = await createAccount(engage, { name: opts.name, email: opts.email, password }, { actor: 'cli' });
        const { position: _p, ...shown } = created;
        out(!!opts.json, shown, () =>
          [`account ${created.account_id}`, `user    ${created.user_id}`, `api key ${created.api_key}   (shown once)`].join('\n'),
        );
      });
    });
  accounts
    .command('list')
    .description('every account, oldest first: id, name, creation time and plan')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      const [{ catchUp }, { listAccounts }, { billingPlans }] = await Promise.all([
        import('../read-models/catch-up.ts'),
        import('../../projections/auth.ts'),
        import('../../projections/billing.ts'),
      ]);
      await withEngage(async (engage) => {
        // no running service may have brought them up to date (an account created by the CLI moments ago)
        await catchUp(engage, ['auth', 'billing']);
        const rows = await listAccounts(engage.pool);
        const plans = await billingPlans(engage.pool, rows.map((a) => a.id));
        const listed = rows.map((a) => ({ id: a.id, name: a.name, created_at: a.created_at.toISOString(), plan: plans.get(a.id)! }));
        out(!!opts.json, listed, () =>
          listed.length === 0
            ? 'no accounts yet (engage accounts create)'
            : table(['ID', 'NAME', 'CREATED', 'PLAN'], listed.map((a) => [a.id, cell(a.name), a.created_at, `${a.plan.tier} (${a.plan.period})`])),
        );
      });
    });

  keys
    .command('create')
    .description('issue a new API key for an account')
    .requiredOption('--account <id>', 'account id (acct_…)')
    .option('--scopes <list>', 'comma-separated scopes: read,write,settings (default: full access)', scopesOption)
    .option('--name <name>', 'a label for the key')
    .option('--json', 'machine-readable output')
    .action(async (opts: { account: string; scopes?: Scope[]; name?: string; json?: boolean }) => {
      const { issueApiKey } = await import('./service.ts');
      await withEngage(async (engage) => {
        const issued = await issueApiKey(engage, opts.account, { name: opts.name ?? null, scopes: opts.scopes ?? null }, { actor: 'cli' });
        out(!!opts.json, { key_id: issued.key_id, api_key: issued.key, scopes: opts.scopes ?? null }, () => `key ${issued.key_id}\napi key ${issued.key}   (shown once)`);
      });
    });
  keys
    .command('list')
    .description("an account's API keys, newest first: name, scopes, creation and state (active, rotating, expired, revoked); never the keys themselves")
    .requiredOption('--account <id>', 'account id (acct_…)')
    .option('--json', 'machine-readable output')
    .action(async (opts: { account: string; json?: boolean }) => {
      const [{ catchUp }, { findAccount, listApiKeys }] = await Promise.all([import('../read-models/catch-up.ts'), import('../../projections/auth.ts')]);
      await withEngage(async (engage) => {
        await catchUp(engage, ['auth']);
        if (!(await findAccount(engage.pool, opts.account))) throw new InvalidArgumentError(`no account ${opts.account}`);
        const now = engage.clock.now();
        // what GET /v1/account/api-keys answers of a key, and its state now
        const listed = (await listApiKeys(engage.pool, opts.account)).map((k) => ({
          id: k.id,
          prefix: k.prefix,
          name: k.name,
          scopes: k.scopes,
          created_at: iso(k.created_at)!,
          state: keyState(k, now),
          expires_at: iso(k.expires_at),
          revoked_at: iso(k.revoked_at),
          replaces: k.replaces,
        }));
        const state = (k: (typeof listed)[number]) =>
          k.state === 'revoked'
            ? `revoked ${k.revoked_at}`
            : k.state === 'expired'
              ? `expired ${k.expires_at}`
              : k.state === 'rotating'
                ? `rotating: works until ${k.expires_at}`
                : `active${k.replaces ? ` (replaces ${k.replaces})` : ''}`;
        out(!!opts.json, listed, () =>
          table(['ID', 'NAME', 'SCOPES', 'CREATED', 'STATE'], listed.map((k) => [k.id, k.name === null ? '-' : cell(k.name), k.scopes ? k.scopes.join(',') : 'full access', k.created_at, state(k)])),
        );
      });
    });
  keys
    .command('rotate')
    .description('issue a replacement for a key; the old key keeps working for 24 hours')
    .requiredOption('--key <id>', 'the key id to rotate (key_…)')
    .option('--account <id>', 'account id (looked up from the key when omitted)')
    .option('--json', 'machine-readable output')
    .action(async (opts: { key: string; account?: string; json?: boolean }) => {
      const [{ catchUp }, { accountOfKey, rotateApiKey }] = await Promise.all([import('../read-models/catch-up.ts'), import('./service.ts')]);
      await withEngage(async (engage) => {
        let account = opts.account;
        if (!account) {
          // the key → account lookup reads the auth read model, which no running service may have brought up to date
          await catchUp(engage, ['auth']);
          account = await accountOfKey(engage, opts.key);
        }
        if (!account) throw new InvalidArgumentError(`no key ${opts.key}`);
        const r = await rotateApiKey(engage, account, opts.key, { actor: 'cli' });
        out(!!opts.json, { key_id: r.key_id, api_key: r.key, replaces: opts.key, old_key_expires_at: r.old_key_expires_at }, () =>
          `key ${r.key_id}\napi key ${r.key}   (shown once)\nold key ${opts.key} works until ${r.old_key_expires_at}`,
        );
      });
    });
}
