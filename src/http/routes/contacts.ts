// Contacts and custom field definitions: /v1/contacts and /v1/contacts/fields.
import { z } from 'zod';
import { customFieldsDecider, customFieldsStream, FIELD_TYPES } from '../../../commands/custom-fields.ts';
import { findContact, listContacts } from '../../../projections/contacts.ts';
import { listCustomFields } from '../../../projections/custom-fields.ts';
import { findList } from '../../../projections/lists.ts';
import { findSegment } from '../../../projections/segments.ts';
import { contactsCsv } from '../../contacts/export.ts';
import { contactOut, createContact, deleteContact, updateContact } from '../../contacts/service.ts';
import { ContactCreateBody, ContactPatchBody, EmailSchema, PhoneSchema } from '../../contacts/validation.ts';
import { runCommand } from '../../command-handler.ts';
import { matchingContacts } from '../../segments/service.ts';
import { ERASURE_READ_MODELS, ErasureBody, eraseContact } from '../../personal-data/erasure.ts';
import { newId } from '../../ids.ts';
import type { AppDeps } from '../deps.ts';
import { Deleted, found, iso, metadataOf, pageById, pageQuery } from '../common.ts';
import { DateTime, Page } from '../openapi.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const IdParams = z.object({ id: z.string().max(64) });

const ContactListQuery = z.strictObject({
  ...pageQuery,
  email: EmailSchema.optional(),
  phone: PhoneSchema.optional(),
  tag: z.string().trim().min(1).max(100).optional(),
  q: z.string().trim().min(1).max(200).optional(),
});

const ExportQuery = z
  .strictObject({
    list_id: z.string().max(64).optional(),
    segment_id: z.string().max(64).optional(),
  })
  .refine((q) => q.list_id === undefined || q.segment_id === undefined, { message: 'give list_id or segment_id, not both', path: ['segment_id'] });

const FieldBody = z.strictObject({
  key: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must start with a lowercase letter and use only a-z, 0-9 and _ (at most 64)'),
  label: z.string().trim().min(1).max(200).optional(),
  type: z.enum(FIELD_TYPES),
  options: z.array(z.string().trim().min(1).max(200)).min(1).max(500).optional(),
});

/** A contact as every answer shows it (contactOut, contactView); lists and segments answer it too. */
export const ContactOut = z
  .object({
    id: z.string(),
    email: z.string().nullable().describe('lower case'),
    phone: z.string().nullable().describe('E.164'),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    country: z.string().nullable().describe('ISO 3166-1 alpha-2'),
    language: z.string().nullable().describe('BCP 47 language tag'),
    timezone: z.string().nullable().describe('IANA time zone'),
    external_id: z.string().nullable().describe('your own id of the contact'),
    tags: z.array(z.string()),
    custom_fields: z.record(z.string(), z.unknown()).describe('custom field key → value (GET /v1/contacts/fields)'),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'Contact', description: 'A contact: its standard fields (null when not set), tags and custom field values' });

/** A custom field definition as the API shows it (the read model's row, or the definition just made). */
const CustomFieldOut = z
  .object({
    id: z.string(),
    key: z.string().describe('the key of its values in custom_fields'),
    label: z.string(),
    type: z.enum(FIELD_TYPES),
    options: z.array(z.string()).optional().describe('select fields only: the values it takes'),
    created_at: DateTime,
  })
  .meta({ id: 'CustomField', description: 'A custom field definition' });

const ContactErasureOut = z.object({
  id: z.string(),
  erased: z.literal(true),
  erasure_id: z.string(),
  erased_at: DateTime,
  keys_destroyed: z.int().describe('data keys destroyed: what they sealed is unreadable for good'),
});

/** The read models a write's response waits for. */
const CONTACTS = ['contacts'];
/** a deleted contact leaves every list and its event counts go: the counts a client reads next must show it */
const CONTACTS_AND_LISTS = ['contacts', 'lists', 'contact_events'];
const CUSTOM_FIELDS = ['custom_fields'];

export function contactRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/contacts',
      auth: 'key_or_login',
      operationId: 'listContacts',
      summary: 'List contacts (filters: email, phone, tag, q), newest first',
      tags: ['contacts'],
      query: ContactListQuery,
      responses: { 200: Page(ContactOut) },
      async handler({ query: { limit, cursor, ...filter }, auth }) {
        return pageById({ limit, cursor }, (range) => listContacts(engage.pool, auth.accountId, filter, range), contactOut);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/contacts',
      auth: 'key_or_login',
      operationId: 'createContact',
      summary: 'Create a contact',
      tags: ['contacts'],
      body: ContactCreateBody,
      responses: { 201: ContactOut.describe('the created contact') },
      async handler({ body, auth, req, reply }) {
        const { contact } = await runCommand(engage, metadataOf(req), CONTACTS, (metadata) => createContact(engage, auth.accountId, body, metadata));
        reply.code(201);
        return contact;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/contacts/export',
      auth: 'key_or_login',
      operationId: 'exportContacts',
      summary: "The account's contacts (or one list's or segment's members) as a streamed CSV file, one column per custom field (README \"Contacts export\")",
      tags: ['contacts'],
      query: ExportQuery,
      produces: 'text/csv; charset=utf-8',
      responses: { 200: 'CSV, UTF-8 with a BOM' },
      // the list or segment named by list_id or segment_id
      errors: [404],
      async handler({ query, auth, reply }) {
        // everything a 4xx depends on is checked here, before the first byte goes out
        if (query.list_id !== undefined) found(await findList(engage.pool, auth.accountId, query.list_id), 'list');
        const segment = query.segment_id === undefined ? undefined : found(await findSegment(engage.pool, auth.accountId, query.segment_id), 'segment');
        const fields = await listCustomFields(engage.pool, auth.accountId);
        const now = engage.clock.now();
        const date = now.toISOString().slice(0, 10);
        reply.header('content-disposition', `attachment; filename="contacts-${date}.csv"`);
        // a segment's members as its rules match them now, all pages at this one instant
        const pages = segment && ((page: { after?: string; limit: number }) => matchingContacts(engage.pool, auth.accountId, segment.rules, { ...page, now }));
        return contactsCsv(engage.pool, { accountId: auth.accountId, listId: query.list_id, fields, ...(pages ? { pages } : {}) });
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/contacts/fields',
      auth: 'key_or_login',
      operationId: 'listCustomFields',
      summary: "List the account's custom field definitions",
      tags: ['contacts'],
      responses: { 200: Page(CustomFieldOut).describe('every definition, in one page') },
      async handler({ auth }) {
        const rows = await listCustomFields(engage.pool, auth.accountId);
        return {
          data: rows.map((r) => ({ id: r.id, key: r.key, label: r.label, type: r.type, ...(r.options ? { options: r.options } : {}), created_at: iso(r.created_at) })),
          next_cursor: null,
        };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/contacts/fields',
      auth: 'key_or_login',
      operationId: 'createCustomField',
      summary: 'Define a custom field',
      tags: ['contacts'],
      body: FieldBody,
      responses: { 201: CustomFieldOut.describe('the new definition') },
      async handler({ body, auth, req, reply }) {
        const id = newId('field');
        const result = await runCommand(engage, metadataOf(req), CUSTOM_FIELDS, {
          decider: customFieldsDecider,
          streamId: customFieldsStream(auth.accountId),
          command: { type: 'DefineField', accountId: auth.accountId, id, key: body.key, label: body.label ?? body.key, fieldType: body.type, options: body.options, now: engage.clock.now() },
        });
        const def = result.state.byId.get(id)!;
        reply.code(201);
        return def;
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/contacts/fields/:id',
      auth: 'key_or_login',
      operationId: 'deleteCustomField',
      summary: 'Remove a custom field definition (values stored on contacts are kept)',
      tags: ['contacts'],
      params: IdParams,
      responses: { 200: Deleted },
      // a write that met another on the same stream on every retry (write conflict)
      errors: [409],
      async handler({ params, auth, req }) {
        await runCommand(engage, metadataOf(req), CUSTOM_FIELDS, {
          decider: customFieldsDecider,
          streamId: customFieldsStream(auth.accountId),
          command: { type: 'DeleteField', accountId: auth.accountId, id: params.id, now: engage.clock.now() },
        });
        return { id: params.id, deleted: true };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/contacts/:id',
      auth: 'key_or_login',
      operationId: 'getContact',
      summary: 'Look up one contact',
      tags: ['contacts'],
      params: IdParams,
      responses: { 200: ContactOut },
      async handler({ params, auth }) {
        return contactOut(found(await findContact(engage.pool, auth.accountId, params.id), 'contact'));
      },
    }),
    defineRoute({
      method: 'PATCH',
      url: '/v1/contacts/:id',
      auth: 'key_or_login',
      operationId: 'updateContact',
      summary: 'Update standard and custom fields (custom_fields merge; null removes a value)',
      tags: ['contacts'],
      params: IdParams,
      body: ContactPatchBody,
      responses: { 200: ContactOut.describe('the contact as updated') },
      // another contact has the email or phone (or a write raced this one)
      errors: [409],
      async handler({ params, body, auth, req }) {
        const { contact } = await runCommand(engage, metadataOf(req), CONTACTS, (metadata) => updateContact(engage, auth.accountId, params.id, body, metadata));
        return contact;
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/contacts/:id',
      auth: 'key_or_login',
      operationId: 'deleteContact',
      summary: 'Delete a contact',
      tags: ['contacts'],
      params: IdParams,
      responses: { 200: Deleted },
      // a write that met another on the same stream on every retry (write conflict)
      errors: [409],
      async handler({ params, auth, req }) {
        await runCommand(engage, metadataOf(req), CONTACTS_AND_LISTS, (metadata) => deleteContact(engage, auth.accountId, params.id, metadata));
        return { id: params.id, deleted: true };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/contacts/:id/erase',
      auth: 'key_or_login',
      scope: 'settings',
      operationId: 'eraseContact',
      summary: "Erase a contact's personal data (right to erasure): its data keys are destroyed; it is never messaged again",
      tags: ['contacts'],
      params: IdParams,
      body: ErasureBody.optional(),
      responses: { 200: ContactErasureOut.describe('the erasure (the same one when the contact was erased before)') },
      async handler({ params, body, auth, req }) {
        const erased = await runCommand(engage, metadataOf(req), ERASURE_READ_MODELS, (metadata) =>
          eraseContact(engage, auth.accountId, params.id, { reason: body?.reason, actor: auth.actor }, metadata),
        );
        return { id: params.id, erased: true, erasure_id: erased.erasure_id, erased_at: erased.erased_at, keys_destroyed: erased.keys_destroyed };
      },
    }),
  ];
}
