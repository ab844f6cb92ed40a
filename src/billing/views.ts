// What the billing endpoints show (README "Billing"), read from the billing read model and the
// tables in src/billing/: money as decimal strings with their currency, sell prices only.
import type { BillingPeriod, BillingTier } from '../../commands/billing.ts';
import { CHANNELS, type Channel } from '../../commands/message.ts';
import { type BillingAccountRow, billingAccount, type LedgerRow, usageBetween } from '../../projections/billing.ts';
import type { Engage } from '../context.ts';
import { formatMoney, multiplyMicros } from './money.ts';
import { PLANS, includedVolumes, planPriceMicros, tiersAbove } from './plans.ts';
import { sellPriceAt, sellPriceList } from './prices.ts';
import { CURRENCIES, conversionRate, type Currency } from './rates.ts';

/** What changing the currency does, shown with the currency and the billing details. */
export const CONVERSION_TEXT =
  'Changing the billing currency converts the whole balance into the new currency at the effective exchange rate: ' +
  'the newest row of the published rates table dated on or before the change, converted through USD, rounded half to even to a millionth of the unit. ' +
  'The conversion and the rate used are recorded in the balance ledger; later messages are charged in the new currency.';

/** USD micros in the account's currency at the rate in effect `at`. */
const inCurrency = (usdMicros: number, currency: string, at: Date) => multiplyMicros(usdMicros, conversionRate('USD', currency as Currency, at).rate);

/** A list price in the account's currency, rounded half to even to the cent (null: contact sales). */
function listPrice(tier: BillingTier, period: BillingPeriod, currency: string, at: Date) {
  const usd = planPriceMicros(tier, period);
  const amount = usd === null ? null : formatMoney(multiplyMicros(inCurrency(usd, currency, at), '0.0001') * 10_000);
  return { amount, currency, period: period === 'annual' ? 'year' : 'month' };
}

const thisMonth = (at: Date) => at.toISOString().slice(0, 7);

export async function planView(engage: Engage, accountId: string) {
  const now = engage.clock.now();
  const account = await billingAccount(engage.pool, accountId);
  const tier = account.tier as BillingTier;
  const period = account.period as BillingPeriod;
  const included = includedVolumes(tier, period);
  const month = thisMonth(now);
  const sent = Object.fromEntries(CHANNELS.map((c) => [c, 0])) as Record<Channel, number>;
  for (const row of await usageBetween(engage.pool, accountId, month, month)) sent[row.channel as Channel] += row.messages;
  const usage = Object.fromEntries(
    CHANNELS.map((c) => {
      const allowance = included.per_month?.[c] ?? null;
      return [c, { messages: sent[c], included: allowance, remaining: allowance === null ? null : Math.max(0, allowance - sent[c]) }];
    }),
  );
  return {
    tier,
    name: PLANS[tier].name,
    period,
    price: listPrice(tier, period, account.currency, now),
    included,
    usage_this_month: usage,
    region: { mode: engage.config.DATA_REGION },
    upgrade_options: tiersAbove(tier).map((t) => ({
      tier: t,
      name: PLANS[t].name,
      price: listPrice(t, period, account.currency, now),
      included: includedVolumes(t, period),
      self_serve: t !== 'enterprise',
    })),
  };
}

export async function pricingView(engage: Engage, accountId: string, filter: { channel?: Channel; country?: string }) {
  const now = engage.clock.now();
  const { currency } = await billingAccount(engage.pool, accountId);
  const list = sellPriceList(now);
  // a country asked for gets, per channel, the price a message to it is charged: its own row or the channel's '*'
  const prices = filter.country
    ? CHANNELS.map((channel) => sellPriceAt(channel, filter.country!, now))
    : list.prices;
  return {
    currency,
    prices: prices
      .filter((p) => !filter.channel || p.channel === filter.channel)
      .map((p) => ({ channel: p.channel, country: p.country, sell: formatMoney(inCurrency(p.sell_micros, currency, now)), currency })),
    effective_from: list.effective_from,
  };
}

/** Months from `from` to `to` (YYYY-MM), inclusive. */
export function monthsBetween(from: string, to: string): string[] {
  const months: string[] = [];
  let [y, m] = from.split('-').map(Number) as [number, number];
  for (let key = from; key <= to; key = `${y}-${String(m).padStart(2, '0')}`) {
    months.push(key);
    m += 1;
    if (m > 12) [y, m] = [y + 1, 1];
  }
  return months;
}

/** The month `n` months before `month` (YYYY-MM). */
export function monthsBefore(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const index = y * 12 + (m - 1) - n;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

export const DEFAULT_USAGE_MONTHS = 6;
export const MAX_USAGE_MONTHS = 24;

/**
 * Sent messages and what they were debited, per month and channel, every month of the range shown
 * (zero-filled). A channel billed in two currencies in one month (the month of a currency change)
 * shows the amount in the account's currency now, and the rest under other_currencies.
 */
export async function usageView(engage: Engage, accountId: string, range: { from?: string; to?: string }) {
  const now = engage.clock.now();
  const to = range.to ?? (range.from ? monthsBefore(range.from, -(DEFAULT_USAGE_MONTHS - 1)) : thisMonth(now));
  const from = range.from ?? monthsBefore(to, DEFAULT_USAGE_MONTHS - 1);
  const { currency } = await billingAccount(engage.pool, accountId);
  const rows = await usageBetween(engage.pool, accountId, from, to);
  const months = monthsBetween(from, to).map((month) => {
    const channels = Object.fromEntries(
      CHANNELS.map((channel) => {
        const mine = rows.filter((r) => r.month === month && r.channel === channel);
        const main = mine.find((r) => r.currency === currency);
        const others = mine.filter((r) => r !== main);
        const entry = { messages: mine.reduce((n, r) => n + r.messages, 0), amount: formatMoney(main?.amount_micros ?? 0), currency };
        return [channel, others.length ? { ...entry, other_currencies: others.map((r) => ({ messages: r.messages, amount: formatMoney(r.amount_micros), currency: r.currency })) } : entry];
      }),
    );
    return { month, channels };
  });
  return { from, to, currency, months };
}

export const balanceOut = (a: BillingAccountRow) => ({ balance: formatMoney(a.balance_micros), currency: a.currency, updated_at: a.updated_at ? new Date(a.updated_at).toISOString() : null });

export const ledgerEntryOut = (r: LedgerRow) => ({
  id: r.id,
  at: new Date(r.at).toISOString(),
  kind: r.kind,
  amount: formatMoney(r.amount_micros),
  currency: r.currency,
  description: r.description,
  message_id: r.message_id,
  channel: r.channel,
  country: r.country,
});

const lastChangeOut = (a: BillingAccountRow) => a.currency_changed;

export async function currencyView(engage: Engage, accountId: string) {
  const account = await billingAccount(engage.pool, accountId);
  return { currency: account.currency, options: [...CURRENCIES], conversion: CONVERSION_TEXT, last_change: lastChangeOut(account) };
}

export async function detailsView(engage: Engage, accountId: string) {
  const account = await billingAccount(engage.pool, accountId);
  const d = account.details;
  return {
    company: d?.company ?? null,
    address: d?.address ?? null,
    tax_id: d?.tax_id ?? null,
    email: d?.email ?? null,
    updated_at: d?.updated_at ?? null,
    billing_currency: { currency: account.currency, conversion: CONVERSION_TEXT, last_change: lastChangeOut(account) },
  };
}
