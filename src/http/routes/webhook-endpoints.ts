// Webhook endpoints for platform events (/v1/webhook-endpoints), their deliveries, and the
// account's per-message signing secret (/v1/account/webhook-secret).
import { z } from 'zod';
import { type EndpointStatus, PLATFORM_EVENTS, webhookEndpointDecider, webhookEndpointStream, type PlatformEvent } from '../../../commands/webhook-endpoint.ts';
import {
  type DeliveryStatus, findWebhookEndpoint, listEndpointDeliveries, listWebhookEndpoints, retryDeliveryNow, type WebhookDelivery, type WebhookEndpointRow,
} from '../../../projections/webhook-outbox.ts';
import { handleCommand, runCommand } from '../../command-handler.ts';
import { conflict, invalidField, notFound, validationError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { newSigningSecret } from '../../webhooks/signing.ts';
import { seal } from '../../seal.ts';
import { checkWebhookUrl } from '../../webhooks/ssrf.ts';
import { announceRevocation } from '../../webhooks/revocations.ts';
import { accountWebhookSecret, endpointSecret } from '../../webhooks/signing-secrets.ts';
import { DeliveryClient } from '../../webhooks/delivery.ts';
import type { AppDeps } from '../deps.ts';
import { Deleted, IdCursor, iso, metadataOf, pageAfter, pageQuery } from '../common.ts';
import { DateTime, Page } from '../openapi.ts';
import { type AnyRoute, defineRoute } from '../route.ts';
import { webhookReplayRoutes } from './webhook-replays.ts';

const OUTBOX = ['webhook_outbox'];
/**
 * Aiming the account's events at a URL (an endpoint's url, events or status, a retry, a replay)
 * sends its data out of the service: write to change, and read for the data (README "API conventions").
 */
export const SENDS_DATA_OUT = ['write', 'read'] as const;
const IdParams = z.object({ id: z.string().max(64) });
const EventList = z.array(z.string()).max(PLATFORM_EVENTS.length * 2);

const CATALOGUE: { name: PlatformEvent; description: string }[] = [
  { name: 'contact.created', description: 'a contact is created' },
  { name: 'contact.updated', description: 'fields or traits of a contact change' },
  { name: 'contact.unsubscribed', description: 'a contact opts out (unsubscribe flow or SMS STOP)' },
  { name: 'contact.bounced', description: 'email feedback reports a bounce for the contact' },
  { name: 'message.delivered', description: 'a message is confirmed delivered' },
  { name: 'message.failed', description: 'a message fails permanently' },
  { name: 'message.received', description: 'an inbound email reply arrives' },
  { name: 'email.opened', description: 'a reader opens an HTML email (its open pixel is fetched; machine opens are left out)' },
  { name: 'campaign.sent', description: 'a campaign has finished sending' },
  { name: 'form.submitted', description: 'a hosted form is submitted; fires on every submission' },
];

/** A write met another on the same stream on every retry (write conflict). */
const WRITE_CONFLICT = 409;

const EndpointFields = {
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(PLATFORM_EVENTS)).describe('the events it receives (empty: every one)'),
  status: z.enum(['active', 'disabled'] satisfies EndpointStatus[]),
  created_at: DateTime,
};
const WebhookEndpointOut = z
  .object({ ...EndpointFields, updated_at: DateTime })
  .meta({ id: 'WebhookEndpoint', description: 'A webhook endpoint: where the platform events it subscribes to are delivered, signed' });

const WebhookDeliveryOut = z
  .object({
    id: z.string(),
    endpoint_id: z.string(),
    event_id: z.string(),
    event: z.enum(PLATFORM_EVENTS),
    status: z.enum(['pending', 'delivered', 'failed', 'cancelled'] satisfies DeliveryStatus[]),
    attempts: z.int(),
    status_code: z.int().nullable().describe("the receiver's status code at the last attempt"),
    latency_ms: z.int().nullable(),
    error: z.string().nullable().describe('why the last attempt failed'),
    next_attempt_at: DateTime.nullable().describe('pending only'),
    created_at: DateTime,
    delivered_at: DateTime.nullable(),
    replay_id: z.string().nullable().describe('the replay that made it (null: a live delivery)'),
  })
  .meta({ id: 'WebhookDelivery', description: 'A delivery of one event to an endpoint, and its attempts' });

const SecretOut = z.object({ secret: z.string().describe('whsec_…') });

const endpointOut = (r: WebhookEndpointRow) => ({ id: r.id, url: r.url, events: r.events, status: r.status, created_at: iso(r.created_at), updated_at: iso(r.updated_at) });

function checkEvents(events: string[] | undefined): PlatformEvent[] | undefined {
  if (events === undefined) return undefined;
  const unknown = events.filter((e) => !(PLATFORM_EVENTS as readonly string[]).includes(e));
  if (unknown.length) {
    throw validationError(`unknown event ${unknown.join(', ')}; valid events: ${PLATFORM_EVENTS.join(', ')}`, [
      { path: 'events', message: `unknown: ${unknown.join(', ')}; valid: ${PLATFORM_EVENTS.join(', ')}` },
    ]);
  }
  return [...new Set(events)] as PlatformEvent[];
}

export function webhookEndpointRoutes(deps: AppDeps): AnyRoute[] {
  const { engage } = deps;
  const allowPrivate = engage.config.OUTBOUND_ALLOW_PRIVATE;
  const checkUrl = (url: string | undefined) => {
    if (url === undefined) return;
    if (url.length > 2048) throw invalidField('url', 'must be at most 2048 characters');
    const problem = checkWebhookUrl(url, allowPrivate);
    if (problem) throw invalidField('url', problem);
  };
  async function own(accountId: string, id: string): Promise<WebhookEndpointRow> {
    const endpoint = await findWebhookEndpoint(engage.pool, accountId, id);
    if (!endpoint) throw notFound('webhook endpoint');
    return endpoint;
  }

  return [
    defineRoute({
      method: 'GET',
      url: '/v1/webhook-endpoints',
      auth: 'key_or_login',
      operationId: 'listWebhookEndpoints',
      summary: "The account's webhook endpoints and the catalogue of subscribable events",
      tags: ['webhooks'],
      responses: {
        200: z.object({
          data: z.array(WebhookEndpointOut).describe('every endpoint of the account'),
          next_cursor: z.null().describe('always null: one page'),
          events: z.array(z.object({ name: z.enum(PLATFORM_EVENTS), description: z.string() })).describe('the events an endpoint can subscribe to'),
        }),
      },
      async handler({ auth }) {
        const endpoints = await listWebhookEndpoints(engage.pool, auth.accountId);
        return { data: endpoints.map(endpointOut), next_cursor: null, events: CATALOGUE };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      auth: 'key_or_login',
      operationId: 'createWebhookEndpoint',
      summary: 'Register an endpoint; the whsec_ signing secret is returned once',
      scope: SENDS_DATA_OUT,
      tags: ['webhooks'],
      body: z.strictObject({ url: z.string().min(1), events: EventList.optional() }),
      responses: {
        201: z
          .object({ ...EndpointFields, status: z.literal('active'), secret: z.string().describe('the whsec_ signing secret: shown this once') })
          .describe('the endpoint, with its signing secret'),
      },
      async handler({ body, auth, req, reply }) {
        checkUrl(body.url);
        const events = checkEvents(body.events) ?? [];
        const id = newId('webhookEndpoint');
        const secret = newSigningSecret();
        const secretSealed = await seal(engage.pool, secret);
        const result = await runCommand(engage, metadataOf(req), OUTBOX, {
          decider: webhookEndpointDecider,
          streamId: webhookEndpointStream(id),
          command: { type: 'Create', id, accountId: auth.accountId, url: body.url, events, secretSealed, now: engage.clock.now() },
        });
        reply.code(201);
        const created = result.events[0].data as { created_at: string };
        return { id, url: body.url, events, status: 'active', secret, created_at: created.created_at };
      },
    }),
    defineRoute({
      method: 'PATCH',
      url: '/v1/webhook-endpoints/:id',
      auth: 'key_or_login',
      operationId: 'updateWebhookEndpoint',
      summary: 'Change url, events or status (active | disabled)',
      scope: SENDS_DATA_OUT,
      tags: ['webhooks'],
      params: IdParams,
      body: z.strictObject({ url: z.string().min(1).optional(), events: EventList.optional(), status: z.enum(['active', 'disabled']).optional() }),
      responses: { 200: WebhookEndpointOut },
      errors: [WRITE_CONFLICT],
      async handler({ params, body, auth, req }) {
        checkUrl(body.url);
        const events = checkEvents(body.events);
        await runCommand(engage, metadataOf(req), OUTBOX, async (metadata) => {
          const result = await handleCommand(engage.store, webhookEndpointDecider, webhookEndpointStream(params.id), {
            type: 'Update', accountId: auth.accountId, url: body.url, events, status: body.status, now: engage.clock.now(),
          }, metadata);
          // stored: what senders claimed before is not sent, even before the outbox has it (README "Webhooks")
          if (result.events.some((e) => e.type === 'WebhookEndpointUpdated' && e.data.status === 'disabled')) await announceRevocation(engage.pool, params.id);
          return result;
        });
        return endpointOut(await own(auth.accountId, params.id));
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/webhook-endpoints/:id',
      auth: 'key_or_login',
      operationId: 'deleteWebhookEndpoint',
      summary: 'Remove an endpoint',
      tags: ['webhooks'],
      params: IdParams,
      responses: { 200: Deleted },
      errors: [WRITE_CONFLICT],
      async handler({ params, auth, req }) {
        await runCommand(engage, metadataOf(req), OUTBOX, async (metadata) => {
          const result = await handleCommand(engage.store, webhookEndpointDecider, webhookEndpointStream(params.id), { type: 'Delete', accountId: auth.accountId, now: engage.clock.now() }, metadata);
          await announceRevocation(engage.pool, params.id);
          return result;
        });
        return { id: params.id, deleted: true };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/webhook-endpoints/:id/test',
      auth: 'key_or_login',
      operationId: 'testWebhookEndpoint',
      summary: "Deliver a ping now; returns the receiver's status code and latency",
      tags: ['webhooks'],
      params: IdParams,
      body: z.strictObject({}).optional(),
      responses: {
        200: z
          .object({
            ok: z.boolean().describe('the receiver answered 2xx'),
            status_code: z.int().nullable().describe("the receiver's status code (null: no answer)"),
            latency_ms: z.int(),
            error: z.string().nullable(),
            event_id: z.string(),
          })
          .describe("the ping's outcome"),
      },
      async handler({ params, auth }) {
        const ep = await own(auth.accountId, params.id);
        const secret = (await endpointSecret(engage, ep.id))!;
        const client = new DeliveryClient(engage.config.WEBHOOK_TIMEOUT_MS, allowPrivate);
        const eventId = `evt_ping_${newId('delivery').slice(4)}`;
        const now = engage.clock.now();
        const body = JSON.stringify({ id: eventId, type: 'ping', created_at: now.toISOString(), account_id: auth.accountId, data: { endpoint_id: ep.id } });
        const result = await client.post(ep.url, secret, eventId, 'ping', body, now).finally(() => client.close());
        return { ok: result.ok, status_code: result.statusCode ?? null, latency_ms: result.latencyMs, error: result.error ?? null, event_id: eventId };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/webhook-endpoints/:id/deliveries',
      auth: 'key_or_login',
      operationId: 'listWebhookDeliveries',
      summary: 'Recent delivery attempts of an endpoint: event, status code, latency, next attempt',
      tags: ['webhooks'],
      params: IdParams,
      query: z.strictObject({ ...pageQuery, status: z.enum(['pending', 'delivered', 'failed', 'cancelled']).optional() }),
      responses: { 200: Page(WebhookDeliveryOut) },
      async handler({ params, query, auth }) {
        await own(auth.accountId, params.id);
        const list = (after: { id: string } | undefined, limit: number) =>
          listEndpointDeliveries(engage.pool, { endpointId: params.id, accountId: auth.accountId, before: after?.id, status: query.status, limit });
        return pageAfter(query, IdCursor, list, deliveryOut, (r) => ({ id: r.id }));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/webhook-endpoints/:id/deliveries/:deliveryId/retry',
      auth: 'key_or_login',
      operationId: 'retryWebhookDelivery',
      summary: 'Deliver again now (a failed delivery, or one waiting for its next retry)',
      scope: SENDS_DATA_OUT,
      tags: ['webhooks'],
      params: z.object({ id: z.string().max(64), deliveryId: z.string().max(64) }),
      body: z.strictObject({}).optional(),
      responses: { 202: WebhookDeliveryOut.describe('the delivery, due now') },
      async handler({ params, auth, reply }) {
        await own(auth.accountId, params.id);
        const outcome = await retryDeliveryNow(engage.pool, { deliveryId: params.deliveryId, endpointId: params.id, accountId: auth.accountId, now: engage.clock.now() });
        if ('refused' in outcome) {
          if (outcome.refused === 'not_found') throw notFound('delivery');
          if (outcome.refused === 'delivered') throw conflict('this delivery already succeeded', { status: 'delivered' });
          throw conflict('this delivery is being attempted right now', { status: outcome.status });
        }
        reply.code(202);
        return deliveryOut(outcome.retried);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/webhook-secret',
      auth: 'key_or_login',
      scope: 'settings',
      operationId: 'getWebhookSecret',
      summary: 'The signing secret of per-message delivery webhooks (created on first request)',
      tags: ['webhooks'],
      responses: { 200: SecretOut },
      async handler({ auth }) {
        return { secret: await accountWebhookSecret(engage, auth.accountId, { actor: auth.actor }) };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/account/webhook-secret/rotate',
      auth: 'key_or_login',
      scope: 'settings',
      operationId: 'rotateWebhookSecret',
      summary: 'Issue a new per-message signing secret; deliveries from now on use it',
      tags: ['webhooks'],
      body: z.strictObject({}).optional(),
      responses: { 200: SecretOut.describe('the new secret') },
      async handler({ auth }) {
        return { secret: await accountWebhookSecret(engage, auth.accountId, { rotate: true, actor: auth.actor }) };
      },
    }),
    ...webhookReplayRoutes(deps),
  ];
}

export const deliveryOut = (r: WebhookDelivery) => ({
  id: r.id,
  endpoint_id: r.endpoint_id,
  event_id: r.event_id,
  event: r.event_type,
  status: r.status,
  attempts: r.attempts,
  status_code: r.last_status_code,
  latency_ms: r.last_latency_ms,
  error: r.last_error,
  next_attempt_at: r.status === 'pending' ? iso(r.next_attempt_at) : null,
  created_at: iso(r.created_at),
  delivered_at: iso(r.delivered_at),
  replay_id: r.replay_id ?? null,
});
