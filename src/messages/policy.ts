// Sending policy, decided per batch before any provider call: suppressed recipients fail;
// marketing messages respect the per-recipient daily cap and the recipient's quiet hours;
// transactional messages (transactional: true or category "transactional") bypass both.
import type pg from 'pg';
import type { Config } from '../config.ts';

export interface PolicyInput {
  id: string;
  account_id: string;
  channel: string;
  to_address: string;
  marketing: boolean;
}

export type Decision =
  | { action: 'send' }
  | { action: 'fail'; reason: 'suppressed'; detail: string }
  | { action: 'hold'; until: Date; reason: 'quiet_hours' | 'marketing_cap'; detail: string };

interface QuietHours {
  startMin: number;
  endMin: number;
}

export function parseQuietHours(spec: string): QuietHours | null {
  if (spec === 'off') return null;
  const [a, b] = spec.split('-');
  const toMin = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));
  return { startMin: toMin(a), endMin: toMin(b) };
}

/** Minutes since local midnight in a time zone. */
function localMinutes(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const h = Number(parts.find((p) => p.type === 'hour')?.value ?? 0);
  const m = Number(parts.find((p) => p.type === 'minute')?.value ?? 0);
  return h * 60 + m;
}

/** When quiet hours end for a recipient in `timeZone`, or null when `at` is outside them. */
export function quietUntil(at: Date, timeZone: string, quiet: QuietHours | null): Date | null {
  if (!quiet) return null;
  const now = localMinutes(at, timeZone);
  const { startMin, endMin } = quiet;
  const inside = startMin > endMin ? now >= startMin || now < endMin : now >= startMin && now < endMin;
  if (!inside) return null;
  const minutesLeft = (endMin - now + 24 * 60) % (24 * 60) || 24 * 60;
  // whole minutes from now to the end, then to the start of that minute
  const until = new Date(at.getTime() + minutesLeft * 60_000);
  until.setUTCSeconds(0, 0);
  return until;
}

export class Policy {
  private readonly quiet: QuietHours | null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly config: Pick<Config, 'MARKETING_CAP_PER_DAY' | 'QUIET_HOURS' | 'DEFAULT_TIMEZONE'>,
  ) {
    this.quiet = parseQuietHours(config.QUIET_HOURS);
  }

  async decide(messages: readonly PolicyInput[], now: Date): Promise<Map<string, Decision>> {
    const decisions = new Map<string, Decision>();
    if (messages.length === 0) return decisions;
    const accounts = messages.map((m) => m.account_id);
    const addresses = messages.map((m) => m.to_address);

    const suppressed = new Map<string, string>();
    const s = await this.pool.query<{ account_id: string; address: string; reason: string }>(
      `SELECT s.account_id, s.address, s.reason FROM suppressions s
       JOIN unnest($1::text[], $2::text[]) AS u(a, addr) ON s.account_id = u.a AND s.address = u.addr`,
      [accounts, addresses],
    );
    for (const r of s.rows) suppressed.set(`${r.account_id} ${r.address}`, r.reason);

    const marketing = messages.filter((m) => m.marketing && !suppressed.has(`${m.account_id} ${m.to_address}`));
    const timezones = new Map<string, string>();
    const sentToday = new Map<string, { count: number; oldest: Date }>();
    if (marketing.length) {
      const ma = marketing.map((m) => m.account_id);
      const mt = marketing.map((m) => m.to_address);
      const tz = await this.pool.query<{ account_id: string; address: string; timezone: string }>(
        `SELECT DISTINCT ON (c.account_id, u.addr) c.account_id, u.addr AS address, c.timezone FROM contacts c
         JOIN unnest($1::text[], $2::text[]) AS u(a, addr) ON c.account_id = u.a AND (c.email = u.addr OR c.phone = u.addr)
         WHERE c.timezone IS NOT NULL ORDER BY c.account_id, u.addr, c.id`,
        [ma, mt],
      );
      for (const r of tz.rows) timezones.set(`${r.account_id} ${r.address}`, r.timezone);
      const cap = await this.pool.query<{ account_id: string; to_address: string; n: number; oldest: Date }>(
        `SELECT m.account_id, m.to_address, count(*)::int AS n, min(m.sent_at) AS oldest FROM messages m
         JOIN (SELECT DISTINCT a, addr FROM unnest($1::text[], $2::text[]) AS u(a, addr)) u ON m.account_id = u.a AND m.to_address = u.addr
         WHERE m.marketing AND m.sent_at > $3 GROUP BY m.account_id, m.to_address`,
        [ma, mt, new Date(now.getTime() - 24 * 3600_000)],
      );
      for (const r of cap.rows) sentToday.set(`${r.account_id} ${r.to_address}`, { count: r.n, oldest: r.oldest });
    }

    for (const m of messages) {
      const key = `${m.account_id} ${m.to_address}`;
      const reason = suppressed.get(key);
      if (reason) {
        decisions.set(m.id, { action: 'fail', reason: 'suppressed', detail: `recipient is suppressed (${reason})` });
        continue;
      }
      if (!m.marketing) {
        decisions.set(m.id, { action: 'send' });
        continue;
      }
      const tz = timezones.get(key) ?? this.config.DEFAULT_TIMEZONE;
      const quietEnd = quietUntil(now, tz, this.quiet);
      if (quietEnd) {
        decisions.set(m.id, { action: 'hold', until: quietEnd, reason: 'quiet_hours', detail: `quiet hours ${this.config.QUIET_HOURS} in ${tz}` });
        continue;
      }
      const used = sentToday.get(key) ?? { count: 0, oldest: now };
      if (used.count >= this.config.MARKETING_CAP_PER_DAY) {
        const until = new Date(used.oldest.getTime() + 24 * 3600_000);
        decisions.set(m.id, { action: 'hold', until, reason: 'marketing_cap', detail: `${used.count} marketing messages in the last 24 h (cap ${this.config.MARKETING_CAP_PER_DAY})` });
        continue;
      }
      // count this one, so a batch cannot overshoot the cap
      sentToday.set(key, { count: used.count + 1, oldest: used.count === 0 ? now : used.oldest });
      decisions.set(m.id, { action: 'send' });
    }
    return decisions;
  }
}
