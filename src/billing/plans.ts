// The plans (README "Billing"): tiers with a list price in US dollars per month and the messages
// they include per month and channel. Billed annually, a plan includes twelve months' volumes for
// the year (usable in any month) and costs ten months' price: two months free. Enterprise has no
// list price: its terms are agreed with sales, so it is not self-serve.

import { BILLING_TIERS as TIERS, type BillingPeriod as Period, type BillingTier as Tier } from '../../commands/billing.ts';
import type { Channel } from '../../commands/message.ts';
import { microsOf } from './money.ts';

/** Months paid for a year billed annually. */
export const ANNUAL_MONTHS_CHARGED = 10;

type Volumes = Record<Channel, number>;

interface PlanDefinition {
  name: string;
  /** USD per month (null: agreed with sales) */
  monthly_price: string | null;
  /** included messages per month (null: agreed with sales) */
  monthly_volumes: Volumes | null;
}

// prettier-ignore
export const PLANS: Readonly<Record<Tier, PlanDefinition>> = {
  free:       { name: 'Free',       monthly_price: '0',   monthly_volumes: { sms: 0,      rcs: 0,     whatsapp: 0,     voice: 0,     email: 3_000,   push: 10_000 } },
  starter:    { name: 'Starter',    monthly_price: '29',  monthly_volumes: { sms: 500,    rcs: 250,   whatsapp: 250,   voice: 50,    email: 20_000,  push: 100_000 } },
  growth:     { name: 'Growth',     monthly_price: '99',  monthly_volumes: { sms: 2_500,  rcs: 1_000, whatsapp: 1_000, voice: 250,   email: 100_000, push: 500_000 } },
  scale:      { name: 'Scale',      monthly_price: '399', monthly_volumes: { sms: 10_000, rcs: 5_000, whatsapp: 5_000, voice: 1_000, email: 500_000, push: 2_000_000 } },
  enterprise: { name: 'Enterprise', monthly_price: null,  monthly_volumes: null },
};

export const isTier = (t: string): t is Tier => (TIERS as readonly string[]).includes(t);

/** The list price of a tier for one billing period, in USD micros (null: contact sales). */
export function planPriceMicros(tier: Tier, period: Period): number | null {
  const monthly = PLANS[tier].monthly_price;
  if (monthly === null) return null;
  return microsOf(monthly) * (period === 'annual' ? ANNUAL_MONTHS_CHARGED : 1);
}

export interface IncludedVolumes {
  /** the period the volumes are granted for */
  period: 'month' | 'year';
  volumes: Volumes | null;
  /** the volumes per month (annual: the year's spread over twelve months, rounded down) */
  per_month: Volumes | null;
}

/** Included volumes, annual-adjusted: a year's worth for an annual plan, a month's for a monthly one. */
export function includedVolumes(tier: Tier, period: Period): IncludedVolumes {
  const monthly = PLANS[tier].monthly_volumes;
  if (!monthly) return { period: period === 'annual' ? 'year' : 'month', volumes: null, per_month: null };
  if (period === 'monthly') return { period: 'month', volumes: { ...monthly }, per_month: { ...monthly } };
  const yearly = Object.fromEntries(Object.entries(monthly).map(([c, n]) => [c, n * 12])) as Volumes;
  const perMonth = Object.fromEntries(Object.entries(yearly).map(([c, n]) => [c, Math.floor(n / 12)])) as Volumes;
  return { period: 'year', volumes: yearly, per_month: perMonth };
}

/** The tiers above `tier`, in order. */
export const tiersAbove = (tier: Tier): Tier[] => TIERS.slice(TIERS.indexOf(tier) + 1);
