// Integrations (/v1/integrations): POST per README "Integrations" (key or login; the API key is tried first, then
// the session token), with listing (read) and removal; adding and removing need settings.
import { z } from 'zod';
import { INTEGRATION_PROVIDERS } from '../../../commands/integration.ts';
import { listIntegrations } from '../../../projections/integrations.ts';
import { runCommand } from '../../command-handler.ts';
import { PROVIDERS, checkedCredentials, createIntegration, integrationOut, removeIntegration } from '../../integrations/service.ts';
import type { AppDeps } from '../deps.ts';
import { Deleted, metadataOf, pageById, pageQuery } from '../common.ts';
import { Page } from '../openapi.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const INTEGRATIONS = ['integrations'];
const CreateBody = z.strictObject({
  provider: z.enum(INTEGRATION_PROVIDERS),
  name: z.string().min(1).max(100).optional(),
  credentials: z
    .record(z.string(), z.union([z.string().max(65_536), z.record(z.string(), z.unknown())]))
    .describe(
      "the provider's credentials (README \"Integrations\"): smtp {url, from?}; sendgrid {api_key}; twilio {account_sid, auth_token, from?}; " +
        'twilio_voice {account_sid, auth_token, from?}; twilio_rcs {account_sid, auth_token, messaging_service_sid}; ' +
        'whatsapp_cloud {phone_number_id, access_token}; fcm {service_account: the service account key file, as its JSON object or text}; ' +
        "apns {key_p8: the .p8 key's PEM, key_id, team_id, topic: the app's bundle id, environment?: production | sandbox}",
    ),
});

/** The channels the providers carry. */
const CHANNELS = [...new Set(Object.values(PROVIDERS).map((p) => p.channel))] as [string, ...string[]];

const IntegrationOut = z
  .object({
    id: z.string(),
    provider: z.enum(INTEGRATION_PROVIDERS),
    channel: z.enum(CHANNELS).describe("the channel whose messages go through the provider"),
    name: z.string(),
    credentials: z.object({ hint: z.string().describe('identifies the credentials without giving any of them away') }),
    created_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'Integration', description: 'A provider integration: its credentials are sealed and never shown, only a hint' });

export function integrationRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/integrations',
      auth: 'key_then_login',
      operationId: 'createIntegration',
      // it reroutes the channel's messages (one-time codes included): settings (README "Integrations")
      scope: 'settings',
      summary: "Create an integration with a provider; its credentials are checked by the provider's shape, sealed, and never shown again",
      tags: ['integrations'],
      body: CreateBody,
      responses: { 201: IntegrationOut },
      async handler({ body, auth, req, reply }) {
        const credentials = checkedCredentials(body.provider, body.credentials, engage.config.OUTBOUND_ALLOW_PRIVATE);
        const { integration } = await runCommand(engage, metadataOf(req), INTEGRATIONS, (metadata) => createIntegration(engage, auth.accountId, { ...body, credentials }, metadata));
        reply.code(201);
        return integration;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/integrations',
      auth: 'key_then_login',
      operationId: 'listIntegrations',
      summary: "The account's integrations, newest first (credentials shown as a hint only)",
      tags: ['integrations'],
      query: z.strictObject(pageQuery),
      responses: { 200: Page(IntegrationOut) },
      async handler({ query, auth }) {
        return pageById(query, (range) => listIntegrations(engage.pool, auth.accountId, range), integrationOut);
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/integrations/:id',
      auth: 'key_then_login',
      operationId: 'deleteIntegration',
      scope: 'settings',
      summary: 'Remove an integration and its credentials',
      tags: ['integrations'],
      params: z.object({ id: z.string().max(64) }),
      responses: { 200: Deleted },
      // a write that met another on the same stream on every retry (write conflict)
      errors: [409],
      async handler({ params, auth, req }) {
        await runCommand(engage, metadataOf(req), INTEGRATIONS, (metadata) => removeIntegration(engage, auth.accountId, params.id, metadata));
        return { id: params.id, deleted: true };
      },
    }),
  ];
}
