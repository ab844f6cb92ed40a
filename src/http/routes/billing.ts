// Billing (/v1/account/plan, pricing, usage, balance, balance/transactions, billing-currency,
// billing-details) per README "Billing".
import { z } from 'zod';
import { BILLING_PERIODS, BILLING_TIERS } from '../../../commands/billing.ts';
import { CHANNELS } from '../../../commands/message.ts';
import type { LedgerKind } from '../../../projections/billing.ts';
import { billingAccount, ledgerEntries } from '../../../projections/billing.ts';
import { CURRENCIES } from '../../billing/rates.ts';
import { changeBillingCurrency, setBillingDetails } from '../../billing/service.ts';
import {
  MAX_USAGE_MONTHS, balanceOut, currencyView, detailsView, ledgerEntryOut, monthsBetween, planView, pricingView, usageView,
} from '../../billing/views.ts';
import { runCommand } from '../../command-handler.ts';
import { CountrySchema, EmailSchema } from '../../contacts/validation.ts';
import { invalidField } from '../../errors.ts';
import type { AppDeps } from '../deps.ts';
import { metadataOf, pageAfter, pageQuery } from '../common.ts';
import { DateTime, Page } from '../openapi.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

/** The read model a billing write's answer waits for. */
const BILLING = ['billing'];
const TAGS = ['account'];

const Month = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month as YYYY-MM');
const UsageQuery = z.strictObject({ from: Month.optional(), to: Month.optional() });
const PricingQuery = z.strictObject({ channel: z.enum(CHANNELS).optional(), country: CountrySchema.optional() });
/** `s` goes to the ledger's int column: beyond it a cursor is a 400, not the database's out-of-range error. */
const LedgerCursor = z.object({ c: z.string().regex(/^\d{1,20}$/), p: z.string().regex(/^\d{1,20}$/), s: z.number().int().min(0).max(2_147_483_647) });

const CurrencyBody = z.strictObject({ currency: z.string().trim().toUpperCase().pipe(z.enum(CURRENCIES, { message: `must be one of ${CURRENCIES.join(', ')}` })) });

const Money = z.string().describe('a decimal amount, e.g. "12.50"');
const Currency = z.enum(CURRENCIES);
/** One value per channel. */
const perChannel = (value: z.ZodType) => z.object(Object.fromEntries(CHANNELS.map((c) => [c, value])));
/** A write met another on the same stream on every retry (write conflict). */
const WRITE_CONFLICT = 409;

const Included = z
  .object({
    period: z.enum(['month', 'year']).describe('the period the volumes are granted for'),
    volumes: perChannel(z.int()).nullable().describe('messages included per channel (null: agreed with sales)'),
    per_month: perChannel(z.int()).nullable(),
  })
  .describe('the messages the plan includes');
const ListPrice = z.object({ amount: Money.nullable().describe('null: contact sales'), currency: Currency, period: z.enum(['month', 'year']) });
const PlanOut = z.object({
  tier: z.enum(BILLING_TIERS),
  name: z.string(),
  period: z.enum(BILLING_PERIODS),
  price: ListPrice,
  included: Included,
  usage_this_month: perChannel(
    z.object({ messages: z.int(), included: z.int().nullable(), remaining: z.int().nullable().describe('null: no allowance') }),
  ),
  region: z.object({ mode: z.enum(['global', 'eu', 'us']) }),
  upgrade_options: z.array(z.object({ tier: z.enum(BILLING_TIERS), name: z.string(), price: ListPrice, included: Included, self_serve: z.boolean() })),
});
const PricingOut = z.object({
  currency: Currency,
  prices: z.array(z.object({ channel: z.enum(CHANNELS), country: z.string().describe("ISO 3166-1 alpha-2, or '*': everywhere else"), sell: Money, currency: Currency })),
  effective_from: z.string().describe('YYYY-MM-DD: the date of the newest price sheet among them'),
});
const UsageAmount = z.object({ messages: z.int(), amount: Money, currency: Currency });
const UsageOut = z.object({
  from: z.string().describe('YYYY-MM'),
  to: z.string().describe('YYYY-MM'),
  currency: Currency,
  months: z.array(
    z.object({
      month: z.string().describe('YYYY-MM'),
      channels: perChannel(
        UsageAmount.extend({ other_currencies: z.array(UsageAmount).optional().describe('the month of a currency change: what was charged in the other currency') }),
      ),
    }),
  ),
});
const BalanceOut = z.object({ balance: Money, currency: Currency, updated_at: DateTime.nullable() });
const LedgerEntryOut = z
  .object({
    id: z.string(),
    at: DateTime,
    kind: z.enum(['message', 'refund', 'top_up', 'conversion'] satisfies LedgerKind[]),
    amount: Money.describe('negative for a debit'),
    currency: Currency,
    description: z.string(),
    message_id: z.string().nullable(),
    channel: z.enum(CHANNELS).nullable(),
    country: z.string().nullable(),
  })
  .meta({ id: 'LedgerEntry', description: 'An entry of the balance ledger' });
const LastChange = z
  .object({ from: Currency, to: Currency, rate: z.string(), rates_date: z.string().describe('YYYY-MM-DD'), at: DateTime })
  .nullable()
  .describe('the last change of the billing currency (null: never changed)');
const CurrencyOut = z.object({ currency: Currency, options: z.array(Currency), conversion: z.string().describe('what a change does to the balance'), last_change: LastChange });
const CurrencyChangeOut = z.object({
  currency: Currency,
  previous: Currency,
  changed: z.boolean().describe('false: it was the billing currency already'),
  rate: z.string().describe('units of the new currency per unit of the previous one'),
  rates_date: z.string().describe('YYYY-MM-DD: the date of the rates used'),
  balance: Money.describe('the balance, converted'),
});
const DetailsOut = z.object({
  company: z.string().nullable(),
  address: z
    .object({ line1: z.string(), line2: z.string().optional(), city: z.string(), postal_code: z.string().optional(), region: z.string().optional(), country: z.string() })
    .nullable(),
  tax_id: z.object({ type: z.string().describe('the kind of number: eu_vat, gb_vat, us_ein, …'), value: z.string().describe('in its compact form') }).nullable(),
  email: z.string().nullable(),
  updated_at: DateTime.nullable(),
  billing_currency: z.object({ currency: Currency, conversion: z.string(), last_change: LastChange }),
});

const text = (min: number, max: number) => z.string().trim().min(min).max(max);
const DetailsBody = z.strictObject({
  company: text(1, 200),
  address: z.strictObject({
    line1: text(1, 200),
    line2: text(1, 200).optional(),
    city: text(1, 100),
    postal_code: text(1, 20).optional(),
    region: text(1, 100).optional(),
    country: CountrySchema,
  }),
  tax_id: z.string().max(64).optional(),
  email: EmailSchema.optional(),
});

export function billingRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/account/plan',
      auth: 'key_or_login',
      operationId: 'getPlan',
      summary: "The account's plan: tier, price, included volumes (annual-adjusted), this month's usage, region mode and self-serve upgrades",
      tags: TAGS,
      responses: { 200: PlanOut },
      handler: async ({ auth }) => planView(engage, auth.accountId),
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/pricing',
      auth: 'key_or_login',
      operationId: 'getPricing',
      summary: "Sell prices per channel and recipient country ('*': everywhere else) in the account's currency; cost prices are never shown",
      tags: TAGS,
      query: PricingQuery,
      responses: { 200: PricingOut },
      handler: async ({ auth, query }) => pricingView(engage, auth.accountId, query),
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/usage',
      auth: 'key_or_login',
      operationId: 'getUsage',
      summary: `Sent messages and their charges per month and channel (default: the last 6 months; at most ${MAX_USAGE_MONTHS})`,
      tags: TAGS,
      query: UsageQuery,
      responses: { 200: UsageOut },
      handler: async ({ auth, query }) => {
        if (query.from && query.to) {
          if (query.from > query.to) throw invalidField('from', 'must not be after to');
          if (monthsBetween(query.from, query.to).length > MAX_USAGE_MONTHS) throw invalidField('to', `the range may span at most ${MAX_USAGE_MONTHS} months`);
        }
        return usageView(engage, auth.accountId, query);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/balance',
      auth: 'key_or_login',
      operationId: 'getBalance',
      summary: 'The prepaid balance: the sum of the balance ledger in the billing currency',
      tags: TAGS,
      responses: { 200: BalanceOut },
      handler: async ({ auth }) => balanceOut(await billingAccount(engage.pool, auth.accountId)),
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/balance/transactions',
      auth: 'key_or_login',
      operationId: 'listBalanceTransactions',
      summary: 'The balance ledger, newest first: message debits, credits for failures the provider did not charge, top-ups and currency conversions',
      tags: TAGS,
      query: z.strictObject(pageQuery),
      responses: { 200: Page(LedgerEntryOut) },
      handler: async ({ auth, query }) => {
        return pageAfter(
          query,
          LedgerCursor,
          (after, limit) => ledgerEntries(engage.pool, auth.accountId, limit, after ? { commit: after.c, prepare: after.p, seq: after.s } : undefined),
          ledgerEntryOut,
          (r) => ({ c: r.log_commit, p: r.log_prepare, s: r.seq }),
        );
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/billing-currency',
      auth: 'key_or_login',
      operationId: 'getBillingCurrency',
      summary: 'The billing currency, the currencies available, and how a change converts the balance',
      tags: TAGS,
      responses: { 200: CurrencyOut },
      handler: async ({ auth }) => currencyView(engage, auth.accountId),
    }),
    defineRoute({
      method: 'PUT',
      url: '/v1/account/billing-currency',
      auth: 'key_or_login',
      operationId: 'setBillingCurrency',
      scope: 'settings',
      summary: 'Chooses the billing currency; the balance is converted at the effective rate, recorded with the rate used',
      tags: TAGS,
      body: CurrencyBody,
      responses: { 200: CurrencyChangeOut },
      errors: [WRITE_CONFLICT],
      handler: async ({ auth, body, req }) => {
        const change = await runCommand(engage, metadataOf(req), BILLING, (metadata) => changeBillingCurrency(engage, auth.accountId, body.currency, metadata));
        const { balance } = balanceOut(await billingAccount(engage.pool, auth.accountId));
        return { currency: change.currency, previous: change.previous, changed: change.changed, rate: change.rate, rates_date: change.rates_date, balance };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/billing-details',
      auth: 'key_or_login',
      operationId: 'getBillingDetails',
      summary: 'Company and tax details used on invoices, with the billing currency and how a change converts the balance',
      tags: TAGS,
      responses: { 200: DetailsOut },
      handler: async ({ auth }) => detailsView(engage, auth.accountId),
    }),
    defineRoute({
      method: 'PUT',
      url: '/v1/account/billing-details',
      auth: 'key_or_login',
      operationId: 'setBillingDetails',
      scope: 'settings',
      summary: "Sets the invoice details; the tax id is checked by format for the address's country",
      tags: TAGS,
      body: DetailsBody,
      responses: { 200: DetailsOut },
      errors: [WRITE_CONFLICT],
      handler: async ({ auth, body, req }) => {
        await runCommand(engage, metadataOf(req), BILLING, (metadata) => setBillingDetails(engage, auth.accountId, body, metadata));
        return detailsView(engage, auth.accountId);
      },
    }),
  ];
}
