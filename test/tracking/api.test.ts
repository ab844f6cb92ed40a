// Browser tracking over real HTTP (README "Browser tracking", "Rate limits"): the key issued once
// (concurrent first requests too) with its snippet and SDK; origins validated and normalised; the
// identity secret behind the settings capability; rotation invalidating old user_hash values at once;
// the ingestion endpoint's key, origin (CORS) and identity checks, and what it stores; 429 past 120
// requests per minute from one IP.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { trackingStream } from '../../commands/tracking.ts';
import { trackingProjection } from '../../projections/tracking.ts';
import { testServerForSuite, type TestServer } from '../support/harness.ts';
import { type ApiResponse, expectNoServerError, expectRejected, expectUnsupportedMediaType, requestJson } from '../support/http.ts';
import { burst, inOneWindow } from '../support/rate-limits.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { contactByEmail, identitySecret, performed, trackedEvents, trackingKey, userHash } from './helpers.ts';

const unique = () => randomBytes(5).toString('hex');
const SHOP = 'https://shop.example';

interface TrackOptions {
  origin?: string;
  /** default text/plain, as the SDK sends it */
  contentType?: string;
  query?: string;
}

/** POST /v1/track as a browser would (text/plain JSON, an Origin header); never a 5xx, flat errors. */
async function track(server: TestServer, body: unknown, opts: TrackOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { 'content-type': opts.contentType ?? 'text/plain;charset=UTF-8' };
  if (opts.origin !== undefined) headers.origin = opts.origin;
  const res = await requestJson(server.url, 'POST', `/v1/track${opts.query ?? ''}`, { raw: typeof body === 'string' ? body : JSON.stringify(body), headers });
  expectNoServerError(res, 'POST /v1/track');
  return res;
}

async function preflight(server: TestServer, origin: string, query = ''): Promise<ApiResponse> {
  const res = await requestJson(server.url, 'OPTIONS', `/v1/track${query}`, {
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
  expectNoServerError(res, 'OPTIONS /v1/track');
  return res;
}

/** An account with its tracking key, identity secret and a visitor with a valid user_hash. */
async function setup(server: TestServer) {
  const acct = await server.newAccount();
  const { key } = await trackingKey(server, acct.key);
  const secret = await identitySecret(server, acct.key);
  const email = `visitor-${unique()}@example.com`;
  return { acct, key, secret, email, identity: { email, user_hash: userHash(secret, email) } };
}

describe('the tracking key', () => {
  const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false' });

  it('is created on first request, once, and stays the same (concurrent first requests too)', async () => {
    const acct = await server.newAccount();
    const first = await Promise.all(Array.from({ length: 6 }, () => server.call('GET', '/v1/account/tracking-key', { key: acct.key })));
    for (const res of first) expect(res.status).toBe(200);
    const keys = new Set(first.map((r) => r.body.key));
    expect(keys.size).toBe(1);
    const [key] = keys;
    expect(key).toMatch(/^etk_[A-Za-z0-9_-]{20,}$/);
    expect((await trackingKey(server, acct.key)).key).toBe(key);
    const issued = (await server.engage.store.readStream(trackingStream(acct.accountId))).map((e) => e.type);
    expect(issued).toEqual(['TrackingKeyIssued', 'TrackingIdentitySecretIssued']);
    // another account gets its own
    const other = await server.newAccount();
    expect((await trackingKey(server, other.key)).key).not.toBe(key);
  });

  it('comes with a snippet that queues calls and loads the SDK, which is served as cacheable JavaScript', async () => {
    const acct = await server.newAccount();
    const out = await trackingKey(server, acct.key);
    expect(out).toEqual({
      key: expect.any(String),
      origins: [],
      require_identity: true,
      snippet: expect.any(String),
      script_url: `${server.url}/v1/track/sdk.js`,
      ingest_url: `${server.url}/v1/track`,
    });
    expect(out.snippet).toMatch(/^<script>[\s\S]*<\/script>$/);
    for (const part of [JSON.stringify(out.key), JSON.stringify(out.script_url), JSON.stringify(out.ingest_url), 'w.engage=function', 'async', 'engage("page")']) {
      expect(out.snippet).toContain(part);
    }
    const sdk = await fetch(out.script_url);
    expect(sdk.status).toBe(200);
    expect(sdk.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(sdk.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const source = await sdk.text();
    expect(source).toContain("engage('identify'");
    const etag = sdk.headers.get('etag')!;
    const again = await fetch(out.script_url, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('its routes are in the OpenAPI document, their bodies strict', async () => {
    const doc = (await server.call('GET', '/v1/openapi.json')).body;
    expect(Object.keys(doc.paths['/v1/account/tracking-identity']).sort()).toEqual(['get', 'put']);
    for (const [path, method] of [['/v1/account/tracking-key', 'get'], ['/v1/account/tracking-identity/rotate', 'post'], ['/v1/track/sdk.js', 'get']]) expect(doc.paths[path]?.[method], path).toBeDefined();
    const origins = doc.paths['/v1/account/tracking-origins'].put.requestBody.content['application/json'].schema;
    expect(Object.keys(origins.properties)).toEqual(['origins']);
    expect(origins.additionalProperties).toBe(false);
    const ingest = doc.paths['/v1/track'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(ingest.properties).sort()).toEqual(['events', 'identity', 'key', 'traits']);
    expect(ingest.additionalProperties).toBe(false);
  });

  it('is the account’s: the secret is sealed in the log and the read model rebuilds to the same settings', async () => {
    const { acct, key, secret } = await setup(server);
    const log = JSON.stringify((await server.engage.store.readStream(trackingStream(acct.accountId))).map((e) => e.data));
    expect(log).not.toContain(secret);
    await server.call('PUT', '/v1/account/tracking-origins', { key: acct.key, body: { origins: [SHOP] } });
    await server.call('PUT', '/v1/account/tracking-identity', { key: acct.key, body: { require_identity: false } });
    await rebuildAndWait(server, trackingProjection);
    expect(await trackingKey(server, acct.key)).toMatchObject({ key, origins: [SHOP], require_identity: false });
    expect(await identitySecret(server, acct.key)).toBe(secret);
  });
});

describe('allowed origins', () => {
  const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false' });
  const put = (key: string, body: unknown) => server.call('PUT', '/v1/account/tracking-origins', { key, body });

  it('are stored normalised as browsers send Origin, duplicates once; an empty list clears them', async () => {
    const acct = await server.newAccount();
    const res = await put(acct.key, { origins: ['HTTPS://Shop.Example:443/', 'http://localhost:8080', 'https://shop.example', 'http://127.0.0.1:80', 'https://[::1]:8443', 'https://bücher.example'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = ['https://shop.example', 'http://localhost:8080', 'http://127.0.0.1', 'https://[::1]:8443', 'https://xn--bcher-kva.example'];
    expect(res.body).toEqual({ origins: expected });
    expect((await trackingKey(server, acct.key)).origins).toEqual(expected);
    expect((await put(acct.key, { origins: [] })).body).toEqual({ origins: [] });
    expect((await trackingKey(server, acct.key)).origins).toEqual([]);
  });

  it('refuse what is not an http(s) origin with 400 naming the entry, changing nothing', async () => {
    const acct = await server.newAccount();
    await put(acct.key, { origins: [SHOP] });
    const bad = ['shop.example', 'ftp://shop.example', 'https://shop.example/path', 'https://shop.example/?q=1', 'https://shop.example#top', 'https://user:pw@shop.example', 'https://*.shop.example', 'https://', 'javascript:alert(1)', 'https://shop.example:99999', ''];
    for (const origin of bad) expectRejected(await put(acct.key, { origins: [SHOP, origin] }), 'origins.1');
    expectRejected(await put(acct.key, { origins: Array.from({ length: 101 }, (_, i) => `https://s${i}.example`) }), 'origins');
    expectRejected(await put(acct.key, { origins: SHOP }), 'origins');
    expectRejected(await put(acct.key, {}), 'origins');
    expectRejected(await put(acct.key, { origins: [], domains: [] }), 'domains');
    expect((await trackingKey(server, acct.key)).origins).toEqual([SHOP]);
  });
});

describe('the identity secret', () => {
  const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false' });

  it('needs the settings capability to read, require or rotate; a read or write key gets 403 insufficient_scope', async () => {
    const acct = await server.newAccount();
    for (const scopes of [['read'], ['read', 'write']]) {
      const limited = (await server.call('POST', '/v1/account/api-keys', { key: acct.key, body: { scopes } })).body.key;
      // the public key is not a secret: a read key may see it
      expect((await server.call('GET', '/v1/account/tracking-key', { key: limited })).status).toBe(200);
      for (const [method, path, body] of [
        ['GET', '/v1/account/tracking-identity', undefined],
        ['PUT', '/v1/account/tracking-identity', { require_identity: false }],
        ['POST', '/v1/account/tracking-identity/rotate', {}],
      ] as const) {
        const res = await server.call(method, path, { key: limited, body });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'settings' });
      }
    }
    const full = await server.call('GET', '/v1/account/tracking-identity', { key: acct.key });
    expect(full.body).toEqual({ secret: expect.stringMatching(/^eis_[A-Za-z0-9_-]{43}$/), require_identity: true });
  });

  it('turning the requirement off answers a warning; on again answers none; bad bodies are 400', async () => {
    const acct = await server.newAccount();
    const off = await server.call('PUT', '/v1/account/tracking-identity', { key: acct.key, body: { require_identity: false } });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ require_identity: false, warning: expect.stringContaining('anyone holding the public tracking key') });
    expect((await server.call('GET', '/v1/account/tracking-identity', { key: acct.key })).body.require_identity).toBe(false);
    const on = await server.call('PUT', '/v1/account/tracking-identity', { key: acct.key, body: { require_identity: true } });
    expect(on.body).toEqual({ require_identity: true });
    expectRejected(await server.call('PUT', '/v1/account/tracking-identity', { key: acct.key, body: { require_identity: 'no' } }), 'require_identity');
    expectRejected(await server.call('PUT', '/v1/account/tracking-identity', { key: acct.key, body: {} }), 'require_identity');
    expectRejected(await server.call('PUT', '/v1/account/tracking-identity', { key: acct.key, body: { require_identity: true, secret: 'x' } }), 'secret');
  });

  it('rotating it stops every user_hash made with the old one at once; the new one works', async () => {
    const { acct, key, secret, email, identity } = await setup(server);
    expect((await track(server, { key, identity })).status).toBe(200);
    const rotated = await server.call('POST', '/v1/account/tracking-identity/rotate', { key: acct.key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(secret);
    expect(await identitySecret(server, acct.key)).toBe(rotated.body.secret);
    const stale = await track(server, { key, identity, events: [{ type: 'track', name: 'after_rotation' }] });
    expect(stale.status).toBe(401);
    expect(stale.body).toMatchObject({ error: 'unauthorized' });
    expect(await performed(server, acct.key, email, 'after_rotation')).toBe(0);
    const fresh = await track(server, { key, identity: { email, user_hash: userHash(rotated.body.secret, email) }, events: [{ type: 'track', name: 'after_rotation' }] });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    expect(await performed(server, acct.key, email, 'after_rotation')).toBe(1);
  });
});

describe('POST /v1/track', () => {
  const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false' });

  it('identify creates the contact with its traits; track and page land on it as tracked events, properties sealed', async () => {
    const { acct, key, email, identity } = await setup(server);
    const ident = await track(server, { key, identity, traits: { first_name: 'Ada', custom_fields: {} } });
    expect(ident.status, JSON.stringify(ident.body)).toBe(200);
    expect(ident.body).toEqual({ accepted: 0, duplicates: 0, failed: 0, results: [] });
    const contact = await contactByEmail(server, acct.key, email);
    expect(contact).toMatchObject({ email, first_name: 'Ada' });

    const res = await track(server, {
      key,
      identity,
      events: [
        { type: 'track', name: 'Clicked', properties: { button: 'buy' } },
        { type: 'page', properties: { url: 'https://shop.example/a?b=1', path: '/a', title: 'A', referrer: '' } },
        { type: 'track', name: 'Clicked', id: `click-${unique()}` },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ accepted: 3, duplicates: 0, failed: 0 });
    expect(res.body.results.map((r: any) => r.status)).toEqual(['accepted', 'accepted', 'accepted']);
    for (const r of res.body.results) expect(r).not.toHaveProperty('contact_id');
    // read-your-writes, through the API
    expect(await performed(server, acct.key, email, 'Clicked', 2)).toBe(1);
    expect(await performed(server, acct.key, email, 'page_viewed')).toBe(1);
    const events = await trackedEvents(server, contact!.id);
    expect(events.map((e) => e.name)).toEqual(['Clicked', 'page_viewed', 'Clicked']);
    expect(events[1].properties).toEqual({ url: 'https://shop.example/a?b=1', path: '/a', title: 'A', referrer: '' });
    expect(events[0].actor).toBe(`tracking:${key}`);
    // the properties are sealed in the log, as POST /v1/events stores them
    const { rows } = await server.engage.pool.query<{ data: string }>(`SELECT data::text FROM es_events WHERE stream_id = $1 AND type = 'EventTracked'`, [`contact-${contact!.id}`]);
    expect(rows).toHaveLength(3);
    expect(rows[0].data).not.toContain('buy');

    // traits with events: the contact is updated and the event lands
    const both = await track(server, { key, identity, traits: { last_name: 'Lovelace' }, events: [{ type: 'track', name: 'Signed In' }] });
    expect(both.body).toMatchObject({ accepted: 1 });
    expect(await contactByEmail(server, acct.key, email)).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace' });
  });

  it('names a contact by phone (E.164) or external_id, each signed as given', async () => {
    const { acct, key, secret } = await setup(server);
    const phone = '+14155550123';
    const byPhone = await track(server, { key, identity: { phone: '+1 415 555 0123', user_hash: userHash(secret, phone) }, events: [{ type: 'track', name: 'Called' }] });
    expect(byPhone.status, JSON.stringify(byPhone.body)).toBe(200);
    expect(byPhone.body.accepted).toBe(1);
    const created = await server.call('POST', '/v1/contacts', { key: acct.key, body: { external_id: 'user-42' } });
    expect(created.status).toBe(201);
    const byExternal = await track(server, { key, identity: { external_id: 'user-42', user_hash: userHash(secret, 'user-42') }, events: [{ type: 'track', name: 'Opened' }] });
    expect(byExternal.body.accepted).toBe(1);
    expect((await trackedEvents(server, created.body.id)).map((e) => e.name)).toEqual(['Opened']);
    // an email is signed trimmed and lower-cased
    const email = `Mixed-${unique()}@Example.com`;
    const mixed = await track(server, { key, identity: { email: `  ${email} `, user_hash: userHash(secret, email.toLowerCase()) } });
    expect(mixed.status).toBe(200);
  });

  it('refuses a missing or wrong user_hash with 401 while identity is required, and stores nothing', async () => {
    const { acct, key, secret, email } = await setup(server);
    const cases = [
      { email },
      { email, user_hash: userHash(secret, `other-${email}`) },
      { email, user_hash: userHash('eis_not-the-secret', email) },
      { email, user_hash: 'zz' },
      { email, user_hash: userHash(secret, email).toUpperCase().slice(1) },
    ];
    for (const identity of cases) {
      const res = await track(server, { key, identity, events: [{ type: 'track', name: 'Forged' }] });
      expect(res.status, JSON.stringify(identity)).toBe(401);
      expect(res.body.error).toBe('unauthorized');
    }
    expect(await contactByEmail(server, acct.key, email)).toBeUndefined();
    // upper-case hex is the same hash
    expect((await track(server, { key, identity: { email, user_hash: userHash(secret, email).toUpperCase() } })).status).toBe(200);
  });

  it('takes any identity without user_hash once identity is no longer required', async () => {
    const { acct, key, email } = await setup(server);
    await server.call('PUT', '/v1/account/tracking-identity', { key: acct.key, body: { require_identity: false } });
    const res = await track(server, { key, identity: { email }, events: [{ type: 'track', name: 'Unsigned' }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await performed(server, acct.key, email, 'Unsigned')).toBe(1);
  });

  it('refuses bad input with 400: the body, the identity, identifiers in traits; a bad event fails alone', async () => {
    const { key, secret, identity } = await setup(server);
    expectRejected(await track(server, { key }), 'identity');
    expectRejected(await track(server, { key, identity: { user_hash: 'x' } }), 'identity');
    expectRejected(await track(server, { key, identity: { ...identity, phone: '+14155550123' } }), 'identity');
    expectRejected(await track(server, { key, identity: { external_id: ' padded ', user_hash: userHash(secret, ' padded ') } }), 'identity.external_id');
    const renamed = await track(server, { key, identity, traits: { email: 'someone-else@example.com' } });
    expectRejected(renamed, 'traits.email');
    expect(renamed.body.message).toContain('cannot be changed from the browser');
    expectRejected(await track(server, { key, identity, extra: 1 }), 'extra');
    expectRejected(await track(server, { key, identity, events: Array.from({ length: 51 }, () => ({ type: 'track', name: 'x' })) }), 'events');
    expectRejected(await track(server, 'not json'), '(body)');
    expectUnsupportedMediaType(await track(server, { key, identity }, { contentType: 'application/x-www-form-urlencoded' }));
    const big = await track(server, { key, identity, events: [{ type: 'track', name: 'x', properties: { blob: 'x'.repeat(70 * 1024) } }] });
    expect(big.status).toBe(413);

    const res = await track(server, {
      key,
      identity,
      events: [{ type: 'track', name: 'Good' }, { type: 'track' }, { type: 'jump', name: 'x' }, { type: 'track', name: 'x', properties: [1] }, { type: 'page' }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accepted: 2, failed: 3 });
    expect(res.body.results.map((r: any) => r.status)).toEqual(['accepted', 'failed', 'failed', 'failed', 'accepted']);
    expect(res.body.results[1]).toMatchObject({ error: 'validation_error', issues: [expect.objectContaining({ path: 'name' })] });
  });

  it('answers an unknown key 401 and a missing one 400; the key may come as ?key=', async () => {
    const { key, identity } = await setup(server);
    const unknown = await track(server, { key: `etk_${unique()}`, identity });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ error: 'unauthorized', message: expect.stringContaining('unknown tracking key') });
    expectRejected(await track(server, { identity }), 'key');
    expectRejected(await track(server, { key: 42, identity }), 'key');
    expect((await track(server, { identity }, { query: `?key=${key}` })).status).toBe(200);
    expectRejected(await track(server, { key, identity }, { query: `?key=etk_${unique()}` }), 'key');
  });
});

describe('CORS and allowed origins on /v1/track', () => {
  const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false' });

  it('an allowed origin is answered with its Access-Control-Allow-Origin; another gets 403 and none; no Origin is refused once origins are set', async () => {
    const { acct, key, identity } = await setup(server);
    await server.call('PUT', '/v1/account/tracking-origins', { key: acct.key, body: { origins: [SHOP, 'http://localhost:8080'] } });
    const ok = await track(server, { key, identity }, { origin: SHOP });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(ok.headers.get('vary')).toMatch(/origin/i);
    // an error after the origin is admitted is readable by the page too
    const unsigned = await track(server, { key, identity: { email: identity.email } }, { origin: 'http://localhost:8080' });
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('access-control-allow-origin')).toBe('http://localhost:8080');

    for (const origin of ['https://evil.example', 'https://shop.example:8443', 'http://shop.example', 'null']) {
      const refused = await track(server, { key, identity }, { origin });
      expect(refused.status, origin).toBe(403);
      expect(refused.body).toMatchObject({ error: 'forbidden', message: expect.any(String) });
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    }
    const none = await track(server, { key, identity });
    expect(none.status).toBe(403);
  });

  it('an empty list accepts any origin and requests without one', async () => {
    const { key, identity } = await setup(server);
    const any = await track(server, { key, identity }, { origin: 'https://anywhere.example' });
    expect(any.status).toBe(200);
    expect(any.headers.get('access-control-allow-origin')).toBe('https://anywhere.example');
    expect((await track(server, { key, identity })).status).toBe(200);
  });

  it('answers the preflight: checked against the key given as ?key=, open without one', async () => {
    const { acct, key } = await setup(server);
    await server.call('PUT', '/v1/account/tracking-origins', { key: acct.key, body: { origins: [SHOP] } });
    const ok = await preflight(server, SHOP, `?key=${key}`);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(ok.headers.get('access-control-allow-methods')).toBe('POST');
    expect(ok.headers.get('access-control-allow-headers')?.toLowerCase()).toBe('content-type');
    expect(Number(ok.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(ok.headers.get('vary')).toMatch(/origin/i);

    const refused = await preflight(server, 'https://evil.example', `?key=${key}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('forbidden');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect((await preflight(server, SHOP, `?key=etk_${unique()}`)).status).toBe(401);

    const open = await preflight(server, 'https://evil.example');
    expect(open.status).toBe(204);
    expect(open.headers.get('access-control-allow-origin')).toBe('https://evil.example');
    // … and the POST that follows is still refused
    expect((await track(server, { key, identity: { email: 'a@example.com' } }, { origin: 'https://evil.example', contentType: 'application/json' })).status).toBe(403);
  });
});

describe('rate limit of /v1/track', () => {
  // a server of its own: the public limit is per IP, and every test here comes from 127.0.0.1
  const server = testServerForSuite();

  it('answers the 121st request in a minute from one IP with 429 and the body of README "Rate limits"', async () => {
    const { key, identity } = await setup(server);
    const statuses = await inOneWindow(60_000, async () => {
      const answers = await burst(120, 10, () => track(server, { key, identity }));
      return { answers, over: await track(server, { key, identity }) };
    }, 1);
    expect(statuses.answers.map((r) => r.status)).toEqual(Array(120).fill(200));
    expect(statuses.over.status).toBe(429);
    expect(statuses.over.body).toEqual({ error: 'rate_limit_exceeded', message: expect.any(String), limit: 120, window: '1 minute', retry_after: expect.any(Number) });
    expect(statuses.over.headers.get('retry-after')).toBe(String(statuses.over.body.retry_after));
    // the preflight and the SDK count in the same bucket
    expect((await preflight(server, SHOP)).status).toBe(429);
    expect((await requestJson(server.url, 'GET', '/v1/track/sdk.js')).status).toBe(429);
  }, 120_000);
});
