// Account analytics (README "Analytics and deliverability"): message counts per day and channel,
// list growth, email deliverability and per-channel delivery, all read from rebuildable read models.
import { z, type ZodType } from 'zod';
import { CHANNELS } from '../../../commands/message.ts';
import type { HealthReason, HealthStatus } from '../../analytics/health.ts';
import { RangeQuery, resolveRange, WINDOWS, type WindowName } from '../../analytics/range.ts';
import { analyticsReport, channelDeliverabilityReport, deliverabilityReport, listGrowthReport } from '../../analytics/reports.ts';
import type { AppDeps } from '../deps.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const TAGS = ['account analytics'];
const AnalyticsQuery = z.strictObject({ ...RangeQuery, channel: z.enum(CHANNELS).optional() });
const GrowthQuery = z.strictObject(RangeQuery);
const NoQuery = z.strictObject({});

const Day = z.string().meta({ format: 'date' }).describe('a UTC day, YYYY-MM-DD');
const Rate = (what: string) => z.number().nullable().describe(`${what}, a fraction (0.25 is 25 %); null when there is nothing to divide by`);
const WINDOW_NAMES = Object.keys(WINDOWS) as WindowName[];
/** An object with one entry per rolling window (7d, 30d). */
const perWindow = <T extends ZodType>(schema: T) => z.object(Object.fromEntries(WINDOW_NAMES.map((w) => [w, schema])) as Record<WindowName, T>);

/** Opens of HTML email (README "Templates": open tracking). */
const OpenCounts = {
  opened: z.int().describe('opens by readers'),
  unique_opens: z.int().describe('messages opened by a reader at least once'),
  machine_opens: z.int().describe('fetches of the open pixel by image proxies (Apple Mail Privacy Protection) or scanners: not readers'),
};

const AnalyticsOut = z
  .object({
    from: Day,
    to: Day,
    channels: z.array(z.enum(CHANNELS)).describe('the channels counted: the one asked for, or every channel'),
    days: z
      .array(z.object({ day: Day, channel: z.enum(CHANNELS), sent: z.int(), delivered: z.int(), failed: z.int(), clicked: z.int(), unique_clicks: z.int(), ...OpenCounts }))
      .describe('every day of the range for every channel, zero-filled'),
    totals: z.object({
      sent: z.int(),
      delivered: z.int(),
      failed: z.int(),
      clicked: z.int(),
      unique_clicks: z.int(),
      ...OpenCounts,
      delivery_rate: Rate('delivered / (delivered + failed)'),
      click_rate: Rate('unique_clicks / delivered'),
      open_rate: Rate('unique_opens / delivered (machine opens left out)'),
    }),
  })
  .meta({ id: 'AnalyticsReport', description: 'Messages sent, delivered, failed, clicked and opened per UTC day and channel' });

const GrowthCounts = { new: z.int(), unsubscribed: z.int(), resubscribed: z.int(), deleted: z.int(), net: z.int().describe('new − unsubscribed − deleted + resubscribed') };
const ListGrowthOut = z
  .object({
    from: Day,
    to: Day,
    days: z.array(z.object({ day: Day, ...GrowthCounts, total: z.int().describe('contacts at the end of the day') })).describe('every day of the range, zero-filled'),
    totals: z.object({ ...GrowthCounts, total: z.int().describe('contacts at the end of the range') }),
  })
  .meta({ id: 'ListGrowthReport', description: 'Contacts added, unsubscribed, resubscribed and deleted per UTC day, with the running total' });

const Threshold = z.object({ at_risk_from: z.number(), critical_from: z.number(), source: z.string() }).describe('a rate is at_risk from at_risk_from, critical from critical_from (fractions)');
const DeliverabilityOut = z
  .object({
    channel: z.literal('email'),
    windows: perWindow(
      z.object({
        from: Day,
        to: Day,
        sent: z.int(),
        delivered: z.int(),
        bounced: z.int(),
        complaints: z.int(),
        bounce_rate: Rate('bounced / sent'),
        complaint_rate: Rate('complaints / delivered'),
      }),
    ).describe('the last 7 and 30 days, today (UTC) included'),
    health: z.object({
      status: z.enum(['healthy', 'at_risk', 'critical', 'insufficient_data'] satisfies HealthStatus[]),
      reasons: z.array(
        z.object({
          metric: z.enum(['complaint_rate', 'bounce_rate', 'delivered'] satisfies HealthReason['metric'][]),
          window: z.string(),
          status: z.enum(['at_risk', 'critical', 'insufficient_data'] satisfies HealthReason['status'][]),
          message: z.string(),
        }),
      ),
    }),
    thresholds: z.object({ complaint_rate: Threshold, bounce_rate: Threshold, min_delivered: z.int().describe('fewer delivered emails in 30 days and no verdict is given') }),
  })
  .meta({ id: 'DeliverabilityReport', description: 'Email bounce and complaint rates over the last 7 and 30 days, judged against the bulk-sender thresholds' });

const ChannelDeliverabilityOut = z
  .object({
    windows: perWindow(z.object({ from: Day, to: Day })).describe('the days each window covers, today (UTC) included'),
    channels: z.array(
      z.object({
        channel: z.enum(CHANNELS),
        windows: perWindow(
          z.object({ sent: z.int(), delivered: z.int(), failed: z.int(), delivery_rate: Rate('delivered / (delivered + failed)'), failure_rate: Rate('failed / (delivered + failed)') }),
        ),
      }),
    ),
  })
  .meta({ id: 'ChannelDeliverabilityReport', description: 'Delivery and failure rates of every channel over the last 7 and 30 days' });

export function analyticsRoutes({ engage }: AppDeps): AnyRoute[] {
  /** A report of the caller's account, made from the query and the time now. */
  const report = <Q>(
    url: string,
    operationId: string,
    summary: string,
    query: ZodType<Q>,
    answer: ZodType,
    make: (accountId: string, query: Q, now: Date) => Promise<unknown>,
  ) =>
    defineRoute({
      method: 'GET',
      url,
      auth: 'key_or_login',
      operationId,
      summary,
      tags: TAGS,
      query,
      responses: { 200: answer },
      async handler({ query, auth }) {
        return make(auth.accountId, query, engage.clock.now());
      },
    });
  return [
    report(
      '/v1/account/analytics',
      'getAnalytics',
      'Sent, delivered, failed and clicked per UTC day and channel over from..to (inclusive; default the last 30 days; at most 366), zero-filled, with totals and rates',
      AnalyticsQuery,
      AnalyticsOut,
      (accountId, query, now) => analyticsReport(engage.pool, accountId, resolveRange(query, now), query.channel),
    ),
    report(
      '/v1/account/list-growth',
      'getListGrowth',
      'New, unsubscribed, resubscribed and deleted contacts per UTC day over from..to, the net change and the running number of contacts',
      GrowthQuery,
      ListGrowthOut,
      (accountId, query, now) => listGrowthReport(engage.pool, accountId, resolveRange(query, now)),
    ),
    report(
      '/v1/account/deliverability',
      'getDeliverability',
      'Email bounce and complaint rates over the last 7 and 30 days, and health against the bulk-sender thresholds',
      NoQuery,
      DeliverabilityOut,
      (accountId, _query, now) => deliverabilityReport(engage.pool, accountId, now),
    ),
    report(
      '/v1/account/channel-deliverability',
      'getChannelDeliverability',
      'Delivery and failure rates of every channel (sms, rcs, whatsapp, voice, email, push) over the last 7 and 30 days',
      NoQuery,
      ChannelDeliverabilityOut,
      (accountId, _query, now) => channelDeliverabilityReport(engage.pool, accountId, now),
    ),
  ];
}
