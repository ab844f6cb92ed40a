// Email sending domains (/v1/account/email-domains: key or login): add with a DKIM key, DNS
// records and their live check, signing verdicts from pasted headers, DMARC reports and readiness,
// the BIMI logo and warm-up.
import { z } from 'zod';
import { findEmailDomain, listEmailDomains } from '../../../projections/email-domains.ts';
import { DKIM_ALGORITHMS } from '../../domains/dkim.ts';
import { DMARC_MAX_XML_BYTES } from '../../domains/dmarc-report.ts';
import { dmarcOverview, dmarcReadiness, storeDmarcReport } from '../../domains/dmarc.ts';
import {
  EMAIL_DOMAINS,
  addEmailDomain,
  changeWarmup,
  checkDomainSigning,
  emailDomainViews,
  removeEmailDomain,
  setBimiLogo,
  verifyEmailDomain,
} from '../../domains/email-domains.ts';
import type { AppDeps } from '../deps.ts';
import { type AnyRoute, defineRoute } from '../route.ts';
import { DomainIdParams, accountDomainRoutes } from './account-domains.ts';

const AddBody = z.strictObject({ domain: z.string().min(1).max(300), dkim_algorithm: z.enum(DKIM_ALGORITHMS).optional() });
const HeadersMap = z.record(z.string().min(1).max(200), z.union([z.string().max(65_536), z.array(z.string().max(65_536)).max(100)]));
const SigningBody = z.strictObject({ headers: z.union([z.string().min(1).max(262_144), HeadersMap]), authentication_results: z.string().min(1).max(16_384).optional() });
const BimiBody = z.strictObject({ logo_url: z.union([z.string().min(1).max(2048), z.null()]) });
// the cap is checked on the XML's bytes by the parser; this bounds the JSON string first
const DmarcBody = z.strictObject({ xml: z.string().min(1).max(DMARC_MAX_XML_BYTES) });
const DmarcQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20) });
const WarmupBody = z.strictObject({ action: z.enum(['start', 'pause', 'resume', 'stop']) });

export function emailDomainRoutes({ engage }: AppDeps): AnyRoute[] {
  const base = '/v1/account/email-domains';
  const tags = ['email domains'];
  const domains = accountDomainRoutes(engage, {
    what: 'email domain',
    idKind: 'domain',
    base,
    tags,
    readModels: EMAIL_DOMAINS,
    addBody: AddBody,
    summaries: {
      list: "The account's email domains with their DNS records and the state of each",
      add: 'Add a sending domain: a DKIM key pair is made for it, and the records to publish are returned',
      one: 'One email domain',
      remove: 'Remove a domain and its DKIM key: mail from it is no longer signed',
      verify: 'Check the DNS records live; it does not prove that outgoing mail is signed',
    },
    find: findEmailDomain,
    list: listEmailDomains,
    views: emailDomainViews,
    add: addEmailDomain,
    remove: removeEmailDomain,
    verify: verifyEmailDomain,
  });
  const { rowOf: domainOf, viewOf, write, writeOn } = domains;
  return [
    ...domains.routes,
    defineRoute({
      method: 'POST',
      url: `${base}/:id/check-signing`,
      auth: 'key_or_login',
      summary: "Decide from pasted headers whether mail carries a DKIM signature for the domain (no DNS), and record the verdict",
      tags,
      params: DomainIdParams,
      body: SigningBody,
      async handler({ params, body, auth, req }) {
        const { row, written } = await writeOn(req, auth.accountId, params.id, (r, metadata) => checkDomainSigning(engage, auth.accountId, r, body, metadata));
        return { domain: row.domain, ...written.check, checked_at: engage.clock.now().toISOString() };
      },
    }),
    defineRoute({
      method: 'PUT',
      url: `${base}/:id/bimi`,
      auth: 'key_or_login',
      summary: 'Set the BIMI logo (an https SVG Tiny PS file, checked) or clear it with null; returns the BIMI record',
      tags,
      params: DomainIdParams,
      body: BimiBody,
      async handler({ params, body, auth, req }) {
        const { row, written } = await writeOn(req, auth.accountId, params.id, (r, metadata) => setBimiLogo(engage, auth.accountId, r, body.logo_url, metadata));
        return { domain: row.domain, logo_url: body.logo_url, record: written.record };
      },
    }),
    defineRoute({
      method: 'GET',
      url: `${base}/:id/dmarc`,
      auth: 'key_or_login',
      summary: 'Recent DMARC aggregate reports and a rollup of the last 30 days',
      tags,
      params: DomainIdParams,
      query: DmarcQuery,
      async handler({ params, query, auth }) {
        return dmarcOverview(engage, await domainOf(auth.accountId, params.id), query.limit);
      },
    }),
    defineRoute({
      method: 'POST',
      url: `${base}/:id/dmarc`,
      auth: 'key_or_login',
      summary: 'Store a DMARC aggregate (rua) XML report; one already stored (same reporter and report id) is not counted again',
      tags,
      params: DomainIdParams,
      body: DmarcBody,
      async handler({ params, body, auth, req, reply }) {
        const { report, duplicate } = (await writeOn(req, auth.accountId, params.id, (row, metadata) => storeDmarcReport(engage, auth.accountId, row, body.xml, metadata))).written;
        reply.code(duplicate ? 200 : 201);
        return { duplicate, report };
      },
    }),
    defineRoute({
      method: 'GET',
      url: `${base}/:id/dmarc/readiness`,
      auth: 'key_or_login',
      summary: 'Whether the domain can move to p=quarantine (README "DMARC readiness"), and the two records to publish',
      tags,
      params: DomainIdParams,
      async handler({ params, auth }) {
        return dmarcReadiness(engage, await domainOf(auth.accountId, params.id));
      },
    }),
    defineRoute({
      method: 'POST',
      url: `${base}/:id/warmup`,
      auth: 'key_or_login',
      summary: "Start, pause, resume or stop the domain's warm-up ramp (marketing email over the day's cap is held)",
      tags,
      params: DomainIdParams,
      body: WarmupBody,
      async handler({ params, body, auth, req }) {
        await write(req, (metadata) => changeWarmup(engage, auth.accountId, params.id, body.action, metadata));
        return viewOf(auth.accountId, params.id);
      },
    }),
  ];
}
