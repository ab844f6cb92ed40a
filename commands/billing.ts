// The billing aggregate of one account (stream billing-<accountId>): its plan, its billing currency,
// its prepaid top-ups and its invoice details. Message debits and credits are not here: they follow
// from the message events (projections/billing.ts). A stream without events is the free tier,
// billed monthly, in USD. The handler passes rates in on the command (the decider only records them).
import { type Decider, plainSnapshot } from '../src/decider.ts';
import { conflict, invalidField } from '../src/errors.ts';

export const BILLING_TIERS = ['free', 'starter', 'growth', 'scale', 'enterprise'] as const;
export type BillingTier = (typeof BILLING_TIERS)[number];
export const BILLING_PERIODS = ['monthly', 'annual'] as const;
export type BillingPeriod = (typeof BILLING_PERIODS)[number];

export interface BillingAddress {
  line1: string;
  line2?: string;
  city: string;
  postal_code?: string;
  region?: string;
  /** ISO 3166-1 alpha-2 */
  country: string;
}

export interface BillingDetails {
  company: string;
  address: BillingAddress;
  /** the tax id in its compact form, with the kind of number it is (eu_vat, gb_vat, us_ein, …) */
  tax_id?: { type: string; value: string };
  email?: string;
}

export type BillingEvent =
  | { type: 'PlanChanged'; data: { account_id: string; at: string; tier: BillingTier; period: BillingPeriod } }
  | { type: 'BalanceToppedUp'; data: { account_id: string; at: string; top_up_id: string; amount_micros: number; currency: string; reference?: string } }
  | { type: 'BillingCurrencyChanged'; data: { account_id: string; at: string; from: string; to: string; rate: string; rates_date: string } }
  | { type: 'BillingDetailsSet'; data: { account_id: string; at: string } & BillingDetails };

export const BILLING_EVENT_TYPES = ['PlanChanged', 'BalanceToppedUp', 'BillingCurrencyChanged', 'BillingDetailsSet'] as const satisfies readonly BillingEvent['type'][];

export interface BillingState {
  tier: BillingTier;
  period: BillingPeriod;
  currency: string;
  details?: BillingDetails;
  topUpIds: readonly string[];
}

export type BillingCommand =
  | { type: 'ChangePlan'; accountId: string; tier: BillingTier; period: BillingPeriod; now: Date }
  /** `currency` left out: the account's billing currency */
  | { type: 'TopUp'; accountId: string; topUpId: string; amountMicros: number; currency?: string; reference?: string; now: Date }
  /** `rate`: units of `to` per unit of the current currency, from the rates table row dated `ratesDate` */
  | { type: 'ChangeCurrency'; accountId: string; to: string; rate: string; ratesDate: string; now: Date }
  | { type: 'SetDetails'; accountId: string; details: BillingDetails; now: Date };

export const DEFAULT_BILLING_CURRENCY = 'USD';

/** The same JSON whatever the key order (details compared for an idempotent repeat). */
const canonical = (v: unknown): string =>
  v && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}` : JSON.stringify(v);

export const billingDecider: Decider<BillingCommand, BillingState, BillingEvent> = {
  initialState: { tier: 'free', period: 'monthly', currency: DEFAULT_BILLING_CURRENCY, topUpIds: [] },
  snapshot: plainSnapshot('billing', 100),
  evolve(state, e) {
    switch (e.type) {
      case 'PlanChanged':
        return { ...state, tier: e.data.tier, period: e.data.period };
      case 'BalanceToppedUp':
        return { ...state, topUpIds: [...state.topUpIds, e.data.top_up_id] };
      case 'BillingCurrencyChanged':
        return { ...state, currency: e.data.to };
      case 'BillingDetailsSet': {
        const { account_id: _a, at: _t, ...details } = e.data;
        return { ...state, details };
      }
    }
  },
  decide(c, state) {
    const base = { account_id: c.accountId, at: c.now.toISOString() };
    switch (c.type) {
      case 'ChangePlan':
        if (c.tier === state.tier && c.period === state.period) return [];
        return [{ type: 'PlanChanged', data: { ...base, tier: c.tier, period: c.period } }];
      case 'TopUp': {
        if (!Number.isSafeInteger(c.amountMicros) || c.amountMicros <= 0) throw invalidField('amount', 'must be a positive amount');
        const currency = c.currency ?? state.currency;
        if (currency !== state.currency) {
          throw conflict(`the account is billed in ${state.currency}: top up in ${state.currency}, or change the billing currency first`, { currency: state.currency });
        }
        if (state.topUpIds.includes(c.topUpId)) return [];
        return [{ type: 'BalanceToppedUp', data: { ...base, top_up_id: c.topUpId, amount_micros: c.amountMicros, currency, ...(c.reference ? { reference: c.reference } : {}) } }];
      }
      case 'ChangeCurrency':
        if (c.to === state.currency) return [];
        return [{ type: 'BillingCurrencyChanged', data: { ...base, from: state.currency, to: c.to, rate: c.rate, rates_date: c.ratesDate } }];
      case 'SetDetails':
        if (state.details && canonical(state.details) === canonical(c.details)) return [];
        return [{ type: 'BillingDetailsSet', data: { ...base, ...c.details } }];
    }
  },
};

export const billingStream = (accountId: string) => `billing-${accountId}`;
