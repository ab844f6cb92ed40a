// Ranges of UTC days: the `from`/`to` of the analytics endpoints (inclusive, YYYY-MM-DD), their
// defaults and limits, and the rolling windows of the deliverability endpoints.
import { z } from 'zod';
import { invalidField } from '../errors.ts';

/** The longest range a report covers, in days (a leap year). */
export const MAX_RANGE_DAYS = 366;
/** The range when none is asked for: this many days ending today (UTC). */
export const DEFAULT_RANGE_DAYS = 30;

/** A UTC date as the query takes it: YYYY-MM-DD, a real calendar day. */
export const DaySchema = z.iso.date({ message: 'must be a date as YYYY-MM-DD' });

export const RangeQuery = { from: DaySchema.optional(), to: DaySchema.optional() };

const DAY_MS = 86_400_000;

export const dayOf = (d: Date): string => d.toISOString().slice(0, 10);
/** The day `n` days after `day` (before it when n < 0). */
export const addDays = (day: string, n: number): string => dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));
/** How many days [from, to] covers, both included. */
export const daysBetween = (from: string, to: string): number => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;

export interface DayRange {
  from: string;
  to: string;
  /** every day of the range, in order */
  days: string[];
}

/**
 * The range a request asks for: both ends given, or the missing ones filled in (no `to`: today; no
 * `from`: the 30 days ending at `to`). `from` after `to` is a 400 naming `from`, a range longer than
 * 366 days one naming `to`.
 */
export function resolveRange(query: { from?: string; to?: string }, now: Date): DayRange {
  const to = query.to ?? dayOf(now);
  const from = query.from ?? addDays(to, -(DEFAULT_RANGE_DAYS - 1));
  if (from > to) throw invalidField('from', `must not be after to (${to})`);
  const length = daysBetween(from, to);
  if (length > MAX_RANGE_DAYS) throw invalidField('to', `the range covers ${length} days; at most ${MAX_RANGE_DAYS} days`);
  return { from, to, days: Array.from({ length }, (_, i) => addDays(from, i)) };
}

/** The rolling windows of deliverability: the last 7 and 30 days, today (UTC) included. */
export const WINDOWS = { '7d': 7, '30d': 30 } as const;
export type WindowName = keyof typeof WINDOWS;

export function windowRange(name: WindowName, now: Date): { from: string; to: string } {
  const to = dayOf(now);
  return { from: addDays(to, -(WINDOWS[name] - 1)), to };
}
