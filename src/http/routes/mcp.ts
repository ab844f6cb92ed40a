// The agent tool endpoints (README "Agent tools (MCP)"): POST /v1/mcp speaks MCP's Streamable HTTP
// transport (JSON-RPC 2.0, one JSON answer per POST, stateless; GET and DELETE are 405), POST
// /v1/mcp/act runs the same tools as plain REST for a GPT action, described by its own OpenAPI
// document at GET /v1/mcp/act/openapi.json. Tools are REST routes run with the caller's API key
// (src/mcp/call.ts), so they must be registered before these: the plugin reads the route registry.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { runTool } from '../../mcp/call.ts';
import { SERVER_ERROR, rpcError } from '../../mcp/jsonrpc.ts';
import { actOpenApiDocument } from '../../mcp/openapi.ts';
import { mcpServer, serviceVersion } from '../../mcp/protocol.ts';
import { type Tool, buildTools } from '../../mcp/tools.ts';
import type { AppDeps } from '../deps.ts';
import { type AnyRoute, defineRoute, errorStatuses, registerRoutes } from '../route.ts';

/** How a JSON-RPC message looks, for the API document (the handler reads the raw body itself). */
const JsonRpcMessageDoc = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.int()]).optional().describe('absent in a notification'),
  method: z.string().describe('initialize, ping, tools/list, tools/call or a notification'),
  params: z.record(z.string(), z.unknown()).optional(),
});

const RequestIdOut = z.union([z.string(), z.int()]);
const JsonRpcErrorObject = z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() });

/** A JSON-RPC answer to a request: its result, or its error. */
const JsonRpcResponseOut = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: RequestIdOut,
    result: z.record(z.string(), z.unknown()).optional().describe("the method's result (tools/call: the tool's content, isError when it failed)"),
    error: JsonRpcErrorObject.optional().describe('an unknown method or invalid params'),
  })
  .meta({ id: 'JsonRpcResponse', description: 'A JSON-RPC 2.0 response: result or error' });

/** The transport refusing a message (not JSON, not JSON-RPC, unsupported media type or protocol version): id null unless it could be read. */
const JsonRpcErrorOut = z.object({ jsonrpc: z.literal('2.0'), id: RequestIdOut.nullable(), error: JsonRpcErrorObject }).describe('a JSON-RPC error');

/**
 * What POST /v1/mcp/act answers: each tool route's own success answers (per status, any of the
 * schemas those routes document) and every error status one of them can answer.
 */
function actAnswers(tools: Iterable<Tool>): { responses: Record<number, z.ZodType>; errors: number[] } {
  const byStatus = new Map<number, Set<z.ZodType>>();
  const errors = new Set<number>([404]);
  for (const { route } of tools) {
    const documented = Object.entries(route.responses ?? { 200: undefined }).filter(([status]) => Number(status) < 300);
    for (const [status, answer] of documented) {
      const schemas = byStatus.get(Number(status)) ?? new Set();
      // a route that describes its answer in words only: some JSON object
      schemas.add(answer === undefined || typeof answer === 'string' ? SOME_OBJECT : answer);
      byStatus.set(Number(status), schemas);
    }
    for (const status of errorStatuses(route)) errors.add(status);
  }
  const responses: Record<number, z.ZodType> = {};
  for (const [status, schemas] of byStatus) {
    const [first, ...rest] = [...schemas];
    responses[status] = (rest.length ? z.union([first!, ...rest]) : first!).describe(`the answer of the tool's route, when it answers ${status}`);
  }
  return { responses, errors: [...errors] };
}

/** the answer of a route that describes it in words only: some JSON object (one schema, so a union names it once) */
const SOME_OBJECT = z.looseObject({});

const ActBody = z.strictObject({
  tool: z.string().min(1).max(100),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(', ') : v);

/** The service's public base URL: PUBLIC_BASE_URL, else the scheme and host the request came to. */
const baseUrl = (configured: string | undefined, req: FastifyRequest) => (configured ?? `${req.protocol}://${req.host}`).replace(/\/+$/, '');

export function mcpRoutes({ engage }: AppDeps, registry: AnyRoute[]): FastifyPluginAsync {
  return async (child: FastifyInstance) => {
    const tools = buildTools(registry);
    const mcp = mcpServer(tools);
    const actDocument = actOpenApiDocument(tools, serviceVersion());
    const act = actAnswers(tools.values());

    // the MCP endpoint reads its body raw: bad JSON is a JSON-RPC parse error, not the API's flat 400
    await child.register(async (raw: FastifyInstance) => {
      raw.removeAllContentTypeParsers();
      raw.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
      registerRoutes(
        raw,
        [
          defineRoute({
            method: 'POST',
            url: '/v1/mcp',
            auth: 'key',
            // any key may connect: each tool's route checks the scope it needs
            scope: null,
            operationId: 'sendMcpMessage',
            summary: 'MCP tool endpoint (Streamable HTTP, stateless): one JSON-RPC message in, one JSON answer out (202 for a notification)',
            tags: ['agent tools'],
            docBody: JsonRpcMessageDoc,
            responses: {
              200: JsonRpcResponseOut,
              202: 'a notification (or a response), accepted: no body',
              // (routeSchema documents every error status of errorStatuses with the API's error body, these two included)
              400: JsonRpcErrorOut.describe('the message could not be read, or names a protocol version not supported (a JSON-RPC error)'),
              415: JsonRpcErrorOut.describe('the body is not application/json (a JSON-RPC error)'),
            },
            async handler({ body, req, reply }) {
              const answer = await mcp.answer(
                { body: Buffer.isBuffer(body) ? body : undefined, contentType: req.headers['content-type'], protocolVersion: headerValue(req.headers['mcp-protocol-version']) },
                (tool, args) => runTool(req, tool, args),
              );
              if (answer.body === undefined) return reply.code(answer.status).send();
              return reply.code(answer.status).type('application/json').send(JSON.stringify(answer.body));
            },
          }),
        ],
        registry,
      );
      // no server-sent event stream and no sessions to end (outside the API document)
      const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
        reply.code(405).header('Allow', 'POST').type('application/json').send(JSON.stringify(rpcError(null, SERVER_ERROR, 'Method Not Allowed: this endpoint takes POST only (stateless, no event stream)')));
      raw.route({ method: ['GET', 'DELETE'], url: '/v1/mcp', config: { auth: 'none', rateGroup: 'public' }, handler: notAllowed });
    });

    registerRoutes(
      child,
      [
        defineRoute({
          method: 'POST',
          url: '/v1/mcp/act',
          auth: 'key',
          scope: null,
          operationId: 'runAgentTool',
          summary: "Run one agent tool as plain REST (for a GPT action): body {tool, arguments}; answers the tool route's own status and body. Tools: GET /v1/mcp/act/openapi.json",
          tags: ['agent tools'],
          body: ActBody,
          description: "The answer is the tool route's own, status and body: an error status of any tool's route passes through. A tool that does not exist answers 404.",
          responses: act.responses,
          errors: act.errors,
          async handler({ body, req, reply }) {
            const tool = tools.get(body.tool);
            if (!tool) throw new AppError(404, 'not_found', `no tool named ${body.tool}`, { tools: [...tools.keys()] });
            const answer = await runTool(req, tool, body.arguments ?? {});
            const retryAfter = answer.headers['retry-after'];
            if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter));
            reply.code(answer.status);
            return answer.body;
          },
        }),
      ],
      registry,
    );

    child.get('/v1/mcp/act/openapi.json', { config: { auth: 'none', rateGroup: 'public' } }, async (req) => ({
      ...actDocument,
      servers: [{ url: baseUrl(engage.config.PUBLIC_BASE_URL, req) }],
    }));
  };
}
