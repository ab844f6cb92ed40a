// The operator's billing commands (`engage billing top-up|plan`, README "Billing"): a payment
// received is credited to an account's balance, and an account's plan is set. Both append to the
// account's billing stream; the running service's read model picks them up. What they need of the
// service is imported when one runs, so that `engage --help` loads none of it.
import { type Command, InvalidArgumentError } from 'commander';
import { BILLING_PERIODS, BILLING_TIERS, type BillingPeriod, type BillingTier } from '../../commands/billing.ts';
import type { Engage } from '../context.ts';

type WithEngage = <T>(fn: (engage: Engage) => Promise<T>) => Promise<T>;
type Out = (json: boolean, value: unknown, text: () => string) => void;

const oneOf =
  <T extends string>(values: readonly T[], what: string) =>
  (v: string): T => {
    if (!(values as readonly string[]).includes(v)) throw new InvalidArgumentError(`unknown ${what} ${v} (${values.join(', ')})`);
    return v as T;
  };

export function billingCommands(billing: Command, withEngage: WithEngage, out: Out): void {
  billing
    .command('top-up <account> <amount>')
    .description("credit a payment received to an account's balance, in its billing currency")
    .option('--currency <code>', "the currency paid in: must be the account's billing currency (default: that currency)")
    .option('--reference <text>', 'the payment reference, shown in the ledger')
    .option('--json', 'machine-readable output')
    .action(async (account: string, amount: string, opts: { currency?: string; reference?: string; json?: boolean }) => {
      const [{ parseAmount }, { topUp }] = await Promise.all([import('./money.ts'), import('./service.ts')]);
      const amountMicros = parseAmount(amount);
      if (amountMicros === undefined) throw new InvalidArgumentError(`amount ${amount} is not a positive number with at most 6 decimals (e.g. 25 or 12.50)`);
      const input = { amountMicros, currency: opts.currency?.trim().toUpperCase(), reference: opts.reference?.trim() || undefined };
      await withEngage(async (engage) => {
        const { top_up } = await topUp(engage, account, input, { actor: 'cli' });
        out(!!opts.json, top_up, () => `top-up ${top_up.id}: ${top_up.amount} ${top_up.currency} credited to ${account}`);
      });
    });
  billing
    .command('plan <account>')
    .description("set an account's plan")
    .requiredOption('--tier <tier>', BILLING_TIERS.join(', '), oneOf(BILLING_TIERS, 'tier'))
    .option('--period <period>', 'monthly or annual (default: the period it has)', oneOf(BILLING_PERIODS, 'period'))
    .option('--json', 'machine-readable output')
    .action(async (account: string, opts: { tier: BillingTier; period?: BillingPeriod; json?: boolean }) => {
      const { changePlan } = await import('./service.ts');
      await withEngage(async (engage) => {
        const { position: _p, ...plan } = await changePlan(engage, account, { tier: opts.tier, period: opts.period }, { actor: 'cli' });
        out(!!opts.json, plan, () => `${account} is on ${plan.tier} (${plan.period})${plan.changed ? '' : ', as it was'}`);
      });
    });
}
