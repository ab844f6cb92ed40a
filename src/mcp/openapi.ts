// The OpenAPI 3.1 description of POST /v1/mcp/act, for a GPT action: one operation whose body is
// one of the tools ({tool, arguments}), told apart by `tool`. Each tool's arguments schema is its
// MCP input schema; schema definitions ($defs) move to components, where OpenAPI resolves refs.
import type { ObjectSchema, Tool } from './tools.ts';

const componentName = (tool: string) => `act_${tool}`;

/** The schema with its $defs moved out: refs to #/$defs/X point at #/components/schemas/<prefix>_X. */
function hoistDefs(schema: ObjectSchema, prefix: string, components: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _draft, $defs, ...rest } = schema;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/') ? `#/components/schemas/${prefix}_${v.slice('#/$defs/'.length)}` : rewrite(v)]),
    );
  };
  for (const [name, def] of Object.entries($defs ?? {})) components[`${prefix}_${name}`] = rewrite(def);
  return rewrite(rest) as Record<string, unknown>;
}

/** The document without its servers (they depend on where it is asked for). */
export function actOpenApiDocument(tools: ReadonlyMap<string, Tool>, version: string): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (const tool of tools.values()) {
    const args = hoistDefs(tool.inputSchema, componentName(tool.name), schemas);
    const needsArguments = (tool.inputSchema.required ?? []).length > 0;
    schemas[componentName(tool.name)] = {
      type: 'object',
      title: tool.title,
      description: tool.description,
      properties: { tool: { type: 'string', const: tool.name }, arguments: args },
      required: needsArguments ? ['tool', 'arguments'] : ['tool'],
      additionalProperties: false,
    };
  }
  schemas.Error = {
    type: 'object',
    required: ['error', 'message'],
    properties: { error: { type: 'string' }, message: { type: 'string' }, issues: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } } },
    additionalProperties: true,
  };
  const ref = (tool: string) => `#/components/schemas/${componentName(tool)}`;
  const names = [...tools.keys()];
  const toolList = [...tools.values()].map((t) => `- ${t.name}: ${t.title}`).join('\n');
  return {
    openapi: '3.1.0',
    info: {
      title: 'engage agent actions',
      version,
      description: `Run one engage tool per request with your API key: the same tools as the MCP endpoint (POST /v1/mcp), answered with the REST API's own status and body.\n\n${toolList}`,
    },
    paths: {
      '/v1/mcp/act': {
        post: {
          operationId: 'act',
          summary: 'Run one tool',
          description: 'Body {tool, arguments}. Answers what the tool\'s REST route answers: its status and body (a 400 names the invalid arguments in issues).',
          security: [{ apiKey: [] }],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { oneOf: names.map((n) => ({ $ref: ref(n) })), discriminator: { propertyName: 'tool', mapping: Object.fromEntries(names.map((n) => [n, ref(n)])) } },
              },
            },
          },
          responses: {
            '200': { description: 'The tool\'s answer', content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } },
            '201': { description: 'The tool\'s answer: created', content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } },
            '202': { description: 'The tool\'s answer: accepted (a message)', content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } },
            default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          },
        },
      },
    },
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas,
    },
  };
}
