// Billing writes (README "Billing"): the plan and top-ups (operator, through the CLI), the billing
// currency (converted at the effective rate of src/billing/rates.ts, passed in on the command so the
// event records it) and the invoice details. Each is an event on the account's billing stream.
import { accountStream } from '../../commands/account.ts';
import { type BillingDetails, type BillingPeriod, type BillingTier, billingDecider, billingStream } from '../../commands/billing.ts';
import { handleCommand } from '../command-handler.ts';
import type { Engage } from '../context.ts';
import { invalidField, notFound } from '../errors.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { isId, newUlid } from '../ids.ts';
import { formatMoney } from './money.ts';
import { conversionRate, type Currency } from './rates.ts';
import { checkTaxId } from './tax-ids.ts';

/** The operator names accounts by id: one that was never created is a 404, not a billing stream of its own. */
export async function requireAccount(engage: Pick<Engage, 'store'>, accountId: string): Promise<void> {
  if (!isId('account', accountId) || (await engage.store.readStream(accountStream(accountId), { maxCount: 1 })).length === 0) throw notFound('account');
}

/** Sets the plan; a period left out stays as it is. */
export async function changePlan(engage: Engage, accountId: string, plan: { tier: BillingTier; period?: BillingPeriod }, metadata: EventMetadata) {
  await requireAccount(engage, accountId);
  const now = engage.clock.now();
  const result = await handleCommand(engage.store, billingDecider, billingStream(accountId), (state) => ({ type: 'ChangePlan' as const, accountId, tier: plan.tier, period: plan.period ?? state.period, now }), metadata);
  return { account_id: accountId, tier: result.state.tier, period: result.state.period, changed: result.events.length > 0, position: result.position };
}

export interface TopUpInput {
  amountMicros: number;
  /** left out: the account's billing currency */
  currency?: string;
  reference?: string;
}

export async function topUp(engage: Engage, accountId: string, input: TopUpInput, metadata: EventMetadata) {
  await requireAccount(engage, accountId);
  const topUpId = `top_${newUlid()}`;
  const command = { type: 'TopUp' as const, accountId, topUpId, amountMicros: input.amountMicros, currency: input.currency, reference: input.reference, now: engage.clock.now() };
  const result = await handleCommand(engage.store, billingDecider, billingStream(accountId), command, metadata);
  const event = result.events.find((e) => e.type === 'BalanceToppedUp');
  if (!event || event.type !== 'BalanceToppedUp') throw new Error('the top-up was not recorded');
  const d = event.data;
  return { top_up: { id: d.top_up_id, account_id: accountId, amount: formatMoney(d.amount_micros), currency: d.currency, reference: d.reference ?? null, at: d.at }, position: result.position };
}

export interface CurrencyChange {
  changed: boolean;
  currency: string;
  previous: string;
  rate: string;
  rates_date: string;
  position?: Position;
}

/** Changes the billing currency: the rate from the current currency, in effect now, is recorded on the event. */
export async function changeBillingCurrency(engage: Engage, accountId: string, to: Currency, metadata: EventMetadata): Promise<CurrencyChange> {
  const now = engage.clock.now();
  let used = conversionRate(to, to, now);
  let previous: string = to;
  const result = await handleCommand(
    engage.store,
    billingDecider,
    billingStream(accountId),
    (state) => {
      previous = state.currency;
      used = conversionRate(state.currency as Currency, to, now);
      return { type: 'ChangeCurrency' as const, accountId, to, rate: used.rate, ratesDate: used.rates_date, now };
    },
    metadata,
  );
  return { changed: result.events.length > 0, currency: to, previous, rate: used.rate, rates_date: used.rates_date, position: result.position };
}

export interface DetailsInput {
  company: string;
  address: BillingDetails['address'];
  tax_id?: string;
  email?: string;
}

/** Sets the invoice details; the tax id is checked by format for the address's country (400 on tax_id). */
export async function setBillingDetails(engage: Engage, accountId: string, input: DetailsInput, metadata: EventMetadata) {
  let taxId: BillingDetails['tax_id'];
  if (input.tax_id !== undefined) {
    const checked = checkTaxId(input.address.country, input.tax_id);
    if (!checked.ok) throw invalidField('tax_id', checked.message);
    taxId = checked.tax_id;
  }
  const details: BillingDetails = { company: input.company, address: input.address, ...(taxId ? { tax_id: taxId } : {}), ...(input.email ? { email: input.email } : {}) };
  const result = await handleCommand(engage.store, billingDecider, billingStream(accountId), { type: 'SetDetails', accountId, details, now: engage.clock.now() }, metadata);
  return { position: result.position };
}
