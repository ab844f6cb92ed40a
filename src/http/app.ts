// The fastify application: plugins in order (request id, errors, auth, rate limits, idempotency)
// and every area's routes.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { newUlid } from '../ids.ts';
import { type AnyRoute, registerRoutes, routeRules } from './route.ts';
import { dashboardRoutes, defaultDashboardDir } from './dashboard.ts';
import { swaggerOptions } from './openapi.ts';
import { VERSION } from '../version.ts';
import type { AppDeps } from './deps.ts';
import { authPlugin, authorizePlugin } from './plugins/auth.ts';
import { errorsPlugin } from './plugins/errors.ts';
import { idempotencyPlugin } from './plugins/idempotency.ts';
import { MemoryCounters, rateLimitPlugin } from './plugins/rate-limit.ts';
import { accountRoutes } from './routes/account.ts';
import { authRoutes } from './routes/auth.ts';
import { campaignRoutes } from './routes/campaigns.ts';
import { contactRoutes } from './routes/contacts.ts';
import { devicePublicRoutes, deviceRoutes } from './routes/devices.ts';
import { formPublicRoutes, formRoutes } from './routes/forms.ts';
import { conversationRoutes } from './routes/conversations.ts';
import { eventRoutes } from './routes/events.ts';
import { healthRoutes } from './routes/health.ts';
import { importRoutes, importUploadRoutes } from './routes/imports.ts';
import { listRoutes } from './routes/lists.ts';
import { messageRoutes } from './routes/messages.ts';
import { segmentRoutes } from './routes/segments.ts';
import { trackingPublicRoutes, trackingRoutes } from './routes/tracking.ts';
import { unsubscribePageRoutes, unsubscribeRoutes } from './routes/unsubscribes.ts';
import { webhookEndpointRoutes } from './routes/webhook-endpoints.ts';
import { senderRoutes } from './routes/senders.ts';
import { emailDomainRoutes } from './routes/email-domains.ts';
import { integrationRoutes } from './routes/integrations.ts';
import { linkDomainRoutes } from './routes/link-domains.ts';
import { billingRoutes } from './routes/billing.ts';
import { analyticsRoutes } from './routes/analytics.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { aiRoutes } from './routes/ai.ts';
import { historyRoutes } from './routes/history.ts';
import { templateRoutes } from './routes/templates.ts';
import { providerWebhookRoutes } from './routes/providers/index.ts';

export const JSON_BODY_LIMIT = 10 * 1024 * 1024;

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Query parameters whose values are credentials (hub.verify_token, api_key, token, signature, …): never logged. */
const SECRET_PARAM_RE = /token|secret|key|passw|pwd|signature|^sig$|auth|credential|session|code_verifier/i;

/** The URL as logged: the values of secret-bearing query parameters replaced by [redacted]. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url.slice(q + 1).split('&').map((part) => {
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    let name = rawName;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
    } catch {
      /* a malformed escape: judge the raw name */
    }
    return eq >= 0 && SECRET_PARAM_RE.test(name) ? `${rawName}=[redacted]` : part;
  });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

/** fastify's request serializer, with the URL redacted */
function serializeRequest(req: { method: string; url: string; version?: string; host?: string; ip?: string; socket?: { remotePort?: number } }) {
  return { method: req.method, url: redactUrl(req.url), version: req.version, host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}

/** Where the document says the API is: PUBLIC_BASE_URL when set, else this host on PORT. */
function documentServers(config: AppDeps['engage']['config']): { url: string; description: string }[] {
  if (config.PUBLIC_BASE_URL) return [{ url: config.PUBLIC_BASE_URL.replace(/\/$/, ''), description: 'this service (PUBLIC_BASE_URL)' }];
  return [{ url: `http://localhost:${config.PORT}`, description: 'this service on its own machine (set PUBLIC_BASE_URL to name its public address)' }];
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { engage } = deps;
  // one store for every limit, login's per-account one included
  const counters = (deps.counters ??= new MemoryCounters(engage.clock));
  const app = Fastify({
    // request logs carry the URL: secrets passed in query strings (a provider's verify token) are redacted
    loggerInstance: (engage.log as FastifyBaseLogger).child({}, { serializers: { req: serializeRequest as never } }),
    bodyLimit: JSON_BODY_LIMIT,
    // behind a reverse proxy, the client address (per-IP limits) comes from X-Forwarded-For of trusted proxies only
    trustProxy: engage.config.TRUST_PROXY,
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
  // before any route and any other onRequest hook: a literal segment in a :param's place is a route
  // that does not exist, credentials or not (README "API conventions")
  routeRules(app);
  // onRequest hooks run in registration order, before the body is read: authentication first, so
  // the rate limit knows the account (or counts a failed credential against the IP), then the 401
  // or 403; idempotency (preHandler) comes after, so a 429 is never stored as a key's first response
  authPlugin(app, deps.authenticator);
  if (engage.config.RATE_LIMITS_ENABLED) rateLimitPlugin(app, counters);
  authorizePlugin(app);
  idempotencyPlugin(app, engage.pool);

  // the document is made from the routes' schemas as they are added (README "API reference"); the
  // handlers validate with the same zod schemas themselves, for this API's error bodies, and answers
  // are written as JSON as they are
  app.setValidatorCompiler(() => (value) => ({ value }));
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await app.register(swagger, swaggerOptions(VERSION, documentServers(engage.config)));

  const registry: AnyRoute[] = [];
  const groups = [healthRoutes, authRoutes, accountRoutes, contactRoutes, deviceRoutes, listRoutes, segmentRoutes, eventRoutes, messageRoutes, campaignRoutes, webhookEndpointRoutes, unsubscribeRoutes, conversationRoutes, senderRoutes, emailDomainRoutes, integrationRoutes, linkDomainRoutes, billingRoutes, analyticsRoutes, aiRoutes, templateRoutes, formRoutes, historyRoutes];
  for (const group of groups) registerRoutes(app, group(deps), registry);
  registerRoutes(app, trackingRoutes(deps), registry);
  registerRoutes(app, importRoutes(deps), registry);
  // CSV uploads: a child context whose parsers hand the body to the handler unread (streamed)
  await app.register(importUploadRoutes(deps, registry));
  // the public unsubscribe pages: a child context taking form bodies and answering HTML
  await app.register(unsubscribePageRoutes(deps, registry));
  // browser tracking's public endpoints: a child context reading JSON sent as text/plain too (sendBeacon), at most 64 KiB
  await app.register(trackingPublicRoutes(deps, registry));
  await app.register(devicePublicRoutes(deps, registry));
  // signup forms' public side: the submit route, the hosted page, the snippet's script, the confirmation link
  await app.register(formPublicRoutes(deps, registry));
  // inbound provider callbacks: a child context with raw-body parsers (signatures), outside the OpenAPI document
  await app.register(providerWebhookRoutes(deps));
  // the agent tools (MCP): after every route group, since its tools are routes read from the registry
  await app.register(mcpRoutes(deps, registry));

  app.get('/v1/openapi.json', { config: { auth: 'none', rateGroup: 'public' } }, async () => app.swagger());
  await app.register(swaggerUi, { routePrefix: '/docs' });
  // the web dashboard at /app: its pages, and / sends a browser there
  await app.register(dashboardRoutes(engage.config.DASHBOARD_DIR ?? defaultDashboardDir()));
  return app;
}
