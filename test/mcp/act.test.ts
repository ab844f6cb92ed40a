// POST /v1/mcp/act {tool, arguments}: the MCP tools as plain REST for a GPT action, answering the
// tool route's own status and body; and GET /v1/mcp/act/openapi.json, its own OpenAPI 3.1
// description (one operation, a oneOf of the tools told apart by `tool`).
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { requestJson } from '../support/http.ts';

const server = testServerForSuite();
let acct: TestAccount;
beforeAll(async () => {
  acct = await server.newAccount('GPT action');
});

const act = (body: unknown, key: string = acct.key, headers: Record<string, string> = {}) => server.call('POST', '/v1/mcp/act', { key, body, headers });

describe('POST /v1/mcp/act', () => {
  it('runs a tool and answers its route’s status and body: create_contact is a 201 with the contact', async () => {
    const res = await act({ tool: 'create_contact', arguments: { email: 'gpt@example.com', first_name: 'Gee' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^ct_/), email: 'gpt@example.com', first_name: 'Gee' });
    const rest = await server.call('GET', `/v1/contacts/${res.body.id}`, { key: acct.key });
    expect(rest.body).toEqual(res.body);
    const found = await act({ tool: 'find_contacts', arguments: { email: 'gpt@example.com' } });
    expect(found.status).toBe(200);
    expect(found.body).toEqual({ data: [res.body], next_cursor: null });
    const sent = await act({ tool: 'send_message', arguments: { to: '+14155550150', channel: 'sms', message: 'from a GPT' } });
    expect(sent.status).toBe(202);
    expect(sent.body.id).toMatch(/^msg_/);
    // a tool without required arguments may leave them out
    expect((await act({ tool: 'list_lists' })).body).toEqual({ data: [], next_cursor: null });
  });

  it('passes the route’s 400 through unchanged, issues included', async () => {
    const bad = { to: 'not-a-number', channel: 'sms', message: 'x', sendr: 'typo' };
    const res = await act({ tool: 'send_message', arguments: bad });
    const rest = await server.call('POST', '/v1/messages/send', { key: acct.key, body: bad });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(rest.body);
    expect(res.body.issues.length).toBeGreaterThan(0);
  });

  it('answers an unknown tool with 404 not_found naming the tools; a body that is not {tool, arguments?} with 400', async () => {
    const res = await act({ tool: 'launch_rockets', arguments: {} });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'not_found', message: expect.stringContaining('launch_rockets'), tools: expect.arrayContaining(['send_message']) });
    for (const body of [{ arguments: {} }, { tool: 'find_contacts', arguments: [] }, { tool: 'find_contacts', extra: 1 }]) {
      const r = await act(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe('validation_error');
    }
  });

  it('takes the API key only, and the tool route checks its scope: a read-only key gets 403 insufficient_scope for a write', async () => {
    // (an empty key: none is sent)
    expect((await act({ tool: 'find_contacts' }, '')).status).toBe(401);
    const login = await server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: acct.password } });
    expect((await server.call('POST', '/v1/mcp/act', { token: login.body.token, body: { tool: 'find_contacts' } })).status).toBe(401);
    const issued = (await server.call('POST', '/v1/account/api-keys', { key: acct.key, body: { scopes: ['read'] } })).body;
    const refused = await act({ tool: 'create_contact', arguments: { email: 'nope@example.com' } }, issued.key);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'write' });
    expect((await act({ tool: 'find_contacts', arguments: { email: 'nope@example.com' } }, issued.key)).body.data).toEqual([]);
  });

  it('replays a repeated Idempotency-Key instead of running the tool twice', async () => {
    const body = { tool: 'create_contact', arguments: { email: 'once@example.com' } };
    const first = await act(body, acct.key, { 'idempotency-key': 'act-once-1' });
    expect(first.status).toBe(201);
    const again = await act(body, acct.key, { 'idempotency-key': 'act-once-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

/** Every $ref in `doc` points at something in it. */
function expectRefsResolve(doc: any) {
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (typeof v !== 'object' || v === null) return;
    for (const [k, child] of Object.entries(v)) {
      if (k === '$ref') {
        expect(child).toMatch(/^#\//);
        const target = (child as string).slice(2).split('/').reduce((node: any, part) => node?.[part], doc);
        expect(target, `${child as string} resolves`).toBeDefined();
      } else walk(child);
    }
  };
  walk(doc);
}

describe('GET /v1/mcp/act/openapi.json', () => {
  it('is an OpenAPI 3.1 document (no key needed) with one operation whose body is one of every tool', async () => {
    const res = await requestJson(server.url, 'GET', '/v1/mcp/act/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(doc.servers).toEqual([{ url: server.url }]);
    expect(Object.keys(doc.paths)).toEqual(['/v1/mcp/act']);
    const op = doc.paths['/v1/mcp/act'].post;
    expect(op.operationId).toBe('act');
    expect(op.security).toEqual([{ apiKey: [] }]);
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    const schema = op.requestBody.content['application/json'].schema;
    expect(schema.discriminator.propertyName).toBe('tool');

    const tools = (await server.call('POST', '/v1/mcp', { key: acct.key, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })).body.result.tools as { name: string; inputSchema: any }[];
    const names = tools.map((t) => t.name);
    expect(Object.keys(schema.discriminator.mapping).sort()).toEqual([...names].sort());
    expect(schema.oneOf.map((o: { $ref: string }) => o.$ref).sort()).toEqual(Object.values(schema.discriminator.mapping).sort());
    for (const t of tools) {
      const entry = doc.components.schemas[`act_${t.name}`];
      expect(entry.properties.tool).toEqual({ type: 'string', const: t.name });
      expect(Object.keys(entry.properties.arguments.properties ?? {}), t.name).toEqual(Object.keys(t.inputSchema.properties ?? {}));
      expect(entry.required).toContain('tool');
    }
    expect(doc.components.schemas.act_send_message.required).toEqual(['tool', 'arguments']);
    // the segment rules are recursive: their definition lives in components, where OpenAPI resolves refs
    expect(JSON.stringify(doc)).not.toContain('#/$defs/');
    expectRefsResolve(doc);
  });

  it('lists /v1/mcp and /v1/mcp/act in the API’s own document', async () => {
    const doc = (await server.call('GET', '/v1/openapi.json')).body;
    expect(doc.paths['/v1/mcp'].post.security).toEqual([{ apiKey: [] }]);
    expect(doc.paths['/v1/mcp/act'].post.security).toEqual([{ apiKey: [] }]);
  });
});

describe('with PUBLIC_BASE_URL set', () => {
  const configured = testServerForSuite({ PUBLIC_BASE_URL: 'https://api.engage.example/' });
  it('names it as the server of the action document', async () => {
    const res = await requestJson(configured.url, 'GET', '/v1/mcp/act/openapi.json');
    expect(res.body.servers).toEqual([{ url: 'https://api.engage.example' }]);
  });
});
