// Account analytics (README "Analytics and deliverability"): message counts per day and channel,
// list growth, email deliverability and per-channel delivery, all read from rebuildable read models.
import { z } from 'zod';
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
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/account/analytics',
      auth: 'key_or_login',
      summary: 'Sent, delivered, failed and clicked per UTC day and channel over from..to (inclusive; default the last 30 days; at most 366), zero-filled, with totals and rates',
      tags: TAGS,
      query: AnalyticsQuery,
      async handler({ query, auth }) {
        const range = resolveRange(query, engage.clock.now());
        return analyticsReport(engage.pool, auth.accountId, range, query.channel);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/list-growth',
      auth: 'key_or_login',
      summary: 'New, unsubscribed, resubscribed and deleted contacts per UTC day over from..to, the net change and the running number of contacts',
      tags: TAGS,
      query: GrowthQuery,
      async handler({ query, auth }) {
        const range = resolveRange(query, engage.clock.now());
        return listGrowthReport(engage.pool, auth.accountId, range);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/deliverability',
      auth: 'key_or_login',
      summary: 'Email bounce and complaint rates over the last 7 and 30 days, and health against the bulk-sender thresholds',
      tags: TAGS,
      query: NoQuery,
      async handler({ auth }) {
        return deliverabilityReport(engage.pool, auth.accountId, engage.clock.now());
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/channel-deliverability',
      auth: 'key_or_login',
      summary: 'Delivery and failure rates of every channel (sms, rcs, whatsapp, voice, email, push) over the last 7 and 30 days',
      tags: TAGS,
      query: NoQuery,
      async handler({ auth }) {
        return channelDeliverabilityReport(engage.pool, auth.accountId, engage.clock.now());
      },
    }),
  ];
}
