// The fastify application: plugins in order (request id, errors, auth, rate limits, idempotency)
// and every area's routes.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Engage } from '../context.ts';
import { newUlid } from '../ids.ts';
import { type AnyRoute, openApiDocument, registerRoutes } from './route.ts';
import { Authenticator, authPlugin } from './plugins/auth.ts';
import { errorsPlugin } from './plugins/errors.ts';
import { idempotencyPlugin } from './plugins/idempotency.ts';
import { type CounterStore, MemoryCounters, rateLimitPlugin } from './plugins/rate-limit.ts';
import { accountRoutes } from './routes/account.ts';
import { authRoutes } from './routes/auth.ts';
import { contactRoutes } from './routes/contacts.ts';
import { healthRoutes } from './routes/health.ts';
import { messageRoutes } from './routes/messages.ts';
import { webhookEndpointRoutes } from './routes/webhook-endpoints.ts';
import { providerWebhookRoutes } from './routes/provider-webhooks.ts';

export const JSON_BODY_LIMIT = 10 * 1024 * 1024;

export interface AppDeps {
  engage: Engage;
  authenticator: Authenticator;
  counters?: CounterStore;
  /** extra route groups (added by later areas) */
  routes?: ((deps: AppDeps) => AnyRoute[])[];
}

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { engage } = deps;
  const app = Fastify({
    loggerInstance: engage.log as FastifyBaseLogger,
    bodyLimit: JSON_BODY_LIMIT,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : newUlid();
    },
    routerOptions: { ignoreTrailingSlash: true },
  }) as unknown as FastifyInstance;
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });
  errorsPlugin(app);
  // preHandler hooks run in registration order: auth first, so the per-account rate limit knows the
  // account; the rate limit before idempotency, so a 429 is never stored as a key's first response
  authPlugin(app, deps.authenticator);
  if (engage.config.RATE_LIMITS_ENABLED) rateLimitPlugin(app, deps.counters ?? new MemoryCounters());
  idempotencyPlugin(app, engage.pool);

  const registry: AnyRoute[] = [];
  const groups = [healthRoutes, authRoutes, accountRoutes, contactRoutes, messageRoutes, webhookEndpointRoutes, ...(deps.routes ?? [])];
  for (const group of groups) registerRoutes(app, group(deps), registry);
  // inbound provider callbacks: a child context with raw-body parsers (signatures), outside the OpenAPI document
  await app.register(providerWebhookRoutes(deps));

  const document = openApiDocument(registry);
  app.get('/v1/openapi.json', { config: { auth: 'none', rateGroup: 'none' } }, async () => document);
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  return app;
}
