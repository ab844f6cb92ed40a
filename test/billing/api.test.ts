// The billing endpoints that read tables and settings (README "Billing"):
// the plan of a free and of an annual account, sell prices (never a cost price), the billing
// currency and details with their checks, scopes, and bad inputs answered with 400s.
import { beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/accounts/service.ts';
import { changePlan } from '../../src/billing/service.ts';
import { formatMoney, microsOf } from '../../src/billing/money.ts';
import { PLANS } from '../../src/billing/plans.ts';
import { PRICE_SHEETS } from '../../src/billing/prices.ts';
import { CURRENCIES } from '../../src/billing/rates.ts';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';

const server = testServerForSuite({ DATA_REGION: 'eu' });
let free: TestAccount;
let annual: TestAccount;
beforeAll(async () => {
  [free, annual] = await Promise.all([server.newAccount('Free'), server.newAccount('Annual')]);
  const { position } = await changePlan(server.engage, annual.accountId, { tier: 'growth', period: 'annual' }, { actor: 'test' });
  await server.engage.runner.waitFor(['billing'], position!, 30_000);
});

describe('GET /v1/account/plan', () => {
  it('a new account is on the free tier, billed monthly, with the upgrades above it', async () => {
    const res = await server.call('GET', '/v1/account/plan', { key: free.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      tier: 'free',
      period: 'monthly',
      price: { amount: '0.00', currency: 'USD', period: 'month' },
      included: { period: 'month', volumes: PLANS.free.monthly_volumes, per_month: PLANS.free.monthly_volumes },
      region: { mode: 'eu' },
    });
    expect(res.body.usage_this_month.email).toEqual({ messages: 0, included: 3_000, remaining: 3_000 });
    expect(Object.keys(res.body.usage_this_month).sort()).toEqual(['email', 'push', 'rcs', 'sms', 'voice', 'whatsapp']);
    expect(res.body.upgrade_options.map((o: { tier: string; self_serve: boolean; price: { amount: string | null } }) => [o.tier, o.self_serve, o.price.amount])).toEqual([
      ['starter', true, '29.00'],
      ['growth', true, '99.00'],
      ['scale', true, '399.00'],
      ['enterprise', false, null],
    ]);
  });

  it("an annual plan shows the year's price and volumes with the per-month equivalent", async () => {
    const res = await server.call('GET', '/v1/account/plan', { key: annual.key });
    expect(res.body).toMatchObject({
      tier: 'growth',
      period: 'annual',
      price: { amount: '990.00', currency: 'USD', period: 'year' },
      included: { period: 'year', volumes: { sms: 30_000, email: 1_200_000 }, per_month: { sms: 2_500, email: 100_000 } },
    });
    expect(res.body.usage_this_month.sms).toEqual({ messages: 0, included: 2_500, remaining: 2_500 });
    expect(res.body.upgrade_options.map((o: { tier: string }) => o.tier)).toEqual(['scale', 'enterprise']);
    expect(res.body.upgrade_options[0]).toMatchObject({ price: { amount: '3990.00', period: 'year' }, included: { period: 'year', volumes: { sms: 120_000 } } });
    // the other account is still free
    expect((await server.call('GET', '/v1/account/plan', { key: free.key })).body.tier).toBe('free');
  });
});

describe('GET /v1/account/pricing', () => {
  const costs = PRICE_SHEETS.flatMap((s) => s.rows.map((r) => formatMoney(microsOf(r[3]))));
  const sells = PRICE_SHEETS.flatMap((s) => s.rows.map((r) => formatMoney(microsOf(r[2]))));

  it('lists sell prices per channel and country, and no cost price anywhere', async () => {
    // (a cost figure that is also some sell price could not be told apart: the table has none)
    expect(costs.filter((c) => sells.includes(c))).toEqual([]);
    const res = await server.call('GET', '/v1/account/pricing', { key: free.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ currency: 'USD', effective_from: '2025-01-01' });
    expect(res.body.prices).toEqual(expect.arrayContaining([
      { channel: 'sms', country: 'US', sell: '0.0079', currency: 'USD' },
      { channel: 'sms', country: 'GB', sell: '0.04', currency: 'USD' },
      { channel: 'sms', country: 'DE', sell: '0.085', currency: 'USD' },
      { channel: 'sms', country: '*', sell: '0.06', currency: 'USD' },
      { channel: 'email', country: '*', sell: '0.0009', currency: 'USD' },
      { channel: 'push', country: '*', sell: '0.0001', currency: 'USD' },
    ]));
    expect(res.body.prices).toHaveLength(PRICE_SHEETS[0]!.rows.length);
    const text = JSON.stringify(res.body);
    expect(text).not.toMatch(/cost/i);
    for (const cost of costs) expect(text, `cost ${cost} shown`).not.toContain(`"${cost}"`);
  });

  it("filters by channel and country; a country without a row of its own gets the channel's '*' price", async () => {
    const de = await server.call('GET', '/v1/account/pricing?channel=sms&country=de', { key: free.key });
    expect(de.body.prices).toEqual([{ channel: 'sms', country: 'DE', sell: '0.085', currency: 'USD' }]);
    const ke = await server.call('GET', '/v1/account/pricing?country=KE', { key: free.key });
    expect(ke.body.prices.map((p: { channel: string; country: string }) => [p.channel, p.country])).toEqual([
      ['sms', '*'], ['rcs', '*'], ['whatsapp', '*'], ['voice', '*'], ['email', '*'], ['push', '*'],
    ]);
    for (const [query, path] of [['channel=fax', 'channel'], ['country=XX', 'country'], ['colour=red', '']] as const) {
      const bad = await server.call('GET', `/v1/account/pricing?${query}`, { key: free.key });
      expect(bad.status, query).toBe(400);
      if (path) expect(bad.body.issues.map((i: { path: string }) => i.path)).toEqual([path]);
    }
  });
});

describe('billing currency and details', () => {
  it('GET billing-currency: USD, the options and the conversion rule, no change yet', async () => {
    const res = await server.call('GET', '/v1/account/billing-currency', { key: free.key });
    expect(res.body).toEqual({ currency: 'USD', options: [...CURRENCIES], conversion: expect.stringMatching(/converts the whole balance .* effective exchange rate/), last_change: null });
  });

  it('PUT billing-currency refuses an unknown currency or field on `currency` (400), and needs the settings scope', async () => {
    for (const body of [{ currency: 'XYZ' }, { currency: '' }, {}]) {
      const bad = await server.call('PUT', '/v1/account/billing-currency', { key: free.key, body });
      expect(bad.status).toBe(400);
      expect(bad.body.issues.map((i: { path: string }) => i.path)).toEqual(['currency']);
    }
    expect((await server.call('PUT', '/v1/account/billing-currency', { key: free.key, body: { currency: 'EUR', rate: '1' } })).status).toBe(400);
    const reader = await issueApiKey(server.engage, free.accountId, { name: 'reader', scopes: ['read'] }, { actor: 'test' });
    await server.engage.runner.waitFor(['auth'], reader.position, 30_000);
    const denied = await server.call('PUT', '/v1/account/billing-currency', { key: reader.key, body: { currency: 'EUR' } });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'settings' });
    expect((await server.call('GET', '/v1/account/billing-currency', { key: reader.key })).body.currency).toBe('USD');
  });

  it('PUT billing-details checks the tax id for the address country and echoes its compact form; GET shows it with the conversion rule', async () => {
    const body = { company: 'Acme GmbH', address: { line1: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', country: 'de' }, tax_id: 'DE 136 695 976', email: 'Billing@Acme.test' };
    const res = await server.call('PUT', '/v1/account/billing-details', { key: free.key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      company: 'Acme GmbH',
      address: { line1: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', country: 'DE' },
      tax_id: { type: 'eu_vat', value: 'DE136695976' },
      email: 'billing@acme.test',
      updated_at: expect.any(String),
      billing_currency: { currency: 'USD', conversion: expect.stringContaining('effective exchange rate') },
    });
    expect((await server.call('GET', '/v1/account/billing-details', { key: free.key })).body).toEqual(res.body);
    // another account sees none of it
    expect((await server.call('GET', '/v1/account/billing-details', { key: annual.key })).body).toMatchObject({ company: null, address: null, tax_id: null });
  });

  it('bad details are 400s naming the field; a bad tax id names the expected format', async () => {
    const address = { line1: 'Hauptstr. 1', city: 'Berlin', country: 'DE' };
    const cases: [unknown, string, RegExp?][] = [
      [{ company: 'Acme', address, tax_id: 'DE136695977' }, 'tax_id', /DE followed by 9 digits/],
      [{ company: 'Acme', address: { ...address, country: 'FR' }, tax_id: 'DE136695976' }, 'tax_id', /FR followed by/],
      [{ company: 'Acme', address: { ...address, country: 'KE' }, tax_id: 'P05*' }, 'tax_id', /1–40 characters/],
      [{ company: '', address }, 'company'],
      [{ company: 'x'.repeat(201), address }, 'company'],
      [{ company: 'Acme', address: { ...address, country: 'XX' } }, 'address.country'],
      [{ company: 'Acme', address: { city: 'Berlin', country: 'DE' } }, 'address.line1'],
      [{ company: 'Acme', address, email: 'not-an-email' }, 'email'],
    ];
    for (const [body, path, message] of cases) {
      const res = await server.call('PUT', '/v1/account/billing-details', { key: annual.key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path), JSON.stringify(body)).toEqual([path]);
      if (message) expect(res.body.issues[0].message).toMatch(message);
    }
    expect((await server.call('PUT', '/v1/account/billing-details', { key: annual.key, body: { company: 'Acme', address, vat: 'x' } })).status).toBe(400);
    expect((await server.call('GET', '/v1/account/billing-details', { key: annual.key })).body.company).toBeNull();
  });
});

describe('usage range', () => {
  it('defaults to the last 6 months, zero-filled; refuses bad months and ranges over 24 months', async () => {
    const res = await server.call('GET', '/v1/account/usage', { key: free.key });
    expect(res.status).toBe(200);
    expect(res.body.months).toHaveLength(6);
    expect(res.body.to).toBe(new Date().toISOString().slice(0, 7));
    expect(res.body.months[0].channels.sms).toEqual({ messages: 0, amount: '0.00', currency: 'USD' });
    const span = await server.call('GET', '/v1/account/usage?from=2025-12&to=2026-02', { key: free.key });
    expect(span.body.months.map((m: { month: string }) => m.month)).toEqual(['2025-12', '2026-01', '2026-02']);
    for (const [query, path] of [['from=2026-13', 'from'], ['to=26-01', 'to'], ['from=2026-05&to=2026-01', 'from'], ['from=2024-01&to=2026-01', 'to']]) {
      const bad = await server.call('GET', `/v1/account/usage?${query}`, { key: free.key });
      expect(bad.status, query).toBe(400);
      expect(bad.body.issues.map((i: { path: string }) => i.path), query).toEqual([path]);
    }
  });
});
