// The public tracking key at the door of the routes a website's or app's own code calls with no API
// key (README "Browser tracking", "Push devices"): the key named in the body or as ?key=, the
// allowed origins and the CORS headers of the answer, and the CORS preflight of such a route.
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { z } from 'zod';
import { trackingKeyByPublicKey, type TrackingKeyRow } from '../../projections/tracking.ts';
import { forbidden, unauthorized, validationError } from '../errors.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { unseal } from '../seal.ts';
import { type Identity, verifyIdentity } from '../tracking/identity.ts';
import { originAllowed } from '../tracking/origins.ts';
import { metadataOf } from './common.ts';
import type { AppDeps } from './deps.ts';
import { parseWith } from './route.ts';

/** How long a browser may keep a preflight's answer (Chromium keeps at most 2 hours). */
const PREFLIGHT_MAX_AGE_S = 7200;

export const KeyQuery = z.strictObject({ key: z.string().min(1).max(100).optional() });

/** The key a public request names: in the body or as ?key= (one place, or the same value in both). */
export function publicKeyOf(body: unknown, query: z.output<typeof KeyQuery>): string {
  const inBody = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { key?: unknown }).key : undefined;
  if (inBody !== undefined && typeof inBody !== 'string') throw validationError('key: must be a string', [{ path: 'key', message: 'must be a string' }]);
  if (inBody !== undefined && query.key !== undefined && inBody !== query.key) {
    throw validationError('key: the body and ?key= name different keys', [{ path: 'key', message: 'the body and ?key= name different keys' }]);
  }
  const key = inBody ?? query.key;
  if (key === undefined || key === '') throw validationError('key: the public tracking key is required (in the body, or as ?key=)', [{ path: 'key', message: 'required' }]);
  return key;
}

/**
 * The key's row, once the request's Origin may use it; then the answer allows that origin (CORS).
 * An unknown key is a 401; an origin the key does not allow a 403 that allows no origin, so a page
 * there cannot even read why.
 */
export async function admit(engage: AppDeps['engage'], req: FastifyRequest, reply: FastifyReply, publicKey: string): Promise<TrackingKeyRow> {
  // the answer depends on the Origin: caches must not hand one origin's answer to another
  reply.header('Vary', 'Origin');
  const row = await trackingKeyByPublicKey(engage.pool, publicKey);
  if (!row?.secret_sealed) throw unauthorized('unknown tracking key');
  const origin = req.headers.origin;
  if (!originAllowed(row.origins, origin)) {
    throw forbidden(origin === undefined ? 'this tracking key is restricted to its allowed origins, and the request has no Origin' : `the origin ${origin} may not use this tracking key`);
  }
  if (origin !== undefined) reply.header('Access-Control-Allow-Origin', origin);
  return row;
}

/**
 * A public request let in: the key (admit), its body parsed with `schema`, the identity checked where
 * the account requires it (README "Browser tracking": identity verification), and the metadata its
 * events carry (the account, the actor `tracking:<key>`).
 */
export async function admitPublic<T extends { identity: Identity }>(
  engage: AppDeps['engage'],
  req: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
  query: z.output<typeof KeyQuery>,
  schema: z.ZodType<T>,
): Promise<{ row: TrackingKeyRow; request: T; metadata: EventMetadata }> {
  const row = await admit(engage, req, reply, publicKeyOf(body, query));
  // from here on every answer, an error too, is readable by the page (the origin is allowed)
  const request = parseWith(schema, body ?? {}, 'body');
  if (row.require_identity) verifyIdentity(await unseal(engage.pool, row.secret_sealed!), request.identity);
  return { row, request, metadata: { ...metadataOf(req), accountId: row.account_id, actor: `tracking:${row.public_key}` } };
}

/**
 * The preflight of a public POST route, for clients that post application/json (the tracking SDK
 * sends text/plain, a "simple" request). With ?key= it is checked like the POST; without it the key
 * is not known yet, so any origin may ask, and the POST itself is refused (with no CORS header) when
 * its origin may not use its key.
 */
export function preflightRoute(engage: AppDeps['engage'], url: string): RouteOptions {
  return {
    method: 'OPTIONS',
    url,
    config: { auth: 'none', rateGroup: 'public' },
    handler: async (req, reply) => {
      const query = parseWith(KeyQuery, req.query ?? {}, 'query');
      if (query.key !== undefined) await admit(engage, req, reply, query.key);
      else {
        reply.header('Vary', 'Origin');
        if (req.headers.origin !== undefined) reply.header('Access-Control-Allow-Origin', req.headers.origin);
      }
      reply
        .code(204)
        .header('Access-Control-Allow-Methods', 'POST')
        .header('Access-Control-Allow-Headers', 'content-type')
        .header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S));
      return reply.send();
    },
  };
}
