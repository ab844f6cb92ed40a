// Billing (/v1/account/plan, pricing, usage, balance, balance/transactions, billing-currency,
// billing-details) per README "Billing".
import { z } from 'zod';
import { CHANNELS } from '../../../commands/message.ts';
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
      summary: "The account's plan: tier, price, included volumes (annual-adjusted), this month's usage, region mode and self-serve upgrades",
      tags: TAGS,
      handler: async ({ auth }) => planView(engage, auth.accountId),
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/pricing',
      auth: 'key_or_login',
      summary: "Sell prices per channel and recipient country ('*': everywhere else) in the account's currency; cost prices are never shown",
      tags: TAGS,
      query: PricingQuery,
      handler: async ({ auth, query }) => pricingView(engage, auth.accountId, query),
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/usage',
      auth: 'key_or_login',
      summary: `Sent messages and their charges per month and channel (default: the last 6 months; at most ${MAX_USAGE_MONTHS})`,
      tags: TAGS,
      query: UsageQuery,
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
      summary: 'The prepaid balance: the sum of the balance ledger in the billing currency',
      tags: TAGS,
      handler: async ({ auth }) => balanceOut(await billingAccount(engage.pool, auth.accountId)),
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/balance/transactions',
      auth: 'key_or_login',
      summary: 'The balance ledger, newest first: message debits, credits for failures the provider did not charge, top-ups and currency conversions',
      tags: TAGS,
      query: z.strictObject(pageQuery),
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
      summary: 'The billing currency, the currencies available, and how a change converts the balance',
      tags: TAGS,
      handler: async ({ auth }) => currencyView(engage, auth.accountId),
    }),
    defineRoute({
      method: 'PUT',
      url: '/v1/account/billing-currency',
      auth: 'key_or_login',
      scope: 'settings',
      summary: 'Chooses the billing currency; the balance is converted at the effective rate, recorded with the rate used',
      tags: TAGS,
      body: CurrencyBody,
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
      summary: 'Company and tax details used on invoices, with the billing currency and how a change converts the balance',
      tags: TAGS,
      handler: async ({ auth }) => detailsView(engage, auth.accountId),
    }),
    defineRoute({
      method: 'PUT',
      url: '/v1/account/billing-details',
      auth: 'key_or_login',
      scope: 'settings',
      summary: "Sets the invoice details; the tax id is checked by format for the address's country",
      tags: TAGS,
      body: DetailsBody,
      handler: async ({ auth, body, req }) => {
        await runCommand(engage, metadataOf(req), BILLING, (metadata) => setBillingDetails(engage, auth.accountId, body, metadata));
        return detailsView(engage, auth.accountId);
      },
    }),
  ];
}
