// Link domains (/v1/account/link-domains: key or login): add, list, remove and the live CNAME check;
// and the public click redirect they serve (GET /c/<token>), which records the click and answers 302,
// or the interstitial page on the shared host while the account is new.
import { z } from 'zod';
import { type LinkDomainRow, findLinkDomain, listLinkDomains } from '../../../projections/link-domains.ts';
import { runCommand } from '../../command-handler.ts';
import type { Engage } from '../../context.ts';
import { LINK_DOMAINS, addLinkDomain, linkDomainView, removeLinkDomain, verifyLinkDomain } from '../../domains/link-domains.ts';
import { notFound } from '../../errors.ts';
import { isId } from '../../ids.ts';
import { followClick } from '../../tracking/clicks.ts';
import { INTERSTITIAL_CSP, interstitialPage, showsInterstitial } from '../../tracking/interstitial.ts';
import type { AppDeps } from '../deps.ts';
import { Deleted, metadataOf, pageById, pageQuery } from '../common.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const IdParams = z.object({ id: z.string().max(64) });
const AddBody = z.strictObject({ domain: z.string().min(1).max(300) });
// a wildcard, not a :param: the router caps a parameter at 100 characters, and a token carries its URL
const ClickParams = z.object({ '*': z.string().max(16_384) });

/** The account's link domain of the path, or 404 (another account's answers the same). */
async function linkDomainOf(engage: Engage, accountId: string, id: string): Promise<LinkDomainRow> {
  const row = isId('linkDomain', id) ? await findLinkDomain(engage.pool, accountId, id) : undefined;
  if (!row) throw notFound('link domain');
  return row;
}

export function linkDomainRoutes({ engage }: AppDeps): AnyRoute[] {
  const viewOf = async (accountId: string, id: string) => linkDomainView(await linkDomainOf(engage, accountId, id));
  const base = '/v1/account/link-domains';
  const tags = ['link domains'];
  return [
    defineRoute({
      method: 'GET',
      url: base,
      auth: 'key_or_login',
      summary: "The account's link domains with the CNAME record each must publish and its state",
      tags,
      query: z.strictObject(pageQuery),
      async handler({ query, auth }) {
        return pageById(query, (range) => listLinkDomains(engage.pool, auth.accountId, range), linkDomainView);
      },
    }),
    defineRoute({
      method: 'POST',
      url: base,
      auth: 'key_or_login',
      summary: 'Add a link domain: tracked links of email go through it once its CNAME is verified',
      tags,
      body: AddBody,
      async handler({ body, auth, req, reply }) {
        const write = await runCommand(engage, metadataOf(req), LINK_DOMAINS, (metadata) => addLinkDomain(engage, auth.accountId, body, metadata));
        reply.code(201);
        return viewOf(auth.accountId, write.id);
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: `${base}/:id`,
      auth: 'key_or_login',
      summary: 'Remove a link domain: links sent from now on no longer use it (links already sent keep working while it points here)',
      tags,
      params: IdParams,
      responses: { 200: Deleted },
      async handler({ params, auth, req }) {
        await runCommand(engage, metadataOf(req), LINK_DOMAINS, (metadata) => removeLinkDomain(engage, auth.accountId, params.id, metadata));
        return { id: params.id, deleted: true };
      },
    }),
    defineRoute({
      method: 'POST',
      url: `${base}/:id/verify`,
      auth: 'key_or_login',
      summary: "Check the domain's CNAME live: verified when it names the target host",
      tags,
      params: IdParams,
      async handler({ params, auth, req }) {
        const row = await linkDomainOf(engage, auth.accountId, params.id);
        await runCommand(engage, metadataOf(req), LINK_DOMAINS, (metadata) => verifyLinkDomain(engage, auth.accountId, row, metadata));
        return viewOf(auth.accountId, params.id);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/c/*',
      auth: 'none',
      rateGroup: 'public',
      summary:
        "A tracked link of an email: records the click on the message and its contact, and redirects (302) to the link's URL " +
        '(on the shared click host, a new account\'s link shows an interstitial page instead)',
      tags: ['link domains'],
      params: ClickParams,
      responses: {
        200: 'the interstitial page (text/html): a new account\'s link on the shared click host',
        302: 'to the URL the link had in the message',
        404: 'a token that is not genuine, or names no message, or one whose links never went out (never sent, or cancelled)',
      },
      async handler({ params, req, reply }) {
        // a HEAD (fastify answers it with this route) is a link checker or a mail scanner, not a reader: not a click
        const { url, accountId } = await followClick(engage, params['*'], metadataOf(req), { record: req.method !== 'HEAD' });
        // every click must reach us (no cache), and the destination learns nothing of the token
        reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
        if (await showsInterstitial(engage, accountId, req.hostname)) {
          reply.type('text/html; charset=utf-8').header('content-security-policy', INTERSTITIAL_CSP);
          return interstitialPage(url);
        }
        return reply.redirect(url, 302);
      },
    }),
  ];
}
