// The tool catalogue over the route registry (src/mcp/tools.ts): a tool naming a route that is not
// registered, or a route whose request parts share an argument name, stops the service at startup
// with a message that says what to fix; a request's parts become one input schema.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AnyRoute, defineRoute } from '../../src/http/route.ts';
import { buildTools, TOOL_SPECS } from '../../src/mcp/tools.ts';

const route = (spec: Partial<AnyRoute> & Pick<AnyRoute, 'method' | 'url'>): AnyRoute =>
  defineRoute({ auth: 'key', operationId: 'aTool', summary: 's', tags: [], responses: { 200: z.object({}) }, handler: async () => ({}), ...spec }) as AnyRoute;

const spec = (method: AnyRoute['method'], url: string) => [{ name: 'a_tool', title: 'A tool', description: 'does a thing', method, url }];

describe('buildTools', () => {
  it('throws naming the tool and its route when the route is not registered', () => {
    expect(() => buildTools([])).toThrow(`MCP tool ${TOOL_SPECS[0].name} names ${TOOL_SPECS[0].method} ${TOOL_SPECS[0].url}, which is not a registered route`);
    expect(() => buildTools([route({ method: 'GET', url: '/v1/things' })], spec('GET', '/v1/things/:id'))).toThrow(/a_tool names GET \/v1\/things\/:id/);
  });

  it('throws when a path param, a query field or a body field share a name', () => {
    const clash = route({ method: 'POST', url: '/v1/things/:id', params: z.object({ id: z.string() }), body: z.strictObject({ id: z.string() }) });
    expect(() => buildTools([clash], spec('POST', '/v1/things/:id'))).toThrow(/a_tool: argument id/);
  });

  it('merges path params (required), body and query fields into one object; leftovers follow the body’s strictness', () => {
    const r = route({
      method: 'POST',
      url: '/v1/things/:id/parts',
      params: z.object({ id: z.string().max(64) }),
      query: z.strictObject({ dry_run: z.enum(['yes', 'no']).optional() }),
      body: z.strictObject({ name: z.string().min(1) }),
    });
    const tool = buildTools([r], spec('POST', '/v1/things/:id/parts')).get('a_tool')!;
    expect(tool.inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { id: { type: 'string', maxLength: 64 }, name: { type: 'string', minLength: 1 }, dry_run: { type: 'string', enum: ['yes', 'no'] } },
      required: ['id', 'name'],
      additionalProperties: false,
    });
    expect(tool.pathParams).toEqual(['id']);
    expect([...tool.queryFields]).toEqual(['dry_run']);
    expect(tool.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
  });

  it('gives a route that takes nothing an empty object schema accepting nothing else', () => {
    const tool = buildTools([route({ method: 'GET', url: '/v1/nothing' })], spec('GET', '/v1/nothing')).get('a_tool')!;
    expect(tool.inputSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    expect(tool.annotations.readOnlyHint).toBe(true);
  });
});
