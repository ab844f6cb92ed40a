// The OpenAPI 3.1 document at /v1/openapi.json (README "API reference"): @fastify/swagger reads
// every documented route's schema, and fastify-type-provider-zod turns the zod schemas the route
// validates with into JSON Schema. A schema given an id (`.meta({ id })`) becomes a named component.
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z, type ZodType } from 'zod';

/**
 * The named schemas of the document (components/schemas) are those given an id with `.meta({ id })`;
 * descriptions (`.describe()`) live in the same registry, zod's global one.
 */
const apiSchemas = z.globalRegistry;

/** The error body every 4xx and 5xx answer carries (README "API conventions"). */
export const ErrorBody = z
  .looseObject({
    error: z.string().describe('a snake_case code: validation_error, unauthorized, insufficient_scope, not_found, conflict, rate_limited, …'),
    message: z.string().describe('what went wrong, for a person, naming the field, header or setting that fixes it'),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional().describe('each invalid field (validation_error)'),
  })
  .meta({ id: 'Error', description: 'The error body: {error, message} and what the code adds (issues, missing, retry_after, request_id, …)' });

/** An ISO 8601 date-time in UTC, as every timestamp of an answer is written. */
export const DateTime = z.string().meta({ format: 'date-time' });

/** A page of a list: `next_cursor` is the `cursor` of the next page, null on the last. */
export const Page = <T extends ZodType>(item: T) => z.object({ data: z.array(item), next_cursor: z.string().nullable() });

/** A documented answer without a body (204), or one that is not JSON, described in words. */
export const NoBody = (description: string) => z.null().describe(description);

const SUCCESS: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content' };

/** What each error status means, for every operation that can answer it. */
export const ERROR_DESCRIPTIONS: Record<number | '5XX', string> = {
  400: 'Invalid request (validation_error): issues name each invalid field',
  401: 'Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer',
  402: 'The account has not got what this needs (payment_required, addon_required): its plan, balance or add-on',
  403: 'The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low)',
  404: 'Not found, or not this account’s',
  409: 'Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again)',
  410: 'Gone: it existed and is no longer available',
  413: 'The body is larger than this endpoint takes',
  415: 'Unsupported Content-Type (the issues name the header)',
  422: 'Understood, but it cannot be done with these values',
  429: 'Too many requests (rate_limited): Retry-After says how many seconds to wait',
  '5XX': 'The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After)',
};

export const successDescription = (status: number) => SUCCESS[status] ?? 'OK';

/** The zod-to-JSON-Schema step for each route, and the named components. */
const transformRoute = createJsonSchemaTransform({ schemaRegistry: apiSchemas });
const transformDocument = createJsonSchemaTransformObject({ schemaRegistry: apiSchemas });

type Json = Record<string, unknown>;

/** The JSON Schema of a zod integer without bounds of its own carries ±(2^53−1): noise in the document. */
function withoutSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds);
  if (typeof value !== 'object' || value === null) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if ((k === 'minimum' || k === 'maximum') && Math.abs(v as number) === Number.MAX_SAFE_INTEGER) continue;
    out[k] = withoutSafeIntegerBounds(v);
  }
  return out;
}

/** Every `#/components/schemas/X` the value refers to. */
function refsIn(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const v of value) refsIn(v, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) into.add(v.slice('#/components/schemas/'.length));
      else refsIn(v, into);
    }
  }
  return into;
}

const RETRY_AFTER = { type: 'integer', minimum: 0, description: 'seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable)' };

/** Each answer's description: the error meaning of its status, or the success schema's own (or OK, Created, …). */
function describeAnswers(transformed: { schema: Json; url: string }): { schema: Json; url: string } {
  const response = transformed.schema?.response as Record<string, Json> | undefined;
  for (const [status, answer] of Object.entries(response ?? {})) {
    const error = status === '5xx' ? ERROR_DESCRIPTIONS['5XX'] : Number(status) >= 400 ? ERROR_DESCRIPTIONS[Number(status)] : undefined;
    response![status] = {
      ...answer,
      description: error ?? (answer.description as string | undefined) ?? successDescription(Number(status)),
      ...(status === '429' || status === '5xx' ? { headers: { 'Retry-After': RETRY_AFTER } } : {}),
    };
  }
  return transformed;
}

/** An upload takes the CSV as the body itself too, besides the multipart form. */
function withCsvBodies(paths: Record<string, Record<string, Json>>): void {
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      if (!operation['x-upload']) continue;
      delete operation['x-upload'];
      const body = operation.requestBody as { content: Record<string, unknown> };
      body.content['text/csv'] = { schema: { type: 'string', description: 'the CSV file, its first row the column names' } };
    }
  }
}

/** The document as served: components nobody refers to dropped (each schema has an input and an output form). */
function finishDocument(document: Json): Json {
  const doc = withoutSafeIntegerBounds(document) as Json & { components: { schemas?: Record<string, unknown> } };
  doc.paths = namedWildcards(doc.paths as Record<string, Record<string, Json>>);
  withCsvBodies(doc.paths as Record<string, Record<string, Json>>);
  doc.tags = tagsOf(doc.paths as Record<string, Record<string, Json>>);
  const schemas = doc.components.schemas ?? {};
  const used = refsIn(doc.paths, new Set());
  for (let grew = true; grew; ) {
    grew = false;
    for (const name of [...used]) {
      for (const ref of refsIn(schemas[name], new Set())) {
        if (!used.has(ref)) {
          used.add(ref);
          grew = true;
        }
      }
    }
  }
  doc.components.schemas = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
  return doc;
}

/** What each tag of the document groups (the tags themselves are the routes'). */
const TAG_DESCRIPTIONS: Record<string, string> = {
  health: 'Liveness and the read models’ progress',
  auth: 'Dashboard sessions: sign in with email and password',
  account: 'The account: settings, API keys, users, billing, history',
  contacts: 'Contacts, custom fields, export and import',
  lists: 'Static lists of contacts',
  segments: 'Rule-based segments, counted live',
  events: 'Tracked events',
  messages: 'Single, bulk and scheduled messages on every channel',
  campaigns: 'A message to a list or a segment',
  webhooks: 'Signed webhook endpoints, their deliveries and replays',
  'account unsubscribes': 'Opt-outs and the suppression list',
  conversations: 'Inbound replies, threaded',
  senders: 'Sender ids and numbers, and the rules of each country',
  'email domains': 'Sending domains: DNS, DKIM, DMARC, warm-up, BIMI',
  'link domains': 'Branded click-tracking domains and the click redirect',
  integrations: 'Provider credentials (sealed, never shown)',
  'account analytics': 'Usage and deliverability reports',
  tracking: 'Browser tracking: the snippet, its key and identity',
  'agent tools': 'The tool endpoint for AI agents (MCP)',
  templates: 'Messages written once in Liquid, versioned, previewed and sent personalised',
  forms: 'Signup forms: hosted page, snippet, double opt-in and consent',
};

/** The document's tag list: every tag an operation carries, in order of first use, described. */
function tagsOf(paths: Record<string, Record<string, Json>>): { name: string; description?: string }[] {
  const names = new Set<string>();
  for (const operations of Object.values(paths)) for (const operation of Object.values(operations)) for (const tag of (operation.tags as string[] | undefined) ?? []) names.add(tag);
  return [...names].map((name) => (TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name }));
}

/** fastify's wildcard (`/c/*`) is a path parameter named `*` to @fastify/swagger: the document names it `path`. */
function namedWildcards(paths: Record<string, Record<string, Json>>): Record<string, Record<string, Json>> {
  return Object.fromEntries(
    Object.entries(paths).map(([path, operations]) => {
      if (!path.includes('{*}')) return [path, operations];
      for (const operation of Object.values(operations)) {
        for (const parameter of (operation.parameters as Json[] | undefined) ?? []) if (parameter.in === 'path' && parameter.name === '*') parameter.name = 'path';
      }
      return [path.replace('{*}', '{path}'), operations];
    }),
  );
}

/** @fastify/swagger's options: routes without tags (provider callbacks, the document itself) are left out. */
export function swaggerOptions(version: string, servers: { url: string; description?: string }[]): FastifyDynamicSwaggerOptions {
  return {
    mode: 'dynamic',
    hideUntagged: true,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'engage API',
        version,
        description: 'Event-sourced customer engagement platform: messages on every channel, contacts, segments, campaigns, webhooks and the history of every change.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers,
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key (ek_live_…), made with `engage keys create` or POST /v1/account/api-keys' },
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A dashboard session token from POST /v1/auth/login' },
        },
      },
    },
    transform: (route) => describeAnswers(transformRoute(route as never) as { schema: Json; url: string }) as never,
    transformObject: (document) => finishDocument(transformDocument(document as never) as Json) as never,
  };
}
