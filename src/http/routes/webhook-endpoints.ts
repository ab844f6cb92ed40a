// Webhook endpoints for platform events (/v1/webhook-endpoints), their deliveries, and the
// account's per-message signing secret (/v1/account/webhook-secret).
import { z } from 'zod';
import { PLATFORM_EVENTS, webhookEndpointDecider, webhookEndpointStream, type PlatformEvent } from '../../../commands/webhook-endpoint.ts';
import { handleCommand } from '../../decider.ts';
import { conflict, invalidField, notFound, validationError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { newSigningSecret } from '../../webhooks/signing.ts';
import { seal } from '../../seal.ts';
import { checkWebhookUrl } from '../../webhooks/ssrf.ts';
import { accountWebhookSecret, endpointSecret } from '../../webhooks/secrets.ts';
import { DeliveryClient } from '../../webhooks/delivery.ts';
import type { AppDeps } from '../deps.ts';
import { IdCursor, decodeCursor, iso, metadataOf, page, pageQuery, settle } from '../common.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const OUTBOX = ['webhook_outbox'];
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
  { name: 'campaign.sent', description: 'a campaign has finished sending' },
  { name: 'form.submitted', description: 'a hosted form is submitted' },
];

interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  status: string;
  created_at: Date;
  updated_at: Date;
}

const endpointOut = (r: EndpointRow) => ({ id: r.id, url: r.url, events: r.events, status: r.status, created_at: iso(r.created_at), updated_at: iso(r.updated_at) });

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

export function webhookEndpointRoutes({ engage }: AppDeps): AnyRoute[] {
  const allowPrivate = engage.config.WEBHOOK_ALLOW_PRIVATE;
  const checkUrl = (url: string | undefined) => {
    if (url === undefined) return;
    if (url.length > 2048) throw invalidField('url', 'must be at most 2048 characters');
    const problem = checkWebhookUrl(url, allowPrivate);
    if (problem) throw invalidField('url', problem);
  };
  async function own(accountId: string, id: string): Promise<EndpointRow> {
    const { rows } = await engage.pool.query<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = $1 AND account_id = $2', [id, accountId]);
    if (!rows[0]) throw notFound('webhook endpoint');
    return rows[0];
  }

  return [
    defineRoute({
      method: 'GET',
      url: '/v1/webhook-endpoints',
      auth: 'key_or_login',
      summary: "The account's webhook endpoints and the catalogue of subscribable events",
      tags: ['webhooks'],
      async handler({ auth }) {
        const { rows } = await engage.pool.query<EndpointRow>('SELECT * FROM webhook_endpoints WHERE account_id = $1 ORDER BY id', [auth.accountId]);
        return { data: rows.map(endpointOut), next_cursor: null, events: CATALOGUE };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      auth: 'key_or_login',
      summary: 'Register an endpoint; the whsec_ signing secret is returned once',
      tags: ['webhooks'],
      body: z.strictObject({ url: z.string().min(1), events: EventList.optional() }),
      async handler({ body, auth, req, reply }) {
        checkUrl(body.url);
        const events = checkEvents(body.events) ?? [];
        const id = newId('webhookEndpoint');
        const secret = newSigningSecret();
        const result = await handleCommand(
          engage.store,
          webhookEndpointDecider,
          webhookEndpointStream(id),
          { type: 'Create', id, accountId: auth.accountId, url: body.url, events, secretSealed: await seal(engage.pool, secret), now: engage.clock.now() },
          metadataOf(req),
        );
        await settle(engage, OUTBOX, result.position);
        reply.code(201);
        const created = result.events[0].data as { created_at: string };
        return { id, url: body.url, events, status: 'active', secret, created_at: created.created_at };
      },
    }),
    defineRoute({
      method: 'PATCH',
      url: '/v1/webhook-endpoints/:id',
      auth: 'key_or_login',
      summary: 'Change url, events or status (active | disabled)',
      tags: ['webhooks'],
      params: IdParams,
      body: z.strictObject({ url: z.string().min(1).optional(), events: EventList.optional(), status: z.enum(['active', 'disabled']).optional() }),
      async handler({ params, body, auth, req }) {
        checkUrl(body.url);
        const events = checkEvents(body.events);
        const result = await handleCommand(
          engage.store,
          webhookEndpointDecider,
          webhookEndpointStream(params.id),
          { type: 'Update', accountId: auth.accountId, url: body.url, events, status: body.status, now: engage.clock.now() },
          metadataOf(req),
        );
        await settle(engage, OUTBOX, result.position);
        return endpointOut(await own(auth.accountId, params.id));
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/webhook-endpoints/:id',
      auth: 'key_or_login',
      summary: 'Remove an endpoint',
      tags: ['webhooks'],
      params: IdParams,
      async handler({ params, auth, req }) {
        const result = await handleCommand(
          engage.store,
          webhookEndpointDecider,
          webhookEndpointStream(params.id),
          { type: 'Delete', accountId: auth.accountId, now: engage.clock.now() },
          metadataOf(req),
        );
        await settle(engage, OUTBOX, result.position);
        return { id: params.id, deleted: true };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/webhook-endpoints/:id/test',
      auth: 'key_or_login',
      summary: "Deliver a ping now; returns the receiver's status code and latency",
      tags: ['webhooks'],
      params: IdParams,
      body: z.strictObject({}).optional(),
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
      summary: 'Recent delivery attempts of an endpoint: event, status code, latency, next attempt',
      tags: ['webhooks'],
      params: IdParams,
      query: z.strictObject({ ...pageQuery, status: z.enum(['pending', 'delivered', 'failed', 'cancelled']).optional() }),
      async handler({ params, query, auth }) {
        await own(auth.accountId, params.id);
        const after = decodeCursor(query.cursor, IdCursor);
        const { rows } = await engage.pool.query(
          `SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 AND account_id = $2 AND ($3::text IS NULL OR id < $3) AND ($4::text IS NULL OR status = $4)
           ORDER BY id DESC LIMIT $5`,
          [params.id, auth.accountId, after?.id ?? null, query.status ?? null, query.limit + 1],
        );
        return page(rows, query.limit, deliveryOut, (r) => ({ id: r.id }));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/webhook-endpoints/:id/deliveries/:deliveryId/retry',
      auth: 'key_or_login',
      summary: 'Deliver again now (a failed delivery, or one waiting for its next retry)',
      tags: ['webhooks'],
      params: z.object({ id: z.string().max(64), deliveryId: z.string().max(64) }),
      body: z.strictObject({}).optional(),
      async handler({ params, auth, reply }) {
        await own(auth.accountId, params.id);
        // an attempt in flight holds a lease (locked_until): re-arming it would send it twice at once
        const { rows } = await engage.pool.query(
          `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $4, locked_until = NULL, updated_at = $4
           WHERE id = $1 AND endpoint_id = $2 AND account_id = $3 AND status <> 'delivered' AND (locked_until IS NULL OR locked_until < $4) RETURNING *`,
          [params.deliveryId, params.id, auth.accountId, engage.clock.now()],
        );
        if (!rows[0]) {
          const exists = await engage.pool.query('SELECT status FROM webhook_deliveries WHERE id = $1 AND endpoint_id = $2 AND account_id = $3', [params.deliveryId, params.id, auth.accountId]);
          if (!exists.rows[0]) throw notFound('delivery');
          if (exists.rows[0].status === 'delivered') throw conflict('this delivery already succeeded', { status: 'delivered' });
          throw conflict('this delivery is being attempted right now', { status: exists.rows[0].status });
        }
        reply.code(202);
        return deliveryOut(rows[0]);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/webhook-secret',
      auth: 'key_or_login',
      scope: 'settings',
      summary: 'The signing secret of per-message delivery webhooks (created on first request)',
      tags: ['webhooks'],
      async handler({ auth }) {
        return { secret: await accountWebhookSecret(engage, auth.accountId, { actor: auth.actor }) };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/account/webhook-secret/rotate',
      auth: 'key_or_login',
      scope: 'settings',
      summary: 'Issue a new per-message signing secret; deliveries from now on use it',
      tags: ['webhooks'],
      body: z.strictObject({}).optional(),
      async handler({ auth }) {
        return { secret: await accountWebhookSecret(engage, auth.accountId, { rotate: true, actor: auth.actor }) };
      },
    }),
  ];
}

export const deliveryOut = (r: Record<string, any>) => ({
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
});
