// Email sending health: complaint and bounce rates judged against written-down thresholds. The
// complaint thresholds are the mailbox providers' published bulk-sender rules (Gmail and Yahoo,
// February 2024: keep spam complaints below 0.1 % and never reach 0.3 %); the bounce thresholds
// (below 2 % healthy, 5 % and above critical) are ours, following common ESP practice.

export type HealthStatus = 'healthy' | 'at_risk' | 'critical' | 'insufficient_data';

/** A level a rate reaches: at_risk from `at_risk_from`, critical from `critical_from` (fractions, 0.001 = 0.1 %). */
export interface RateThreshold {
  at_risk_from: number;
  critical_from: number;
  source: string;
}

export const THRESHOLDS = {
  /** complaints / delivered */
  complaint_rate: { at_risk_from: 0.001, critical_from: 0.003, source: 'Gmail and Yahoo bulk sender requirements (February 2024): below 0.1 %, never 0.3 % or more' },
  /** bounced / sent */
  bounce_rate: { at_risk_from: 0.02, critical_from: 0.05, source: 'engage (common ESP practice): below 2 %, critical from 5 %' },
  /** fewer delivered emails than this in the 30-day window and no verdict is given (a window with fewer is not judged) */
  min_delivered: 100,
} as const satisfies { complaint_rate: RateThreshold; bounce_rate: RateThreshold; min_delivered: number };

/** The email figures of one window. */
export interface EmailWindow {
  sent: number;
  delivered: number;
  bounced: number;
  complaints: number;
}

export interface HealthReason {
  /** the rate (or, for insufficient_data, the count) the reason is about */
  metric: 'complaint_rate' | 'bounce_rate' | 'delivered';
  window: string;
  status: Exclude<HealthStatus, 'healthy'>;
  message: string;
}

const RANK: Record<HealthStatus, number> = { insufficient_data: 0, healthy: 1, at_risk: 2, critical: 3 };

/**
 * The level `count / total` reaches. Compared in whole parts per million (count × 10⁶ against the
 * threshold's ppm × total) so that a rate exactly at a threshold is at it, with no float rounding.
 */
export function rateLevel(count: number, total: number, threshold: RateThreshold): 'healthy' | 'at_risk' | 'critical' {
  if (total <= 0) return 'healthy';
  const reaches = (fraction: number) => count * 1_000_000 >= Math.round(fraction * 1_000_000) * total;
  if (reaches(threshold.critical_from)) return 'critical';
  if (reaches(threshold.at_risk_from)) return 'at_risk';
  return 'healthy';
}

const percent = (fraction: number) => `${Number((fraction * 100).toFixed(4))} %`;

/**
 * The verdict on the windows (keyed by name, e.g. 7d and 30d; `decisive` names the longest): no
 * verdict when it has fewer than 100 delivered emails; otherwise every window with at least 100 is
 * judged on both rates, and the worst level found decides.
 */
export function judgeHealth(windows: Record<string, EmailWindow>, decisive: string): { status: HealthStatus; reasons: HealthReason[] } {
  const longest = windows[decisive];
  if (!longest || longest.delivered < THRESHOLDS.min_delivered) {
    return {
      status: 'insufficient_data',
      reasons: [{ metric: 'delivered', window: decisive, status: 'insufficient_data', message: `${longest?.delivered ?? 0} emails delivered in the last ${decisive}; at least ${THRESHOLDS.min_delivered} are needed to judge the rates` }],
    };
  }
  let status: HealthStatus = 'healthy';
  const reasons: HealthReason[] = [];
  for (const [name, w] of Object.entries(windows)) {
    if (w.delivered < THRESHOLDS.min_delivered) continue;
    const checks = [
      { metric: 'complaint_rate' as const, count: w.complaints, total: w.delivered, what: 'complaint rate (complaints / delivered)' },
      { metric: 'bounce_rate' as const, count: w.bounced, total: w.sent, what: 'bounce rate (bounced / sent)' },
    ];
    for (const c of checks) {
      const threshold = THRESHOLDS[c.metric];
      const level = rateLevel(c.count, c.total, threshold);
      if (level === 'healthy') continue;
      if (RANK[level] > RANK[status]) status = level;
      const limit = level === 'critical' ? threshold.critical_from : threshold.at_risk_from;
      reasons.push({ metric: c.metric, window: name, status: level, message: `${name} ${c.what} is ${percent(c.count / c.total)}, at or above the ${level} threshold of ${percent(limit)}` });
    }
  }
  return { status, reasons };
}
