// The providers of accounts' integrations at dispatch (src/integrations/providers.ts, README
// "Integrations"): an account's integrations are read once per INTEGRATIONS_TTL_MS of the service's
// clock, so a new or removed integration takes effect within that time, and one provider instance
// serves an integration while it lasts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTEGRATIONS_TTL_MS, IntegrationProviders } from '../../src/integrations/providers.ts';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';

const server = testServerForSuite();
let a: TestAccount;
let now = Date.parse('2026-03-01T10:00:00.000Z');
let providers: IntegrationProviders;

beforeAll(async () => {
  a = await server.newAccount('Acme');
  providers = new IntegrationProviders(server.engage.pool, server.engage.config, { now: () => new Date(now) });
});
afterAll(async () => {
  await providers?.close();
});

const twilio = { provider: 'twilio', name: 'US numbers', credentials: { account_sid: `AC${'0a'.repeat(16)}`, auth_token: 'f'.repeat(32), from: '+14155550100' } };

describe("an account's integrations at dispatch", () => {
  it(`are read again once ${INTEGRATIONS_TTL_MS} ms of the clock have passed: a new one is used from then on, a removed one no longer`, async () => {
    expect(await providers.providerFor(a.accountId, 'sms')).toBeUndefined();
    const created = await server.call('POST', '/v1/integrations', { key: a.key, body: twilio });
    expect(created.status).toBe(201);
    await server.caughtUp(['integrations']);
    // what was read is what dispatch goes by until its time is up
    now += INTEGRATIONS_TTL_MS;
    expect(await providers.providerFor(a.accountId, 'sms')).toBeUndefined();
    now += 1;
    const provider = await providers.providerFor(a.accountId, 'sms');
    expect(provider).toBeDefined();
    expect(await providers.providerFor(a.accountId, 'email')).toBeUndefined();

    expect((await server.call('DELETE', `/v1/integrations/${created.body.id}`, { key: a.key })).status).toBe(200);
    await server.caughtUp(['integrations']);
    now += INTEGRATIONS_TTL_MS;
    // the same instance while the integration is remembered
    expect(await providers.providerFor(a.accountId, 'sms')).toBe(provider);
    now += 1;
    expect(await providers.providerFor(a.accountId, 'sms')).toBeUndefined();
  });
});
