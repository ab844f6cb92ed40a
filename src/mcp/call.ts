// Running a tool: its arguments become the REST request of its route (path params into the URL,
// query fields into the query string, the rest as the JSON body), injected into this same server
// with the caller's own API key, so validation, scopes, rate limits and the account boundary are
// the REST API's own.
import type { FastifyRequest } from 'fastify';
import type { Issue } from '../errors.ts';
import type { Tool } from './tools.ts';

/** What the route answered: its status and its (JSON) body. */
export interface ToolAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | number | undefined>;
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The flat 400 of this API for arguments that cannot even make a request (the route never sees them). */
function rejected(issues: Issue[]): ToolAnswer {
  const message = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  return { status: 400, body: { error: 'validation_error', message: `invalid arguments: ${message}`, issues }, headers: {} };
}

function queryValues(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(queryValues);
  if (value === null || value === undefined) return [];
  return [typeof value === 'object' ? JSON.stringify(value) : String(value)];
}

interface PlannedRequest {
  url: string;
  body?: Record<string, unknown>;
}

/** The REST request that `args` make for `tool`, or the issues that stop it. */
export function plannedRequest(tool: Tool, args: Record<string, unknown>): PlannedRequest | Issue[] {
  const issues: Issue[] = [];
  const rest: Record<string, unknown> = { ...args };
  const search = new URLSearchParams();
  let url = tool.route.url;
  for (const name of tool.pathParams) {
    const value = rest[name];
    delete rest[name];
    if (value === undefined || value === null) issues.push({ path: name, message: 'required' });
    else if (typeof value !== 'string' && typeof value !== 'number') issues.push({ path: name, message: 'must be a string' });
    else if (String(value) === '') issues.push({ path: name, message: 'must not be empty' });
    // a URL normalises "." and ".." segments away: such an id would address another route
    else if (String(value) === '.' || String(value) === '..') issues.push({ path: name, message: 'is not an id' });
    else url = url.replace(new RegExp(`:${name}(?![A-Za-z])`), () => encodeURIComponent(String(value)));
  }
  for (const name of tool.queryFields) {
    if (!(name in rest)) continue;
    for (const v of queryValues(rest[name])) search.append(name, v);
    delete rest[name];
  }
  let body: Record<string, unknown> | undefined;
  if (tool.hasBody) body = rest;
  else if (tool.queryFields.size) {
    // the route's strict query schema names what it does not know
    for (const [name, value] of Object.entries(rest)) for (const v of queryValues(value)) search.append(name, v);
  } else {
    for (const name of Object.keys(rest)) issues.push({ path: name, message: 'not an argument of this tool' });
  }
  if (issues.length) return issues;
  const qs = search.toString();
  return { url: qs ? `${url}?${qs}` : url, ...(body ? { body } : {}) };
}

/**
 * Runs `tool` as the caller of `req`: the request carries its API key, its request id when it gave
 * one, and a correlation id tying the events the tool causes to the agent's request.
 */
export async function runTool(req: FastifyRequest, tool: Tool, args: Record<string, unknown>): Promise<ToolAnswer> {
  const planned = plannedRequest(tool, args);
  if (Array.isArray(planned)) return rejected(planned);
  const headers: Record<string, string> = { 'x-api-key': String(req.headers['x-api-key'] ?? '') };
  const requestId = req.headers['x-request-id'];
  if (typeof requestId === 'string') headers['x-request-id'] = requestId;
  const correlation = req.headers['x-correlation-id'];
  headers['x-correlation-id'] = typeof correlation === 'string' && correlation.length <= 128 ? correlation : req.id;
  if (planned.body) headers['content-type'] = 'application/json';
  const res = await req.server.inject({
    method: tool.route.method,
    url: planned.url,
    headers,
    ...(planned.body ? { payload: JSON.stringify(planned.body) } : {}),
  });
  let body: unknown = null;
  if (res.body) {
    try {
      body = JSON.parse(res.body);
    } catch {
      body = res.body;
    }
  }
  return { status: res.statusCode, body, headers: res.headers };
}
