// The MCP server over Streamable HTTP, stateless: each POST carries one JSON-RPC message and gets
// one JSON answer (no SSE, no sessions). Methods: initialize (version negotiation), ping,
// tools/list, tools/call; any notification is accepted with 202. A tool's failure is a result
// with isError (the model reads it and can correct itself); protocol errors are JSON-RPC errors.
//
// HTTP status of a JSON-RPC error: 400 when the message could not be read (parse error, invalid
// request, unsupported media type or protocol version: the transport refuses it), 200 for an error
// of a well-formed request (unknown method, invalid params). The official client throws on any
// non-2xx answer without reading its body, so only a 200 reaches the caller as the JSON-RPC error.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isPlainObject, type ToolAnswer } from './call.ts';
import { INVALID_PARAMS, METHOD_NOT_FOUND, type RequestId, SERVER_ERROR, readMessage, rpcError, rpcResult } from './jsonrpc.ts';
import type { Tool } from './tools.ts';

export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];

const isSupported = (v: unknown): v is string => typeof v === 'string' && (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(v);

/** The version of the running service: the package.json above this module (in src/ or in dist/src/). */
export function serviceVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++, dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'engage' && pkg.version) return pkg.version;
    } catch {
      /* not here: one folder up */
    }
  }
  return '0.0.0';
}

const INSTRUCTIONS = [
  'engage sends messages (sms, rcs, whatsapp, voice, email, push) and keeps contacts, lists, segments and suppressions.',
  'Every tool acts on the account of the API key this connection uses, with that key’s scopes: a read-only key can look things up but not send or change anything (insufficient_scope).',
  'Ids carry their kind: msg_ (message), ct_ (contact), lst_ (list). Lists page with {data, next_cursor}: pass next_cursor as cursor.',
  'A failed tool answers isError with the API’s error body {http_status, error, message, issues?}: fix the arguments the issues name and call again.',
].join('\n');

export interface McpPost {
  body: Buffer | undefined;
  contentType: string | undefined;
  /** the MCP-Protocol-Version header */
  protocolVersion: string | string[] | undefined;
}

/** The HTTP answer: a JSON body, or none (202). */
export interface McpHttpAnswer {
  status: number;
  body?: unknown;
}

/** Runs a tool as the caller of the request being answered. */
export type RunTool = (tool: Tool, args: Record<string, unknown>) => Promise<ToolAnswer>;

const isJson = (contentType: string | undefined) => contentType?.split(';')[0].trim().toLowerCase() === 'application/json';

/** tools/list's entries, built once: the catalogue does not change while the service runs. */
export function toolListing(tools: ReadonlyMap<string, Tool>) {
  return [...tools.values()].map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema,
    annotations: { title: t.title, ...t.annotations },
  }));
}

/** A tool's answer as a tools/call result: the body as JSON text and as structured content. */
export function toolResult(answer: ToolAnswer) {
  if (answer.status < 400) {
    return { content: [{ type: 'text', text: JSON.stringify(answer.body) }], ...(isPlainObject(answer.body) ? { structuredContent: answer.body } : {}) };
  }
  // http_status, not status: an error body may have a status of its own (not_cancellable names the message's)
  const failure = { http_status: answer.status, ...(isPlainObject(answer.body) ? answer.body : { error: 'error', message: String(answer.body) }) };
  return { content: [{ type: 'text', text: JSON.stringify(failure) }], structuredContent: failure, isError: true };
}

export function mcpServer(tools: ReadonlyMap<string, Tool>) {
  const listing = toolListing(tools);
  const serverInfo = { name: 'engage', title: 'engage', version: serviceVersion() };

  async function call(id: RequestId, method: string, params: unknown, run: RunTool): Promise<McpHttpAnswer> {
    if (params !== undefined && !isPlainObject(params)) return { status: 200, body: rpcError(id, INVALID_PARAMS, 'Invalid params: params must be an object') };
    const p = params ?? {};
    switch (method) {
      case 'initialize':
        return {
          status: 200,
          body: rpcResult(id, {
            // the client's version when we speak it, else our latest (the client decides whether it can go on)
            protocolVersion: isSupported(p.protocolVersion) ? p.protocolVersion : LATEST_PROTOCOL_VERSION,
            capabilities: { tools: { listChanged: false } },
            serverInfo,
            instructions: INSTRUCTIONS,
          }),
        };
      case 'ping':
        return { status: 200, body: rpcResult(id, {}) };
      case 'tools/list':
        // one page holds every tool: a cursor is accepted and ignored
        return { status: 200, body: rpcResult(id, { tools: listing }) };
      case 'tools/call': {
        if (typeof p.name !== 'string') return { status: 200, body: rpcError(id, INVALID_PARAMS, 'Invalid params: tools/call needs the tool name (params.name)') };
        const tool = tools.get(p.name);
        if (!tool) return { status: 200, body: rpcError(id, INVALID_PARAMS, `Invalid params: unknown tool ${p.name}`, { tools: [...tools.keys()] }) };
        if (p.arguments !== undefined && !isPlainObject(p.arguments)) return { status: 200, body: rpcError(id, INVALID_PARAMS, 'Invalid params: arguments must be an object') };
        return { status: 200, body: rpcResult(id, toolResult(await run(tool, p.arguments ?? {}))) };
      }
      default:
        return { status: 200, body: rpcError(id, METHOD_NOT_FOUND, `Method not found: ${method}`) };
    }
  }

  /** One POST to the endpoint. */
  async function answer(post: McpPost, run: RunTool): Promise<McpHttpAnswer> {
    if (!isJson(post.contentType)) return { status: 415, body: rpcError(null, SERVER_ERROR, 'Unsupported Media Type: Content-Type must be application/json') };
    const message = readMessage(post.body?.toString('utf8') ?? '');
    if (message.kind === 'invalid') return { status: 400, body: rpcError(null, message.code, message.message) };
    // after initialize the client names the negotiated version on every request; initialize itself negotiates in its body
    const header = post.protocolVersion;
    const isInitialize = message.kind === 'request' && message.method === 'initialize';
    if (header !== undefined && !isInitialize && !isSupported(header)) {
      const id = message.kind === 'request' ? message.id : null;
      const message_ = `Bad Request: unsupported MCP-Protocol-Version ${String(header)} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`;
      return { status: 400, body: rpcError(id, SERVER_ERROR, message_, { supported: SUPPORTED_PROTOCOL_VERSIONS }) };
    }
    if (message.kind !== 'request') return { status: 202 };
    return call(message.id, message.method, message.params, run);
  }

  return { answer, listing, serverInfo };
}
