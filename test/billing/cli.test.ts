// The operator's billing commands (`engage billing top-up | plan`), run as real processes against the
// database of a running service; the account sees the result over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { killAllEngageProcesses, runEngage } from '../support/processes.ts';
import { until } from '../support/waits.ts';

const server = testServerForSuite();
let a: TestAccount;
beforeAll(async () => {
  a = await server.newAccount('Operated');
});
afterAll(async () => {
  await killAllEngageProcesses();
});

describe('engage billing', () => {
  it('top-up credits the balance in the billing currency, with its reference in the ledger; wrong currency, amount or account fail clearly', async () => {
    const res = await runEngage(['billing', 'top-up', a.accountId, '25.5', '--reference', 'INV-2026-001', '--json'], server.databaseUrl);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ id: expect.stringMatching(/^top_/), account_id: a.accountId, amount: '25.50', currency: 'USD', reference: 'INV-2026-001' });
    const balance = await until(() => server.call('GET', '/v1/account/balance', { key: a.key }), (r) => r.body.balance === '25.50');
    expect(balance.body).toMatchObject({ balance: '25.50', currency: 'USD' });
    const ledger = await server.call('GET', '/v1/account/balance/transactions', { key: a.key });
    expect(ledger.body.data).toEqual([expect.objectContaining({ kind: 'top_up', amount: '25.50', currency: 'USD', description: 'top-up (INV-2026-001)' })]);

    const wrongCurrency = await runEngage(['billing', 'top-up', a.accountId, '10', '--currency', 'eur'], server.databaseUrl);
    expect(wrongCurrency.code).toBe(1);
    expect(wrongCurrency.stderr).toMatch(/billed in USD/);
    const badAmount = await runEngage(['billing', 'top-up', a.accountId, '-3'], server.databaseUrl);
    expect(badAmount.code).not.toBe(0);
    expect(badAmount.stderr).toMatch(/not a positive number/);
    const unknown = await runEngage(['billing', 'top-up', 'acct_01ARZ3NDEKTSV4RRFFQ69G5FAV', '10'], server.databaseUrl);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/account not found/);
    expect(unknown.stderr).not.toMatch(/^\s+at\s/m);
  });

  it('plan sets the tier and period; a period left out stays; an unknown tier is refused', async () => {
    const set = await runEngage(['billing', 'plan', a.accountId, '--tier', 'scale', '--period', 'annual', '--json'], server.databaseUrl);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ account_id: a.accountId, tier: 'scale', period: 'annual', changed: true });
    const plan = await until(() => server.call('GET', '/v1/account/plan', { key: a.key }), (r) => r.body.tier === 'scale');
    expect(plan.body).toMatchObject({ tier: 'scale', period: 'annual', price: { amount: '3990.00', period: 'year' }, upgrade_options: [{ tier: 'enterprise', self_serve: false }] });

    const keep = await runEngage(['billing', 'plan', a.accountId, '--tier', 'growth'], server.databaseUrl);
    expect(keep.code, keep.stderr).toBe(0);
    expect(keep.stdout).toMatch(/growth \(annual\)/);
    const bad = await runEngage(['billing', 'plan', a.accountId, '--tier', 'platinum'], server.databaseUrl);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/unknown tier platinum/);
  });
});
