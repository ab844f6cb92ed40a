// POST /v1/mcp at the edges of the protocol, with plain fetch (what the official client never
// sends): MCP Streamable HTTP, stateless, JSON-RPC 2.0 one message per POST. Parse errors and
// invalid requests are 400 JSON-RPC errors with id null; errors of a well-formed request are 200
// JSON-RPC errors with its id; notifications and responses are 202 with no body; GET and DELETE
// are 405; the key is checked first, with the API's flat 401.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { requestJson } from '../support/http.ts';

const server = testServerForSuite();
let acct: TestAccount;
beforeAll(async () => {
  acct = await server.newAccount('Protocol edges');
});

const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** A raw POST to the endpoint: `raw` as it is, or `message` as JSON. */
function post(opts: { message?: unknown; raw?: string; key?: string | null; headers?: Record<string, string> }) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(opts.headers ?? {}) };
  return requestJson(server.url, 'POST', '/v1/mcp', {
    ...(opts.key === null ? {} : { key: opts.key ?? acct.key }),
    headers,
    raw: opts.raw ?? JSON.stringify(opts.message),
  });
}

const request = (id: number | string, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

function expectRpcError(res: { status: number; body: any; headers: Headers }, status: number, code: number, id: number | string | null) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toEqual({ jsonrpc: '2.0', id, error: { code, message: expect.any(String), ...(res.body.error?.data === undefined ? {} : { data: res.body.error.data }) } });
}

describe('methods', () => {
  it('answers initialize with the client’s protocol version when it is supported, our capabilities, server info and instructions', async () => {
    for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
      const res = await post({ message: request(1, 'initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '0' } }) });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('mcp-session-id'), 'stateless: no session').toBeNull();
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: version,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'engage', title: 'engage', version: PACKAGE_VERSION },
          instructions: expect.stringContaining('API key'),
        },
      });
    }
  });

  it('answers initialize with an unknown version (older or newer) with its latest, 2025-11-25', async () => {
    for (const version of ['2023-01-01', '2099-01-01', 42]) {
      const res = await post({ message: request('init', 'initialize', { protocolVersion: version, capabilities: {} }) });
      expect(res.status).toBe(200);
      expect(res.body.id).toBe('init');
      expect(res.body.result.protocolVersion).toBe('2025-11-25');
    }
  });

  it('answers ping with an empty result, and tools/list with every tool (a cursor is ignored)', async () => {
    expect((await post({ message: request(7, 'ping') })).body).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    const list = await post({ message: request(8, 'tools/list', { cursor: 'whatever' }) });
    expect(list.status).toBe(200);
    const names = list.body.result.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(['send_message', 'get_message', 'cancel_message', 'find_contacts', 'remove_suppression']));
    expect(list.body.result.nextCursor).toBeUndefined();
  });

  it('accepts any notification, and a client’s response message, with 202 and no body', async () => {
    for (const message of [{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, { jsonrpc: '2.0', method: 'no/such/notification' }, { jsonrpc: '2.0', id: 3, result: {} }]) {
      const res = await post({ message });
      expect(res.status, JSON.stringify(message)).toBe(202);
      expect(res.body).toBeNull();
    }
  });
});

describe('JSON-RPC errors', () => {
  it('a body that is not JSON is a parse error: 400, -32700, id null (not the API’s flat 400)', async () => {
    expectRpcError(await post({ raw: '{"jsonrpc": "2.0", "id": 1, "method": "ping"' }), 400, -32700, null);
    expectRpcError(await post({ raw: '' }), 400, -32700, null);
  });

  it('a JSON value that is not a JSON-RPC 2.0 message object is an invalid request: 400, -32600, id null', async () => {
    for (const message of [42, 'ping', null, { id: 1, method: 'ping' }, { jsonrpc: '1.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 1, method: 7 }, { jsonrpc: '2.0', id: { n: 1 }, method: 'ping' }, { jsonrpc: '2.0', id: 1.5, method: 'ping' }, { jsonrpc: '2.0', id: 1 }]) {
      expectRpcError(await post({ message }), 400, -32600, null);
    }
  });

  it('a batch (a JSON array) is an invalid request: batching was removed in 2025-06-18', async () => {
    const res = await post({ message: [request(1, 'ping'), request(2, 'ping')] });
    expectRpcError(res, 400, -32600, null);
    expect(res.body.error.message).toMatch(/batch/i);
  });

  it('an unknown method is -32601 with the request’s id, over HTTP 200 (so a client reads it)', async () => {
    const res = await post({ message: request('abc', 'resources/list') });
    expectRpcError(res, 200, -32601, 'abc');
    expect(res.body.error.message).toContain('resources/list');
  });

  it('invalid params are -32602: tools/call without a name, an unknown tool, arguments not an object, params not an object', async () => {
    expectRpcError(await post({ message: request(1, 'tools/call', { arguments: {} }) }), 200, -32602, 1);
    const unknown = await post({ message: request(2, 'tools/call', { name: 'launch_rockets', arguments: {} }) });
    expectRpcError(unknown, 200, -32602, 2);
    expect(unknown.body.error.message).toContain('launch_rockets');
    expect(unknown.body.error.data.tools).toContain('send_message');
    expectRpcError(await post({ message: request(3, 'tools/call', { name: 'find_contacts', arguments: [1] }) }), 200, -32602, 3);
    expectRpcError(await post({ message: request(4, 'tools/list', [1, 2]) }), 200, -32602, 4);
  });

  it('a body sent as another media type is refused with 415', async () => {
    expectRpcError(await post({ message: request(1, 'ping'), headers: { 'content-type': 'text/plain' } }), 415, -32000, null);
  });
});

describe('MCP-Protocol-Version header', () => {
  it('refuses a request naming an unsupported version with 400; a supported one, or none, is served', async () => {
    const bad = await post({ message: request(5, 'ping'), headers: { 'mcp-protocol-version': '2023-01-01' } });
    expectRpcError(bad, 400, -32000, 5);
    expect(bad.body.error.message).toContain('2023-01-01');
    for (const version of ['2024-11-05', '2025-06-18', '2025-11-25']) {
      expect((await post({ message: request(6, 'ping'), headers: { 'mcp-protocol-version': version } })).body).toEqual({ jsonrpc: '2.0', id: 6, result: {} });
    }
    expect((await post({ message: { jsonrpc: '2.0', method: 'notifications/initialized' }, headers: { 'mcp-protocol-version': 'nope' } })).status).toBe(400);
  });

  it('does not check the header on initialize, which negotiates the version in its body', async () => {
    const res = await post({ message: request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {} }), headers: { 'mcp-protocol-version': '1999-01-01' } });
    expect(res.status).toBe(200);
    expect(res.body.result.protocolVersion).toBe('2025-06-18');
  });
});

describe('HTTP methods and authentication', () => {
  it('answers GET (no event stream) and DELETE (no sessions) with 405 and Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await requestJson(server.url, method, '/v1/mcp', { key: acct.key, headers: { accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    }
  });

  it('refuses a POST without a valid API key with the API’s flat 401, before reading the body', async () => {
    for (const key of [null, 'ek_live_not_a_key']) {
      const res = await post({ message: request(1, 'ping'), key });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'unauthorized', message: expect.any(String) });
    }
    const garbage = await post({ raw: 'not json at all', key: null });
    expect(garbage.status).toBe(401);
    expect(garbage.body.error).toBe('unauthorized');
  });

  it('takes the API key only: a dashboard session token is refused', async () => {
    const login = await server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: acct.password } });
    expect(login.status).toBe(200);
    const res = await post({ message: request(1, 'ping'), key: null, headers: { authorization: `Bearer ${login.body.token}` } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'unauthorized', message: expect.stringContaining('X-API-Key') });
  });
});
