// Templates: /v1/templates (a message written once in Liquid, every change a new version), a
// template's versions, and a preview that renders one for a contact and data (README "Templates").
import { z } from 'zod';
import { CHANNELS } from '../../../commands/message.ts';
import { findTemplate, findTemplateVersion, listTemplates, listTemplateVersions } from '../../../projections/templates.ts';
import { runCommand } from '../../command-handler.ts';
import { notFound } from '../../errors.ts';
import { isWellFormedText } from '../../messages/validation.ts';
import {
  createTemplate, deleteTemplate, previewTemplate, reviseTemplate, type TemplateWrite, templateOut, templateVersionOut, templateView, testSendTemplate,
} from '../../templates/service.ts';
import { acceptedRecord } from '../../messages/service.ts';
import { asTemplateSource } from '../../ai/draft.ts';
import { writeEmail } from '../../ai/service.ts';
import { Provenance, WriteBody } from './ai.ts';
import type { Engage } from '../../context.ts';
import type { AppDeps } from '../deps.ts';
import { Deleted, found, metadataOf, pageAfter, pageById, pageQuery } from '../common.ts';
import { DateTime, Page } from '../openapi.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const IdParams = z.object({ id: z.string().max(64) });
const VersionParams = z.object({ id: z.string().max(64), version: z.coerce.number().int().min(1).max(2_147_483_647) });

const text = (max: number) =>
  z.string().max(max).refine((s) => !s.includes('\u0000'), 'must not contain NUL characters').refine(isWellFormedText, 'must be valid Unicode text (no unpaired surrogates)');
const Name = z.string().trim().min(1).max(200);
// the sizes a send allows (src/messages/validation.ts); a subject's template may span lines (its
// tags), what it renders is folded to one
const Subject = text(4000).min(1).describe('email only: the subject line, in Liquid');
const Text = text(100_000).min(1).describe('the message (email: its plain-text part), in Liquid');
const Html = text(2_000_000).min(1).describe('email only: the HTML part, in Liquid; what variables put in it is HTML-escaped');

const TemplateBody = z
  .strictObject({ name: Name, channel: z.enum(CHANNELS), subject: Subject.nullable().optional(), text: Text, html: Html.nullable().optional() })
  .meta({ id: 'TemplateBody', description: 'A template: its name, its channel, and its parts in Liquid' });
const TemplatePatchBody = z
  .strictObject({ name: Name.optional(), subject: Subject.nullable().optional(), text: Text.optional(), html: Html.nullable().optional() })
  .meta({ id: 'TemplatePatch', description: 'A new version: the parts given replace the newest version’s (null removes subject or html); the channel stays' });

const TemplateOut = z
  .object({
    id: z.string(),
    name: z.string(),
    channel: z.enum(CHANNELS),
    version: z.int().describe('the newest version: 1, then one more for each change'),
    subject: z.string().nullable(),
    text: z.string(),
    html: z.string().nullable(),
    created_at: DateTime,
    updated_at: DateTime.describe('when the newest version was made'),
  })
  .meta({ id: 'Template', description: 'A template as its newest version shows it' });

const TemplateVersionOut = z
  .object({ version: z.int(), name: z.string(), subject: z.string().nullable(), text: z.string(), html: z.string().nullable(), created_at: DateTime })
  .meta({ id: 'TemplateVersion', description: 'One version of a template, as it was saved' });

const PreviewBody = z
  .strictObject({
    contact_id: z.string().max(64).optional().describe('render for this contact (contact.*)'),
    data: z.record(z.string(), z.unknown()).optional().describe('the send’s data (data.*)'),
    version: z.int().min(1).optional().describe('the version to render; the newest when left out'),
  })
  .meta({ id: 'TemplatePreviewBody' });
const PreviewOut = z
  .object({ subject: z.string().nullable(), text: z.string(), html: z.string().nullable() })
  .meta({ id: 'TemplatePreview', description: 'The parts as a send would render them ({{ unsubscribe_url }} stays a placeholder: each message gets its own link)' });

const TestSendBody = z
  .strictObject({ ...PreviewBody.shape, to: z.string().trim().min(3).max(320).describe('the email of one of the account’s users') })
  .meta({ id: 'TemplateTestSendBody' });
const TestSendOut = z
  .object({ id: z.string(), status: z.enum(['scheduled', 'queued']), channel: z.string(), to: z.string(), scheduled_at: z.string().nullable(), created_at: DateTime })
  .meta({ id: 'TemplateTestSend', description: 'The test message, accepted for dispatch' });

const DraftBody = z.strictObject({ ...WriteBody.shape, name: Name }).meta({ id: 'TemplateDraftBody', description: 'A brief for the AI writer (as POST /v1/account/ai-write) and the new template’s name' });
const DraftOut = z
  .object({ template: TemplateOut, preheader: z.string(), ...Provenance })
  .meta({ id: 'TemplateDraft', description: 'The AI writer’s draft, saved as version 1 of a new email template' });

const ListQuery = z.strictObject({ ...pageQuery, channel: z.enum(CHANNELS).optional() });
const VersionCursor = z.object({ version: z.int() });

/** The read models a write's response waits for. */
const TEMPLATES = ['templates'];
const MESSAGES = ['messages'];

/** The template as the read model shows it after a write; the stream's view if the read model is late. */
async function templateAfter(engage: Engage, accountId: string, write: TemplateWrite) {
  const row = await findTemplate(engage.pool, accountId, write.id);
  return row && row.version >= write.state.version ? templateOut(row) : templateView(write.id, write.state);
}

export function templateRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/templates',
      auth: 'key_or_login',
      operationId: 'listTemplates',
      summary: 'List templates, newest first (of one channel, with channel=)',
      tags: ['templates'],
      query: ListQuery,
      responses: { 200: Page(TemplateOut) },
      async handler({ query, auth }) {
        return pageById(query, (range) => listTemplates(engage.pool, auth.accountId, range, query.channel), templateOut);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/templates',
      auth: 'key_or_login',
      operationId: 'createTemplate',
      summary: 'Create a template (version 1); Liquid that does not parse is a 400 naming the part, line and column',
      tags: ['templates'],
      body: TemplateBody,
      responses: { 201: TemplateOut.describe('the created template') },
      async handler({ body, auth, req, reply }) {
        const write = await runCommand(engage, metadataOf(req), TEMPLATES, (metadata) => createTemplate(engage, auth.accountId, body, metadata));
        reply.code(201);
        return templateAfter(engage, auth.accountId, write);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/templates/draft',
      auth: 'key_or_login',
      operationId: 'draftTemplate',
      summary: 'Have the AI writer draft an email from a brief and save it as a new email template (the AI writer add-on; 403 unless enabled)',
      tags: ['templates'],
      body: DraftBody,
      responses: { 201: DraftOut },
      async handler({ body, auth, req, reply }) {
        const { name, ...brief } = body;
        const draft = await writeEmail(engage, auth.accountId, brief);
        const template = { name, channel: 'email' as const, subject: asTemplateSource(draft.subject), text: asTemplateSource(draft.text), html: asTemplateSource(draft.html) };
        const write = await runCommand(engage, metadataOf(req), TEMPLATES, (metadata) => createTemplate(engage, auth.accountId, template, metadata));
        reply.code(201);
        const { subject: _s, html: _h, text: _t, ...provenance } = draft;
        return { template: await templateAfter(engage, auth.accountId, write), ...provenance };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/templates/:id',
      auth: 'key_or_login',
      operationId: 'getTemplate',
      summary: 'Look up one template (its newest version)',
      tags: ['templates'],
      params: IdParams,
      responses: { 200: TemplateOut },
      async handler({ params, auth }) {
        return templateOut(found(await findTemplate(engage.pool, auth.accountId, params.id), 'template'));
      },
    }),
    defineRoute({
      method: 'PATCH',
      url: '/v1/templates/:id',
      auth: 'key_or_login',
      operationId: 'updateTemplate',
      summary: 'Make a new version: the parts given replace the newest version’s (a change to nothing makes no version)',
      tags: ['templates'],
      params: IdParams,
      body: TemplatePatchBody,
      responses: { 200: TemplateOut.describe('the template as its newest version shows it') },
      // a write that met another on the same stream on every retry (write conflict)
      errors: [409],
      async handler({ params, body, auth, req }) {
        const write = await runCommand(engage, metadataOf(req), TEMPLATES, (metadata) => reviseTemplate(engage, auth.accountId, params.id, body, metadata));
        return templateAfter(engage, auth.accountId, write);
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/templates/:id',
      auth: 'key_or_login',
      operationId: 'deleteTemplate',
      summary: 'Delete a template (messages already accepted from it are sent as they were rendered)',
      tags: ['templates'],
      params: IdParams,
      responses: { 200: Deleted },
      errors: [409],
      async handler({ params, auth, req }) {
        await runCommand(engage, metadataOf(req), TEMPLATES, (metadata) => deleteTemplate(engage, auth.accountId, params.id, metadata));
        return { id: params.id, deleted: true };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/templates/:id/versions',
      auth: 'key_or_login',
      operationId: 'listTemplateVersions',
      summary: 'Every version of a template, newest first',
      tags: ['templates'],
      params: IdParams,
      query: z.strictObject(pageQuery),
      responses: { 200: Page(TemplateVersionOut) },
      async handler({ params, query, auth }) {
        found(await findTemplate(engage.pool, auth.accountId, params.id), 'template');
        return pageAfter(
          query,
          VersionCursor,
          (after, limit) => listTemplateVersions(engage.pool, auth.accountId, params.id, { limit, ...(after ? { before: after.version } : {}) }),
          templateVersionOut,
          (r) => ({ version: r.version }),
        );
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/templates/:id/versions/:version',
      auth: 'key_or_login',
      operationId: 'getTemplateVersion',
      summary: 'One version of a template, as it was saved',
      tags: ['templates'],
      params: VersionParams,
      responses: { 200: TemplateVersionOut },
      async handler({ params, auth }) {
        found(await findTemplate(engage.pool, auth.accountId, params.id), 'template');
        const row = await findTemplateVersion(engage.pool, auth.accountId, params.id, params.version);
        if (!row) throw notFound('template version');
        return templateVersionOut(row);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/templates/:id/test',
      auth: 'key_or_login',
      operationId: 'testSendTemplate',
      summary: 'Send a template as a test to one of the account’s users (email templates; rendered as a preview is, subject marked [Test], transactional)',
      tags: ['templates'],
      params: IdParams,
      body: TestSendBody,
      responses: { 202: TestSendOut },
      async handler({ params, body, auth, req, reply }) {
        const { accepted } = await runCommand(engage, metadataOf(req), MESSAGES, (metadata) => testSendTemplate(engage, auth.accountId, params.id, body, metadata));
        reply.code(202);
        return acceptedRecord(accepted[0]);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/templates/:id/preview',
      auth: 'key_or_login',
      // a render: reading, not writing
      scope: 'read',
      operationId: 'previewTemplate',
      summary: 'Render a template for a contact and data, as a send would (strict variables: a missing one is a 400 naming it)',
      tags: ['templates'],
      params: IdParams,
      body: PreviewBody,
      responses: { 200: PreviewOut },
      async handler({ params, body, auth }) {
        return previewTemplate(engage, auth.accountId, params.id, body);
      },
    }),
  ];
}
