// The analytics reports of an account, shaped for the API from the analytics and list-growth read
// models: per day and channel over a range (zero-filled), list growth with a running total, and
// email deliverability and per-channel delivery over the last 7 and 30 days.
import { CHANNELS, type Channel } from '../../commands/message.ts';
import { type Counts, countsByChannel, dailyCounts, zeroCounts } from '../../projections/analytics.ts';
import { contactsBefore, growthByDay } from '../../projections/list-growth.ts';
import type { Db } from '../../projections/queries.ts';
import { type EmailWindow, judgeHealth, THRESHOLDS } from './health.ts';
import { type DayRange, type WindowName, WINDOWS, windowRange } from './range.ts';

/** `n / d` rounded to `decimals` places; null when there is nothing to divide by. */
export function rate(n: number, d: number, decimals = 4): number | null {
  if (d <= 0) return null;
  const scale = 10 ** decimals;
  return Math.round((n / d) * scale) / scale;
}

export async function analyticsReport(db: Db, accountId: string, range: DayRange, channel?: Channel) {
  const channels: Channel[] = channel ? [channel] : [...CHANNELS];
  const found = new Map((await dailyCounts(db, accountId, range.from, range.to, channel)).map((r) => [`${r.day} ${r.channel}`, r.counts]));
  const total = zeroCounts();
  const days = range.days.flatMap((day) =>
    channels.map((c) => {
      const counts = found.get(`${day} ${c}`) ?? zeroCounts();
      for (const k of Object.keys(total) as (keyof Counts)[]) total[k] += counts[k];
      return {
        day, channel: c, sent: counts.sent, delivered: counts.delivered, failed: counts.failed, clicked: counts.clicked, unique_clicks: counts.unique_clicks,
        opened: counts.opened, unique_opens: counts.unique_opens, machine_opens: counts.machine_opens,
      };
    }),
  );
  return {
    from: range.from,
    to: range.to,
    channels,
    days,
    totals: {
      sent: total.sent,
      delivered: total.delivered,
      failed: total.failed,
      clicked: total.clicked,
      unique_clicks: total.unique_clicks,
      opened: total.opened,
      unique_opens: total.unique_opens,
      machine_opens: total.machine_opens,
      // of the messages that settled, how many arrived; of those, how many were clicked at least once,
      // and opened at least once by a reader (machine opens left out)
      delivery_rate: rate(total.delivered, total.delivered + total.failed),
      click_rate: rate(total.unique_clicks, total.delivered),
      open_rate: rate(total.unique_opens, total.delivered),
    },
  };
}

export async function listGrowthReport(db: Db, accountId: string, range: DayRange) {
  const found = new Map((await growthByDay(db, accountId, range.from, range.to)).map((r) => [r.day, r.counts]));
  let running = await contactsBefore(db, accountId, range.from);
  const totals = { new: 0, unsubscribed: 0, resubscribed: 0, deleted: 0, net: 0 };
  const days = range.days.map((day) => {
    const c = found.get(day) ?? { new_contacts: 0, deleted: 0, unsubscribed: 0, resubscribed: 0 };
    const net = c.new_contacts - c.unsubscribed - c.deleted + c.resubscribed;
    running += c.new_contacts - c.deleted;
    totals.new += c.new_contacts;
    totals.unsubscribed += c.unsubscribed;
    totals.resubscribed += c.resubscribed;
    totals.deleted += c.deleted;
    totals.net += net;
    return { day, new: c.new_contacts, unsubscribed: c.unsubscribed, resubscribed: c.resubscribed, deleted: c.deleted, net, total: running };
  });
  return { from: range.from, to: range.to, days, totals: { ...totals, total: running } };
}

const WINDOW_NAMES = Object.keys(WINDOWS) as WindowName[];

async function windowCounts(db: Db, accountId: string, now: Date): Promise<Record<WindowName, Record<Channel, Counts>>> {
  const entries = await Promise.all(WINDOW_NAMES.map(async (name) => {
    const { from, to } = windowRange(name, now);
    return [name, await countsByChannel(db, accountId, from, to)] as const;
  }));
  return Object.fromEntries(entries) as Record<WindowName, Record<Channel, Counts>>;
}

/** Complaint rates are kept to 6 places: the thresholds that matter are 0.1 % and 0.3 %. */
const FINE = 6;

export async function deliverabilityReport(db: Db, accountId: string, now: Date) {
  const counts = await windowCounts(db, accountId, now);
  const figures: Record<string, EmailWindow> = {};
  const windows: Record<string, unknown> = {};
  for (const name of WINDOW_NAMES) {
    const email = counts[name].email;
    const w: EmailWindow = { sent: email.sent, delivered: email.delivered, bounced: email.bounced, complaints: email.complained };
    figures[name] = w;
    windows[name] = { ...windowRange(name, now), ...w, bounce_rate: rate(w.bounced, w.sent, FINE), complaint_rate: rate(w.complaints, w.delivered, FINE) };
  }
  return { channel: 'email', windows, health: judgeHealth(figures, '30d'), thresholds: THRESHOLDS };
}

export async function channelDeliverabilityReport(db: Db, accountId: string, now: Date) {
  const counts = await windowCounts(db, accountId, now);
  const channels = CHANNELS.map((channel) => ({
    channel,
    windows: Object.fromEntries(
      WINDOW_NAMES.map((name) => {
        const c = counts[name][channel];
        const settled = c.delivered + c.failed;
        return [name, { sent: c.sent, delivered: c.delivered, failed: c.failed, delivery_rate: rate(c.delivered, settled), failure_rate: rate(c.failed, settled) }];
      }),
    ),
  }));
  return { windows: Object.fromEntries(WINDOW_NAMES.map((name) => [name, windowRange(name, now)])), channels };
}
