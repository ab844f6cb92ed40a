// Every answer an HTTP test receives is checked against the service's own OpenAPI document: its
// status must be one the operation documents, and a JSON body must validate against that answer's
// schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses), so the document cannot drift from what the
// service does (README "API reference").
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { appendFileSync } from 'node:fs';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  /** literal segments: a more literal template wins (`/v1/segments/preview` over `/v1/segments/{id}`) */
  literals: number;
  operationId: string;
  responses: Record<string, { content?: Record<string, unknown> }>;
}

interface CheckedDocument {
  operations: Operation[];
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}

const documents = new Map<string, Promise<CheckedDocument>>();
/** the documents of services in this process, read without a request (which would count against the public rate limit) */
const inProcess = new Map<string, () => unknown>();

/** The service at `baseUrl` runs in this process: its document is `read()` (its app's swagger()). */
export function documentInProcess(baseUrl: string, read: () => unknown): void {
  inProcess.set(baseUrl, read);
  documents.delete(baseUrl);
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

async function read(baseUrl: string): Promise<unknown> {
  const local = inProcess.get(baseUrl);
  if (local) return structuredClone(local());
  const res = await fetch(`${baseUrl}/v1/openapi.json`);
  if (res.status !== 200) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
  return res.json();
}

async function load(baseUrl: string): Promise<CheckedDocument> {
  const doc = (await read(baseUrl)) as { paths: Record<string, Record<string, Omit<Operation, 'method' | 'template' | 'pattern' | 'literals'>>> };
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc as object, 'api');
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    const segments = template.split('/');
    const pattern = new RegExp(`^${segments.map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('/')}/?$`);
    const literals = segments.filter((s) => !s.startsWith('{')).length;
    for (const [method, op] of Object.entries(methods)) {
      operations.push({ method: method.toUpperCase(), template, pattern, literals, operationId: op.operationId, responses: op.responses });
    }
  }
  operations.sort((a, b) => b.literals - a.literals);
  return { operations, ajv, validators: new Map() };
}

/** The document of the service at `baseUrl`, read once. */
function documentOf(baseUrl: string): Promise<CheckedDocument> {
  let doc = documents.get(baseUrl);
  if (!doc) {
    doc = load(baseUrl);
    documents.set(baseUrl, doc);
    doc.catch(() => documents.delete(baseUrl));
  }
  return doc;
}

/**
 * ENGAGE_OPENAPI_REPORT=<file>: each mismatch is appended to the file as a line of JSON instead of
 * failing the test (to collect every mismatch of a whole run while documenting the operations).
 */
const REPORT = process.env.ENGAGE_OPENAPI_REPORT;

function mismatch(op: Operation | undefined, method: string, path: string, status: number, problem: string): void {
  if (!REPORT) throw new Error(problem);
  appendFileSync(REPORT, `${JSON.stringify({ operationId: op?.operationId, method, template: op?.template, path, status, problem: problem.slice(0, 2000) })}\n`);
}

const shown = (body: unknown) => String(JSON.stringify(body)).slice(0, 600);

/**
 * Throws when the answer (`status`, `contentType`, `body` as parsed) is not what the document says
 * `method path` answers. A request to no documented operation (an unknown route, a provider
 * callback, a hosted page) is not checked.
 */
export async function checkAnswerAgainstDocument(baseUrl: string, method: string, path: string, answer: { status: number; contentType: string | null; body: unknown; text: string }): Promise<void> {
  if (method === 'HEAD' || method === 'OPTIONS') return;
  const doc = await documentOf(baseUrl);
  const bare = path.split('?')[0]!.split('#')[0]!;
  const op = doc.operations.find((o) => o.method === method && o.pattern.test(bare));
  if (!op) return;
  const { status } = answer;
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => op.responses[k] !== undefined);
  const where = `${method} ${path} (${op.operationId})`;
  if (key === undefined) return mismatch(op, method, path, status, `${where} answered ${status}, a status its operation does not document: ${shown(answer.body)}`);
  const content = op.responses[key]!.content;
  if (!content) {
    if (answer.text.length > 0 && status !== 204) mismatch(op, method, path, status, `${where} answered ${status} with a body, which the document says has none: ${shown(answer.body)}`);
    return;
  }
  const mediaType = (answer.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!(mediaType in content)) return mismatch(op, method, path, status, `${where} answered ${status} as ${mediaType || 'no content type'}, not one the document gives (${Object.keys(content).join(', ')})`);
  if (!mediaType.includes('json')) return;
  const ref = `api#/${pointer('paths', op.template, op.method.toLowerCase(), 'responses', key, 'content', mediaType, 'schema')}`;
  let validate = doc.validators.get(ref);
  if (!validate) {
    validate = doc.ajv.getSchema(ref);
    if (!validate) throw new Error(`${where}: no schema at ${ref}`);
    doc.validators.set(ref, validate);
  }
  if (!validate(answer.body)) {
    const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '(body)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
    mismatch(op, method, path, status, `${where} answered ${status} with a body its documented schema refuses: ${errors.join('; ')}\nbody: ${shown(answer.body)}`);
  }
}
