// POST /v1/mcp driven by the official MCP client (@modelcontextprotocol/sdk) over its Streamable
// HTTP transport, as an agent uses it: the version negotiated on connect, the tool catalogue with
// input schemas that are the REST API's own, and every tool run as the REST API runs it — the
// same validation, the caller's scopes and the account boundary — its answer checked through REST.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ContactCreateBody, ContactPatchBody } from '../../src/contacts/validation.ts';
import { SendDoc } from '../../src/http/routes/messages.ts';
import { readyAccount, type TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { eventually } from '../support/waits.ts';

const server = testServerForSuite();
const clients: Client[] = [];
let acct: TestAccount;
let other: TestAccount;
let agent: Client;

async function connect(key: string, headers: Record<string, string> = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'engage-test-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/v1/mcp', server.url), { requestInit: { headers: { 'X-API-Key': key, ...headers } } });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

beforeAll(async () => {
  [acct, other] = await Promise.all([readyAccount(server, 'Agent account'), readyAccount(server, 'Someone else')]);
  agent = (await connect(acct.key)).client;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

/** A tool call that must succeed: its structured content (the REST answer). */
async function ok(name: string, args: Record<string, unknown>, client = agent): Promise<any> {
  const res = await client.callTool({ name, arguments: args });
  expect(res.isError, `${name} → ${JSON.stringify(res.content)}`).toBeFalsy();
  const content = res.content as { type: string; text: string }[];
  expect(content).toHaveLength(1);
  expect(content[0].type).toBe('text');
  // the text is the same answer, for clients that read text only
  expect(JSON.parse(content[0].text)).toEqual(res.structuredContent);
  return res.structuredContent;
}

/** A tool call that must fail as a result (not a protocol error): the API's error body with its status. */
async function failed(name: string, args: Record<string, unknown>, client = agent): Promise<any> {
  const res = await client.callTool({ name, arguments: args });
  expect(res.isError, `${name} should fail: ${JSON.stringify(res.content)}`).toBe(true);
  const content = res.content as { type: string; text: string }[];
  expect(JSON.parse(content[0].text)).toEqual(res.structuredContent);
  return res.structuredContent;
}

const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();
const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as any;

describe('connecting', () => {
  it('negotiates the client’s latest protocol version and sees the server’s name, tools capability and instructions', async () => {
    const { client, transport } = await connect(acct.key);
    expect(transport.protocolVersion).toBe('2025-11-25');
    expect(transport.sessionId, 'stateless: no session id').toBeUndefined();
    expect(client.getServerVersion()).toMatchObject({ name: 'engage', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    expect(client.getInstructions()).toContain('API key');
    expect(await client.ping()).toEqual({});
  });
});

describe('tools/list', () => {
  /** tool → the REST route it runs */
  const ROUTES: Record<string, [string, string]> = {
    send_message: ['post', '/v1/messages/send'],
    get_message: ['get', '/v1/messages/{id}'],
    cancel_message: ['delete', '/v1/messages/{id}'],
    list_messages: ['get', '/v1/messages/history'],
    find_contacts: ['get', '/v1/contacts'],
    get_contact: ['get', '/v1/contacts/{id}'],
    create_contact: ['post', '/v1/contacts'],
    update_contact: ['patch', '/v1/contacts/{id}'],
    list_lists: ['get', '/v1/lists'],
    add_contacts_to_list: ['post', '/v1/lists/{id}/contacts'],
    preview_segment: ['post', '/v1/segments/preview'],
    list_suppressions: ['get', '/v1/account/unsubscribes/api/list'],
    add_suppression: ['post', '/v1/account/unsubscribes'],
    remove_suppression: ['delete', '/v1/account/unsubscribes/{address}'],
    get_usage: ['get', '/v1/account/usage'],
    get_balance: ['get', '/v1/account/balance'],
  };

  it('lists every tool with a title, a description, annotations and an object input schema', async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(ROUTES).sort());
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeGreaterThan(30);
      expect(t.title, t.name).toEqual(expect.any(String));
      expect(t.inputSchema.type).toBe('object');
      const [method] = ROUTES[t.name];
      expect(t.annotations?.readOnlyHint, t.name).toBe(method === 'get' || t.name === 'preview_segment');
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('cancel_message')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('send_message')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
  });

  it('gives each tool the JSON Schema of its route’s own zod schemas: a body-only route’s schema exactly', async () => {
    const byName = new Map((await agent.listTools()).tools.map((t) => [t.name, t.inputSchema]));
    expect(byName.get('send_message')).toEqual(jsonSchema(SendDoc));
    expect(byName.get('create_contact')).toEqual(jsonSchema(ContactCreateBody));
    // a path param joins the body's fields as a required argument
    const patch = jsonSchema(ContactPatchBody);
    expect(byName.get('update_contact')).toEqual({ ...patch, properties: { id: { type: 'string', maxLength: 64 }, ...patch.properties }, required: ['id'] });
  });

  it('matches what the REST API documents for each route in /v1/openapi.json: path params, query parameters and body fields', async () => {
    const { tools } = await agent.listTools();
    const doc = (await server.call('GET', '/v1/openapi.json')).body;
    for (const t of tools) {
      const [method, path] = ROUTES[t.name];
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      const expected: Record<string, unknown> = {};
      const required: string[] = [];
      for (const p of op.parameters ?? []) {
        if (p.in === 'path') required.push(p.name);
        expected[p.name] = p.in === 'query' ? p.schema : expect.objectContaining({ type: 'string' });
        if (p.in === 'query' && p.required) required.push(p.name);
      }
      const body = op.requestBody?.content['application/json'].schema;
      // a named schema is a component of the document and a $defs entry of the tool's own schema
      const named = (value: unknown) => JSON.parse(JSON.stringify(value ?? {}).replace(/"#\/components\/schemas\/(\w+?)(Input)?"/g, '"#/$defs/$1"'));
      Object.assign(expected, named(body?.properties));
      required.push(...(body?.required ?? []));
      expect(t.inputSchema.properties ?? {}, t.name).toEqual(expected);
      expect([...(t.inputSchema.required ?? [])].sort(), t.name).toEqual(required.sort());
    }
  });
});

describe('messages', () => {
  it('send_message accepts a message, visible through GET /v1/messages/:id; get_message answers what REST answers', async () => {
    const sent = await ok('send_message', { to: '+14155550140', channel: 'sms', message: 'Hello from an agent' });
    expect(sent).toMatchObject({ id: expect.stringMatching(/^msg_/), status: expect.stringMatching(/^(queued|sent|delivered)$/) });
    const rest = await server.call('GET', `/v1/messages/${sent.id}`, { key: acct.key });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ id: sent.id, channel: 'sms', to: '+14155550140', message: 'Hello from an agent' });
    const got = await ok('get_message', { id: sent.id });
    expect(got).toMatchObject({ id: sent.id, channel: 'sms', to: '+14155550140', message: 'Hello from an agent' });
    const history = await ok('list_messages', { channel: 'sms', limit: 10 });
    expect(history.data.map((m: { id: string }) => m.id)).toContain(sent.id);
  });

  it('cancel_message cancels a scheduled message; cancelling it again is a tool error 409 not_cancellable', async () => {
    const scheduled = await ok('send_message', { to: '+14155550141', channel: 'sms', message: 'later', scheduled_at: inAnHour() });
    expect(scheduled.status).toBe('scheduled');
    expect(await ok('cancel_message', { id: scheduled.id })).toMatchObject({ id: scheduled.id, status: 'cancelled' });
    expect((await server.call('GET', `/v1/messages/${scheduled.id}`, { key: acct.key })).body.status).toBe('cancelled');
    expect(await failed('cancel_message', { id: scheduled.id })).toEqual({ http_status: 409, error: 'not_cancellable', message: expect.any(String), status: 'cancelled' });
  });

  it('bad input is a tool result with isError and the validation issues of the REST API, and nothing is sent', async () => {
    const bad = await failed('send_message', { to: '+14155550142', channel: 'pigeon', message: '' });
    expect(bad).toMatchObject({ http_status: 400, error: 'validation_error', message: expect.any(String) });
    expect(bad.issues.map((i: { path: string }) => i.path).sort()).toEqual(['channel', 'message']);
    const rest = await server.call('POST', '/v1/messages/send', { key: acct.key, body: { to: '+14155550142', channel: 'pigeon', message: '' } });
    expect({ http_status: rest.status, ...rest.body }).toEqual(bad);
    const unknownField = await failed('create_contact', { email: 'typo@example.com', frist_name: 'Ann' });
    expect(unknownField).toMatchObject({ http_status: 400, error: 'validation_error' });
    expect(JSON.stringify(unknownField.issues)).toContain('frist_name');
    const missingId = await failed('get_message', {});
    expect(missingId).toMatchObject({ http_status: 400, error: 'validation_error', issues: [{ path: 'id', message: 'required' }] });
    expect(await failed('get_message', { id: 'msg_1', extra: true })).toMatchObject({ http_status: 400, issues: [{ path: 'extra', message: expect.any(String) }] });
    expect(await failed('get_message', { id: '..' })).toMatchObject({ http_status: 400, issues: [{ path: 'id', message: expect.any(String) }] });
    const history = await server.call('GET', '/v1/messages/history?to=%2B14155550142', { key: acct.key });
    expect(history.body.data).toEqual([]);
  });

  it('another account’s message is a 404 tool error, exactly like a missing one', async () => {
    const mine = (await server.call('POST', '/v1/messages/send', { key: other.key, body: { to: '+14155550143', channel: 'sms', message: 'not yours', scheduled_at: inAnHour() } })).body;
    expect(await failed('get_message', { id: mine.id })).toEqual({ http_status: 404, error: 'not_found', message: 'message not found' });
    expect(await failed('get_message', { id: 'msg_01HZZZZZZZZZZZZZZZZZZZZZZZ' })).toEqual({ http_status: 404, error: 'not_found', message: 'message not found' });
    expect((await failed('cancel_message', { id: mine.id })).http_status).toBe(404);
    expect((await server.call('GET', `/v1/messages/${mine.id}`, { key: other.key })).body.status).toBe('scheduled');
  });
});

describe('contacts and lists', () => {
  it('create_contact, get_contact, find_contacts and update_contact act on the REST API’s contacts', async () => {
    const created = await ok('create_contact', { email: 'Ada@Example.com', first_name: 'Ada', tags: ['vip'] });
    expect(created).toMatchObject({ id: expect.stringMatching(/^ct_/), email: 'ada@example.com', first_name: 'Ada', tags: ['vip'] });
    expect(await ok('get_contact', { id: created.id })).toEqual(created);
    const found = await ok('find_contacts', { email: 'ada@example.com' });
    expect(found).toEqual({ data: [created], next_cursor: null });
    expect((await ok('find_contacts', { tag: 'nobody-has-this' })).data).toEqual([]);
    const updated = await ok('update_contact', { id: created.id, last_name: 'Lovelace', custom_fields: {} });
    expect(updated).toMatchObject({ id: created.id, first_name: 'Ada', last_name: 'Lovelace' });
    expect((await server.call('GET', `/v1/contacts/${created.id}`, { key: acct.key })).body.last_name).toBe('Lovelace');
    expect((await failed('create_contact', { email: 'ada@example.com' })).http_status).toBe(409);
    expect((await failed('get_contact', { id: created.id }, (await connect(other.key)).client)).http_status).toBe(404);
  });

  it('list_lists shows the account’s lists; add_contacts_to_list adds a contact (once)', async () => {
    const list = (await server.call('POST', '/v1/lists', { key: acct.key, body: { name: 'Agents’ picks' } })).body;
    const contact = await ok('create_contact', { email: 'grace@example.com' });
    expect((await ok('list_lists', {})).data.map((l: { id: string }) => l.id)).toContain(list.id);
    expect(await ok('add_contacts_to_list', { id: list.id, contact_id: contact.id })).toMatchObject({ id: list.id, member_count: 1 });
    expect(await ok('add_contacts_to_list', { id: list.id, contact_id: contact.id })).toMatchObject({ id: list.id, member_count: 1 });
    const members = await server.call('GET', `/v1/lists/${list.id}/contacts`, { key: acct.key });
    expect(members.body.data.map((c: { id: string }) => c.id)).toEqual([contact.id]);
    expect((await failed('add_contacts_to_list', { id: list.id })).issues.map((i: { path: string }) => i.path)).toEqual(['contact_id']);
  });

  it('preview_segment counts the contacts a rule set matches, with a sample', async () => {
    await ok('create_contact', { email: 'seg-1@example.com', tags: ['segment-me'] });
    await ok('create_contact', { email: 'seg-2@example.com', tags: ['segment-me'] });
    const rules = { match: 'all', rules: [{ field: 'tag', operator: 'has', value: 'segment-me' }] };
    expect(await ok('preview_segment', { rules })).toEqual({ count: 2 });
    const sampled = await ok('preview_segment', { rules, sample: true });
    expect(sampled.sample.map((c: { email: string }) => c.email).sort()).toEqual(['seg-1@example.com', 'seg-2@example.com']);
    expect((await failed('preview_segment', { rules: { match: 'most', rules: [] } })).http_status).toBe(400);
  });
});

describe('suppressions', () => {
  it('add_suppression, list_suppressions and remove_suppression keep the account’s suppression list', async () => {
    const added = await ok('add_suppression', { email: 'opt.out@example.com' });
    expect(added).toMatchObject({ address: 'opt.out@example.com', channel: 'email', reason: 'manual' });
    expect((await ok('list_suppressions', {})).data.map((s: { address: string }) => s.address)).toEqual(['opt.out@example.com']);
    expect((await server.call('GET', '/v1/account/unsubscribes/api/list', { key: acct.key })).body.data).toHaveLength(1);
    await ok('remove_suppression', { address: 'opt.out@example.com' });
    expect((await ok('list_suppressions', {})).data).toEqual([]);
    expect((await failed('add_suppression', { email: 'a@example.com', phone: '+14155550100' })).http_status).toBe(400);
  });
});

describe('usage and balance', () => {
  it('get_usage counts a message an agent sent, as GET /v1/account/usage does; get_balance answers what GET /v1/account/balance does', async () => {
    const sent = await ok('send_message', { to: '+14155550145', channel: 'sms', message: 'billed' });
    const month = new Date().toISOString().slice(0, 7);
    const usage = await eventually('the sent message in this month’s usage', async () => {
      const u = await ok('get_usage', { from: month, to: month });
      return u.months[0].channels.sms.messages >= 1 ? u : undefined;
    });
    expect(usage).toMatchObject({ from: month, to: month, months: [{ month }] });
    expect((await server.call('GET', `/v1/account/usage?from=${month}&to=${month}`, { key: acct.key })).body).toEqual(usage);
    expect((await server.call('GET', `/v1/messages/${sent.id}`, { key: acct.key })).status).toBe(200);
    // the balance moves when a message is sent: both reads after this one's charge, and every other
    await eventually('the message sent', async () => ((await server.call('GET', `/v1/messages/${sent.id}`, { key: acct.key })).body.status !== 'queued' ? true : undefined));
    await server.caughtUp(['billing']);
    const balance = await ok('get_balance', {});
    expect(balance).toEqual((await server.call('GET', '/v1/account/balance', { key: acct.key })).body);
    expect(balance).toMatchObject({ balance: expect.any(String), currency: expect.any(String) });
    expect((await failed('get_usage', { from: 'last month' })).issues.map((i: { path: string }) => i.path)).toEqual(['from']);
    expect((await failed('get_balance', { currency: 'EUR' })).issues).toEqual([{ path: 'currency', message: 'not an argument of this tool' }]);
  });
});

describe('scopes', () => {
  it('a read-only key can find contacts but sending is a tool error 403 insufficient_scope, and nothing is sent', async () => {
    const issued = await server.call('POST', '/v1/account/api-keys', { key: acct.key, body: { name: 'read only agent', scopes: ['read'] } });
    expect(issued.status).toBe(201);
    const contact = (await server.call('POST', '/v1/contacts', { key: acct.key, body: { email: 'reader-sees@example.com', tags: ['read-scope'] } })).body;
    const { client } = await connect(issued.body.key);
    expect((await ok('find_contacts', { tag: 'read-scope' }, client)).data).toEqual([contact]);
    expect(await ok('preview_segment', { rules: { match: 'all', rules: [{ field: 'tag', operator: 'has', value: 'read-scope' }] } }, client)).toEqual({ count: 1 });
    const refused = await failed('send_message', { to: '+14155550144', channel: 'sms', message: 'should not leave' }, client);
    expect(refused).toEqual({ http_status: 403, error: 'insufficient_scope', message: expect.any(String), required_scope: 'write', missing_scopes: ['write'] });
    expect((await failed('add_suppression', { email: 'x@example.com' }, client)).error).toBe('insufficient_scope');
    expect((await server.call('GET', '/v1/messages/history?to=%2B14155550144', { key: acct.key })).body.data).toEqual([]);
  });
});

describe('request ids', () => {
  it('the events a tool causes carry the agent’s X-Request-Id', async () => {
    const { client } = await connect(acct.key, { 'X-Request-Id': 'agent-req-42' });
    const created = await ok('create_contact', { email: 'traced@example.com' }, client);
    const { rows } = await server.engage.pool.query<{ metadata: { requestId?: string } }>('SELECT metadata FROM es_events WHERE stream_id = $1', [`contact-${created.id}`]);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.metadata.requestId).toBe('agent-req-42');
  });
});
