// Literal path segments are routes of their own, never ids (README "API conventions"), on every
// route: the walk takes the app's own route list, so a route added later is covered without a
// change here. A literal in a :param's place answers exactly as a route that does not exist.
import { beforeAll, describe, expect, it } from 'vitest';
import { routesOf, type ServedRoute } from '../../src/http/route.ts';
import { testServerForSuite } from '../support/harness.ts';
import type { TestAccount } from '../support/accounts.ts';

const server = testServerForSuite();
let a: TestAccount;

beforeAll(async () => {
  a = await server.newAccount();
});

const segmentsOf = (url: string) => url.split('/').slice(1);
const isParam = (segment: string) => segment.startsWith(':');
const isLiteral = (segment: string) => !segment.includes(':') && !segment.includes('*');
/** Two patterns agree on a place: the same literal, or a parameter in both. */
const samePlace = (x: string, y: string) => x === y || (isParam(x) && isParam(y));
/** A pattern serves a concrete path (a parameter takes any one segment). */
const serves = (pattern: string[], path: string[]) => pattern.length === path.length && pattern.every((s, i) => s === path[i] || isParam(s));

/** A request the app answers with the flat error body (HEAD answers have no body to judge). */
function appRoutes(): ServedRoute[] {
  return routesOf(server.app).filter((r) => r.method !== 'HEAD');
}

interface Case {
  method: string;
  path: string;
  /** the parameterised route the path would fall to */
  route: string;
}

/**
 * For every route with a :param: each literal that another route has in that place after the same
 * segments, put in the :param's place (other parameters hold a placeholder). A path some route of
 * that method serves with the literal itself is the literal's own route and not a case.
 */
function literalCases(): Case[] {
  const routes = appRoutes();
  const cases = new Map<string, Case>();
  for (const route of routes) {
    const pattern = segmentsOf(route.url);
    pattern.forEach((segment, i) => {
      if (!isParam(segment)) return;
      for (const other of routes) {
        const theirs = segmentsOf(other.url);
        const literal = theirs[i];
        if (literal === undefined || !isLiteral(literal) || !pattern.slice(0, i).every((s, j) => samePlace(s, theirs[j]!))) continue;
        const path = pattern.map((s, j) => (j === i ? literal : isParam(s) ? 'x' : s));
        if (routes.some((r) => r.method === route.method && segmentsOf(r.url)[i] === literal && serves(segmentsOf(r.url), path))) continue;
        const c = { method: route.method, path: `/${path.join('/')}`, route: route.url };
        cases.set(`${c.method} ${c.path}`, c);
      }
    });
  }
  return [...cases.values()];
}

async function expectNoRoute(method: string, path: string, opts: { key?: string; body?: unknown } = {}) {
  const res = await server.call(method, path, opts);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(404);
  // the same answer as for a route that does not exist, not a failed lookup of an id
  expect(res.body, `${method} ${path}`).toEqual({ error: 'not_found', message: `no route ${method} ${path}` });
}

describe('a literal segment in the place of a :param is never taken for an id', () => {
  it('on every route the app serves', async () => {
    const cases = literalCases();
    // the walk sees the routes the contract names (a walk of nothing would pass)
    const names = cases.map((c) => `${c.method} ${c.path}`);
    for (const known of ['PATCH /v1/contacts/fields', 'DELETE /v1/contacts/fields', 'PUT /v1/segments/preview', 'DELETE /v1/segments/schema', 'GET /v1/segments/schema/contacts', 'GET /v1/messages/history/timeline', 'GET /v1/contacts/export/history']) {
      expect(names).toContain(known);
    }
    for (const c of cases) await expectNoRoute(c.method, c.path, { key: a.key });
  });

  it('the cases of the issue, with a body that would be valid for the :id route', async () => {
    const rules = { match: 'all', rules: [{ field: 'tag', operator: 'has', value: 'vip' }] };
    await expectNoRoute('PATCH', '/v1/contacts/fields', { key: a.key, body: { first_name: 'Ada' } });
    await expectNoRoute('DELETE', '/v1/contacts/fields', { key: a.key });
    await expectNoRoute('PUT', '/v1/segments/preview', { key: a.key, body: { name: 'Preview', rules } });
    await expectNoRoute('PUT', '/v1/segments/schema', { key: a.key, body: { name: 'Schema', rules } });
    await expectNoRoute('DELETE', '/v1/segments/schema', { key: a.key });
    await expectNoRoute('GET', '/v1/segments/schema/contacts', { key: a.key });
    await expectNoRoute('GET', '/v1/segments/preview', { key: a.key });
    await expectNoRoute('POST', '/v1/messages/history/resend', { key: a.key, body: {} });
    // nothing was stored under a literal
    expect((await server.call('GET', '/v1/segments', { key: a.key })).body.data).toEqual([]);
  });

  it('answers like a route that does not exist without credentials too', async () => {
    await expectNoRoute('DELETE', '/v1/segments/schema');
    await expectNoRoute('GET', '/v1/messages/bulk');
    await expectNoRoute('GET', '/v1/no/such/route');
  });

  it('leaves the literal routes and real ids alone', async () => {
    expect((await server.call('GET', '/v1/segments/schema', { key: a.key })).status).toBe(200);
    expect((await server.call('GET', '/v1/contacts/fields', { key: a.key })).status).toBe(200);
    const rules = { match: 'all', rules: [{ field: 'contact.email', operator: 'is_set' }] };
    const preview = await server.call('POST', '/v1/segments/preview', { key: a.key, body: { rules } });
    expect(preview.body).toEqual({ count: 0 });
    const segment = await server.call('POST', '/v1/segments', { key: a.key, body: { name: 'Real', rules } });
    expect(segment.status).toBe(201);
    expect((await server.call('GET', `/v1/segments/${segment.body.id}`, { key: a.key })).body).toMatchObject({ id: segment.body.id, name: 'Real' });
    expect((await server.call('GET', `/v1/segments/${segment.body.id}/contacts`, { key: a.key })).body).toEqual({ data: [], next_cursor: null });
    // an id that is not one is still the :id route's own 404
    expect((await server.call('GET', '/v1/segments/seg_missing', { key: a.key })).body).toEqual({ error: 'not_found', message: 'segment not found' });
  });
});
