// The billing decider's rules (commands/billing.ts): plan changes, top-ups only in the billing
// currency, currency changes recording the rate they were given, invoice details; repeats change
// nothing.
import { describe, it } from 'vitest';
import { billingDecider, type BillingDetails, type BillingEvent } from '../../commands/billing.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(billingDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();
const accountId = 'acct_1';

const planChanged = (tier: 'growth' | 'scale', period: 'monthly' | 'annual', minutes = 0): BillingEvent => ({ type: 'PlanChanged', data: { account_id: accountId, at: iso(minutes), tier, period } });
const toppedUp = (id: string, amount: number, currency = 'USD', minutes = 0, reference?: string): BillingEvent => ({
  type: 'BalanceToppedUp',
  data: { account_id: accountId, at: iso(minutes), top_up_id: id, amount_micros: amount, currency, ...(reference ? { reference } : {}) },
});
const currencyChanged = (from: string, to: string, rate: string, minutes = 0): BillingEvent => ({
  type: 'BillingCurrencyChanged',
  data: { account_id: accountId, at: iso(minutes), from, to, rate, rates_date: '2026-01-02' },
});
const details: BillingDetails = { company: 'Acme GmbH', address: { line1: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', country: 'DE' }, tax_id: { type: 'eu_vat', value: 'DE136695976' } };

describe('plans', () => {
  it('a new account (free, monthly) moves to another plan', () => {
    given([]).when({ type: 'ChangePlan', accountId, tier: 'growth', period: 'annual', now: at(1) }).then([planChanged('growth', 'annual', 1)]);
  });

  it('setting the plan it has changes nothing; the free monthly plan of an account without events too', () => {
    given([planChanged('growth', 'annual')]).when({ type: 'ChangePlan', accountId, tier: 'growth', period: 'annual', now: at(1) }).thenNothingHappened();
    given([]).when({ type: 'ChangePlan', accountId, tier: 'free', period: 'monthly', now: at(1) }).thenNothingHappened();
  });

  it('the same tier on another period is a change', () => {
    given([planChanged('growth', 'annual')]).when({ type: 'ChangePlan', accountId, tier: 'growth', period: 'monthly', now: at(2) }).then([{ type: 'PlanChanged', data: { account_id: accountId, at: iso(2), tier: 'growth', period: 'monthly' } }]);
  });
});

describe('top-ups', () => {
  it('credits in the billing currency (USD until changed) when none is named', () => {
    given([]).when({ type: 'TopUp', accountId, topUpId: 'top_1', amountMicros: 25_000_000, reference: 'INV-1', now: at(0) }).then([toppedUp('top_1', 25_000_000, 'USD', 0, 'INV-1')]);
    given([currencyChanged('USD', 'EUR', '0.853')]).when({ type: 'TopUp', accountId, topUpId: 'top_2', amountMicros: 1_000_000, now: at(3) }).then([toppedUp('top_2', 1_000_000, 'EUR', 3)]);
  });

  it('a top-up in another currency than the billing currency is refused with a 409 naming it', () => {
    given([])
      .when({ type: 'TopUp', accountId, topUpId: 'top_1', amountMicros: 1_000_000, currency: 'EUR', now: at(0) })
      .thenThrows((e: unknown) => domainError('conflict', 409)(e) !== false && (e as { extra: { currency: string } }).extra.currency === 'USD');
    given([currencyChanged('USD', 'GBP', '0.742')]).when({ type: 'TopUp', accountId, topUpId: 'top_1', amountMicros: 1_000_000, currency: 'USD', now: at(0) }).thenThrows(domainError('conflict', 409));
  });

  it('refuses a zero, negative or fractional amount of micros', () => {
    for (const amountMicros of [0, -5, 1.5]) given([]).when({ type: 'TopUp', accountId, topUpId: 'top_1', amountMicros, now: at(0) }).thenThrows(domainError('validation_error', 400));
  });

  it('the same top-up id again changes nothing', () => {
    given([toppedUp('top_1', 5_000_000)]).when({ type: 'TopUp', accountId, topUpId: 'top_1', amountMicros: 5_000_000, now: at(1) }).thenNothingHappened();
  });
});

describe('billing currency', () => {
  it('records the change with the rate and rates date it was given, from the current currency', () => {
    given([currencyChanged('USD', 'EUR', '0.853')])
      .when({ type: 'ChangeCurrency', accountId, to: 'GBP', rate: '0.8698710434', ratesDate: '2026-01-02', now: at(5) })
      .then([currencyChanged('EUR', 'GBP', '0.8698710434', 5)]);
  });

  it('choosing the currency it already has changes nothing', () => {
    given([]).when({ type: 'ChangeCurrency', accountId, to: 'USD', rate: '1', ratesDate: '2026-01-02', now: at(0) }).thenNothingHappened();
    given([currencyChanged('USD', 'EUR', '0.853')]).when({ type: 'ChangeCurrency', accountId, to: 'EUR', rate: '1', ratesDate: '2026-01-02', now: at(1) }).thenNothingHappened();
  });
});

describe('billing details', () => {
  it('records the details; the same details again (in any key order) change nothing, other details do', () => {
    given([]).when({ type: 'SetDetails', accountId, details, now: at(0) }).then([{ type: 'BillingDetailsSet', data: { account_id: accountId, at: iso(0), ...details } }]);
    const reordered: BillingDetails = { tax_id: { value: 'DE136695976', type: 'eu_vat' }, address: { country: 'DE', postal_code: '10115', city: 'Berlin', line1: 'Hauptstr. 1' }, company: 'Acme GmbH' };
    const set: BillingEvent = { type: 'BillingDetailsSet', data: { account_id: accountId, at: iso(0), ...details } };
    given([set]).when({ type: 'SetDetails', accountId, details: reordered, now: at(1) }).thenNothingHappened();
    given([set]).when({ type: 'SetDetails', accountId, details: { ...details, email: 'billing@acme.test' }, now: at(2) }).then([
      { type: 'BillingDetailsSet', data: { account_id: accountId, at: iso(2), ...details, email: 'billing@acme.test' } },
    ]);
  });
});
