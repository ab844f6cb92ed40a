// Link domains (/v1/account/link-domains: key or login): add, list, remove and the live CNAME check;
// and the public click redirect they serve (GET /c/<token>), which records the click and answers 302,
// or the interstitial page on the shared host while the account is new.
import { z } from 'zod';
import { findLinkDomain, listLinkDomains } from '../../../projections/link-domains.ts';
import { LINK_DOMAINS, addLinkDomain, linkDomainView, removeLinkDomain, verifyLinkDomain } from '../../domains/link-domains.ts';
import { followClick } from '../../tracking/clicks.ts';
import { PIXEL_GIF, recordOpen } from '../../tracking/opens.ts';
import { INTERSTITIAL_CSP, interstitialPage, showsInterstitial } from '../../tracking/interstitial.ts';
import type { AppDeps } from '../deps.ts';
import { metadataOf } from '../common.ts';
import { DateTime } from '../openapi.ts';
import { type AnyRoute, defineRoute } from '../route.ts';
import { accountDomainRoutes } from './account-domains.ts';

const AddBody = z.strictObject({ domain: z.string().min(1).max(300) });
// a wildcard, not a :param: the router caps a parameter at 100 characters, and a token carries its URL
const ClickParams = z.object({ '*': z.string().max(16_384) });
const OpenParams = z.object({ '*': z.string().max(1024) });

const LinkDomainOut = z
  .object({
    id: z.string(),
    domain: z.string().describe('the ASCII (IDNA) name'),
    unicode_domain: z.string(),
    status: z.enum(['pending', 'verified']),
    record: z.object({ type: z.literal('CNAME'), name: z.string(), value: z.string() }).describe('the CNAME record to publish'),
    found: z.array(z.string()).describe('the CNAME targets the last check found'),
    error: z.string().nullable().describe('why the last check could not pass whatever it found (a failed lookup, a domain taken), else null'),
    checked_at: DateTime.nullable(),
    verified_at: DateTime.nullable(),
    created_at: DateTime,
  })
  .meta({ id: 'LinkDomain', description: 'A link domain: the CNAME it must publish, and what its last check found' });

export function linkDomainRoutes({ engage }: AppDeps): AnyRoute[] {
  const domains = accountDomainRoutes(engage, {
    what: 'link domain',
    idKind: 'linkDomain',
    base: '/v1/account/link-domains',
    tags: ['link domains'],
    readModels: LINK_DOMAINS,
    addBody: AddBody,
    names: { one: 'LinkDomain', many: 'LinkDomains' },
    viewSchema: LinkDomainOut,
    summaries: {
      list: "The account's link domains with the CNAME record each must publish and its state",
      add: 'Add a link domain: tracked links of email go through it once its CNAME is verified',
      remove: 'Remove a link domain: links sent from now on no longer use it (links already sent keep working while it points here)',
      verify: "Check the domain's CNAME live: verified when it names the target host",
    },
    find: findLinkDomain,
    list: listLinkDomains,
    views: (_engage, rows) => rows.map(linkDomainView),
    add: addLinkDomain,
    remove: removeLinkDomain,
    verify: verifyLinkDomain,
  });
  return [
    ...domains.routes,
    defineRoute({
      method: 'GET',
      url: '/c/*',
      auth: 'none',
      rateGroup: 'public',
      operationId: 'followTrackedLink',
      summary:
        "A tracked link of an email: records the click on the message and its contact, and redirects (302) to the link's URL " +
        '(on the shared click host, a new account\'s link shows an interstitial page instead)',
      tags: ['link domains'],
      description: 'A token that is not genuine, names no message, or whose links never went out (never sent, or cancelled) answers 404.',
      params: ClickParams,
      produces: 'text/html; charset=utf-8',
      responses: {
        200: 'the interstitial page: a new account\'s link on the shared click host',
        302: 'to the URL the link had in the message',
      },
      errors: [404],
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
    defineRoute({
      method: 'GET',
      url: '/o/*',
      auth: 'none',
      rateGroup: 'public',
      operationId: 'fetchOpenPixel',
      summary: 'The open pixel of an email: records an open on the message (and, unless a machine fetched it, on its contact); always a 1×1 GIF',
      tags: ['link domains'],
      description: 'A token that is not genuine, names no message, or whose email never went out records nothing, and answers the same image.',
      params: OpenParams,
      produces: 'image/gif',
      responses: { 200: 'a transparent 1×1 GIF' },
      async handler({ params, req, reply }) {
        // a HEAD is a link checker or a scanner, not a reader; and the image comes whatever happens to the record
        if (req.method !== 'HEAD') {
          await recordOpen(engage, params['*'], req.ip, metadataOf(req)).catch((err: unknown) => engage.log.warn({ err }, 'recording an open failed'));
        }
        reply.header('cache-control', 'no-store, no-cache, must-revalidate, private').header('referrer-policy', 'no-referrer').type('image/gif');
        return PIXEL_GIF;
      },
    }),
  ];
}
