// Suppressions and unsubscribes (README "Suppressions and unsubscribes"): the account's suppression
// list (GET /v1/account/unsubscribes/api/list, POST /v1/account/unsubscribes, DELETE
// /v1/account/unsubscribes/:address) and the public one-click unsubscribe behind the link of every
// marketing email (GET and POST /v1/unsubscribe/:token), which lives in a child context of its own:
// it takes form bodies (RFC 8058) and answers HTML pages.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { SUPPRESSION_REASONS, type SuppressionChannel } from '../../../commands/suppression.ts';
import { listSuppressions } from '../../../projections/suppressions.ts';
import { EmailSchema, PhoneSchema } from '../../contacts/validation.ts';
import { AppError, invalidField, unsupportedMediaType, validationError } from '../../errors.ts';
import { addressHasher } from '../../personal-data/address-hash.ts';
import { toIssues } from '../../validation.ts';
import { confirmPage, errorPage, PAGE_HEADERS, unsubscribedPage } from '../../suppressions/pages.ts';
import { addSuppression, removeSuppression, suppressionOut, unsubscribeByToken, unsubscribeTarget } from '../../suppressions/service.ts';
import type { AppDeps } from '../deps.ts';
import { prefersJson } from '../negotiation.ts';
import { metadataOf, pageAfter, pageQuery } from '../common.ts';
import { Page } from '../openapi.ts';
import { type AnyRoute, defineRoute, registerRoutes } from '../route.ts';

/** Reasons a suppression may be added with by hand (the others come from what happened: a complaint, a bounce, an erasure). */
const ADDABLE_REASONS = ['manual', 'unsubscribe', 'stop'] as const;

const ListQuery = z.strictObject({ ...pageQuery, reason: z.enum(SUPPRESSION_REASONS).optional(), address: z.string().max(254).optional() });
const ListCursor = z.object({ created_at: z.iso.datetime(), address_hash: z.string().max(64) });

const AddBody = z
  .strictObject({ email: EmailSchema.optional(), phone: PhoneSchema.optional(), reason: z.enum(ADDABLE_REASONS).optional() })
  .refine((b) => (b.email === undefined) !== (b.phone === undefined), { message: 'give email or phone (one of them)', path: ['email'] });

const AddressParams = z.object({ address: z.string().min(1).max(254) });
const SuppressionOutSchema = z
  .object({
    address: z.string().nullable().describe('the email address or E.164 phone number; null once erased'),
    channel: z.enum(['email', 'phone'] satisfies SuppressionChannel[]).nullable().describe('null when unknown (an erasure of an address never suppressed before)'),
    reason: z.enum(SUPPRESSION_REASONS),
    source: z.string().describe('where it came from: api, one_click, unsubscribe_page, a provider report, …'),
    created_at: z.string().meta({ format: 'date-time' }),
    message_id: z.string().optional().describe('the message whose recipient opted out (unsubscribe link, complaint, bounce)'),
  })
  .meta({ id: 'Suppression', description: 'A suppressed (opted-out) email address or phone number: no marketing is sent to it' });

/** An address as suppressions are kept: an email trimmed and lower-cased, a phone number in E.164; else a 400 naming `path`. */
function normalisedAddress(value: string, path: string): string {
  const parsed = (value.includes('@') ? EmailSchema : PhoneSchema).safeParse(value);
  if (parsed.success) return parsed.data;
  throw invalidField(path, value.includes('@') ? 'must be a valid email address' : 'must be an email address or a phone number in E.164 form, e.g. +14155550123');
}

export function unsubscribeRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/account/unsubscribes/api/list',
      auth: 'key_or_login',
      scope: 'read',
      operationId: 'listSuppressions',
      summary: "The account's suppressions (opt-outs), newest first; filters reason and address",
      tags: ['account unsubscribes'],
      query: ListQuery,
      responses: { 200: Page(SuppressionOutSchema) },
      async handler({ query, auth }) {
        const list = async (after: z.infer<typeof ListCursor> | undefined, limit: number) => {
          const addressHash = query.address ? (await addressHasher(engage.pool))(normalisedAddress(query.address, 'address')) : undefined;
          return listSuppressions(engage.pool, auth.accountId, { reason: query.reason, addressHash }, { limit, ...(after ? { after } : {}) });
        };
        return pageAfter(query, ListCursor, list, suppressionOut, (r) => ({ created_at: new Date(r.created_at).toISOString(), address_hash: r.address_hash }));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/account/unsubscribes',
      auth: 'key_or_login',
      operationId: 'createSuppression',
      summary: 'Suppress an email address or phone number (201; 200 with the suppression as it is when it is suppressed already)',
      tags: ['account unsubscribes'],
      body: AddBody,
      responses: { 201: SuppressionOutSchema.describe('the new suppression'), 200: SuppressionOutSchema.describe('suppressed already: the suppression as it is') },
      async handler({ body, auth, req, reply }) {
        const address = body.email ?? body.phone!;
        const { created, suppression } = await addSuppression(engage, auth.accountId, { address, reason: body.reason ?? 'manual', source: 'api' }, metadataOf(req));
        reply.code(created ? 201 : 200);
        return suppression;
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/account/unsubscribes/:address',
      auth: 'key_or_login',
      operationId: 'deleteSuppression',
      summary: 'Lift the suppression of an address (URL-encoded email or E.164 phone); an erasure’s is never lifted (409)',
      tags: ['account unsubscribes'],
      params: AddressParams,
      responses: {
        200: z.object({ address: z.string(), channel: z.enum(['email', 'phone'] satisfies SuppressionChannel[]), deleted: z.literal(true) }).describe('the address, no longer suppressed'),
      },
      // an erasure's suppression (or a write that met another on the same stream on every retry)
      errors: [409],
      async handler({ params, auth, req }) {
        return removeSuppression(engage, auth.accountId, normalisedAddress(params.address, 'address'), 'api', metadataOf(req));
      },
    }),
  ];
}

// ---------------------------------------------------------------------------------------------
// the public pages behind the link

const TokenParams = z.object({ token: z.string() });
/** The form bodies a POST may carry: RFC 8058's one-click, or the confirmation page's button. */
const UnsubscribeForm = z.strictObject({ 'List-Unsubscribe': z.literal('One-Click').optional(), confirm: z.literal('yes').optional() });
// RFC 8058 §3.1: the one-click POST comes as multipart/form-data (SHOULD) or urlencoded (MAY)
const FORM_TYPE = 'application/x-www-form-urlencoded';
const MULTIPART_TYPE = 'multipart/form-data';
/** a one-click body is 26 bytes (a little more as multipart) */
const FORM_BODY_LIMIT = 4096;

/** Answers a page, or JSON for a client that asked for it; errors likewise (the JSON ones as the API's flat body). */
async function answer(req: FastifyRequest, reply: FastifyReply, status: number, html: string, json: unknown): Promise<unknown> {
  reply.code(status);
  if (prefersJson(req)) return reply.type('application/json; charset=utf-8').send(json);
  return reply.type('text/html; charset=utf-8').send(html);
}

async function orErrorPage(req: FastifyRequest, reply: FastifyReply, run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return answer(req, reply, err.statusCode, errorPage(err.statusCode, err.message), err.body());
  }
}

/** The source a POST's suppression records: a mail client's one-click, or a person's click on the page. */
function sourceOfForm(req: FastifyRequest): 'one_click' | 'unsubscribe_page' {
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  // a multipart body arrives as its fields (@fastify/multipart), anything else as text
  const multipart = mediaType === MULTIPART_TYPE && typeof req.body === 'object' && req.body !== null;
  const raw = typeof req.body === 'string' ? req.body : '';
  if (!multipart && raw.trim() === '') return 'one_click';
  if (!multipart && mediaType !== FORM_TYPE) {
    throw unsupportedMediaType(mediaType, `${FORM_TYPE}, ${MULTIPART_TYPE} or no body`, `must be ${FORM_TYPE} or ${MULTIPART_TYPE}`);
  }
  // (no prototype: a field named __proto__ or constructor is just an unknown field)
  const fields: Record<string, unknown> = multipart ? (req.body as Record<string, unknown>) : Object.create(null);
  if (!multipart) {
    for (const [name, value] of new URLSearchParams(raw)) {
      if (Object.hasOwn(fields, name)) throw invalidField(name, 'given more than once');
      fields[name] = value;
    }
  }
  const parsed = UnsubscribeForm.safeParse(fields);
  if (!parsed.success) {
    throw validationError('the body must be List-Unsubscribe=One-Click (RFC 8058), the page’s form, or empty', toIssues(parsed.error));
  }
  return parsed.data.confirm === 'yes' ? 'unsubscribe_page' : 'one_click';
}

function pageRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/unsubscribe/:token',
      auth: 'none',
      scope: null,
      rateGroup: 'public',
      operationId: 'getUnsubscribePage',
      summary: 'The unsubscribe link of a marketing email: a confirmation page whose button POSTs back (a GET never unsubscribes)',
      tags: ['account unsubscribes'],
      params: TokenParams,
      produces: 'text/html; charset=utf-8',
      pageErrors: true,
      responses: {
        200: z
          .object({ unsubscribed: z.boolean() })
          .describe('the confirmation page (or, for a recipient erased since, the page saying it is done); a client that prefers JSON gets {unsubscribed}'),
      },
      async handler({ params, req, reply }) {
        return orErrorPage(req, reply, async () => {
          const target = await unsubscribeTarget(engage, params.token);
          if (target.kind === 'erased') return answer(req, reply, 200, unsubscribedPage(), { unsubscribed: true });
          return answer(req, reply, 200, confirmPage(target.address), { unsubscribed: false });
        });
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/unsubscribe/:token',
      auth: 'none',
      scope: null,
      rateGroup: 'public',
      operationId: 'unsubscribe',
      summary: 'One-click unsubscribe (RFC 8058 body List-Unsubscribe=One-Click, the page’s form, or no body): suppresses the recipient for marketing',
      tags: ['account unsubscribes'],
      params: TokenParams,
      produces: 'text/html; charset=utf-8',
      pageErrors: true,
      responses: { 200: z.object({ unsubscribed: z.literal(true) }).describe('the page saying it is done; a client that prefers JSON gets {unsubscribed: true}') },
      async handler({ params, req, reply }) {
        return orErrorPage(req, reply, async () => {
          const source = sourceOfForm(req);
          await unsubscribeByToken(engage, params.token, source, metadataOf(req));
          return answer(req, reply, 200, unsubscribedPage(), { unsubscribed: true });
        });
      },
    }),
  ];
}

/** Registers the pages in a child context: form and empty bodies read as text, and the pages' security headers on every answer. */
export function unsubscribePageRoutes(deps: AppDeps, registry: AnyRoute[]): FastifyPluginAsync {
  return async (child: FastifyInstance) => {
    child.removeAllContentTypeParsers();
    // fields only: a file part is over the limit (0) and refused
    await child.register(multipart, { attachFieldsToBody: 'keyValues', limits: { fields: 4, fieldSize: 256, files: 0, parts: 4 } });
    child.addContentTypeParser('*', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_req, body, done) => done(null, body));
    child.addHook('onRequest', async (_req, reply) => {
      reply.headers(PAGE_HEADERS);
    });
    registerRoutes(child, pageRoutes(deps), registry);
  };
}
