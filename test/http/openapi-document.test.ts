// The OpenAPI document tells the truth and passes maintained linters (README "API reference"):
// Redocly's recommended rules and Spectral's OpenAPI rules report no error; every operation has a
// unique operationId, a documented success answer and its error answers; public operations say
// they need no credentials. (That every answer the tests receive matches it is checked on every
// request, in test/support/openapi.ts.)
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServerForSuite } from '../support/harness.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

type Operation = { operationId?: string; security?: unknown[]; tags?: string[]; responses: Record<string, { content?: Record<string, unknown> }> };
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

const server = testServerForSuite();
let doc: Document;
let dir: string;
let file: string;

beforeAll(async () => {
  const res = await server.call('GET', '/v1/openapi.json');
  doc = res.body;
  dir = mkdtempSync(path.join(tmpdir(), 'engage-openapi-'));
  file = path.join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const operations = () => Object.entries(doc.paths).flatMap(([p, methods]) => Object.entries(methods).map(([method, op]) => ({ where: `${method.toUpperCase()} ${p}`, op })));

/** A linter's exit status is non-zero when it finds errors: its report is what matters here. */
async function lint(command: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd: ROOT, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
    return stdout;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    if (stdout && /^\s*[[{]/.test(stdout)) return stdout;
    throw new Error(`${command} failed: ${stderr ?? err}`);
  }
}

describe('the OpenAPI document', () => {
  it("passes Redocly's recommended rules without an error", async () => {
    const report = JSON.parse(await lint(bin('redocly'), ['lint', file, '--format=json', '--config', path.join(ROOT, 'redocly.yaml')])) as {
      totals: { errors: number };
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });

  it("passes Spectral's OpenAPI rules without an error", async () => {
    const report = JSON.parse(await lint(bin('spectral'), ['lint', file, '--ruleset', path.join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet'])) as { code: string; severity: number; message: string; path: string[] }[];
    // severity 0 is an error
    expect(report.filter((p) => p.severity === 0).map((p) => `${p.code}: ${p.message} at ${p.path.join('/')}`)).toEqual([]);
  });

  it('names every operation once, tags it, and documents a success answer and the error body', () => {
    const ids = operations().map(({ where, op }) => op.operationId ?? `(none at ${where})`);
    expect(ids.filter((id) => id.startsWith('(none'))).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    for (const { where, op } of operations()) {
      expect(op.tags?.length, where).toBeGreaterThan(0);
      expect(Object.keys(op.responses).some((s) => /^2/.test(s)), `${where} documents a success answer`).toBe(true);
      expect(op.responses['5XX'], `${where} documents 5XX`).toBeDefined();
    }
  });

  it('types every JSON success answer (no answer documented as "some body")', () => {
    const untyped: string[] = [];
    for (const { where, op } of operations()) {
      for (const [status, answer] of Object.entries(op.responses)) {
        const schema = (answer.content?.['application/json'] as { schema?: Record<string, unknown> } | undefined)?.schema;
        if (/^2/.test(status) && schema && Object.keys(schema).filter((k) => k !== 'description').length === 0) untyped.push(`${where} ${status}`);
      }
    }
    expect(untyped).toEqual([]);
  });

  it('says which operations need no credentials (security: []) and which take a key or a session', () => {
    const ops = Object.fromEntries(operations().map(({ where, op }) => [where, op]));
    expect(ops['POST /v1/auth/login']!.security).toEqual([]);
    expect(ops['GET /health']!.security).toEqual([]);
    expect(ops['POST /v1/contacts']!.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    for (const { where, op } of operations()) expect(Array.isArray(op.security), `${where} has security`).toBe(true);
  });

  it('says where the API is: an absolute URL (PUBLIC_BASE_URL, else this host on PORT), not "/"', () => {
    const servers = (doc as unknown as { servers: { url: string }[] }).servers;
    expect(servers).toHaveLength(1);
    expect(servers[0]!.url).toMatch(/^http:\/\/localhost:\d+$/);
  });

  it('refers only to schemas it has, and carries no bound zod adds to an integer of its own (±2^53−1)', () => {
    const text = JSON.stringify(doc);
    for (const [, name] of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) expect(doc.components.schemas, name).toHaveProperty(name!);
    expect(text).not.toContain('"#/$defs/');
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
  });

  it('documents the real status of creating answers (201), not 200', () => {
    const ops = Object.fromEntries(operations().map(({ where, op }) => [where, op]));
    for (const where of ['POST /v1/webhook-endpoints', 'POST /v1/account/api-keys', 'POST /v1/contacts/fields', 'POST /v1/contacts']) {
      expect(Object.keys(ops[where]!.responses), where).toContain('201');
      expect(Object.keys(ops[where]!.responses), where).not.toContain('200');
    }
  });
});
