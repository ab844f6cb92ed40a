// Route definitions: one zod schema per part of a request is the single source for validation,
// handler types and the OpenAPI document.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z, type ZodType } from 'zod';
import type { Scope } from '../../commands/account.ts';
import { describeIssues, validationError } from '../errors.ts';
import { toIssues } from '../validation.ts';
import { findUnstorable } from './common.ts';
import { ErrorBody, NoBody, successDescription } from './openapi.ts';
import type { AuthContext } from './plugins/auth.ts';

/**
 * key_then_login: like key_or_login, but a request carrying both credentials whose API key fails is
 * tried again with its Bearer token (README "Integrations": the API key first, then the session).
 */
export type AuthMode = 'none' | 'key' | 'key_or_login' | 'key_then_login' | 'login';
export type RateGroup = 'send' | 'bulk' | 'login' | 'default' | 'public' | 'callback' | 'none';

export interface RouteSpec<B = unknown, Q = unknown, P = unknown> {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  auth: AuthMode;
  /**
   * The capabilities the caller needs, all of them; defaults to read for GET and write otherwise,
   * null for none. A route that sends the account's data out of the service to a place the caller
   * chooses needs read as well (README "API conventions"), e.g. `['write', 'read']`.
   */
  scope?: Scope | readonly Scope[] | null;
  rateGroup?: RateGroup;
  /** the operation's name in the OpenAPI document and in generated clients (camelCase, unique) */
  operationId: string;
  summary: string;
  /** more than the summary says, for the document (markdown) */
  description?: string;
  tags: string[];
  body?: ZodType<B>;
  /** the documented body when the handler validates it itself (for richer per-field errors) */
  docBody?: ZodType;
  query?: ZodType<Q>;
  params?: ZodType<P>;
  /**
   * The success answers: status → the body's schema (its `.describe()` the answer's description),
   * or a description alone for an answer with no body or a body that is not JSON (`produces`).
   */
  responses: Record<number, ZodType | string>;
  /**
   * Error statuses this route answers beyond those every route of its kind can (errorStatuses:
   * 400, 401, 403, 404, 409, 413, 415, 429 as they apply), each with the error body.
   */
  errors?: readonly number[];
  /**
   * The media type of a successful answer that is not JSON (e.g. `text/csv; charset=utf-8`): the
   * Content-Type of what the handler returns (a string, a Buffer or a stream, which fastify sends as
   * it is; an error thrown before that still leaves as JSON), and documented as such.
   */
  produces?: string;
  /**
   * A page for people (`produces` text/html): its errors are pages too, unless the client prefers
   * JSON. Documented as both.
   */
  pageErrors?: boolean;
  /**
   * The handler reads the request body itself, as a stream (a CSV upload): its route lives in a
   * context whose content-type parsers hand the body over unread, and Idempotency-Key does not apply
   * (the body is not known when the key would be claimed).
   */
  streamsBody?: boolean;
  handler(input: { body: B; query: Q; params: P; auth: AuthContext; req: FastifyRequest; reply: FastifyReply }): Promise<unknown>;
}

export type AnyRoute = RouteSpec<any, any, any>;

export const defineRoute = <B, Q, P>(spec: RouteSpec<B, Q, P>): RouteSpec<B, Q, P> => spec;

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
    /** every capability the route needs (checked by the auth plugin before the body is read) */
    scopes?: readonly Scope[];
    rateGroup?: RateGroup;
    streamsBody?: boolean;
  }
}

// (re-exported for the routes that still import it from here)

export function parseWith<T>(schema: ZodType<T>, value: unknown, where: 'body' | 'query' | 'params'): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = toIssues(r.error);
  const summary = describeIssues(issues);
  throw validationError(`invalid ${where}: ${summary}`, issues);
}

/** The capabilities a route needs, as a list (README "API conventions"). */
export function routeScopes(spec: Pick<AnyRoute, 'scope' | 'method'>): readonly Scope[] {
  if (spec.scope === undefined) return [spec.method === 'GET' ? 'read' : 'write'];
  if (spec.scope === null) return [];
  return typeof spec.scope === 'string' ? [spec.scope] : spec.scope;
}

export function registerRoutes(app: FastifyInstance, routes: AnyRoute[], registered: AnyRoute[]): void {
  for (const spec of routes) {
    registered.push(spec);
    app.route({
      method: spec.method,
      url: spec.url,
      schema: routeSchema(spec),
      config: {
        auth: spec.auth,
        scopes: routeScopes(spec),
        rateGroup: spec.rateGroup ?? (spec.auth === 'none' ? 'public' : 'default'),
        streamsBody: spec.streamsBody ?? false,
      },
      handler: async (req, reply) => {
        // (a raw body, e.g. a CSV upload, is the handler's to parse and check)
        for (const [where, value] of [['params', req.params], ['query', req.query], ['body', req.body]] as const) {
          const path = findUnstorable(value);
          if (path !== undefined) {
            const message = 'must not contain NUL characters or unpaired UTF-16 surrogates';
            throw validationError(`invalid ${where}: ${path}: ${message}`, [{ path, message }]);
          }
        }
        const body = spec.body ? parseWith(spec.body, req.body ?? {}, 'body') : req.body;
        const query = spec.query ? parseWith(spec.query, req.query ?? {}, 'query') : req.query;
        const params = spec.params ? parseWith(spec.params, req.params ?? {}, 'params') : req.params;
        const result = await spec.handler({ body, query, params, auth: req.auth!, req, reply });
        if (reply.sent) return reply;
        if (spec.produces && !reply.hasHeader('content-type')) reply.type(spec.produces);
        return result;
      },
    });
  }
}

/** One route the app serves: its method and URL pattern (`/v1/segments/:id`). */
export interface ServedRoute {
  method: string;
  url: string;
}

const servedRoutes = new WeakMap<FastifyInstance, ServedRoute[]>();

/** Every route `app` serves, those of child contexts included (collected by routeRules). */
export function routesOf(app: FastifyInstance): readonly ServedRoute[] {
  return servedRoutes.get(app) ?? [];
}

/** A :param of a route pattern, and the literal segments other patterns have in its place. */
interface ParamLiterals {
  param: string;
  literals: ReadonlySet<string>;
}

/**
 * For each URL pattern, its :params that other patterns put a literal beside: the literal segments
 * of the patterns that have the same segments before that place (a :param matching any :param).
 * `/v1/segments/schema` beside `/v1/segments/:id` and `/v1/segments/:id/contacts` makes `schema`
 * a literal of both their `:id`s.
 */
export function literalSegments(urls: Iterable<string>): Map<string, ParamLiterals[]> {
  // a tree of the patterns' segments, every :param of a place one branch (':')
  type Node = Map<string, Node>;
  const root: Node = new Map();
  const patterns = [...new Set(urls)].map((url) => ({ url, segments: url.split('/').slice(1) }));
  const key = (segment: string) => (segment.startsWith(':') ? ':' : segment);
  for (const { segments } of patterns) {
    let node = root;
    for (const segment of segments) {
      const next = node.get(key(segment)) ?? new Map();
      node.set(key(segment), next);
      node = next;
    }
  }
  const index = new Map<string, ParamLiterals[]>();
  for (const { url, segments } of patterns) {
    const params: ParamLiterals[] = [];
    let node = root;
    for (const segment of segments) {
      if (segment.startsWith(':')) {
        const literals = new Set([...node.keys()].filter((s) => !s.includes(':') && !s.includes('*')));
        // (a :param written with a regular expression, `:id(^\\d+)`, is named by the part before it)
        if (literals.size > 0) params.push({ param: segment.slice(1).replace(/\(.*$/, ''), literals });
      }
      node = node.get(key(segment))!;
    }
    if (params.length > 0) index.set(url, params);
  }
  return index;
}

/**
 * The rules every route obeys, whoever registers it; call before any route is added. Collects the
 * routes as they are added (routesOf), and keeps literal path segments routes of their own, never
 * ids (README "API conventions"): a request whose :param holds a literal that stands in that place
 * in another route (`PUT /v1/segments/preview`, `DELETE /v1/contacts/fields`) is answered as a route
 * that does not exist, before credentials are looked at, as such a route is.
 */
export function routeRules(app: FastifyInstance): void {
  const served: ServedRoute[] = [];
  servedRoutes.set(app, served);
  let index: Map<string, ParamLiterals[]> | undefined;
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) served.push({ method, url: route.url });
    index = undefined;
  });
  app.addHook('onRequest', async (req, reply) => {
    const url = req.routeOptions.url;
    if (url === undefined) return;
    index ??= literalSegments(served.map((r) => r.url));
    const params = req.params as Record<string, string | undefined>;
    for (const { param, literals } of index.get(url) ?? []) {
      const value = params[param];
      if (value !== undefined && literals.has(value)) {
        reply.callNotFound();
        return reply;
      }
    }
  });
}

/**
 * The error statuses a route can answer, besides those it names (`errors`): 400 always, 401 and 403
 * behind credentials, 404 for a path naming something, 409 for a write (an Idempotency-Key sent
 * again with another body, or a write that met another on every retry), 413 and 415 for a body,
 * 429 under a rate limit.
 */
export function errorStatuses(spec: AnyRoute): number[] {
  const statuses = new Set<number>(spec.errors ?? []);
  const hasPathParams = spec.url.includes('/:');
  const takesBody = spec.method !== 'GET' && spec.method !== 'DELETE';
  // (any request can carry what no field may hold: a NUL in its query string, say)
  statuses.add(400);
  if (spec.auth !== 'none') statuses.add(401).add(403);
  if (hasPathParams) statuses.add(404);
  // a POST's Idempotency-Key sent again with another body; any write that met another on every retry
  if (spec.method !== 'GET' && spec.auth !== 'none') statuses.add(409);
  if (takesBody) statuses.add(413).add(415);
  if ((spec.rateGroup ?? (spec.auth === 'none' ? 'public' : 'default')) !== 'none') statuses.add(429);
  return [...statuses].sort((a, b) => a - b);
}

const SECURITY: Record<AuthMode, Record<string, string[]>[]> = {
  none: [],
  key: [{ apiKey: [] }],
  login: [{ bearer: [] }],
  key_or_login: [{ apiKey: [] }, { bearer: [] }],
  key_then_login: [{ apiKey: [] }, { bearer: [] }],
};

/** The route's schema as @fastify/swagger reads it (README "API reference"); validation stays the handler's. */
function routeSchema(spec: AnyRoute): Record<string, unknown> {
  const response: Record<string, unknown> = {};
  const mediaType = spec.produces?.split(';')[0]!.trim();
  for (const [status, answer] of Object.entries(spec.responses)) {
    const description = typeof answer === 'string' ? answer : (answer.description ?? successDescription(Number(status)));
    if (mediaType && Number(status) < 300) {
      // a page, or (a schema given) JSON as well for a client that prefers it
      const json = typeof answer === 'string' ? {} : { 'application/json': { schema: answer } };
      response[status] = { description, content: { [mediaType]: { schema: z.string() }, ...json } };
    } else response[status] = typeof answer === 'string' ? NoBody(answer) : answer;
  }
  const error = spec.pageErrors ? { content: { 'application/json': { schema: ErrorBody }, 'text/html': { schema: z.string() } } } : ErrorBody;
  // an error status the route answers in a form of its own (JSON-RPC's) may still be the error body
  for (const status of errorStatuses(spec)) response[status] = response[status] ? z.union([response[status] as ZodType, ErrorBody]) : error;
  response['5xx'] = error;
  const documentedBody = spec.docBody ?? spec.body;
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: spec.tags,
    security: SECURITY[spec.auth],
    ...(spec.params ? { params: spec.params } : {}),
    ...(spec.query ? { querystring: spec.query } : {}),
    ...(spec.streamsBody
      ? // an upload: the file as a multipart field beside the other fields, or the CSV as the body itself
        { consumes: ['multipart/form-data'], body: z.object({ file: z.string().meta({ format: 'binary' }), ...((documentedBody as z.ZodObject | undefined)?.shape ?? {}) }), 'x-upload': true }
      : documentedBody
        ? { body: documentedBody }
        : {}),
    response,
  };
}
