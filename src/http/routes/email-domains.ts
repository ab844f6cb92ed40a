// Email sending domains (/v1/account/email-domains: key or login): add with a DKIM key, DNS
// records and their live check, signing verdicts from pasted headers, DMARC reports and readiness,
// the BIMI logo and warm-up.
import { z } from 'zod';
import type { DnsRecordKind, WarmupStatus } from '../../../commands/email-domain.ts';
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
import { DateTime } from '../openapi.ts';
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

/** A write met another on the same stream on every retry (write conflict). */
const WRITE_CONFLICT = 409;

const Alignment = z.enum(['strict', 'relaxed']);
const SigningVerdict = {
  verdict: z.enum(['pass', 'fail', 'present', 'missing']),
  decided_by: z
    .object({ source: z.enum(['authentication_results', 'dkim_signature']), d: z.string(), s: z.string().nullable(), alignment: Alignment, result: z.string().nullable() })
    .nullable()
    .describe('what decided the verdict: an aligned DKIM result or signature (null: missing)'),
};
const BimiRecord = z.object({ type: z.literal('TXT'), name: z.string(), value: z.string() }).describe('the BIMI record to publish');

const EmailDomainOut = z
  .object({
    id: z.string(),
    domain: z.string().describe('the ASCII (IDNA) name'),
    unicode_domain: z.string(),
    status: z.enum(['pending', 'verified']),
    dkim: z.object({ selector: z.string(), algorithm: z.enum(DKIM_ALGORITHMS) }),
    records: z
      .array(
        z.object({
          kind: z.enum(['spf', 'dkim', 'dmarc', 'return_path', 'mx'] satisfies DnsRecordKind[]),
          type: z.enum(['TXT', 'CNAME', 'MX']),
          name: z.string(),
          value: z.string(),
          required: z.boolean().describe('whether it must pass for the domain to be verified'),
          status: z.enum(['pass', 'fail', 'unknown', 'unchecked']).describe('what the last check found (unknown: the lookup failed)'),
          found: z.array(z.string()).describe('what DNS answered at the last check'),
        }),
      )
      .describe('the DNS records to publish, and what the last check found of each'),
    checked_at: DateTime.nullable(),
    verified_at: DateTime.nullable(),
    signing: z
      .object({ ...SigningVerdict, checked_at: DateTime })
      .nullable()
      .describe('the last signing verdict from pasted headers (POST …/check-signing)'),
    bimi: z.object({ logo_url: z.string(), record: BimiRecord }).nullable(),
    warmup: z.object({
      status: z.enum(['not_started', 'active', 'paused', 'stopped'] satisfies WarmupStatus[]),
      started_at: DateTime.nullable(),
      day: z.int().nullable().describe('the day of the ramp (null: not warming up)'),
      cap_today: z.int().nullable().describe("today's cap of marketing email (null: none)"),
      sent_today: z.int().describe('marketing email sent from the domain since UTC midnight'),
    }),
    created_at: DateTime,
  })
  .meta({ id: 'EmailDomain', description: 'A sending domain: its DKIM key, the DNS records to publish and their state, signing, BIMI and warm-up' });

const SigningCheckOut = z.object({
  domain: z.string(),
  ...SigningVerdict,
  signatures: z
    .array(
      z.object({
        d: z.string(),
        s: z.string(),
        a: z.string(),
        i: z.string().nullable(),
        signed_headers: z.array(z.string()),
        alignment: Alignment.nullable(),
        malformed: z.string().nullable().describe('why the signature cannot count; null when well-formed'),
      }),
    )
    .describe('every DKIM-Signature found'),
  results: z
    .array(z.object({ result: z.string(), d: z.string().nullable(), s: z.string().nullable(), authserv_id: z.string(), alignment: Alignment.nullable() }))
    .describe('every DKIM result of the Authentication-Results found'),
  checked_at: DateTime,
});

const Disposition = z.enum(['none', 'quarantine', 'reject']);
const PassFail = z.object({ pass: z.int(), fail: z.int() });
const DmarcSource = z.object({
  source_ip: z.string(),
  messages: z.int(),
  dmarc_pass: z.int(),
  dkim_aligned: PassFail,
  spf_aligned: PassFail,
  disposition: z.object({ none: z.int(), quarantine: z.int(), reject: z.int() }),
  header_from: z.array(z.string()),
});
const DmarcPolicy = z.object({ p: Disposition, sp: Disposition.nullable(), pct: z.int().nullable(), adkim: z.enum(['r', 's']), aspf: z.enum(['r', 's']) });
const DmarcReportOut = z
  .object({
    org_name: z.string(),
    report_id: z.string(),
    email: z.string().nullable(),
    begin: DateTime,
    end: DateTime,
    domain: z.string(),
    policy: DmarcPolicy,
    messages: z.int(),
    sources: z.array(DmarcSource),
  })
  .meta({ id: 'DmarcReport', description: 'A DMARC aggregate report as stored: its reporter, period, published policy and sending sources' });
const DmarcOverviewOut = z.object({
  domain: z.string(),
  reports: z.array(
    z.object({
      org_name: z.string(),
      report_id: z.string(),
      email: z.string().nullable(),
      begin: DateTime,
      end: DateTime,
      messages: z.int(),
      policy: DmarcPolicy,
      sources: z.array(DmarcSource),
      received_at: DateTime,
    }),
  ),
  rollup: z.object({
    window_days: z.int(),
    reports: z.int(),
    reporters: z.array(z.string()),
    first_day: z.string().nullable().describe('YYYY-MM-DD'),
    last_day: z.string().nullable().describe('YYYY-MM-DD'),
    messages: z.int(),
    dmarc_pass: z.int(),
    dkim_aligned_pass: z.int(),
    spf_aligned_pass: z.int(),
    disposition: z.object({ none: z.int(), quarantine: z.int(), reject: z.int() }),
    sources: z.array(z.object({ source_ip: z.string(), messages: z.int(), dmarc_pass: z.int(), dkim_aligned_pass: z.int(), spf_aligned_pass: z.int() })),
  }),
});
const DmarcReadinessOut = z.object({
  domain: z.string(),
  ready: z.boolean().describe('every criterion passes'),
  criteria: z.array(
    z.object({
      name: z.enum(['dkim_verified', 'enough_reports', 'dmarc_pass_rate', 'every_sender_aligned']),
      pass: z.boolean(),
      detail: z.string(),
      sources: z.array(z.string()).optional().describe('every_sender_aligned: the sources that hold it back'),
    }),
  ),
  records: z
    .array(z.object({ type: z.literal('TXT'), name: z.string(), value: z.string(), published_by: z.string().optional().describe('the domain that publishes it, when not this one') }))
    .describe('the records to publish to move to p=quarantine'),
});

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
    names: { one: 'EmailDomain', many: 'EmailDomains' },
    viewSchema: EmailDomainOut,
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
      operationId: 'checkEmailDomainSigning',
      summary: "Decide from pasted headers whether mail carries a DKIM signature for the domain (no DNS), and record the verdict",
      tags,
      params: DomainIdParams,
      body: SigningBody,
      responses: { 200: SigningCheckOut.describe('the verdict, and every signature and result the headers carry') },
      async handler({ params, body, auth, req }) {
        const { row, written } = await writeOn(req, auth.accountId, params.id, (r, metadata) => checkDomainSigning(engage, auth.accountId, r, body, metadata));
        return { domain: row.domain, ...written.check, checked_at: engage.clock.now().toISOString() };
      },
    }),
    defineRoute({
      method: 'PUT',
      url: `${base}/:id/bimi`,
      auth: 'key_or_login',
      operationId: 'setEmailDomainBimiLogo',
      summary: 'Set the BIMI logo (an https SVG Tiny PS file, checked) or clear it with null; returns the BIMI record',
      tags,
      params: DomainIdParams,
      body: BimiBody,
      responses: { 200: z.object({ domain: z.string(), logo_url: z.string().nullable(), record: BimiRecord }) },
      errors: [WRITE_CONFLICT],
      async handler({ params, body, auth, req }) {
        const { row, written } = await writeOn(req, auth.accountId, params.id, (r, metadata) => setBimiLogo(engage, auth.accountId, r, body.logo_url, metadata));
        return { domain: row.domain, logo_url: body.logo_url, record: written.record };
      },
    }),
    defineRoute({
      method: 'GET',
      url: `${base}/:id/dmarc`,
      auth: 'key_or_login',
      operationId: 'getEmailDomainDmarc',
      summary: 'Recent DMARC aggregate reports and a rollup of the last 30 days',
      tags,
      params: DomainIdParams,
      query: DmarcQuery,
      responses: { 200: DmarcOverviewOut.describe('the recent reports, newest first, and the rollup of the 30 days up to the newest') },
      async handler({ params, query, auth }) {
        return dmarcOverview(engage, await domainOf(auth.accountId, params.id), query.limit);
      },
    }),
    defineRoute({
      method: 'POST',
      url: `${base}/:id/dmarc`,
      auth: 'key_or_login',
      operationId: 'createEmailDomainDmarcReport',
      summary: 'Store a DMARC aggregate (rua) XML report; one already stored (same reporter and report id) is not counted again',
      tags,
      params: DomainIdParams,
      body: DmarcBody,
      responses: {
        201: z.object({ duplicate: z.literal(false), report: DmarcReportOut }).describe('the report, stored'),
        200: z.object({ duplicate: z.literal(true), report: DmarcReportOut }).describe('the report was stored already (same reporter and report id): not counted again'),
      },
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
      operationId: 'getEmailDomainDmarcReadiness',
      summary: 'Whether the domain can move to p=quarantine (README "DMARC readiness"), and the two records to publish',
      tags,
      params: DomainIdParams,
      responses: { 200: DmarcReadinessOut },
      async handler({ params, auth }) {
        return dmarcReadiness(engage, await domainOf(auth.accountId, params.id));
      },
    }),
    defineRoute({
      method: 'POST',
      url: `${base}/:id/warmup`,
      auth: 'key_or_login',
      operationId: 'changeEmailDomainWarmup',
      summary: "Start, pause, resume or stop the domain's warm-up ramp (marketing email over the day's cap is held)",
      tags,
      params: DomainIdParams,
      body: WarmupBody,
      responses: { 200: EmailDomainOut.describe('the domain, its warm-up changed') },
      async handler({ params, body, auth, req }) {
        await write(req, (metadata) => changeWarmup(engage, auth.accountId, params.id, body.action, metadata));
        return viewOf(auth.accountId, params.id);
      },
    }),
  ];
}
