// Webhook replays of an endpoint (/v1/webhook-endpoints/:id/replay, …/replays): re-deliver the
// account's platform events from a window of the log, follow the job, cancel it (README "Webhook replay").
import { z } from 'zod';
import { PLATFORM_EVENTS } from '../../../commands/webhook-endpoint.ts';
import type { ReplayStatus } from '../../../commands/webhook-replay.ts';
import { cancelReplay, getReplay, listEndpointReplays, requestReplay } from '../../webhooks/replays.ts';
import type { AppDeps } from '../deps.ts';
import { metadataOf, pageById, pageQuery } from '../common.ts';
import { DateTime, Page } from '../openapi.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const EndpointParams = z.object({ id: z.string().max(64) });
const ReplayParams = z.object({ id: z.string().max(64), replayId: z.string().max(64) });
const Bound = z.string().min(1).max(64);

const WebhookReplayOut = z
  .object({
    id: z.string(),
    endpoint_id: z.string(),
    status: z.enum(['scanning', 'delivering', 'completed', 'cancelled'] satisfies ReplayStatus[]),
    from: z.string().describe('the log position the window starts at'),
    until: z.string().describe('the log position the window ends at'),
    from_input: z.string().describe('`from` as given'),
    until_input: z.string().nullable().describe('`until` as given (null: the end of the log when asked)'),
    types: z.array(z.enum(PLATFORM_EVENTS)).describe('the events it delivers'),
    found: z.int().describe('events found in the window so far'),
    delivered: z.int(),
    failed: z.int(),
    pending: z.int(),
    cancelled: z.int(),
    cancel_reason: z.string().nullable(),
    created_at: DateTime,
    completed_at: DateTime.nullable(),
  })
  .meta({ id: 'WebhookReplay', description: "A replay of the account's events from a window of the log to an endpoint, with its deliveries by status" });

export function webhookReplayRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/webhook-endpoints/:id/replay',
      auth: 'key_or_login',
      operationId: 'createWebhookReplay',
      summary: "Re-deliver the account's platform events from a window of the log (RFC 3339 times or log positions) to this endpoint",
      // re-sends the account's data: read as well as write (README "API conventions")
      scope: ['write', 'read'],
      tags: ['webhooks'],
      params: EndpointParams,
      body: z.strictObject({ from: Bound, until: Bound.optional(), types: z.array(z.string().max(64)).max(64).optional() }),
      responses: { 202: WebhookReplayOut.describe('the replay, scanning the log') },
      async handler({ params, body, auth, req, reply }) {
        const replay = await requestReplay(engage, auth.accountId, params.id, body, metadataOf(req));
        reply.code(202);
        return replay;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/webhook-endpoints/:id/replays',
      auth: 'key_or_login',
      operationId: 'listWebhookReplays',
      summary: "An endpoint's replays, newest first, with their progress",
      tags: ['webhooks'],
      params: EndpointParams,
      query: z.strictObject(pageQuery),
      responses: { 200: Page(WebhookReplayOut) },
      async handler({ params, query, auth }) {
        return pageById(query, (range) => listEndpointReplays(engage, auth.accountId, params.id, range), (r) => r);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/webhook-endpoints/:id/replays/:replayId',
      auth: 'key_or_login',
      operationId: 'getWebhookReplay',
      summary: 'A replay: status (scanning, delivering, completed, cancelled) and events found, delivered, failed, pending',
      tags: ['webhooks'],
      params: ReplayParams,
      responses: { 200: WebhookReplayOut },
      async handler({ params, auth }) {
        return getReplay(engage, auth.accountId, params.id, params.replayId);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/webhook-endpoints/:id/replays/:replayId/cancel',
      auth: 'key_or_login',
      operationId: 'cancelWebhookReplay',
      summary: 'Cancel a replay: its deliveries still to be made are cancelled',
      tags: ['webhooks'],
      params: ReplayParams,
      body: z.strictObject({}).optional(),
      responses: { 200: WebhookReplayOut.describe('the replay, cancelled') },
      async handler({ params, auth, req }) {
        return cancelReplay(engage, auth.accountId, params.id, params.replayId, metadataOf(req));
      },
    }),
  ];
}
