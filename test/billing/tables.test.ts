// The rules under billing, without a server: money arithmetic and formatting, the dated rates and
// price tables (the row in effect, most specific first), the plans' annual adjustment, which
// failures are credited, and tax ids by country.
import { describe, expect, it } from 'vitest';
import { failureIsCredited } from '../../src/billing/charges.ts';
import { divideRates, formatMoney, microsOf, multiplyMicros, parseAmount } from '../../src/billing/money.ts';
import { includedVolumes, planPriceMicros } from '../../src/billing/plans.ts';
import { PRICE_SHEETS, type PriceSheet, sellPriceAt, sellPriceList } from '../../src/billing/prices.ts';
import { RATES, type RatesRow, conversionRate, effectiveRates } from '../../src/billing/rates.ts';
import { checkTaxId } from '../../src/billing/tax-ids.ts';

describe('money', () => {
  it('shows at least two decimals and trims zeros beyond them', () => {
    expect([12_500_000, 7_900, 40_000, 0, -3_000_000, 1, -7_900].map(formatMoney)).toEqual(['12.50', '0.0079', '0.04', '0.00', '-3.00', '0.000001', '-0.0079']);
  });

  it('multiplies by a rate exactly, rounding half to even to the micro', () => {
    expect(multiplyMicros(5, '0.5')).toBe(2);
    expect(multiplyMicros(15, '0.5')).toBe(8);
    expect(multiplyMicros(-15, '0.5')).toBe(-8);
    expect(multiplyMicros(7_900, '0.8610')).toBe(6_802); // 6801.9
    expect(multiplyMicros(9_951_200, '1')).toBe(9_951_200);
  });

  it('divides rates to 10 decimals', () => {
    expect(divideRates('0.7350', '0.8610')).toBe('0.8536585366');
    expect(divideRates('1', '144.30')).toBe('0.0069300069');
    expect(divideRates('0.8610', '1')).toBe('0.861');
  });

  it('reads amounts with at most 6 decimals, positive only', () => {
    expect(parseAmount('25')).toBe(25_000_000);
    expect(parseAmount('12.5')).toBe(12_500_000);
    expect(parseAmount('0.000001')).toBe(1);
    for (const bad of ['0', '-1', '1.0000001', 'abc', '1e3', '']) expect(parseAmount(bad), bad).toBeUndefined();
    expect(microsOf('0.0079')).toBe(7_900);
  });
});

describe('the rates table', () => {
  const table: RatesRow[] = [
    { date: '2026-01-01', perUsd: { ...RATES[0]!.perUsd, EUR: '0.9' } },
    { date: '2026-06-01', perUsd: { ...RATES[0]!.perUsd, EUR: '0.8' } },
  ];

  it('the effective row is the newest dated on or before the day; before the table, the first', () => {
    expect(effectiveRates('2026-05-31T23:59:59Z', table).date).toBe('2026-01-01');
    expect(effectiveRates('2026-06-01T00:00:00Z', table).date).toBe('2026-06-01');
    expect(effectiveRates('2025-01-01T00:00:00Z', table).date).toBe('2026-01-01');
  });

  it('converts through USD', () => {
    expect(conversionRate('USD', 'EUR', '2026-07-01T00:00:00Z', table)).toEqual({ rate: '0.8', rates_date: '2026-06-01' });
    expect(conversionRate('EUR', 'USD', '2026-07-01T00:00:00Z', table)).toEqual({ rate: '1.25', rates_date: '2026-06-01' });
    expect(conversionRate('EUR', 'EUR', '2026-07-01T00:00:00Z', table).rate).toBe('1');
  });

  it('every row of the shipped table names every currency, in date order', () => {
    const dates = RATES.map((r) => r.date);
    expect([...dates].sort()).toEqual(dates);
    for (const row of RATES) expect(Object.keys(row.perUsd).sort()).toEqual(Object.keys(RATES[0]!.perUsd).sort());
  });
});

describe('the price table', () => {
  const sheets: PriceSheet[] = [
    { effective_from: '2026-01-01', rows: [['sms', 'US', '0.0079', '0.005'], ['sms', '*', '0.06', '0.04'], ['email', '*', '0.0009', '0.0006']] },
    { effective_from: '2027-01-01', rows: [['sms', '*', '0.07', '0.05']] },
  ];

  it("prices by the country's row, else the channel's '*', from the sheet in effect when sent", () => {
    expect(sellPriceAt('sms', 'US', '2027-02-01T00:00:00Z', sheets)).toEqual({ channel: 'sms', country: 'US', sell_micros: 7_900, effective_from: '2026-01-01' });
    expect(sellPriceAt('sms', 'KE', '2026-12-31T23:59:59Z', sheets)).toMatchObject({ country: '*', sell_micros: 60_000 });
    expect(sellPriceAt('sms', 'KE', '2027-01-01T00:00:00Z', sheets)).toMatchObject({ country: '*', sell_micros: 70_000, effective_from: '2027-01-01' });
    expect(sellPriceAt('sms', null, '2026-03-01T00:00:00Z', sheets)).toMatchObject({ country: '*', sell_micros: 60_000 });
    expect(sellPriceAt('email', null, '2025-03-01T00:00:00Z', sheets)).toMatchObject({ sell_micros: 900 });
  });

  it('the list in effect carries sell prices only, and the newest sheet date among them', () => {
    const list = sellPriceList('2027-03-01T00:00:00Z', sheets);
    expect(list.effective_from).toBe('2027-01-01');
    expect(list.prices.map((p) => [p.channel, p.country, p.sell_micros])).toEqual([['sms', 'US', 7_900], ['sms', '*', 70_000], ['email', '*', 900]]);
    expect(JSON.stringify(list)).not.toMatch(/cost|0\.005|0\.05/);
  });

  it('the shipped table: a price for every channel everywhere, cost below sell, the documented examples', () => {
    for (const channel of ['sms', 'rcs', 'whatsapp', 'voice', 'email', 'push'] as const) expect(sellPriceAt(channel, 'ZZ', new Date()).country).toBe('*');
    for (const sheet of PRICE_SHEETS) for (const [, , sell, cost] of sheet.rows) expect(microsOf(cost)).toBeLessThan(microsOf(sell));
    const now = new Date();
    expect([sellPriceAt('sms', 'US', now), sellPriceAt('sms', 'GB', now), sellPriceAt('sms', 'DE', now), sellPriceAt('email', null, now)].map((p) => formatMoney(p.sell_micros))).toEqual(['0.0079', '0.04', '0.085', '0.0009']);
  });
});

describe('plans', () => {
  it('annual: twelve months of volumes for the year at ten months of price; monthly: a month', () => {
    expect(includedVolumes('growth', 'annual')).toEqual({
      period: 'year',
      volumes: { sms: 30_000, rcs: 12_000, whatsapp: 12_000, voice: 3_000, email: 1_200_000, push: 6_000_000 },
      per_month: { sms: 2_500, rcs: 1_000, whatsapp: 1_000, voice: 250, email: 100_000, push: 500_000 },
    });
    expect(includedVolumes('starter', 'monthly')).toMatchObject({ period: 'month', volumes: { sms: 500 }, per_month: { sms: 500 } });
    expect(planPriceMicros('growth', 'annual')).toBe(990_000_000);
    expect(planPriceMicros('enterprise', 'monthly')).toBeNull();
  });
});

describe('which failures are credited', () => {
  it('carrier statuses not billed are credited; undelivered and email bounces are billed; whatsapp failures are credited', () => {
    expect(['failed:30008', 'canceled', 'busy', 'no-answer', 'FAILED unknown'].map((r) => failureIsCredited('sms', r))).toEqual([true, true, true, true, true]);
    expect(failureIsCredited('voice', 'no-answer')).toBe(true);
    expect(['undelivered:30003 Unreachable destination handset', 'undelivered', 'unreachable'].map((r) => failureIsCredited('rcs', r))).toEqual([false, false, false]);
    expect(failureIsCredited('whatsapp', 'failed:131026 Message undeliverable')).toBe(true);
    expect(failureIsCredited('email', 'bounced:550 no such user')).toBe(false);
    expect(failureIsCredited('email', 'failed')).toBe(false);
    expect(failureIsCredited('push', 'unregistered')).toBe(false);
  });
});

describe('tax ids', () => {
  it('EU VAT numbers with or without their prefix, in their compact VIES form', () => {
    expect(checkTaxId('DE', 'DE 136 695 976')).toEqual({ ok: true, tax_id: { type: 'eu_vat', value: 'DE136695976' } });
    expect(checkTaxId('DE', '136695976')).toEqual({ ok: true, tax_id: { type: 'eu_vat', value: 'DE136695976' } });
    expect(checkTaxId('GR', '094259216')).toEqual({ ok: true, tax_id: { type: 'eu_vat', value: 'EL094259216' } });
    expect(checkTaxId('NL', 'nl004495445b01')).toEqual({ ok: true, tax_id: { type: 'eu_vat', value: 'NL004495445B01' } });
  });

  it('a wrong check digit, or a number of another country, is refused naming the expected format', () => {
    const bad = checkTaxId('DE', 'DE136695977');
    expect(bad).toEqual({ ok: false, message: expect.stringContaining('DE followed by 9 digits') });
    expect(checkTaxId('FR', 'DE136695976').ok).toBe(false);
    expect(checkTaxId('US', '12-3456789')).toEqual({ ok: true, tax_id: { type: 'us_ein', value: '123456789' } });
    expect(checkTaxId('AU', '83 914 571 673')).toEqual({ ok: true, tax_id: { type: 'au_abn', value: '83914571673' } });
  });

  it('a country without a validator accepts 1–40 characters of A–Z 0–9 space . - /', () => {
    expect(checkTaxId('KE', 'p051234567q')).toEqual({ ok: true, tax_id: { type: 'tax_id', value: 'P051234567Q' } });
    expect(checkTaxId('KE', 'a*b').ok).toBe(false);
    expect(checkTaxId('KE', 'A'.repeat(41)).ok).toBe(false);
  });
});
