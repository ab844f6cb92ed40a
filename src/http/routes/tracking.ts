// Browser tracking (README "Browser tracking"): the account's tracking key, snippet, allowed origins
// and identity secret (/v1/account/tracking-*), and the public endpoints a website's visitors reach
// with the public key alone: the ingestion endpoint (POST /v1/track, with its CORS preflight) and the
// SDK script (GET /v1/track/sdk.js). Those live in a child context whose parsers read JSON sent as
// text/plain too (sendBeacon and CORS "simple" requests send that), at most 64 KiB.
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { runCommand } from '../../command-handler.ts';
import { INGEST_PATH, readSdk, SDK_PATH, trackingSnippet } from '../../tracking/browser.ts';
import { ingest, PROFILE_TRAITS, TRACK_BODY_LIMIT, TrackBody, TrackBodyDoc } from '../../tracking/ingest.ts';
import { OriginsBody } from '../../tracking/origins.ts';
import {
  browserTraitRulesOf, changeTracking, identitySecretOf, rotateIdentitySecret, TRACKING_READ_MODELS, type TrackingSettings, trackingSettings,
} from '../../tracking/service.ts';
import type { AppDeps } from '../deps.ts';
import { metadataOf } from '../common.ts';
import { type AnyRoute, defineRoute, registerRoutes } from '../route.ts';
import { admitPublic, KeyQuery, preflightRoute } from '../tracking-key.ts';
import { EventFailure } from './events.ts';

/** When POST /v1/track answers, the contacts it created or changed and the events it stored are readable (as POST /v1/events). */
const INGEST_WAITS_FOR = ['contacts', 'contact_events'];
const SDK_CACHE_CONTROL = 'public, max-age=3600';

const OFF_WARNING =
  'require_identity is off: anyone holding the public tracking key (it is in your web pages) can now name any contact by email, phone or external_id, ' +
  'create contacts and add events and traits to them. Turn it back on once your site sends user_hash.';

const KeyOut = z.object({
  key: z.string().describe('the public tracking key (etk_…): it can only add events, so it may be in web pages'),
  origins: z.array(z.string()).describe('the origins that may use the key; empty: any'),
  require_identity: z.boolean(),
  snippet: z.string().describe('the HTML to paste into every page'),
  script_url: z.string(),
  ingest_url: z.string(),
});
const IdentityOut = z.object({ secret: z.string().describe('user_hash is the hex HMAC-SHA256 of the identifier under this secret'), require_identity: z.boolean() });
/** The custom fields and tags a browser may set besides the profile traits (keys as custom field keys are: at most 64 characters). */
const BrowserTraitsBody = z.strictObject({
  custom_fields: z
    .array(z.string().trim().min(1).max(64))
    .max(100, 'at most 100 custom fields')
    .transform((keys) => [...new Set(keys)]),
  tags: z.boolean().default(false),
});
const BrowserTraitsOut = z.object({
  profile: z.array(z.enum(PROFILE_TRAITS)).describe('the profile traits, which a browser may always set'),
  custom_fields: z.array(z.string()).describe('custom field keys a browser may set too'),
  tags: z.boolean().describe('whether a browser may add tags'),
});
/** POST /v1/track's answer: POST /v1/events's, without contact ids (they are the account's, not the page's). */
const IngestOut = z.object({
  accepted: z.int(),
  duplicates: z.int(),
  failed: z.int(),
  results: z
    .array(z.union([z.object({ index: z.int(), status: z.enum(['accepted', 'duplicate']), id: z.string() }), EventFailure]))
    .describe('one per event, in the order sent'),
  ignored_traits: z.array(z.string()).optional().describe('traits the account does not let a browser set: tags, custom_fields.<key>, …'),
});

/** The service's public base URL: PUBLIC_BASE_URL, else the scheme and host the request came to. */
function baseUrl(configured: string | undefined, req: FastifyRequest): string {
  return (configured ?? `${req.protocol}://${req.host}`).replace(/\/+$/, '');
}

export function trackingRoutes({ engage }: AppDeps): AnyRoute[] {
  const keyOut = (s: TrackingSettings, req: FastifyRequest) => {
    const base = baseUrl(engage.config.PUBLIC_BASE_URL, req);
    const script_url = `${base}${SDK_PATH}`;
    const ingest_url = `${base}${INGEST_PATH}`;
    return { key: s.publicKey, origins: s.origins, require_identity: s.requireIdentity, snippet: trackingSnippet(s.publicKey, script_url, ingest_url), script_url, ingest_url };
  };
  const identityOut = async (s: TrackingSettings) => ({ secret: await identitySecretOf(engage, s), require_identity: s.requireIdentity });
  const traitsOut = (s: TrackingSettings) => ({ profile: [...PROFILE_TRAITS], custom_fields: s.browserTraits.customFields, tags: s.browserTraits.tags });
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/account/tracking-key',
      auth: 'key_or_login',
      operationId: 'getTrackingKey',
      summary: 'The public, write-only browser tracking key with its ready-to-paste snippet (created on first request)',
      tags: ['tracking'],
      responses: { 200: KeyOut },
      async handler({ auth, req }) {
        const { settings } = await runCommand(engage, metadataOf(req), TRACKING_READ_MODELS, (m) => trackingSettings(engage, auth.accountId, m));
        return keyOut(settings, req);
      },
    }),
    defineRoute({
      method: 'PUT',
      url: '/v1/account/tracking-origins',
      auth: 'key_or_login',
      operationId: 'setTrackingOrigins',
      summary: 'Restrict the website origins that may use the tracking key (an empty list accepts any origin)',
      tags: ['tracking'],
      body: OriginsBody,
      responses: { 200: z.object({ origins: z.array(z.string()).describe('the origins that may use the key; empty: any') }) },
      // a write that met another on the same stream on every retry (write conflict)
      errors: [409],
      async handler({ body, auth, req }) {
        const { settings } = await runCommand(engage, metadataOf(req), TRACKING_READ_MODELS, (m) =>
          changeTracking(engage, auth.accountId, { type: 'SetTrackingOrigins', origins: body.origins }, m),
        );
        return { origins: settings.origins };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/tracking-identity',
      auth: 'key_or_login',
      scope: 'settings',
      operationId: 'getTrackingIdentity',
      summary: 'The identity secret your backend computes user_hash with, and whether a signed identity is required',
      tags: ['tracking'],
      responses: { 200: IdentityOut },
      async handler({ auth, req }) {
        const { settings } = await runCommand(engage, metadataOf(req), TRACKING_READ_MODELS, (m) => trackingSettings(engage, auth.accountId, m));
        return identityOut(settings);
      },
    }),
    defineRoute({
      method: 'PUT',
      url: '/v1/account/tracking-identity',
      auth: 'key_or_login',
      scope: 'settings',
      operationId: 'setTrackingIdentity',
      summary: 'Require (or stop requiring) a signed identity (user_hash) from the browser; turning it off answers a warning',
      tags: ['tracking'],
      body: z.strictObject({ require_identity: z.boolean() }),
      responses: { 200: z.object({ require_identity: z.boolean(), warning: z.string().optional().describe('when require_identity is off: what that allows') }) },
      errors: [409],
      async handler({ body, auth, req }) {
        const { settings } = await runCommand(engage, metadataOf(req), TRACKING_READ_MODELS, (m) =>
          changeTracking(engage, auth.accountId, { type: 'SetIdentityRequirement', requireIdentity: body.require_identity }, m),
        );
        return { require_identity: settings.requireIdentity, ...(settings.requireIdentity ? {} : { warning: OFF_WARNING }) };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/tracking-traits',
      auth: 'key_or_login',
      operationId: 'getTrackingTraits',
      summary: 'The traits a browser may set on its visitor: the profile traits, and the custom fields and tags the account allows',
      tags: ['tracking'],
      responses: { 200: BrowserTraitsOut },
      async handler({ auth, req }) {
        const { settings } = await runCommand(engage, metadataOf(req), TRACKING_READ_MODELS, (m) => trackingSettings(engage, auth.accountId, m));
        return traitsOut(settings);
      },
    }),
    defineRoute({
      method: 'PUT',
      url: '/v1/account/tracking-traits',
      auth: 'key_or_login',
      scope: 'settings',
      operationId: 'setTrackingTraits',
      summary: 'Allow a browser to set these custom fields (and tags, when true) besides the profile traits; the rest of its traits is ignored',
      tags: ['tracking'],
      body: BrowserTraitsBody,
      responses: { 200: BrowserTraitsOut },
      errors: [409],
      async handler({ body, auth, req }) {
        const { settings } = await runCommand(engage, metadataOf(req), TRACKING_READ_MODELS, (m) =>
          changeTracking(engage, auth.accountId, { type: 'SetBrowserTraits', rules: { customFields: body.custom_fields, tags: body.tags } }, m),
        );
        return traitsOut(settings);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/account/tracking-identity/rotate',
      auth: 'key_or_login',
      scope: 'settings',
      operationId: 'rotateTrackingIdentitySecret',
      summary: 'Issue a new identity secret: every user_hash made with the old one stops working at once',
      tags: ['tracking'],
      body: z.strictObject({}).optional(),
      responses: { 200: IdentityOut },
      async handler({ auth, req }) {
        const { settings } = await runCommand(engage, metadataOf(req), TRACKING_READ_MODELS, (m) => rotateIdentitySecret(engage, auth.accountId, m));
        return identityOut(settings);
      },
    }),
  ];
}

function publicRoutes({ engage }: AppDeps): AnyRoute[] {
  const sdk = readSdk();
  return [
    defineRoute({
      method: 'POST',
      url: INGEST_PATH,
      auth: 'none',
      rateGroup: 'public',
      operationId: 'ingestBrowserEvents',
      summary:
        'Browser tracking ingestion (the SDK calls it): identify a visitor (signed with user_hash when required) and record track and page events; ' +
        'JSON or text/plain, at most 64 KiB; the key in the body or as ?key=',
      tags: ['tracking'],
      query: KeyQuery,
      docBody: TrackBodyDoc,
      responses: { 200: IngestOut.describe('each event accepted, a duplicate, or failed with its error (a failed event does not fail the others)') },
      // 401: an unknown key, or an identity without the user_hash the account requires (or a wrong one);
      // 403: an origin the key does not allow; 404 and 409: the identified contact, as POST /v1/events
      errors: [401, 403, 404, 409],
      async handler({ body, query, req, reply }) {
        const { row, request, metadata } = await admitPublic(engage, req, reply, body, query, TrackBody);
        const { results, ignoredTraits } = await runCommand(engage, metadata, INGEST_WAITS_FOR, (m) => ingest(engage, row.account_id, request, browserTraitRulesOf(row), m));
        const count = (status: string) => results.filter((r) => r.status === status).length;
        return {
          accepted: count('accepted'), duplicates: count('duplicate'), failed: count('failed'), results,
          ...(ignoredTraits.length > 0 ? { ignored_traits: ignoredTraits } : {}),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      url: SDK_PATH,
      auth: 'none',
      rateGroup: 'public',
      operationId: 'getTrackingSdk',
      summary: 'The browser SDK the tracking snippet loads',
      tags: ['tracking'],
      produces: 'application/javascript; charset=utf-8',
      responses: { 200: 'the SDK script', 304: 'Not modified: If-None-Match names the current ETag' },
      async handler({ req, reply }) {
        reply.header('Cache-Control', SDK_CACHE_CONTROL).header('ETag', sdk.etag);
        if (req.headers['if-none-match'] === sdk.etag) {
          reply.code(304);
          return '';
        }
        return sdk.source;
      },
    }),
  ];
}

/**
 * Registers the public tracking routes in a child context of their own: JSON bodies as
 * application/json or text/plain, at most 64 KiB, and the CORS preflight of the ingestion endpoint.
 */
export function trackingPublicRoutes(deps: AppDeps, registry: AnyRoute[]): FastifyPluginAsync {
  return async (child: FastifyInstance) => {
    const json = child.getDefaultJsonParser('error', 'error');
    child.removeAllContentTypeParsers();
    child.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string', bodyLimit: TRACK_BODY_LIMIT }, json);
    registerRoutes(child, publicRoutes(deps), registry);
    // The preflight of a request the SDK does not make (it sends text/plain, a "simple" request), for
    // clients that post application/json. With ?key= it is checked like the POST; without it the
    // key is not known yet, so any origin may ask, and the POST itself is refused (with no CORS
    // header) when its origin may not use its key.
    child.route(preflightRoute(deps.engage, INGEST_PATH));
  };
}
