// GET /v1/account/deliverability over HTTP as an account's email volume grows: with fewer than 100
// delivered in 30 days no verdict (the figures still shown); complaint and bounce rates crossing the
// at-risk and critical thresholds exactly at 0.1 % / 0.3 % and 2 % / 5 %; the 7-day window judged once
// it has 100 delivered itself. Volume is appended straight to the log (as the dispatcher and feedback
// loop write it); one complaint comes from the sandbox's feedback loop over the API.
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { until } from '../support/waits.ts';
import { appendEmailOutcomes, send, settled } from './helpers.ts';

const server = testServerForSuite();
let c: TestAccount;
let d: TestAccount;
beforeAll(async () => {
  [c, d] = await Promise.all([server.newAccount('Complaints'), server.newAccount('Bounces')]);
});

const recently = () => new Date(Date.now() - 60_000);
const tenDaysAgo = () => new Date(Date.now() - 10 * 86_400_000);
const deliverability = async (key: string) => {
  const res = await server.call('GET', '/v1/account/deliverability', { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const verdict = (body: any) => [body.health.status, body.health.reasons.map((r: any) => `${r.window} ${r.metric} ${r.status}`)];

describe('complaints', () => {
  it('fewer than 100 delivered: insufficient_data with the figures; then healthy; 0.1 % is at risk; a 7-day window at 1 % is critical', async () => {
    await appendEmailOutcomes(server, c.accountId, recently(), { delivered: 99 });
    let body = await deliverability(c.key);
    expect(body.channel).toBe('email');
    expect(body.windows['7d']).toMatchObject({ sent: 99, delivered: 99, bounced: 0, complaints: 0, bounce_rate: 0, complaint_rate: 0 });
    expect(verdict(body)).toEqual(['insufficient_data', ['30d delivered insufficient_data']]);
    expect(body.thresholds).toMatchObject({ complaint_rate: { at_risk_from: 0.001, critical_from: 0.003 }, bounce_rate: { at_risk_from: 0.02, critical_from: 0.05 }, min_delivered: 100 });

    // older volume: in the 30-day window only; the 7-day one (99 delivered) is not judged
    await appendEmailOutcomes(server, c.accountId, tenDaysAgo(), { delivered: 901 });
    body = await deliverability(c.key);
    expect(body.windows['30d']).toMatchObject({ sent: 1000, delivered: 1000 });
    expect(verdict(body)).toEqual(['healthy', []]);

    // one complaint in 1000 delivered is 0.1 %: at risk
    await appendEmailOutcomes(server, c.accountId, tenDaysAgo(), { complaints: 1 });
    body = await deliverability(c.key);
    expect(body.windows['30d']).toMatchObject({ complaints: 1, complaint_rate: 0.001 });
    expect(verdict(body)).toEqual(['at_risk', ['30d complaint_rate at_risk']]);

    // a complaint through the sandbox's feedback loop: delivered and complained about today
    const id = await send(server, c.key, 'email', 'complaint@sandbox.engage.test');
    await settled(server, c.key, [id]);
    body = await until(() => deliverability(c.key), (b) => b.windows['7d'].complaints === 1);
    expect(body.windows['7d']).toMatchObject({ sent: 100, delivered: 100, complaints: 1, complaint_rate: 0.01 });
    expect(body.windows['30d']).toMatchObject({ delivered: 1001, complaints: 2, complaint_rate: 0.001998 });
    expect(verdict(body)).toEqual(['critical', ['7d complaint_rate critical', '30d complaint_rate at_risk']]);
    expect(body.health.reasons[0].message).toContain('1 %');
  });
});

describe('bounces', () => {
  it('bounced / sent: 1.86 % healthy, 2.06 % at risk, 5 % exactly critical', async () => {
    await appendEmailOutcomes(server, d.accountId, recently(), { delivered: 950, bounced: 18 });
    let body = await deliverability(d.key);
    expect(body.windows['7d']).toMatchObject({ sent: 968, delivered: 950, bounced: 18, bounce_rate: 0.018595 });
    expect(verdict(body)).toEqual(['healthy', []]);

    await appendEmailOutcomes(server, d.accountId, recently(), { bounced: 2 });
    expect(verdict(await deliverability(d.key))).toEqual(['at_risk', ['7d bounce_rate at_risk', '30d bounce_rate at_risk']]);

    await appendEmailOutcomes(server, d.accountId, recently(), { bounced: 30 });
    body = await deliverability(d.key);
    expect(body.windows['30d']).toMatchObject({ sent: 1000, bounced: 50, bounce_rate: 0.05 });
    expect(verdict(body)).toEqual(['critical', ['7d bounce_rate critical', '30d bounce_rate critical']]);
    // the other account's figures are its own
    expect((await deliverability(c.key)).windows['30d'].bounced).toBe(0);
  });
});
