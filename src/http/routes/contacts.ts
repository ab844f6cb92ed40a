// Contacts and custom field definitions: /v1/contacts and /v1/contacts/fields.
import { z } from 'zod';
import { customFieldsDecider, customFieldsStream, FIELD_TYPES } from '../../../commands/custom-fields.ts';
import { createContact, deleteContact, updateContact, type ContactView } from '../../contacts/service.ts';
import { ContactCreateBody, ContactPatchBody, EmailSchema, PhoneSchema } from '../../contacts/validation.ts';
import { handleCommand } from '../../decider.ts';
import { notFound } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { AppDeps } from '../app.ts';
import { Filters, escapeLike, iso, metadataOf, pageById, pageQuery, settle } from '../common.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const IdParams = z.object({ id: z.string().max(64) });

const ContactListQuery = z.strictObject({
  ...pageQuery,
  email: EmailSchema.optional(),
  phone: PhoneSchema.optional(),
  tag: z.string().trim().min(1).max(100).optional(),
  q: z.string().trim().min(1).max(200).optional(),
});

const FieldBody = z.strictObject({
  key: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must start with a lowercase letter and use only a-z, 0-9 and _ (at most 64)'),
  label: z.string().trim().min(1).max(200).optional(),
  type: z.enum(FIELD_TYPES),
  options: z.array(z.string().trim().min(1).max(200)).min(1).max(500).optional(),
});

interface ContactRow {
  id: string;
  email: string | null;
  phone: string | null;
  first_name: string | null;
  last_name: string | null;
  country: string | null;
  language: string | null;
  timezone: string | null;
  external_id: string | null;
  tags: string[];
  custom_fields: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export const contactOut = (r: ContactRow): ContactView => ({
  id: r.id,
  email: r.email,
  phone: r.phone,
  first_name: r.first_name,
  last_name: r.last_name,
  country: r.country,
  language: r.language,
  timezone: r.timezone,
  external_id: r.external_id,
  tags: r.tags,
  custom_fields: r.custom_fields,
  created_at: iso(r.created_at)!,
  updated_at: iso(r.updated_at)!,
});

const CONTACTS = ['contacts'];

export function contactRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/contacts',
      auth: 'key_or_login',
      summary: 'List contacts (filters: email, phone, tag, q), newest first',
      tags: ['contacts'],
      query: ContactListQuery,
      async handler({ query, auth }) {
        const f = new Filters(auth.accountId);
        if (query.email) f.add((n) => `email = $${n}`, query.email);
        if (query.phone) f.add((n) => `phone = $${n}`, query.phone);
        if (query.tag) f.add((n) => `tags @> ARRAY[$${n}]::text[]`, query.tag);
        if (query.q) {
          f.add(
            (n) => `(email ILIKE $${n} OR first_name ILIKE $${n} OR last_name ILIKE $${n} OR phone ILIKE $${n} OR external_id ILIKE $${n}
                     OR (coalesce(first_name,'') || ' ' || coalesce(last_name,'')) ILIKE $${n})`,
            `%${escapeLike(query.q)}%`,
          );
        }
        return pageById<ContactRow, ContactView>(engage.pool, 'contacts', f, query, contactOut);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/contacts',
      auth: 'key_or_login',
      summary: 'Create a contact',
      tags: ['contacts'],
      body: ContactCreateBody,
      responses: { 201: 'the created contact' },
      async handler({ body, auth, req, reply }) {
        const { contact, position } = await createContact(engage, auth.accountId, body, metadataOf(req));
        await settle(engage, CONTACTS, position);
        reply.code(201);
        return contact;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/contacts/fields',
      auth: 'key_or_login',
      summary: "List the account's custom field definitions",
      tags: ['contacts'],
      async handler({ auth }) {
        const { rows } = await engage.pool.query('SELECT * FROM custom_fields WHERE account_id = $1 ORDER BY id', [auth.accountId]);
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
      summary: 'Define a custom field',
      tags: ['contacts'],
      body: FieldBody,
      async handler({ body, auth, req, reply }) {
        const id = newId('field');
        const result = await handleCommand(
          engage.store,
          customFieldsDecider,
          customFieldsStream(auth.accountId),
          { type: 'DefineField', accountId: auth.accountId, id, key: body.key, label: body.label ?? body.key, fieldType: body.type, options: body.options, now: engage.clock.now() },
          metadataOf(req),
        );
        await settle(engage, ['custom_fields'], result.position);
        const def = result.state.byId.get(id)!;
        reply.code(201);
        return def;
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/contacts/fields/:id',
      auth: 'key_or_login',
      summary: 'Remove a custom field definition (values stored on contacts are kept)',
      tags: ['contacts'],
      params: IdParams,
      async handler({ params, auth, req }) {
        const result = await handleCommand(
          engage.store,
          customFieldsDecider,
          customFieldsStream(auth.accountId),
          { type: 'DeleteField', accountId: auth.accountId, id: params.id, now: engage.clock.now() },
          metadataOf(req),
        );
        await settle(engage, ['custom_fields'], result.position);
        return { id: params.id, deleted: true };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/contacts/:id',
      auth: 'key_or_login',
      summary: 'Look up one contact',
      tags: ['contacts'],
      params: IdParams,
      async handler({ params, auth }) {
        const { rows } = await engage.pool.query<ContactRow>('SELECT * FROM contacts WHERE id = $1 AND account_id = $2', [params.id, auth.accountId]);
        if (!rows[0]) throw notFound('contact');
        return contactOut(rows[0]);
      },
    }),
    defineRoute({
      method: 'PATCH',
      url: '/v1/contacts/:id',
      auth: 'key_or_login',
      summary: 'Update standard and custom fields (custom_fields merge; null removes a value)',
      tags: ['contacts'],
      params: IdParams,
      body: ContactPatchBody,
      async handler({ params, body, auth, req }) {
        const { contact, position } = await updateContact(engage, auth.accountId, params.id, body, metadataOf(req));
        await settle(engage, CONTACTS, position);
        return contact;
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/contacts/:id',
      auth: 'key_or_login',
      summary: 'Delete a contact',
      tags: ['contacts'],
      params: IdParams,
      async handler({ params, auth, req }) {
        const position = await deleteContact(engage, auth.accountId, params.id, metadataOf(req));
        await settle(engage, CONTACTS, position);
        return { id: params.id, deleted: true };
      },
    }),
  ];
}
