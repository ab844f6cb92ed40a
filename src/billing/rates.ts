// The exchange rates billing converts with (README "Billing"): a dated table of how many units of
// each currency one US dollar buys. A row applies from 00:00 UTC of its date until the next row's;
// the effective rate of a moment is the newest row dated on or before it. Conversion from X to Y
// goes through USD: rate(X→Y) = perUsd(Y) / perUsd(X), kept to 10 decimals.
//
// History never changes: debits and conversions already in the log were priced with these rows,
// and a rebuild prices them again, so rows are only ever appended, dated after the day they are
// added. (Before the first row, the first row applies.)

import { divideRates } from './money.ts';

export const CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD', 'JPY', 'CHF', 'SEK', 'NOK', 'DKK', 'NZD', 'SGD'] as const;
export type Currency = (typeof CURRENCIES)[number];

export interface RatesRow {
  /** YYYY-MM-DD: in effect from 00:00 UTC of this day */
  date: string;
  /** units of the currency per 1 USD, as decimal strings */
  perUsd: Record<Currency, string>;
}

// prettier-ignore
export const RATES: readonly RatesRow[] = [
  { date: '2025-01-02', perUsd: { USD: '1', EUR: '0.9650', GBP: '0.8010', CAD: '1.4380', AUD: '1.6110', JPY: '157.20', CHF: '0.9070', SEK: '11.0500', NOK: '11.3500', DKK: '7.1980', NZD: '1.7830', SGD: '1.3650' } },
  { date: '2025-07-01', perUsd: { USD: '1', EUR: '0.8490', GBP: '0.7290', CAD: '1.3620', AUD: '1.5230', JPY: '143.90', CHF: '0.7930', SEK: '9.4800', NOK: '10.0900', DKK: '6.3380', NZD: '1.6440', SGD: '1.2740' } },
  { date: '2026-01-02', perUsd: { USD: '1', EUR: '0.8530', GBP: '0.7420', CAD: '1.3710', AUD: '1.4960', JPY: '156.80', CHF: '0.7920', SEK: '9.2100', NOK: '10.0600', DKK: '6.3710', NZD: '1.7320', SGD: '1.2860' } },
  { date: '2026-07-01', perUsd: { USD: '1', EUR: '0.8610', GBP: '0.7350', CAD: '1.3650', AUD: '1.5250', JPY: '144.30', CHF: '0.7980', SEK: '9.5200', NOK: '10.1800', DKK: '6.4240', NZD: '1.6890', SGD: '1.2810' } },
];

export const isCurrency = (code: string): code is Currency => (CURRENCIES as readonly string[]).includes(code);

/** The day of a moment, as the table dates rows. */
export const dayOf = (at: Date | string) => new Date(at).toISOString().slice(0, 10);

/** The row in effect at `at`: the newest dated on or before its day (the first row before the table starts). */
export function effectiveRates(at: Date | string, table: readonly RatesRow[] = RATES): RatesRow {
  const day = dayOf(at);
  let found = table[0]!;
  for (const row of table) if (row.date <= day && row.date >= found.date) found = row;
  return found;
}

export interface ConversionRate {
  /** units of `to` per unit of `from`, a decimal string */
  rate: string;
  /** the date of the rates row it came from */
  rates_date: string;
}

/** The effective rate from one currency to another at `at`, through USD. */
export function conversionRate(from: Currency, to: Currency, at: Date | string, table: readonly RatesRow[] = RATES): ConversionRate {
  const row = effectiveRates(at, table);
  if (from === to) return { rate: '1', rates_date: row.date };
  return { rate: divideRates(row.perUsd[to], row.perUsd[from]), rates_date: row.date };
}
