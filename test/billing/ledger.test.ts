// The balance ledger over real sends (README "Billing"): a debit at the sell price of the recipient's
// country once a message is sent, usage per channel, a credit when the carrier reports a failure it
// does not bill (and none for `undelivered`), top-ups, a currency change converting the balance at
// the table's rate and recorded with it, the balance always the sum of the ledger, and a rebuild
// giving the same rows. Sandbox reports are held, so messages stay `sent` until a callback says more.
import { beforeAll, describe, expect, it } from 'vitest';
import { billingProjection, ledgerTotals } from '../../projections/billing.ts';
import { multiplyMicros, formatMoney } from '../../src/billing/money.ts';
import { conversionRate } from '../../src/billing/rates.ts';
import { topUp } from '../../src/billing/service.ts';
import { AppError } from '../../src/errors.ts';
import { acceptedData, newMessageStream } from '../../src/messages/service.ts';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { until } from '../support/waits.ts';
import { HOLD_SANDBOX, SECRETS, postCarrier, sendAndWaitSent, statusOf } from '../webhooks-inbound/helpers.ts';

const server = testServerForSuite({ ...SECRETS, ...HOLD_SANDBOX });
let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  [a, b] = await Promise.all([server.newAccount('Payer'), server.newAccount('Bystander')]);
});

const US = '+16285551001';
const GB = '+447400123456';
const balanceOf = async (key: string) => (await server.call('GET', '/v1/account/balance', { key })).body;
const waitBalance = (key: string, balance: string) => until(() => balanceOf(key), (body) => body.balance === balance);
const ledger = async (key: string) => {
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const res = await server.call('GET', `/v1/account/balance/transactions?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key });
    expect(res.status).toBe(200);
    rows.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return rows;
};
const carrierStatus = (sid: string, status: string, to: string) => ({ AccountSid: 'AC0', MessageSid: sid, MessageStatus: status, To: to, From: '+15017122661' });

/** The billing rows of one account in a fixed order: what a rebuild must reproduce. */
async function billingRows(accountId: string) {
  const q = async (sql: string) => (await server.engage.pool.query(sql, [accountId])).rows;
  return {
    account: await q('SELECT * FROM billing_accounts WHERE account_id = $1'),
    messages: await q('SELECT * FROM billing_messages WHERE account_id = $1 ORDER BY message_id'),
    ledger: await q('SELECT * FROM billing_ledger WHERE account_id = $1 ORDER BY id'),
    usage: await q('SELECT * FROM billing_usage WHERE account_id = $1 ORDER BY month, channel, currency'),
  };
}

/** balance == SUM(ledger) in the account's currency; every other currency sums to zero. */
async function expectBalanceIsLedgerSum(account: TestAccount) {
  await server.caughtUp(['billing']);
  const { balance, currency } = await balanceOf(account.key);
  const totals = await ledgerTotals(server.engage.pool, account.accountId);
  expect(formatMoney(totals[currency] ?? 0)).toBe(balance);
  for (const [other, total] of Object.entries(totals)) if (other !== currency) expect(total, other).toBe(0);
}

describe('debits, credits and top-ups', () => {
  let usSms: { id: string; providerMessageId: string };
  let gbSms: { id: string; providerMessageId: string };

  it('a top-up credits the balance; one in another currency is refused', async () => {
    const { top_up, position } = await topUp(server.engage, a.accountId, { amountMicros: 10_000_000, reference: 'INV-7' }, { actor: 'test' });
    expect(top_up).toMatchObject({ amount: '10.00', currency: 'USD', reference: 'INV-7' });
    await server.engage.runner.waitFor(['billing'], position!, 30_000);
    expect(await balanceOf(a.key)).toEqual({ balance: '10.00', currency: 'USD', updated_at: top_up.at });
    await expect(topUp(server.engage, a.accountId, { amountMicros: 1_000_000, currency: 'EUR' }, { actor: 'test' })).rejects.toSatisfy(
      (e) => e instanceof AppError && e.statusCode === 409 && e.message.includes('billed in USD'),
    );
  });

  it('sms to US and GB numbers and an email are debited their sell prices once sent, and counted as usage', async () => {
    usSms = await sendAndWaitSent(server, a.key, { to: US, channel: 'sms', message: 'hi' });
    gbSms = await sendAndWaitSent(server, a.key, { to: GB, channel: 'sms', message: 'hi' });
    const email = await sendAndWaitSent(server, a.key, { to: 'someone@example.com', channel: 'email', subject: 'Hi', message: 'hi' });
    // 10 - 0.0079 - 0.04 - 0.0009
    expect((await waitBalance(a.key, '9.9512')).balance).toBe('9.9512');
    const rows = await ledger(a.key);
    expect(rows.map((r) => [r.kind, r.amount, r.currency, r.message_id, r.channel, r.country])).toEqual([
      ['message', '-0.0009', 'USD', email.id, 'email', null],
      ['message', '-0.04', 'USD', gbSms.id, 'sms', 'GB'],
      ['message', '-0.0079', 'USD', usSms.id, 'sms', 'US'],
      ['top_up', '10.00', 'USD', null, null, null],
    ]);
    // billing keeps a row for each sms (its price depends on the country, a failure may be credited),
    // none for the email: priced by its channel, which its MessageSent names (README "The write path")
    const { rows: kept } = await server.engage.pool.query<{ message_id: string }>('SELECT message_id FROM billing_messages WHERE account_id = $1', [a.accountId]);
    expect(kept.map((r) => r.message_id).sort()).toEqual([usSms.id, gbSms.id].sort());
    // the country is kept in clear on the accepted message (the recipient stays sealed)
    const { rows: accepted } = await server.engage.pool.query<{ data: any }>("SELECT data FROM es_events WHERE stream_id = $1 AND type = 'MessageAccepted'", [`message-${gbSms.id}`]);
    expect(accepted[0]!.data).toMatchObject({ to_country: 'GB' });
    expect(JSON.stringify(accepted[0]!.data)).not.toContain(GB);

    const month = new Date().toISOString().slice(0, 7);
    const usage = await server.call('GET', `/v1/account/usage?from=${month}&to=${month}`, { key: a.key });
    expect(usage.body.months).toEqual([
      {
        month,
        channels: {
          sms: { messages: 2, amount: '0.0479', currency: 'USD' },
          rcs: { messages: 0, amount: '0.00', currency: 'USD' },
          whatsapp: { messages: 0, amount: '0.00', currency: 'USD' },
          voice: { messages: 0, amount: '0.00', currency: 'USD' },
          email: { messages: 1, amount: '0.0009', currency: 'USD' },
          push: { messages: 0, amount: '0.00', currency: 'USD' },
        },
      },
    ]);
    const plan = await server.call('GET', '/v1/account/plan', { key: a.key });
    expect(plan.body.usage_this_month.sms).toEqual({ messages: 2, included: 0, remaining: 0 });
    expect(plan.body.usage_this_month.email).toEqual({ messages: 1, included: 3_000, remaining: 2_999 });
    await expectBalanceIsLedgerSum(a);
  });

  it('a carrier `failed` report after sent is credited back; `undelivered` is billed and is not', async () => {
    expect((await postCarrier(server, carrierStatus(usSms.providerMessageId, 'failed', US))).status).toBe(200);
    expect((await waitBalance(a.key, '9.9591')).balance).toBe('9.9591');
    expect((await postCarrier(server, carrierStatus(gbSms.providerMessageId, 'undelivered', GB))).status).toBe(200);
    expect((await statusOf(server, a.key, gbSms.id, 'failed')).status).toBe('failed');
    // a second `failed` for the credited message changes nothing either
    expect((await postCarrier(server, carrierStatus(usSms.providerMessageId, 'failed', US))).status).toBe(200);
    await server.caughtUp(['billing']);
    expect((await balanceOf(a.key)).balance).toBe('9.9591');
    const refunds = (await ledger(a.key)).filter((r) => r.kind === 'refund');
    expect(refunds).toEqual([expect.objectContaining({ amount: '0.0079', currency: 'USD', message_id: usSms.id, channel: 'sms', country: 'US', description: expect.stringContaining('failed') })]);
    await expectBalanceIsLedgerSum(a);
  });

  it('a message accepted before MessageAccepted carried to_country is priced by its opened recipient', async () => {
    const checked = { content: { channel: 'sms' as const, to: GB, message: 'legacy', transactional: true } };
    const { to_country: _c, ...legacy } = acceptedData(a.accountId, checked, new Date());
    expect(_c).toBe('GB');
    await server.engage.store.appendMany([newMessageStream(legacy, { accountId: a.accountId, actor: 'test' })]);
    // the dispatcher sends it; billing derives GB from the sealed `to`
    expect((await waitBalance(a.key, '9.9191')).balance).toBe('9.9191');
    expect((await ledger(a.key))[0]).toMatchObject({ message_id: legacy.id, country: 'GB', amount: '-0.04' });
  });
});

describe('billing currency', () => {
  it("changing it converts the balance at the table's effective rate, records the rate in the log, and later debits are in it", async () => {
    const before = await balanceOf(a.key);
    const { rate, rates_date } = conversionRate('USD', 'EUR', new Date());
    const res = await server.call('PUT', '/v1/account/billing-currency', { key: a.key, body: { currency: 'eur' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const converted = formatMoney(multiplyMicros(9_919_100, rate));
    expect(before.balance).toBe('9.9191');
    expect(res.body).toEqual({ currency: 'EUR', previous: 'USD', changed: true, rate, rates_date, balance: converted });

    const { rows } = await server.engage.pool.query<{ type: string; data: any }>('SELECT type, data FROM es_events WHERE stream_id = $1 ORDER BY stream_revision', [`billing-${a.accountId}`]);
    expect(rows.at(-1)).toMatchObject({ type: 'BillingCurrencyChanged', data: { account_id: a.accountId, from: 'USD', to: 'EUR', rate, rates_date } });

    const entries = await ledger(a.key);
    expect(entries.slice(0, 2).map((r) => [r.kind, r.amount, r.currency])).toEqual([['conversion', converted, 'EUR'], ['conversion', '-9.9191', 'USD']]);
    expect((await server.call('GET', '/v1/account/billing-currency', { key: a.key })).body).toMatchObject({ currency: 'EUR', last_change: { from: 'USD', to: 'EUR', rate, rates_date } });
    // the same currency again: nothing recorded, the answer unchanged
    const again = await server.call('PUT', '/v1/account/billing-currency', { key: a.key, body: { currency: 'EUR' } });
    expect(again.body).toMatchObject({ currency: 'EUR', previous: 'EUR', changed: false, balance: converted });
    expect((await server.engage.pool.query('SELECT 1 FROM es_events WHERE stream_id = $1', [`billing-${a.accountId}`])).rowCount).toBe(rows.length);

    // a sms to the US now costs 0.0079 USD in EUR at the rate in effect; pricing shows the same figure
    const debit = multiplyMicros(7_900, rate);
    const pricing = await server.call('GET', '/v1/account/pricing?channel=sms&country=US', { key: a.key });
    expect(pricing.body).toMatchObject({ currency: 'EUR', prices: [{ channel: 'sms', country: 'US', sell: formatMoney(debit), currency: 'EUR' }] });
    await sendAndWaitSent(server, a.key, { to: US, channel: 'sms', message: 'in euros' });
    const after = formatMoney(multiplyMicros(9_919_100, rate) - debit);
    expect((await waitBalance(a.key, after)).balance).toBe(after);
    expect((await ledger(a.key))[0]).toMatchObject({ kind: 'message', amount: formatMoney(-debit), currency: 'EUR' });
    // a top-up now has to be in euros
    await expect(topUp(server.engage, a.accountId, { amountMicros: 1_000_000, currency: 'USD' }, { actor: 'test' })).rejects.toThrow(/billed in EUR/);
    await expectBalanceIsLedgerSum(a);
  });
});

describe('rebuild and isolation', () => {
  it('a rebuild of the billing read model gives identical rows', async () => {
    await server.caughtUp(['billing']);
    const before = await billingRows(a.accountId);
    expect(before.ledger.length).toBeGreaterThan(6);
    await rebuildAndWait(server, billingProjection);
    expect(await billingRows(a.accountId)).toEqual(before);
    await expectBalanceIsLedgerSum(a);
  });

  it('another account sees none of it', async () => {
    expect(await balanceOf(b.key)).toEqual({ balance: '0.00', currency: 'USD', updated_at: null });
    expect((await server.call('GET', '/v1/account/balance/transactions', { key: b.key })).body).toEqual({ data: [], next_cursor: null });
    const usage = await server.call('GET', '/v1/account/usage', { key: b.key });
    for (const m of usage.body.months) for (const c of Object.values(m.channels) as { messages: number }[]) expect(c.messages).toBe(0);
    expect((await server.call('GET', '/v1/account/billing-currency', { key: b.key })).body).toMatchObject({ currency: 'USD', last_change: null });
    expect((await server.call('GET', '/v1/account/balance/transactions?cursor=nonsense', { key: b.key })).status).toBe(400);
  });
});
