// The one rule for every timestamp and date the API accepts (README "Timestamps"), so none can reach
// Postgres as a value it cannot hold (year 0000, offsets beyond ±15:59: a 500 instead of a 400).
//
// - RFC 3339 date-time with seconds and an offset (`Z` or ±hh:mm), upper-case `T` and `Z`,
//   at most 9 fraction digits; a real calendar day and time (no Feb 30, no 24:00, no leap second 60).
// - The offset within ±14:00: the widest in use on Earth (UTC+14:00 Kiribati, UTC−12:00), with room
//   on the negative side; Postgres reads up to ±15:59, so everything accepted here it reads too.
// - The instant between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z, and the year as written
//   0001 or later: four-digit years as RFC 3339 writes them, without year 0000, which Postgres does
//   not have. Not 1970: custom `date`
//   fields hold birth dates.
// Plain functions, no I/O: deciders use them too; `Timestamp` is the zod schema every route uses.
import { z } from 'zod';

export const EARLIEST_TIMESTAMP = '0001-01-01T00:00:00Z';
export const LATEST_TIMESTAMP = '9999-12-31T23:59:59.999Z';
export const MAX_OFFSET_MINUTES = 14 * 60;

const EARLIEST_MS = utcMs(1, 1, 1, 0, 0, 0, 0);
const LATEST_MS = utcMs(9999, 12, 31, 23, 59, 59, 999);

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|([+-])(\d{2}):(\d{2}))$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export const TIMESTAMP_FORMAT_MESSAGE = 'must be an RFC 3339 timestamp with an offset, e.g. 2026-11-21T10:00:00Z';
export const TIMESTAMP_RANGE_MESSAGE = `must be between ${EARLIEST_TIMESTAMP} and ${LATEST_TIMESTAMP}`;
export const TIMESTAMP_OFFSET_MESSAGE = 'must have a UTC offset between -14:00 and +14:00';

/** Milliseconds since the epoch of a proleptic Gregorian UTC date-time (Date.UTC maps years 0–99 to 1900–1999). */
function utcMs(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number {
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, s, ms);
  return t.getTime();
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (y: number, m: number) => [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
const isCalendarDay = (y: number, m: number, d: number) => m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m);

/** Why `value` is not an accepted timestamp, or undefined when it is one. */
export function timestampProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return TIMESTAMP_FORMAT_MESSAGE;
  const m = DATE_TIME.exec(value);
  if (!m) return TIMESTAMP_FORMAT_MESSAGE;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  if (!isCalendarDay(y, mo, d) || h > 23 || mi > 59 || s > 59) return `${TIMESTAMP_FORMAT_MESSAGE} (a real date and time)`;
  let offsetMinutes = 0;
  if (m[8]) {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (om > 59) return TIMESTAMP_FORMAT_MESSAGE;
    offsetMinutes = (m[8] === '-' ? -1 : 1) * (oh * 60 + om);
    if (Math.abs(offsetMinutes) > MAX_OFFSET_MINUTES) return TIMESTAMP_OFFSET_MESSAGE;
  }
  // Postgres reads the date as written before applying the offset: year 0000 fails there even when
  // the instant (0000-12-31T23:59:59-14:00) is inside the range
  if (y < 1) return TIMESTAMP_RANGE_MESSAGE;
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const instant = utcMs(y, mo, d, h, mi, s, ms) - offsetMinutes * 60_000;
  if (instant < EARLIEST_MS || instant > LATEST_MS) return TIMESTAMP_RANGE_MESSAGE;
  return undefined;
}

/** Why `value` is not an accepted calendar date (YYYY-MM-DD, 0001-01-01 to 9999-12-31), or undefined. */
export function calendarDateProblem(value: unknown): string | undefined {
  const m = typeof value === 'string' ? DATE.exec(value) : null;
  if (!m) return 'must be a date, YYYY-MM-DD';
  const [y, mo, d] = m.slice(1, 4).map(Number);
  if (!isCalendarDay(y, mo, d)) return 'must be a real calendar date, YYYY-MM-DD';
  if (y < 1) return 'must be between 0001-01-01 and 9999-12-31';
  return undefined;
}

/** The zod schema of an accepted timestamp; the value passes through as given. */
export const Timestamp = z.string().superRefine((value, ctx) => {
  const problem = timestampProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
