// Account analytics (README "Analytics and deliverability"): message counts per day and channel,
// list growth, email deliverability and per-channel delivery, all read from rebuildable read models.
import { z, type ZodType } from 'zod';
import { CHANNELS } from '../../../commands/message.ts';
import { RangeQuery, resolveRange } from '../../analytics/range.ts';
import { analyticsReport, channelDeliverabilityReport, deliverabilityReport, listGrowthReport } from '../../analytics/reports.ts';
import type { AppDeps } from '../deps.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const TAGS = ['account analytics'];
const AnalyticsQuery = z.strictObject({ ...RangeQuery, channel: z.enum(CHANNELS).optional() });
const GrowthQuery = z.strictObject(RangeQuery);
const NoQuery = z.strictObject({});

export function analyticsRoutes({ engage }: AppDeps): AnyRoute[] {
  /** A report of the caller's account, made from the query and the time now. */
  const report = <Q>(url: string, summary: string, query: ZodType<Q>, make: (accountId: string, query: Q, now: Date) => Promise<unknown>) =>
    defineRoute({
      method: 'GET',
      url,
      auth: 'key_or_login',
      summary,
      tags: TAGS,
      query,
      async handler({ query, auth }) {
        return make(auth.accountId, query, engage.clock.now());
      },
    });
  return [
    report(
      '/v1/account/analytics',
      'Sent, delivered, failed and clicked per UTC day and channel over from..to (inclusive; default the last 30 days; at most 366), zero-filled, with totals and rates',
      AnalyticsQuery,
      (accountId, query, now) => analyticsReport(engage.pool, accountId, resolveRange(query, now), query.channel),
    ),
    report(
      '/v1/account/list-growth',
      'New, unsubscribed, resubscribed and deleted contacts per UTC day over from..to, the net change and the running number of contacts',
      GrowthQuery,
      (accountId, query, now) => listGrowthReport(engage.pool, accountId, resolveRange(query, now)),
    ),
    report(
      '/v1/account/deliverability',
      'Email bounce and complaint rates over the last 7 and 30 days, and health against the bulk-sender thresholds',
      NoQuery,
      (accountId, _query, now) => deliverabilityReport(engage.pool, accountId, now),
    ),
    report(
      '/v1/account/channel-deliverability',
      'Delivery and failure rates of every channel (sms, rcs, whatsapp, voice, email, push) over the last 7 and 30 days',
      NoQuery,
      (accountId, _query, now) => channelDeliverabilityReport(engage.pool, accountId, now),
    ),
  ];
}
