// Email sending domains (/v1/account/email-domains: key or login): add with a DKIM key, DNS
// records and their live check, signing verdicts from pasted headers, DMARC reports and readiness,
// the BIMI logo and warm-up.
import { z } from 'zod';
import { type EmailDomainRow, findEmailDomain, listEmailDomains } from '../../../projections/email-domains.ts';
import { runCommand } from '../../command-handler.ts';
import type { Engage } from '../../context.ts';
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
import { notFound } from '../../errors.ts';
import { isId } from '../../ids.ts';
import type { AppDeps } from '../deps.ts';
import { Deleted, metadataOf, pageById, pageQuery } from '../common.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const IdParams = z.object({ id: z.string().max(64) });
const AddBody = z.strictObject({ domain: z.string().min(1).max(300), dkim_algorithm: z.enum(DKIM_ALGORITHMS).optional() });
const HeadersMap = z.record(z.string().min(1).max(200), z.union([z.string().max(65_536), z.array(z.string().max(65_536)).max(100)]));
const SigningBody = z.strictObject({ headers: z.union([z.string().min(1).max(262_144), HeadersMap]), authentication_results: z.string().min(1).max(16_384).optional() });
const BimiBody = z.strictObject({ logo_url: z.union([z.string().min(1).max(2048), z.null()]) });
// the cap is checked on the XML's bytes by the parser; this bounds the JSON string first
const DmarcBody = z.strictObject({ xml: z.string().min(1).max(DMARC_MAX_XML_BYTES) });
const DmarcQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20) });
const WarmupBody = z.strictObject({ action: z.enum(['start', 'pause', 'resume', 'stop']) });

/** The account's domain of the path, or 404 (another account's answers the same). */
async function domainOf(engage: Engage, accountId: string, id: string): Promise<EmailDomainRow> {
  const row = isId('domain', id) ? await findEmailDomain(engage.pool, accountId, id) : undefined;
  if (!row) throw notFound('email domain');
  return row;
}

export function emailDomainRoutes({ engage }: AppDeps): AnyRoute[] {
  const viewOf = async (accountId: string, id: string) => (await emailDomainViews(engage, [await domainOf(engage, accountId, id)]))[0];
  const base = '/v1/account/email-domains';
  const tags = ['email domains'];
  return [
    defineRoute({
      method: 'GET',
      url: base,
      auth: 'key_or_login',
      summary: "The account's email domains with their DNS records and the state of each",
      tags,
      query: z.strictObject(pageQuery),
      async handler({ query, auth }) {
        const page = await pageById(query, (range) => listEmailDomains(engage.pool, auth.accountId, range), (r) => r);
        return { ...page, data: await emailDomainViews(engage, page.data) };
      },
    }),
    defineRoute({
      method: 'POST',
      url: base,
      auth: 'key_or_login',
      summary: 'Add a sending domain: a DKIM key pair is made for it, and the records to publish are returned',
      tags,
      body: AddBody,
      async handler({ body, auth, req, reply }) {
        const write = await runCommand(engage, metadataOf(req), EMAIL_DOMAINS, (metadata) => addEmailDomain(engage, auth.accountId, body, metadata));
        reply.code(201);
        return viewOf(auth.accountId, write.id);
      },
    }),
    defineRoute({
      method: 'GET',
      url: `${base}/:id`,
      auth: 'key_or_login',
      summary: 'One email domain',
      tags,
      params: IdParams,
      async handler({ params, auth }) {
        return viewOf(auth.accountId, params.id);
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: `${base}/:id`,
      auth: 'key_or_login',
      summary: 'Remove a domain and its DKIM key: mail from it is no longer signed',
      tags,
      params: IdParams,
      responses: { 200: Deleted },
      async handler({ params, auth, req }) {
        await runCommand(engage, metadataOf(req), EMAIL_DOMAINS, (metadata) => removeEmailDomain(engage, auth.accountId, params.id, metadata));
        return { id: params.id, deleted: true };
      },
    }),
    defineRoute({
      method: 'POST',
      url: `${base}/:id/verify`,
      auth: 'key_or_login',
      summary: 'Check the DNS records live; it does not prove that outgoing mail is signed',
      tags,
      params: IdParams,
      async handler({ params, auth, req }) {
        const row = await domainOf(engage, auth.accountId, params.id);
        await runCommand(engage, metadataOf(req), EMAIL_DOMAINS, (metadata) => verifyEmailDomain(engage, auth.accountId, row, metadata));
        return viewOf(auth.accountId, params.id);
      },
    }),
    defineRoute({
      method: 'POST',
      url: `${base}/:id/check-signing`,
      auth: 'key_or_login',
      summary: "Decide from pasted headers whether mail carries a DKIM signature for the domain (no DNS), and record the verdict",
      tags,
      params: IdParams,
      body: SigningBody,
      async handler({ params, body, auth, req }) {
        const row = await domainOf(engage, auth.accountId, params.id);
        const { check } = await runCommand(engage, metadataOf(req), EMAIL_DOMAINS, (metadata) => checkDomainSigning(engage, auth.accountId, row, body, metadata));
        return { domain: row.domain, ...check, checked_at: engage.clock.now().toISOString() };
      },
    }),
    defineRoute({
      method: 'PUT',
      url: `${base}/:id/bimi`,
      auth: 'key_or_login',
      summary: 'Set the BIMI logo (an https SVG Tiny PS file, checked) or clear it with null; returns the BIMI record',
      tags,
      params: IdParams,
      body: BimiBody,
      async handler({ params, body, auth, req }) {
        const row = await domainOf(engage, auth.accountId, params.id);
        const { record } = await runCommand(engage, metadataOf(req), EMAIL_DOMAINS, (metadata) => setBimiLogo(engage, auth.accountId, row, body.logo_url, metadata));
        return { domain: row.domain, logo_url: body.logo_url, record };
      },
    }),
    defineRoute({
      method: 'GET',
      url: `${base}/:id/dmarc`,
      auth: 'key_or_login',
      summary: 'Recent DMARC aggregate reports and a rollup of the last 30 days',
      tags,
      params: IdParams,
      query: DmarcQuery,
      async handler({ params, query, auth }) {
        return dmarcOverview(engage, await domainOf(engage, auth.accountId, params.id), query.limit);
      },
    }),
    defineRoute({
      method: 'POST',
      url: `${base}/:id/dmarc`,
      auth: 'key_or_login',
      summary: 'Store a DMARC aggregate (rua) XML report; one already stored (same reporter and report id) is not counted again',
      tags,
      params: IdParams,
      body: DmarcBody,
      async handler({ params, body, auth, req, reply }) {
        const row = await domainOf(engage, auth.accountId, params.id);
        const { report, duplicate } = await runCommand(engage, metadataOf(req), EMAIL_DOMAINS, (metadata) => storeDmarcReport(engage, auth.accountId, row, body.xml, metadata));
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
      params: IdParams,
      async handler({ params, auth }) {
        return dmarcReadiness(engage, await domainOf(engage, auth.accountId, params.id));
      },
    }),
    defineRoute({
      method: 'POST',
      url: `${base}/:id/warmup`,
      auth: 'key_or_login',
      summary: "Start, pause, resume or stop the domain's warm-up ramp (marketing email over the day's cap is held)",
      tags,
      params: IdParams,
      body: WarmupBody,
      async handler({ params, body, auth, req }) {
        await runCommand(engage, metadataOf(req), EMAIL_DOMAINS, (metadata) => changeWarmup(engage, auth.accountId, params.id, body.action, metadata));
        return viewOf(auth.accountId, params.id);
      },
    }),
  ];
}
