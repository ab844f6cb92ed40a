// JSON-RPC 2.0 as MCP uses it over Streamable HTTP: one message per POST (batches were removed in
// protocol 2025-06-18), ids are strings or integers, params an object. This module reads the
// envelope and writes answers; what the methods do is protocol.ts's.

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
/** implementation-defined server error: the transport refusing a request (media type, protocol version) */
export const SERVER_ERROR = -32000;

export type RequestId = string | number;

export type Incoming =
  | { kind: 'request'; id: RequestId; method: string; params: unknown }
  | { kind: 'notification'; method: string }
  /** a client's answer to a request of ours (we send none): accepted and dropped */
  | { kind: 'response' }
  | { kind: 'invalid'; code: typeof PARSE_ERROR | typeof INVALID_REQUEST; message: string };

export interface RpcError {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string; data?: unknown };
}

export const rpcResult = (id: RequestId, result: unknown) => ({ jsonrpc: '2.0' as const, id, result });

export const rpcError = (id: RequestId | null, code: number, message: string, data?: unknown): RpcError => ({
  jsonrpc: '2.0',
  id,
  error: { code, message, ...(data === undefined ? {} : { data }) },
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is RequestId => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

/** Reads one message from the body text. */
export function readMessage(text: string): Incoming {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'invalid', code: PARSE_ERROR, message: 'Parse error: the body is not valid JSON' };
  }
  if (Array.isArray(value)) {
    return { kind: 'invalid', code: INVALID_REQUEST, message: 'Invalid Request: batches are not supported (removed in protocol 2025-06-18); send one message per POST' };
  }
  if (!isObject(value) || value.jsonrpc !== '2.0') return { kind: 'invalid', code: INVALID_REQUEST, message: 'Invalid Request: not a JSON-RPC 2.0 message object' };
  if ('method' in value) {
    if (typeof value.method !== 'string') return { kind: 'invalid', code: INVALID_REQUEST, message: 'Invalid Request: method must be a string' };
    if (!('id' in value)) return { kind: 'notification', method: value.method };
    if (!isId(value.id)) return { kind: 'invalid', code: INVALID_REQUEST, message: 'Invalid Request: id must be a string or an integer' };
    return { kind: 'request', id: value.id, method: value.method, params: value.params };
  }
  if (isId(value.id) && ('result' in value || 'error' in value)) return { kind: 'response' };
  return { kind: 'invalid', code: INVALID_REQUEST, message: 'Invalid Request: neither a request, a notification nor a response' };
}
