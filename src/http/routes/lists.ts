// Lists: /v1/lists, a list's members (/v1/lists/:id/contacts) and its pin (/v1/lists/:id/favorite).
// Every list in a response carries its live member count and favorite: a write answers from the
// lists read model once it includes the write (runCommand waits for it).
import { z } from 'zod';
import { findContacts } from '../../../projections/contacts.ts';
import { findList, listLists, listMemberIds } from '../../../projections/lists.ts';
import { contactOut } from '../../contacts/service.ts';
import { runCommand } from '../../command-handler.ts';
import type { Engage } from '../../context.ts';
import { addListMember, createList, deleteList, type ListWrite, listOut, listView, removeListMember, setListFavorite, updateList } from '../../lists/service.ts';
import type { AppDeps } from '../deps.ts';
import { Deleted, found, metadataOf, pageAfter, pageById, pageQuery } from '../common.ts';
import { Page } from '../openapi.ts';
import { type AnyRoute, defineRoute } from '../route.ts';
import { ContactOut } from './contacts.ts';

const IdParams = z.object({ id: z.string().max(64) });
const MemberParams = z.object({ id: z.string().max(64), contactId: z.string().max(64) });

const Name = z.string().trim().min(1).max(200);
const Description = z.string().trim().max(2000).nullable();

const ListCreateBody = z.strictObject({ name: Name, description: Description.optional() });
const ListPatchBody = z.strictObject({ name: Name.optional(), description: Description.optional() });
const FavoriteBody = z.strictObject({ favorite: z.boolean() });
const MemberBody = z.strictObject({ contact_id: z.string().min(1).max(64) });

const ListQuery = z.strictObject({ ...pageQuery });
/** The cursor of GET /v1/lists: the last list of the page, in the order pinned first, then newest id first. */
const ListCursor = z.object({ favorite: z.boolean(), id: z.string() });

/** A list as every answer shows it (listOut, listView). */
const ListOut = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    favorite: z.boolean().describe('pinned: listed first'),
    member_count: z.int().describe('its contacts now'),
    created_at: z.string().meta({ format: 'date-time' }),
    updated_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'List', description: 'A static list of contacts, with its live member count' });

/** The read models a write's response waits for. */
const LISTS = ['lists'];

/** The list as the read model shows it after a write; the stream's view if the read model is late. */
async function listAfter(engage: Engage, accountId: string, write: ListWrite) {
  const row = await findList(engage.pool, accountId, write.id);
  return row ? listOut(row) : listView(write.state);
}

export function listRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/lists',
      auth: 'key_or_login',
      operationId: 'listLists',
      summary: 'List lists: pinned (favorite) first, then newest first; each with its member count',
      tags: ['lists'],
      query: ListQuery,
      responses: { 200: Page(ListOut) },
      async handler({ query, auth }) {
        return pageAfter(query, ListCursor, (after, limit) => listLists(engage.pool, auth.accountId, { limit, ...(after ? { after } : {}) }), listOut, (r) => ({ favorite: r.favorite, id: r.id }));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/lists',
      auth: 'key_or_login',
      operationId: 'createList',
      summary: 'Create a list',
      tags: ['lists'],
      body: ListCreateBody,
      responses: { 201: ListOut.describe('the created list') },
      async handler({ body, auth, req, reply }) {
        const write = await runCommand(engage, metadataOf(req), LISTS, (metadata) => createList(engage, auth.accountId, body, metadata));
        reply.code(201);
        return listAfter(engage, auth.accountId, write);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/lists/:id',
      auth: 'key_or_login',
      operationId: 'getList',
      summary: 'Look up one list',
      tags: ['lists'],
      params: IdParams,
      responses: { 200: ListOut },
      async handler({ params, auth }) {
        return listOut(found(await findList(engage.pool, auth.accountId, params.id), 'list'));
      },
    }),
    defineRoute({
      method: 'PATCH',
      url: '/v1/lists/:id',
      auth: 'key_or_login',
      operationId: 'updateList',
      summary: "Update a list's name or description (null removes the description)",
      tags: ['lists'],
      params: IdParams,
      body: ListPatchBody,
      responses: { 200: ListOut.describe('the list as updated') },
      // a write that met another on the same stream on every retry (write conflict)
      errors: [409],
      async handler({ params, body, auth, req }) {
        const write = await runCommand(engage, metadataOf(req), LISTS, (metadata) => updateList(engage, auth.accountId, params.id, body, metadata));
        return listAfter(engage, auth.accountId, write);
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/lists/:id',
      auth: 'key_or_login',
      operationId: 'deleteList',
      summary: 'Delete a list (its contacts are kept)',
      tags: ['lists'],
      params: IdParams,
      responses: { 200: Deleted },
      errors: [409],
      async handler({ params, auth, req }) {
        await runCommand(engage, metadataOf(req), LISTS, (metadata) => deleteList(engage, auth.accountId, params.id, metadata));
        return { id: params.id, deleted: true };
      },
    }),
    defineRoute({
      method: 'PATCH',
      url: '/v1/lists/:id/favorite',
      auth: 'key_or_login',
      operationId: 'setListFavorite',
      summary: 'Pin (favorite: true) or unpin a list; pinned lists come first',
      tags: ['lists'],
      params: IdParams,
      body: FavoriteBody,
      responses: { 200: ListOut.describe('the list, pinned or not') },
      errors: [409],
      async handler({ params, body, auth, req }) {
        const write = await runCommand(engage, metadataOf(req), LISTS, (metadata) => setListFavorite(engage, auth.accountId, params.id, body.favorite, metadata));
        return listAfter(engage, auth.accountId, write);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/lists/:id/contacts',
      auth: 'key_or_login',
      operationId: 'listListContacts',
      summary: "The list's member contacts, newest contact first",
      tags: ['lists'],
      params: IdParams,
      query: ListQuery,
      responses: { 200: Page(ContactOut) },
      async handler({ params, query, auth }) {
        found(await findList(engage.pool, auth.accountId, params.id), 'list');
        const members = await pageById(query, (range) => listMemberIds(engage.pool, auth.accountId, params.id, range), (m) => m.id);
        // a member the contacts read model does not show (deleted a moment ago, not yet in the lists one) is left out
        const byId = new Map((await findContacts(engage.pool, auth.accountId, members.data)).map((c) => [c.id, c]));
        const data = members.data.flatMap((id) => {
          const c = byId.get(id);
          return c ? [contactOut(c)] : [];
        });
        return { data, next_cursor: members.next_cursor };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/lists/:id/contacts',
      auth: 'key_or_login',
      operationId: 'addListContact',
      summary: 'Add one contact to the list (201; 200 when it is on the list already); answers the list',
      tags: ['lists'],
      params: IdParams,
      body: MemberBody,
      responses: { 201: ListOut.describe('the list, with the contact added'), 200: ListOut.describe('the list: the contact was on it already') },
      async handler({ params, body, auth, req, reply }) {
        const write = await runCommand(engage, metadataOf(req), LISTS, (metadata) => addListMember(engage, auth.accountId, params.id, body.contact_id, metadata));
        reply.code(write.changed ? 201 : 200);
        return listAfter(engage, auth.accountId, write);
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/lists/:id/contacts/:contactId',
      auth: 'key_or_login',
      operationId: 'removeListContact',
      summary: 'Remove one contact from the list (the contact is kept); answers the list',
      tags: ['lists'],
      params: MemberParams,
      responses: { 200: ListOut.describe('the list, without the contact') },
      errors: [409],
      async handler({ params, auth, req }) {
        const write = await runCommand(engage, metadataOf(req), LISTS, (metadata) => removeListMember(engage, auth.accountId, params.id, params.contactId, metadata));
        return listAfter(engage, auth.accountId, write);
      },
    }),
  ];
}
