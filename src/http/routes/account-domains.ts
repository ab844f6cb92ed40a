// The routes every kind of the account's own domains has (email domains, link domains; key or
// login): list, add, one (where the kind has it), remove and the live DNS check, each answering the
// domain's view; and the pieces a kind's own routes build on (its row or 404, its view, a write).
import type { FastifyRequest } from 'fastify';
import { z, type ZodType } from 'zod';
import type { Db, IdRange } from '../../../projections/queries.ts';
import { runCommand } from '../../command-handler.ts';
import type { Engage } from '../../context.ts';
import { notFound } from '../../errors.ts';
import type { EventMetadata, Position } from '../../eventstore/port.ts';
import { type IdKind, isId } from '../../ids.ts';
import { Deleted, metadataOf, pageById, pageQuery } from '../common.ts';
import { Page } from '../openapi.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

export const DomainIdParams = z.object({ id: z.string().max(64) });

type Write = { position?: Position };

export interface AccountDomainKind<Row extends { id: string }, View, Add> {
  /** what a 404 names: "email domain" */
  what: string;
  idKind: IdKind;
  /** the collection's path: /v1/account/email-domains */
  base: string;
  tags: string[];
  /** the read models a write waits for before it answers */
  readModels: readonly string[];
  addBody: ZodType<Add>;
  /** the routes' summaries; without `one`, the kind has no GET of one domain */
  summaries: { list: string; add: string; one?: string; remove: string; verify: string };
  /** what the routes' operationIds name: `EmailDomain` and `EmailDomains` make getEmailDomain, listEmailDomains, … */
  names: { one: string; many: string };
  /** the schema of a domain's view, as every route of the kind answers it */
  viewSchema: ZodType;
  find(db: Db, accountId: string, id: string): Promise<Row | undefined>;
  list(db: Db, accountId: string, range: IdRange): Promise<Row[]>;
  views(engage: Engage, rows: readonly Row[]): Promise<View[]> | View[];
  add(engage: Engage, accountId: string, body: Add, metadata: EventMetadata): Promise<Write & { id: string }>;
  remove(engage: Engage, accountId: string, id: string, metadata: EventMetadata): Promise<Write>;
  verify(engage: Engage, accountId: string, row: Row, metadata: EventMetadata): Promise<Write>;
}

export function accountDomainRoutes<Row extends { id: string }, View, Add>(engage: Engage, kind: AccountDomainKind<Row, View, Add>) {
  /** The account's domain of the path, or 404 (another account's answers the same). */
  const rowOf = async (accountId: string, id: string): Promise<Row> => {
    const row = isId(kind.idKind, id) ? await kind.find(engage.pool, accountId, id) : undefined;
    if (!row) throw notFound(kind.what);
    return row;
  };
  const viewOf = async (accountId: string, id: string): Promise<View> => (await kind.views(engage, [await rowOf(accountId, id)]))[0]!;
  /** Runs a write of the request and waits for the kind's read models to have it. */
  const write = <R extends Write>(req: FastifyRequest, run: (metadata: EventMetadata) => Promise<R>) => runCommand(engage, metadataOf(req), kind.readModels, run);
  /** A write on the account's domain of the path (404 when it is none): the domain's row and what the write gave. */
  const writeOn = async <R extends Write>(req: FastifyRequest, accountId: string, id: string, run: (row: Row, metadata: EventMetadata) => Promise<R>) => {
    const row = await rowOf(accountId, id);
    return { row, written: await write(req, (metadata) => run(row, metadata)) };
  };
  const { base, tags, summaries, names, viewSchema } = kind;

  const routes: AnyRoute[] = [
    defineRoute({
      method: 'GET',
      url: base,
      auth: 'key_or_login',
      operationId: `list${names.many}`,
      summary: summaries.list,
      tags,
      query: z.strictObject(pageQuery),
      responses: { 200: Page(viewSchema) },
      async handler({ query, auth }) {
        const page = await pageById(query, (range) => kind.list(engage.pool, auth.accountId, range), (r) => r);
        return { ...page, data: await kind.views(engage, page.data) };
      },
    }),
    defineRoute({
      method: 'POST',
      url: base,
      auth: 'key_or_login',
      operationId: `create${names.one}`,
      summary: summaries.add,
      tags,
      body: kind.addBody,
      responses: { 201: viewSchema },
      async handler({ body, auth, req, reply }) {
        const added = await write(req, (metadata) => kind.add(engage, auth.accountId, body, metadata));
        reply.code(201);
        return viewOf(auth.accountId, added.id);
      },
    }),
    ...(summaries.one
      ? [
          defineRoute({
            method: 'GET',
            url: `${base}/:id`,
            auth: 'key_or_login',
            operationId: `get${names.one}`,
            summary: summaries.one,
            tags,
            params: DomainIdParams,
            responses: { 200: viewSchema },
            async handler({ params, auth }) {
              return viewOf(auth.accountId, params.id);
            },
          }),
        ]
      : []),
    defineRoute({
      method: 'DELETE',
      url: `${base}/:id`,
      auth: 'key_or_login',
      operationId: `delete${names.one}`,
      summary: summaries.remove,
      tags,
      params: DomainIdParams,
      responses: { 200: Deleted },
      // a write that met another on the same stream on every retry (write conflict)
      errors: [409],
      async handler({ params, auth, req }) {
        await write(req, (metadata) => kind.remove(engage, auth.accountId, params.id, metadata));
        return { id: params.id, deleted: true };
      },
    }),
    defineRoute({
      method: 'POST',
      url: `${base}/:id/verify`,
      auth: 'key_or_login',
      operationId: `verify${names.one}`,
      summary: summaries.verify,
      tags,
      params: DomainIdParams,
      responses: { 200: viewSchema },
      async handler({ params, auth, req }) {
        await writeOn(req, auth.accountId, params.id, (row, metadata) => kind.verify(engage, auth.accountId, row, metadata));
        return viewOf(auth.accountId, params.id);
      },
    }),
  ];
  return { routes, rowOf, viewOf, write, writeOn };
}
