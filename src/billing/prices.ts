// The price table (README "Billing"): what a message costs the account (sell) and what it costs us
// (cost), in US dollars, per channel and recipient country, with '*' as the channel's price
// everywhere else. Phone channels are priced per message (voice: per call) by the recipient's
// country; email and push are flat. Cost prices never leave this module: the API, the ledger and
// every response show sell prices only.
//
// History never changes: the billing read model prices each message by the sheet in effect when
// it was sent, and a rebuild prices it again, so a price change is a new sheet appended with a
// future effective_from date — never an edit of a sheet in effect. A later sheet need only list
// the rows it changes: a (channel, country) keeps its newest row on or before the day, and a
// country with no row of its own takes the channel's '*' row.

import type { Channel } from '../../commands/message.ts';
import { microsOf } from './money.ts';
import { dayOf } from './rates.ts';

/** channel, country (ISO alpha-2, or '*'), sell, cost — in USD */
type PriceRow = readonly [Channel, string, string, string];

export interface PriceSheet {
  /** YYYY-MM-DD: in effect from 00:00 UTC of this day */
  effective_from: string;
  rows: readonly PriceRow[];
}

// prettier-ignore
export const PRICE_SHEETS: readonly PriceSheet[] = [
  {
    effective_from: '2025-01-01',
    rows: [
      ['sms', 'US', '0.0079', '0.005135'],
      ['sms', 'CA', '0.0079', '0.005135'],
      ['sms', 'GB', '0.0400', '0.0262'],
      ['sms', 'DE', '0.0850', '0.05525'],
      ['sms', 'FR', '0.0750', '0.04875'],
      ['sms', 'ES', '0.0700', '0.0455'],
      ['sms', 'IT', '0.0800', '0.052'],
      ['sms', 'NL', '0.0950', '0.06175'],
      ['sms', 'SE', '0.0600', '0.039'],
      ['sms', 'AU', '0.0500', '0.0325'],
      ['sms', 'JP', '0.0750', '0.04875'],
      ['sms', 'IN', '0.0050', '0.00325'],
      ['sms', 'BR', '0.0450', '0.02925'],
      ['sms', 'MX', '0.0350', '0.02275'],
      ['sms', 'SG', '0.0400', '0.0262'],
      ['sms', '*', '0.0600', '0.039'],
      ['rcs', 'US', '0.0088', '0.005456'],
      ['rcs', 'CA', '0.0088', '0.005456'],
      ['rcs', 'GB', '0.0448', '0.027776'],
      ['rcs', 'DE', '0.0952', '0.059024'],
      ['rcs', 'FR', '0.0840', '0.05208'],
      ['rcs', 'ES', '0.0784', '0.048608'],
      ['rcs', 'IT', '0.0896', '0.055552'],
      ['rcs', 'NL', '0.1064', '0.065968'],
      ['rcs', 'SE', '0.0672', '0.041664'],
      ['rcs', 'AU', '0.0560', '0.03472'],
      ['rcs', 'JP', '0.0840', '0.05208'],
      ['rcs', 'IN', '0.0056', '0.003472'],
      ['rcs', 'BR', '0.0504', '0.031248'],
      ['rcs', 'MX', '0.0392', '0.024304'],
      ['rcs', 'SG', '0.0448', '0.027776'],
      ['rcs', '*', '0.0672', '0.041664'],
      ['whatsapp', 'US', '0.0250', '0.017'],
      ['whatsapp', 'CA', '0.0250', '0.017'],
      ['whatsapp', 'GB', '0.0530', '0.03604'],
      ['whatsapp', 'DE', '0.0600', '0.0408'],
      ['whatsapp', 'FR', '0.0600', '0.0408'],
      ['whatsapp', 'ES', '0.0310', '0.02108'],
      ['whatsapp', 'IT', '0.0350', '0.0238'],
      ['whatsapp', 'NL', '0.0600', '0.0408'],
      ['whatsapp', 'SE', '0.0550', '0.0374'],
      ['whatsapp', 'AU', '0.0450', '0.0306'],
      ['whatsapp', 'JP', '0.0400', '0.0272'],
      ['whatsapp', 'IN', '0.0050', '0.0034'],
      ['whatsapp', 'BR', '0.0310', '0.02108'],
      ['whatsapp', 'MX', '0.0200', '0.0136'],
      ['whatsapp', 'SG', '0.0400', '0.0272'],
      ['whatsapp', '*', '0.0400', '0.0272'],
      ['voice', 'US', '0.0140', '0.00896'],
      ['voice', 'CA', '0.0140', '0.00896'],
      ['voice', 'GB', '0.0200', '0.0128'],
      ['voice', 'DE', '0.0250', '0.016'],
      ['voice', 'FR', '0.0240', '0.01536'],
      ['voice', 'ES', '0.0230', '0.01472'],
      ['voice', 'IT', '0.0240', '0.01536'],
      ['voice', 'NL', '0.0260', '0.01664'],
      ['voice', 'SE', '0.0220', '0.01408'],
      ['voice', 'AU', '0.0260', '0.01664'],
      ['voice', 'JP', '0.0280', '0.01792'],
      ['voice', 'IN', '0.0150', '0.0096'],
      ['voice', 'BR', '0.0250', '0.016'],
      ['voice', 'MX', '0.0180', '0.01152'],
      ['voice', 'SG', '0.0200', '0.0128'],
      ['voice', '*', '0.0300', '0.0192'],
      ['email', '*', '0.0009', '0.0006'],
      ['push', '*', '0.0001', '0.00006'],
    ],
  },
];

export const ELSEWHERE = '*';

export interface SellPrice {
  channel: Channel;
  /** the country the row is for: the recipient's, or '*' (the channel's price elsewhere) */
  country: string;
  sell_micros: number;
  /** the effective_from of the sheet the row came from */
  effective_from: string;
}

/** The day of `at`, or the first sheet's for a moment before the table starts (the first sheet applies). */
function dayIn(at: Date | string, sheets: readonly PriceSheet[]): string {
  const day = dayOf(at);
  return day < sheets[0]!.effective_from ? sheets[0]!.effective_from : day;
}

/** The newest row for exactly this channel and country on or before `day`. */
function rowFor(channel: Channel, country: string, day: string, sheets: readonly PriceSheet[]): { row: PriceRow; effective_from: string } | undefined {
  let found: { row: PriceRow; effective_from: string } | undefined;
  for (const sheet of sheets) {
    if (sheet.effective_from > day || (found && sheet.effective_from < found.effective_from)) continue;
    const row = sheet.rows.find((r) => r[0] === channel && r[1] === country);
    if (row) found = { row, effective_from: sheet.effective_from };
  }
  return found;
}

/**
 * The sell price of one message on `channel` to `country` (null: unknown or not a phone channel)
 * sent at `at`: the country's row, else the channel's '*' row, from the sheets in effect then.
 */
export function sellPriceAt(channel: Channel, country: string | null, at: Date | string, sheets: readonly PriceSheet[] = PRICE_SHEETS): SellPrice {
  const day = dayIn(at, sheets);
  const found = (country ? rowFor(channel, country, day, sheets) : undefined) ?? rowFor(channel, ELSEWHERE, day, sheets);
  if (!found) throw new Error(`the price table has no ${channel} row for '*'`);
  return { channel, country: found.row[1], sell_micros: microsOf(found.row[2]), effective_from: found.effective_from };
}

/** Every sell price in effect at `at` (per channel, the listed countries then '*'), and the newest sheet date among them. */
export function sellPriceList(at: Date | string, sheets: readonly PriceSheet[] = PRICE_SHEETS): { prices: SellPrice[]; effective_from: string } {
  const day = dayIn(at, sheets);
  const keys = new Map<string, [Channel, string]>();
  for (const sheet of sheets.filter((s) => s.effective_from <= day)) for (const [channel, country] of sheet.rows) keys.set(`${channel} ${country}`, [channel, country]);
  const prices = [...keys.values()].map(([channel, country]) => sellPriceAt(channel, country, at, sheets));
  const effective_from = prices.reduce((newest, p) => (p.effective_from > newest ? p.effective_from : newest), sheets[0]!.effective_from);
  return { prices, effective_from };
}
