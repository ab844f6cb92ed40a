// The warm-up ramp of README "Email domains": a daily cap on marketing email per domain, starting at 50 and
// roughly doubling every 2-3 days over 21 days; from day 22 there is no cap. Days are UTC calendar
// days: day 1 is the date warm-up started, and whole days spent paused do not count.
import { utcDaysBetween, type WarmupState } from '../../commands/email-domain.ts';

/** The cap of each ramp day, day 1 first. */
export const WARMUP_RAMP: readonly number[] = [
  50, 50, 100, 100, 200, 200, 200, 400, 400, 800, 800, 1_600, 1_600, 1_600, 3_200, 3_200, 6_400, 6_400, 12_800, 12_800, 12_800,
];

export interface WarmupToday {
  /** the ramp day (1-based); null when warm-up is not running */
  day: number | null;
  /** marketing emails allowed today from the domain; null = no cap */
  cap: number | null;
}

/** Where a domain's warm-up stands at `now`. Paused: the ramp holds at the day it paused on. */
export function warmupToday(w: WarmupState, now: Date): WarmupToday {
  if (w.started_at === null || (w.status !== 'active' && w.status !== 'paused')) return { day: null, cap: null };
  const until = w.status === 'paused' && w.paused_at ? w.paused_at : now;
  const day = utcDaysBetween(w.started_at, until) - w.paused_days + 1;
  if (day > WARMUP_RAMP.length) return { day, cap: null };
  return { day, cap: WARMUP_RAMP[Math.max(day, 1) - 1] };
}

/** The next UTC midnight after `now`: when held mail is tried again. */
export function nextUtcMidnight(now: Date): Date {
  const d = new Date(now);
  d.setUTCHours(24, 0, 0, 0);
  return d;
}

/** Today's UTC midnight: where today's count starts. */
export function utcMidnight(now: Date): Date {
  const d = new Date(now);
  d.setUTCHours(0, 0, 0, 0);
  return d;
}
