// The tool catalogue of the agent endpoints (POST /v1/mcp, POST /v1/mcp/act): every tool is one
// REST route, named by method and URL, and its input schema is the JSON Schema of that route's own
// zod schemas (path params, query, body) as one object, so a tool validates and answers exactly as
// the REST API does.
import { z, type ZodType } from 'zod';
import type { AnyRoute } from '../http/route.ts';

/** A JSON Schema of an object, as z.toJSONSchema writes one. */
export interface ObjectSchema {
  $schema?: string;
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: unknown;
  $defs?: Record<string, unknown>;
  [keyword: string]: unknown;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** the tool reaches people outside the account (a message leaves) */
  openWorldHint: boolean;
}

interface ToolSpec {
  name: string;
  title: string;
  description: string;
  method: AnyRoute['method'];
  url: string;
  annotations?: Partial<ToolAnnotations>;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  inputSchema: ObjectSchema;
  route: AnyRoute;
  /** the URL's :params, substituted into it */
  pathParams: string[];
  /** arguments sent in the query string */
  queryFields: ReadonlySet<string>;
  /** whether the route takes a JSON body (the arguments left over go there) */
  hasBody: boolean;
}

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;

/**
 * The catalogue. Descriptions are written for a model choosing a tool: what it does, what the ids
 * look like, what comes back. The rules of each field are in the input schema.
 */
export const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: 'send_message',
    title: 'Send a message',
    description:
      'Send one message on a channel (sms, rcs, whatsapp, voice, email, push) to one recipient: `to` is E.164 for phone channels, an address for email, a device token for push; email needs `subject`. Marketing messages (transactional: false) obey suppressions, caps and quiet hours. Optional `scheduled_at` (RFC 3339) schedules it. Answers the accepted message (id msg_…, status queued or scheduled).',
    method: 'POST',
    url: '/v1/messages/send',
    annotations: { openWorldHint: true },
  },
  {
    name: 'get_message',
    title: 'Look up a message',
    description: 'One message by its id (`id`, msg_…): status (scheduled, queued, sent, delivered, failed, cancelled), channel, recipient, content and timestamps.',
    method: 'GET',
    url: '/v1/messages/:id',
    annotations: READ,
  },
  {
    name: 'cancel_message',
    title: 'Cancel a message',
    description: 'Cancel a scheduled or queued message (`id`, msg_…) that has not been dispatched yet. A message already sent answers 409 not_cancellable with its status.',
    method: 'DELETE',
    url: '/v1/messages/:id',
    annotations: { destructiveHint: true, idempotentHint: true },
  },
  {
    name: 'list_messages',
    title: 'List messages',
    description: 'Message history, newest first, filtered by status, channel, recipient (`to`) and time (`from`, `until`, RFC 3339). Answers {data, next_cursor}: pass next_cursor as `cursor` for the next page.',
    method: 'GET',
    url: '/v1/messages/history',
    annotations: READ,
  },
  {
    name: 'find_contacts',
    title: 'Find contacts',
    description: 'Contacts, newest first, filtered by exact `email`, `phone`, `tag`, or free text `q` (name, email, phone). Answers {data, next_cursor}: pass next_cursor as `cursor` for the next page.',
    method: 'GET',
    url: '/v1/contacts',
    annotations: READ,
  },
  {
    name: 'get_contact',
    title: 'Get a contact',
    description: 'One contact by its id (`id`, ct_…) with its standard fields, tags and custom fields.',
    method: 'GET',
    url: '/v1/contacts/:id',
    annotations: READ,
  },
  {
    name: 'create_contact',
    title: 'Create a contact',
    description: 'Create a contact with at least one of email, phone (E.164) or external_id; email and phone are unique in the account (409 when taken). Answers the contact (id ct_…).',
    method: 'POST',
    url: '/v1/contacts',
    annotations: { destructiveHint: false, idempotentHint: false },
  },
  {
    name: 'update_contact',
    title: 'Update a contact',
    description: 'Change fields of the contact `id` (ct_…): a field left out stays, null clears it; custom_fields merge (null removes a value); tags replace the list. Answers the contact.',
    method: 'PATCH',
    url: '/v1/contacts/:id',
    annotations: { destructiveHint: true, idempotentHint: true },
  },
  {
    name: 'list_lists',
    title: 'List contact lists',
    description: "The account's contact lists (id lst_…), pinned first, each with its member count. Answers {data, next_cursor}.",
    method: 'GET',
    url: '/v1/lists',
    annotations: READ,
  },
  {
    name: 'add_contacts_to_list',
    title: 'Add a contact to a list',
    description: 'Add the contact `contact_id` (ct_…) to the list `id` (lst_…); adding one already on the list changes nothing. Answers the list with its member count.',
    method: 'POST',
    url: '/v1/lists/:id/contacts',
    annotations: { destructiveHint: false, idempotentHint: true },
  },
  {
    name: 'preview_segment',
    title: 'Preview a segment',
    description:
      'Count the contacts a rule set matches now, without saving anything: rules is {match: "all"|"any", rules: [{field, operator, value} | nested rule set]} with fields contact.<field>, custom.<key>, list, tag, event.<name> (with within_days, count) and suppressed. sample: true adds the first 10 contacts.',
    method: 'POST',
    url: '/v1/segments/preview',
    annotations: READ,
  },
  {
    name: 'list_suppressions',
    title: 'List suppressions',
    description: "The account's suppressed addresses (opt-outs, bounces, complaints), newest first, filtered by `reason` or one `address`. Answers {data, next_cursor}.",
    method: 'GET',
    url: '/v1/account/unsubscribes/api/list',
    annotations: READ,
  },
  {
    name: 'add_suppression',
    title: 'Suppress an address',
    description: 'Stop marketing messages to an email address or phone number (give `email` or `phone`); an address suppressed already stays as it is. Answers the suppression.',
    method: 'POST',
    url: '/v1/account/unsubscribes',
    annotations: { destructiveHint: false, idempotentHint: true },
  },
  {
    name: 'remove_suppression',
    title: 'Lift a suppression',
    description: 'Lift the suppression of `address` (an email address or an E.164 phone number) so marketing may reach it again; only do this when the person asked for it. An erasure is never lifted (409).',
    method: 'DELETE',
    url: '/v1/account/unsubscribes/:address',
    annotations: { destructiveHint: true, idempotentHint: true },
  },
  {
    name: 'get_usage',
    title: 'Get usage',
    description: 'Messages sent and their charges per month and channel, in the billing currency; `from` and `to` are months (YYYY-MM), by default the last 6 months.',
    method: 'GET',
    url: '/v1/account/usage',
    annotations: READ,
  },
  {
    name: 'get_balance',
    title: 'Get the balance',
    description: "The account's prepaid balance (a decimal string) and its currency: the sum of the balance ledger.",
    method: 'GET',
    url: '/v1/account/balance',
    annotations: READ,
  },
];

const PATH_PARAM = /:([A-Za-z]+)/g;

function jsonSchemaOf(schema: ZodType, where: string): ObjectSchema {
  const js = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as Record<string, unknown>;
  if (js.type !== 'object') throw new Error(`${where} is not an object schema: an agent tool's arguments must be one object`);
  return { ...js, type: 'object', properties: (js.properties as Record<string, unknown> | undefined) ?? {} };
}

/**
 * One object from the parts of a request. A single part is taken whole (the route's schema
 * exactly); several are merged, failing loudly when two parts share a name (an argument would be
 * ambiguous). additionalProperties follows the part that leftover arguments go to.
 */
function mergeParts(name: string, parts: { where: string; schema: ObjectSchema }[], leftoverPart: string | undefined): ObjectSchema {
  if (parts.length === 1) return parts[0].schema;
  const merged: ObjectSchema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} };
  const required: string[] = [];
  for (const { where, schema } of parts) {
    for (const [prop, s] of Object.entries(schema.properties)) {
      if (prop in merged.properties) throw new Error(`tool ${name}: argument ${prop} is both in the ${where} and elsewhere in the request`);
      merged.properties[prop] = s;
    }
    required.push(...(schema.required ?? []));
    for (const [def, s] of Object.entries(schema.$defs ?? {})) {
      merged.$defs ??= {};
      if (def in merged.$defs && JSON.stringify(merged.$defs[def]) !== JSON.stringify(s)) throw new Error(`tool ${name}: schema definition ${def} differs between the parts of the request`);
      merged.$defs[def] = s;
    }
  }
  if (required.length) merged.required = required;
  const leftover = parts.find((p) => p.where === leftoverPart)?.schema ?? parts[parts.length - 1].schema;
  if (leftover.additionalProperties !== undefined) merged.additionalProperties = leftover.additionalProperties;
  return merged;
}

function toolOf(spec: ToolSpec, route: AnyRoute): Tool {
  const pathParams = [...route.url.matchAll(PATH_PARAM)].map((m) => m[1]);
  const parts: { where: string; schema: ObjectSchema }[] = [];
  if (pathParams.length) {
    const params = route.params ? jsonSchemaOf(route.params, `${spec.method} ${spec.url} params`) : undefined;
    const properties = Object.fromEntries(pathParams.map((p) => [p, params?.properties[p] ?? { type: 'string' }]));
    parts.push({ where: 'path', schema: { ...(params ?? {}), type: 'object', properties, required: pathParams } });
  }
  const documentedBody = route.docBody ?? route.body;
  if (documentedBody) parts.push({ where: 'body', schema: jsonSchemaOf(documentedBody, `${spec.method} ${spec.url} body`) });
  const query = route.query ? jsonSchemaOf(route.query, `${spec.method} ${spec.url} query`) : undefined;
  if (query) parts.push({ where: 'query', schema: query });
  // a route taking nothing: an empty object, and nothing else accepted
  if (!parts.length) parts.push({ where: 'none', schema: { type: 'object', properties: {}, additionalProperties: false } });
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    annotations: { ...(spec.method === 'GET' ? READ : { readOnlyHint: false, destructiveHint: false, idempotentHint: false }), openWorldHint: false, ...spec.annotations },
    inputSchema: mergeParts(spec.name, parts, documentedBody ? 'body' : query ? 'query' : 'path'),
    route,
    pathParams,
    queryFields: new Set(Object.keys(query?.properties ?? {})),
    hasBody: documentedBody !== undefined,
  };
}

/** The catalogue's tools over the registered routes; a tool whose route is not registered is a programming error. */
export function buildTools(registry: readonly AnyRoute[], specs: readonly ToolSpec[] = TOOL_SPECS): Map<string, Tool> {
  const tools = new Map<string, Tool>();
  for (const spec of specs) {
    const route = registry.find((r) => r.method === spec.method && r.url === spec.url);
    if (!route) throw new Error(`MCP tool ${spec.name} names ${spec.method} ${spec.url}, which is not a registered route (register its route group before the MCP routes)`);
    if (tools.has(spec.name)) throw new Error(`MCP tool ${spec.name} is defined twice`);
    tools.set(spec.name, toolOf(spec, route));
  }
  return tools;
}
