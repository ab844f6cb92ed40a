// Account fixtures: a new account with its owner and a full-access key, made through the service
// itself, and one whose key is known to work over HTTP.
import { randomBytes } from 'node:crypto';
import { createAccount } from '../../src/accounts/service.ts';
import type { Server } from '../../src/server.ts';
import type { TestServer } from './harness.ts';
import { runEngage } from './processes.ts';
import { eventually } from './waits.ts';

export interface TestAccount {
  accountId: string;
  /** the owner's full-access API key */
  key: string;
  userId: string;
  email: string;
  password: string;
}

/** Creates an account and waits until its key is in the auth read model. */
export async function newAccount(server: Server, name = 'Test account'): Promise<TestAccount> {
  const email = `owner-${randomBytes(5).toString('hex')}@example.com`;
  const password = 'correct horse battery';
  const created = await createAccount(server.engage, { name, email, password });
  // a loaded machine may take a while; a key that is not yet visible would fail tests confusingly
  if (!(await server.engage.runner.waitFor(['auth'], created.position, 60_000))) throw new Error('newAccount: the auth read model did not catch up within 60 s');
  return { accountId: created.account_id, key: created.api_key, userId: created.user_id, email, password };
}

/**
 * A new account whose key has answered 200 over HTTP. Costs one request of the account's rate
 * limit, so tests that count requests exactly use server.newAccount instead.
 */
export async function readyAccount(server: TestServer, name?: string): Promise<TestAccount> {
  const account = await server.newAccount(name);
  await eventually(
    'the new API key to work',
    async () => ((await server.call('GET', '/v1/messages/history?limit=1', { key: account.key })).status === 200 ? true : undefined),
    90_000,
    100,
  );
  return account;
}

/**
 * Switches an AI add-on on for the account as an operator does (`engage ai <addon> enable`, README
 * "AI helpers") and waits until the account sees it enabled.
 */
export async function enableAiAddon(server: TestServer, account: TestAccount, addon: 'writer' | 'coach'): Promise<void> {
  const run = await runEngage(['ai', addon, 'enable', account.accountId], server.databaseUrl);
  if (run.code !== 0) throw new Error(`engage ai ${addon} enable failed (${run.code}): ${run.stderr}`);
  await eventually(`the ${addon} to show enabled`, async () => ((await server.call('GET', `/v1/account/ai-${addon}-status`, { key: account.key })).body.enabled ? true : undefined));
}
