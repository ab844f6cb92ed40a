// Signup forms (README "Signup forms"): /v1/forms (create, list, read, update, delete), and the
// public side in a child context of its own: the submit route (form-encoded from a browser's form,
// JSON from a page's own code, CORS for the account's tracking origins and this service's own
// pages), the hosted page GET /f/:id, the script the snippet loads, and the confirmation link.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { formById, findForm, formOfSubmission, listForms, type FormRow } from '../../../projections/forms.ts';
import { trackingKeyOfAccount } from '../../../projections/tracking.ts';
import { runCommand } from '../../command-handler.ts';
import { loadDefinitions } from '../../contacts/service.ts';
import { AppError, forbidden, notFound, unsupportedMediaType } from '../../errors.ts';
import { confirmSubmission, createForm, deleteForm, formOut, formsBaseUrl, formViewOfState, submissionOfToken, submitForm, updateForm, type FormWrite } from '../../forms/service.ts';
import { confirmPage, embedScript, formErrorPage, formPage, HONEYPOT_FIELD, inputsOf, pendingPage, STARTED_FIELD, subscribedPage } from '../../forms/pages.ts';
import { FormTokens } from '../../forms/tokens.ts';
import { FormCreateBody, FormPatchBody } from '../../forms/validation.ts';
import { pageHeaders } from '../../html-page.ts';
import { originAllowed } from '../../tracking/origins.ts';
import type { Engage } from '../../context.ts';
import type { AppDeps } from '../deps.ts';
import { prefersJson } from '../negotiation.ts';
import { Deleted, found, metadataOf, pageById, pageQuery } from '../common.ts';
import { Page } from '../openapi.ts';
import { type AnyRoute, defineRoute, registerRoutes } from '../route.ts';

const FORMS = ['forms'];
/** A submission answers once its contact (or its pending record) can be read: the forms and lists read models. */
const SUBMIT_WAITS_FOR = ['forms', 'lists', 'contacts'];
/** A confirmation also lifts an earlier unsubscribe: the suppressions shown next include that. */
const CONFIRM_WAITS_FOR = [...SUBMIT_WAITS_FOR, 'suppressions'];
const FORM_TYPE = 'application/x-www-form-urlencoded';
/** A submission's body at most: a form of 30 fields and their values. */
export const SUBMIT_BODY_LIMIT = 64 * 1024;

const IdParams = z.object({ id: z.string().max(64) });
const TokenParams = z.object({ token: z.string().max(200) });
const DateTime = z.string().meta({ format: 'date-time' });

const FormOut = z
  .object({
    id: z.string(),
    name: z.string(),
    fields: z.array(z.object({ name: z.string(), label: z.string(), required: z.boolean() })),
    list_id: z.string().describe('the list a confirmed submission puts its contact on'),
    double_opt_in: z.boolean().describe('a submission becomes a contact only once the link sent to its address is followed'),
    confirmation: z.object({ channel: z.enum(['email', 'sms']), subject: z.string().nullable(), message: z.string().describe('{{ confirm_url }} is replaced by the link (appended when absent)') }),
    consent_text: z.string().describe('shown above the button; recorded with each consent'),
    redirect_url: z.string().nullable().describe('where people go once subscribed'),
    min_fill_seconds: z.int().describe('a submission sooner than this after the form was shown is taken for a bot'),
    submissions: z.int(),
    confirmed: z.int(),
    url: z.string().describe('the hosted page'),
    snippet: z.string().describe('HTML to paste into a page: draws the form there'),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'Form', description: 'A signup form: the fields it asks for, the list it adds to, and its double opt-in' });

/** The form as the read model shows it after a write; the stream's view if the read model is late. */
async function formAfter(engage: Engage, accountId: string, write: FormWrite) {
  const row = await findForm(engage.pool, accountId, write.state.id!);
  return row ? formOut(engage, row) : formViewOfState(engage, write.state);
}

export function formRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/forms',
      auth: 'key_or_login',
      operationId: 'createForm',
      summary: 'Create a signup form: its fields (an email or phone among them), the list it adds to, double opt-in (on unless false) and its confirmation message',
      tags: ['forms'],
      body: FormCreateBody,
      responses: { 201: FormOut.describe('the new form, with its hosted page and snippet') },
      async handler({ body, auth, req, reply }) {
        const write = await runCommand(engage, metadataOf(req), FORMS, (m) => createForm(engage, auth.accountId, body, m));
        reply.code(201);
        return formAfter(engage, auth.accountId, write);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/forms',
      auth: 'key_or_login',
      operationId: 'listForms',
      summary: "The account's signup forms, newest first",
      tags: ['forms'],
      query: z.strictObject(pageQuery),
      responses: { 200: Page(FormOut) },
      async handler({ query, auth }) {
        return pageById(query, (range) => listForms(engage.pool, auth.accountId, range), (r) => formOut(engage, r));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/forms/:id',
      auth: 'key_or_login',
      operationId: 'getForm',
      summary: 'One signup form, with its counts of submissions and confirmations',
      tags: ['forms'],
      params: IdParams,
      responses: { 200: FormOut },
      async handler({ params, auth }) {
        return formOut(engage, found(await findForm(engage.pool, auth.accountId, params.id), 'form'));
      },
    }),
    defineRoute({
      method: 'PATCH',
      url: '/v1/forms/:id',
      auth: 'key_or_login',
      operationId: 'updateForm',
      summary: 'Change a signup form (the fields given; `fields` replaces the whole list)',
      tags: ['forms'],
      params: IdParams,
      body: FormPatchBody,
      responses: { 200: FormOut.describe('the form as changed') },
      errors: [409],
      async handler({ params, body, auth, req }) {
        const write = await runCommand(engage, metadataOf(req), FORMS, (m) => updateForm(engage, auth.accountId, params.id, body, m));
        return formAfter(engage, auth.accountId, write);
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/forms/:id',
      auth: 'key_or_login',
      operationId: 'deleteForm',
      summary: 'Delete a signup form: its page and submit route answer 404 from then on (contacts it made stay)',
      tags: ['forms'],
      params: IdParams,
      responses: { 200: Deleted },
      errors: [409],
      async handler({ params, auth, req }) {
        await runCommand(engage, metadataOf(req), FORMS, (m) => deleteForm(engage, auth.accountId, params.id, m));
        return { id: params.id, deleted: true };
      },
    }),
  ];
}

/** This service's own origin (the hosted page posts from it). */
const ownOrigin = (engage: Engage) => new URL(formsBaseUrl(engage)).origin;

/**
 * Whether a request with this Origin may use the account's form: this service's own pages always,
 * otherwise the account's tracking origins rule (README "Browser tracking": none set accepts any).
 */
async function originMayUse(engage: Engage, accountId: string, origin: string | undefined): Promise<boolean> {
  if (origin !== undefined && origin === ownOrigin(engage)) return true;
  const key = await trackingKeyOfAccount(engage.pool, accountId);
  return originAllowed(key?.origins ?? [], origin);
}

/** A live form for a public route, else 404 (a deleted or unknown form, or no form id at all). */
async function liveForm(engage: Engage, id: string): Promise<FormRow> {
  const row = await formById(engage.pool, id);
  if (!row) throw notFound('form');
  return row;
}

/** What the hosted page and the snippet's script both draw a form with: its inputs, and a start token made now. */
async function renderingOf(engage: Engage, form: FormRow) {
  const inputs = inputsOf(form.definition.fields, await loadDefinitions(engage, form.account_id));
  return { inputs, token: (await FormTokens.of(engage.pool)).startToken(form.id, engage.clock.now()) };
}

type BodyKind = 'form' | 'json';

/** The submission's values and its hidden fields, from a form-encoded or JSON body. */
function readSubmission(req: FastifyRequest): { kind: BodyKind; values: Record<string, unknown>; honeypot?: string; started?: string } {
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  let kind: BodyKind;
  // (no prototype: a field named __proto__ is just an unknown field)
  const values: Record<string, unknown> = Object.create(null);
  if (mediaType === FORM_TYPE) {
    kind = 'form';
    for (const [name, value] of new URLSearchParams(typeof req.body === 'string' ? req.body : '')) if (!Object.hasOwn(values, name)) values[name] = value;
  } else if (mediaType === 'application/json' || mediaType === 'text/plain') {
    kind = 'json';
    let body: unknown = {};
    try {
      if (typeof req.body === 'string' && req.body.trim() !== '') body = JSON.parse(req.body);
    } catch {
      throw new AppError(400, 'validation_error', 'the body is not valid JSON', { issues: [{ path: '', message: 'must be JSON' }] });
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new AppError(400, 'validation_error', 'the body must be a JSON object of the form’s fields', { issues: [{ path: '', message: 'must be an object' }] });
    Object.assign(values, body);
  } else {
    throw unsupportedMediaType(mediaType, `${FORM_TYPE} or application/json`);
  }
  const hidden = (name: string) => {
    const v = values[name];
    delete values[name];
    return v === undefined || v === null ? undefined : String(v);
  };
  const honeypot = hidden(HONEYPOT_FIELD);
  const started = hidden(STARTED_FIELD);
  return { kind, values, ...(honeypot ? { honeypot } : {}), ...(started !== undefined ? { started } : {}) };
}

/** JSON answers for code posting JSON, and for a client that prefers JSON to a page */
const wantsJson = (req: FastifyRequest, kind: BodyKind) => kind === 'json' || prefersJson(req);

function sendPage(reply: FastifyReply, status: number, html: string, formTargets: readonly string[] = [], referrer?: 'same-origin') {
  return reply.code(status).headers(pageHeaders(formTargets, referrer)).type('text/html; charset=utf-8').send(html);
}

/** An error as the caller reads it: the API's body to code, a page to a person's browser. */
async function orError(req: FastifyRequest, reply: FastifyReply, json: boolean, run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof AppError) || json) throw err;
    return sendPage(reply, err.statusCode, formErrorPage(err.statusCode, err.message, (err.extra.issues as { path: string; message: string }[] | undefined) ?? []));
  }
}

const redirectOrigin = (url: string | null) => (url ? [new URL(url).origin] : []);

function publicRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/forms/:id/submit',
      auth: 'none',
      scope: null,
      rateGroup: 'public',
      operationId: 'submitForm',
      summary:
        "A signup form's submission (no key): form-encoded from a browser's form (then answered with a page, or sent on to the form's redirect_url), or JSON from a page's own code; " +
        `the hidden ${HONEYPOT_FIELD} (left empty by people) and ${STARTED_FIELD} (the start token of the hosted page or snippet) fields keep bots out`,
      tags: ['forms'],
      params: IdParams,
      docBody: z.record(z.string(), z.unknown()).describe("the form's fields by name, and the hidden _hp and _started"),
      // a browser's form post is answered with pages (errors too); code posting JSON gets JSON
      produces: 'text/html; charset=utf-8',
      pageErrors: true,
      responses: {
        202: z
          .object({ status: z.enum(['pending_confirmation', 'subscribed']).describe('pending_confirmation: the link is sent (double opt-in); subscribed: the contact is on the list') })
          .describe('received (a submission taken for a bot\'s gets the same answer and is not stored)'),
        303: "subscribed, and sent on to the form's redirect_url (a browser's form post)",
      },
      errors: [403],
      async handler({ params, req, reply }) {
        // a browser's form post gets pages; anything else (JSON, or a body of another type) the API's answers
        let kind: BodyKind = /^\s*application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '') ? 'form' : 'json';
        return orError(req, reply, wantsJson(req, kind), async () => {
          const form = await liveForm(engage, params.id);
          reply.header('Vary', 'Origin');
          const origin = req.headers.origin;
          if (!(await originMayUse(engage, form.account_id, origin))) throw forbidden(origin === undefined ? 'this form is restricted to its account\'s allowed origins, and the request has no Origin' : `the origin ${origin} may not use this form`);
          if (origin !== undefined) reply.header('Access-Control-Allow-Origin', origin);
          const read = readSubmission(req);
          kind = read.kind;
          const result = await runCommand(engage, metadataOf(req), SUBMIT_WAITS_FOR, (m) =>
            submitForm(
              engage,
              form,
              read.values,
              { ip: req.ip ?? null, userAgent: req.headers['user-agent']?.slice(0, 500) ?? null, ...(read.honeypot ? { honeypot: read.honeypot } : {}), ...(read.started !== undefined ? { started: read.started } : {}), startRequired: kind === 'form' },
              m,
            ).then((r) => ({ ...r, position: r.status === 'ignored' ? undefined : r.position })),
          );
          // a bot's submission is answered as a person's pending one: it learns nothing
          const pending = result.status !== 'confirmed' && form.definition.double_opt_in;
          if (wantsJson(req, kind)) return reply.code(202).send({ status: pending ? 'pending_confirmation' : 'subscribed' });
          if (pending) return sendPage(reply, 202, pendingPage(form.definition));
          if (form.definition.redirect_url) return reply.code(303).header('Location', form.definition.redirect_url).send();
          return sendPage(reply, 202, subscribedPage(form.definition.name));
        });
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/f/:id',
      auth: 'none',
      scope: null,
      rateGroup: 'public',
      operationId: 'getFormPage',
      summary: 'The hosted page of a signup form',
      tags: ['forms'],
      params: IdParams,
      produces: 'text/html; charset=utf-8',
      pageErrors: true,
      responses: { 200: 'the form' },
      async handler({ params, req, reply }) {
        return orError(req, reply, prefersJson(req), async () => {
          const form = await liveForm(engage, params.id);
          const { inputs, token } = await renderingOf(engage, form);
          // relative to the page (/f/<id>), so it posts to the origin the page came from, behind any path prefix
          const submitUrl = `../v1/forms/${form.id}/submit`;
          // its URL holds no secret, and its post must carry its origin (the submit route checks it)
          return sendPage(reply, 200, formPage(form.definition, inputs, submitUrl, token), redirectOrigin(form.definition.redirect_url), 'same-origin');
        });
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/f/:id/embed.js',
      auth: 'none',
      scope: null,
      rateGroup: 'public',
      operationId: 'getFormScript',
      summary: "The script a form's snippet loads: it draws the form into the page's [data-engage-form] element",
      tags: ['forms'],
      params: IdParams,
      produces: 'application/javascript; charset=utf-8',
      responses: { 200: 'the script' },
      async handler({ params, reply }) {
        const form = await liveForm(engage, params.id);
        const { inputs, token } = await renderingOf(engage, form);
        const submitUrl = `${formsBaseUrl(engage)}/v1/forms/${form.id}/submit`;
        // fresh on every load: it carries the time the form was shown
        reply.header('Cache-Control', 'no-store').header('X-Content-Type-Options', 'nosniff').type('application/javascript; charset=utf-8');
        return embedScript(form.id, form.definition, inputs, submitUrl, token);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/f/confirm/:token',
      auth: 'none',
      scope: null,
      rateGroup: 'public',
      operationId: 'getFormConfirmation',
      summary: 'The confirmation link of a double opt-in: a page whose button POSTs back (a GET never confirms)',
      tags: ['forms'],
      params: TokenParams,
      produces: 'text/html; charset=utf-8',
      pageErrors: true,
      responses: { 200: 'the confirmation page' },
      errors: [410],
      async handler({ params, req, reply }) {
        return orError(req, reply, prefersJson(req), async () => {
          const { form } = await confirmationOf(engage, params.token);
          return sendPage(reply, 200, confirmPage(form.definition.name), redirectOrigin(form.definition.redirect_url));
        });
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/f/confirm/:token',
      auth: 'none',
      scope: null,
      rateGroup: 'public',
      operationId: 'confirmFormSubmission',
      summary: "Confirms a double opt-in: the contact is found or created, put on the form's list, and its consent recorded; then the form's redirect_url or a page",
      tags: ['forms'],
      params: TokenParams,
      produces: 'text/html; charset=utf-8',
      pageErrors: true,
      responses: { 200: 'the page saying it is done', 303: 'sent on to the form\'s redirect_url' },
      errors: [410],
      async handler({ params, req, reply }) {
        return orError(req, reply, prefersJson(req), async () => {
          const { submissionId, form } = await confirmationOf(engage, params.token);
          await runCommand(engage, metadataOf(req), CONFIRM_WAITS_FOR, (m) => confirmSubmission(engage, submissionId, m));
          if (form.definition.redirect_url) return reply.code(303).header('Location', form.definition.redirect_url).send();
          return sendPage(reply, 200, subscribedPage(form.definition.name));
        });
      },
    }),
  ];
}

/** The submission a genuine token names, and its form while it lives; 404 for anything else. */
async function confirmationOf(engage: Engage, token: string): Promise<{ submissionId: string; form: FormRow }> {
  const submissionId = await submissionOfToken(engage, token);
  if (!submissionId) throw new AppError(404, 'not_found', 'This confirmation link is not valid. Please use the link from the message exactly as it is.');
  const formId = await formOfSubmission(engage.pool, submissionId);
  const form = formId ? await formById(engage.pool, formId) : undefined;
  if (!form) throw new AppError(410, 'gone', 'This form no longer exists.');
  return { submissionId, form };
}

/**
 * The public routes in a child context: form-encoded, JSON and text/plain bodies read as text (at
 * most 64 KiB; the handler parses them), and the submit route's CORS preflight.
 */
export function formPublicRoutes(deps: AppDeps, registry: AnyRoute[]): FastifyPluginAsync {
  return async (child: FastifyInstance) => {
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', { parseAs: 'string', bodyLimit: SUBMIT_BODY_LIMIT }, (_req, body, done) => done(null, body));
    registerRoutes(child, publicRoutes(deps), registry);
    child.route({
      method: 'OPTIONS',
      url: '/v1/forms/:id/submit',
      config: { auth: 'none', rateGroup: 'public' },
      handler: async (req, reply) => {
        const { id } = req.params as { id: string };
        const form = await formById(deps.engage.pool, id);
        reply.header('Vary', 'Origin');
        const origin = req.headers.origin;
        if (form && origin !== undefined && (await originMayUse(deps.engage, form.account_id, origin))) {
          reply.header('Access-Control-Allow-Origin', origin).header('Access-Control-Allow-Methods', 'POST').header('Access-Control-Allow-Headers', 'content-type').header('Access-Control-Max-Age', '7200');
        }
        return reply.code(204).send();
      },
    });
  };
}
