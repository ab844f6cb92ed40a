// The deliverability health rules (src/analytics/health.ts) at their boundaries: complaint rates of
// 0.0999 %, 0.1 % and 0.3 %, bounce rates of 2 % and 5 %, the 100-delivered minimum, which windows
// are judged and that the worst level decides; and the day ranges the analytics endpoints accept.
import { describe, expect, it } from 'vitest';
import { judgeHealth, rateLevel, THRESHOLDS, type EmailWindow } from '../../src/analytics/health.ts';
import { rate } from '../../src/analytics/reports.ts';
import { addDays, resolveRange } from '../../src/analytics/range.ts';

const complaints = THRESHOLDS.complaint_rate;
const bounces = THRESHOLDS.bounce_rate;
const w = (delivered: number, complaints = 0, bounced = 0): EmailWindow => ({ sent: delivered + bounced, delivered, bounced, complaints });

describe('complaint rate (complaints / delivered) against the Gmail / Yahoo thresholds', () => {
  it('0.0999 % is healthy, 0.1 % exactly is at risk, just under 0.3 % is at risk, 0.3 % exactly is critical', () => {
    expect(rateLevel(999, 1_000_000, complaints)).toBe('healthy');
    expect(rateLevel(1, 1000, complaints)).toBe('at_risk');
    expect(rateLevel(1000, 1_000_000, complaints)).toBe('at_risk');
    expect(rateLevel(2999, 1_000_000, complaints)).toBe('at_risk');
    expect(rateLevel(3, 1000, complaints)).toBe('critical');
    expect(rateLevel(3000, 1_000_000, complaints)).toBe('critical');
    expect(rateLevel(0, 1000, complaints)).toBe('healthy');
  });

  it('in whole numbers: rates whose floating-point quotient lands a hair below a threshold are still at it', () => {
    // 3/1000 and 0.003 agree in binary floating point, but e.g. 7/7000 must equal 1/1000 too
    expect(rateLevel(7, 7000, complaints)).toBe('at_risk');
    expect(rateLevel(21, 7000, complaints)).toBe('critical');
    expect(rateLevel(20, 7000, complaints)).toBe('at_risk');
  });
});

describe('bounce rate (bounced / sent), our thresholds', () => {
  it('below 2 % healthy, 2 % at risk, 5 % critical', () => {
    expect(rateLevel(199, 10_000, bounces)).toBe('healthy');
    expect(rateLevel(2, 100, bounces)).toBe('at_risk');
    expect(rateLevel(499, 10_000, bounces)).toBe('at_risk');
    expect(rateLevel(5, 100, bounces)).toBe('critical');
  });
});

describe('the verdict', () => {
  it('fewer than 100 delivered in the 30-day window: insufficient_data, whatever the rates', () => {
    const verdict = judgeHealth({ '7d': w(99, 50), '30d': w(99, 50) }, '30d');
    expect(verdict.status).toBe('insufficient_data');
    expect(verdict.reasons).toEqual([expect.objectContaining({ metric: 'delivered', window: '30d', status: 'insufficient_data' })]);
    expect(judgeHealth({ '7d': w(100), '30d': w(100) }, '30d').status).toBe('healthy');
  });

  it('the worst of the two rates decides, and every reason is named', () => {
    // complaints at risk (0.1 %), bounces critical (5 %)
    const verdict = judgeHealth({ '30d': { sent: 2000, delivered: 1000, bounced: 100, complaints: 1 } }, '30d');
    expect(verdict.status).toBe('critical');
    expect(verdict.reasons.map((r) => [r.metric, r.status])).toEqual([['complaint_rate', 'at_risk'], ['bounce_rate', 'critical']]);
    expect(verdict.reasons[0].message).toContain('0.1 %');
    expect(judgeHealth({ '30d': w(980, 0, 20) }, '30d').status).toBe('at_risk');
    expect(judgeHealth({ '30d': w(981, 0, 19) }, '30d').status).toBe('healthy');
  });

  it('a shorter window is judged once it has 100 delivered itself, and can make things worse', () => {
    // 30 days: 1 in 1000 (at risk); the last 7 days: 1 in 100 (critical)
    const both = judgeHealth({ '7d': w(100, 1), '30d': w(1000, 1) }, '30d');
    expect(both.status).toBe('critical');
    expect(both.reasons.map((r) => `${r.window} ${r.status}`)).toEqual(['7d critical', '30d at_risk']);
    // with 99 delivered the 7-day window is not judged
    expect(judgeHealth({ '7d': w(99, 1), '30d': w(1000, 1) }, '30d').status).toBe('at_risk');
  });
});

describe('rates and ranges', () => {
  it('rates round to 4 places (or as asked) and are null with nothing to divide by', () => {
    expect(rate(2, 3)).toBe(0.6667);
    expect(rate(1, 1001, 6)).toBe(0.000999);
    expect(rate(0, 0)).toBeNull();
  });

  it('a range defaults to the 30 days ending today (UTC), or ending at `to`; covers at most 366 days', () => {
    const now = new Date('2026-03-01T23:59:59.999Z');
    expect(resolveRange({}, now)).toMatchObject({ from: '2026-01-31', to: '2026-03-01' });
    expect(resolveRange({}, now).days).toHaveLength(30);
    expect(resolveRange({ to: '2024-03-01' }, now)).toMatchObject({ from: '2024-02-01', to: '2024-03-01' });
    expect(resolveRange({ from: '2026-02-27', to: '2026-03-01' }, now).days).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
    // 2024 is a leap year: 366 days from its first to its last day
    expect(resolveRange({ from: '2024-01-01', to: '2024-12-31' }, now).days).toHaveLength(366);
    expect(() => resolveRange({ from: '2024-01-01', to: '2025-01-01' }, now)).toThrow(/at most 366 days/);
    expect(() => resolveRange({ from: '2026-03-02', to: '2026-03-01' }, now)).toThrow(/from: must not be after to/);
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });
});
