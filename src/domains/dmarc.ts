// DMARC aggregate reports of an email domain: storing a parsed report (once per reporter and report
// id), the recent reports with a rollup, and whether the domain is ready to move to p=quarantine by
// the four criteria of README "DMARC readiness".
import type { DmarcReportRecord } from '../../commands/email-domain.ts';
import { type DmarcReportRow, type EmailDomainRow, dmarcReportsSince, recentDmarcReports } from '../../projections/email-domains.ts';
import type { Engage } from '../context.ts';
import { invalidField } from '../errors.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { DmarcReportError } from './dmarc-report.ts';
import { inputErrorOf } from '../cpu-work/pool.ts';
import { dmarcReportsAddress, runEmailDomainCommand } from './email-domains.ts';

/** The rollup and readiness look at reports whose period ended this recently. */
export const DMARC_WINDOW_DAYS = 30;
export const READINESS = { minDays: 14, minMessages: 100, minPassRate: 0.98, significantShare: 0.01, minSourcePassRate: 0.95 } as const;
const DAY_MS = 86_400_000;

/** Whether a report about `reported` belongs to the domain `own`: the same name or a subdomain of it. */
const coversDomain = (own: string, reported: string) => reported === own || reported.endsWith(`.${own}`);

export async function storeDmarcReport(engage: Engage, accountId: string, row: EmailDomainRow, xml: string, metadata: EventMetadata) {
  // up to 5 MiB of untrusted XML: parsed off the request loop, time-limited
  const report: DmarcReportRecord = await engage.cpu.run('dmarcReport', xml).catch((error) => inputErrorOf(error, 'xml', DmarcReportError.name));
  if (!coversDomain(row.domain, report.domain)) throw invalidField('xml', `the report is about ${report.domain}, not ${row.domain}`);
  const write = await runEmailDomainCommand(engage, row.id, { type: 'StoreDmarcReport', accountId, report, now: engage.clock.now() }, metadata);
  return { report, duplicate: write.events.length === 0, position: write.position };
}

/** Messages passing DMARC: aligned DKIM or aligned SPF (RFC 7489 §6.6.2). */
const passing = (s: DmarcReportRow['sources'][number]) => s.dmarc_pass;

export interface DmarcRollup {
  window_days: number;
  reports: number;
  reporters: string[];
  first_day: string | null;
  last_day: string | null;
  messages: number;
  dmarc_pass: number;
  dkim_aligned_pass: number;
  spf_aligned_pass: number;
  disposition: { none: number; quarantine: number; reject: number };
  sources: { source_ip: string; messages: number; dmarc_pass: number; dkim_aligned_pass: number; spf_aligned_pass: number }[];
}

export function rollup(reports: readonly DmarcReportRow[]): DmarcRollup {
  const bySource = new Map<string, DmarcRollup['sources'][number]>();
  const out: DmarcRollup = {
    window_days: DMARC_WINDOW_DAYS, reports: reports.length, reporters: [], first_day: null, last_day: null,
    messages: 0, dmarc_pass: 0, dkim_aligned_pass: 0, spf_aligned_pass: 0, disposition: { none: 0, quarantine: 0, reject: 0 }, sources: [],
  };
  const reporters = new Set<string>();
  let first = Infinity;
  let last = -Infinity;
  for (const r of reports) {
    reporters.add(r.org_name);
    first = Math.min(first, r.begin_at.getTime());
    last = Math.max(last, r.end_at.getTime());
    for (const s of r.sources) {
      const agg = bySource.get(s.source_ip) ?? { source_ip: s.source_ip, messages: 0, dmarc_pass: 0, dkim_aligned_pass: 0, spf_aligned_pass: 0 };
      agg.messages += s.messages;
      agg.dmarc_pass += passing(s);
      agg.dkim_aligned_pass += s.dkim_aligned.pass;
      agg.spf_aligned_pass += s.spf_aligned.pass;
      bySource.set(s.source_ip, agg);
      out.messages += s.messages;
      out.dmarc_pass += passing(s);
      out.dkim_aligned_pass += s.dkim_aligned.pass;
      out.spf_aligned_pass += s.spf_aligned.pass;
      for (const k of ['none', 'quarantine', 'reject'] as const) out.disposition[k] += s.disposition[k] ?? 0;
    }
  }
  out.reporters = [...reporters].sort();
  if (reports.length > 0) {
    out.first_day = new Date(first).toISOString().slice(0, 10);
    out.last_day = new Date(last - 1).toISOString().slice(0, 10);
  }
  out.sources = [...bySource.values()].sort((a, b) => b.messages - a.messages || a.source_ip.localeCompare(b.source_ip));
  return out;
}

const reportOut = (r: DmarcReportRow) => ({
  org_name: r.org_name,
  report_id: r.report_id,
  email: r.email,
  begin: r.begin_at.toISOString(),
  end: r.end_at.toISOString(),
  messages: r.messages,
  policy: r.policy,
  sources: r.sources,
  received_at: r.received_at.toISOString(),
});

/**
 * The recent reports and a rollup of the 30 days up to the newest report's end (reports are often
 * uploaded late, in batches: a window ending today would show nothing for an old batch).
 */
export async function dmarcOverview(engage: Engage, row: EmailDomainRow, limit: number) {
  const recent = await recentDmarcReports(engage.pool, row.id, limit);
  const newest = recent[0]?.end_at.getTime();
  const windowed = newest === undefined ? [] : await dmarcReportsSince(engage.pool, row.id, new Date(newest - DMARC_WINDOW_DAYS * DAY_MS));
  return { domain: row.domain, reports: recent.map(reportOut), rollup: rollup(windowed) };
}

export async function dmarcReadiness(engage: Engage, row: EmailDomainRow) {
  const since = new Date(engage.clock.now().getTime() - DMARC_WINDOW_DAYS * DAY_MS);
  const r = rollup(await dmarcReportsSince(engage.pool, row.id, since));
  const days = r.first_day && r.last_day ? Math.round((Date.parse(r.last_day) - Date.parse(r.first_day)) / DAY_MS) + 1 : 0;
  const rate = r.messages === 0 ? 0 : r.dmarc_pass / r.messages;
  const laggards = r.sources.filter((s) => s.messages >= r.messages * READINESS.significantShare && s.dmarc_pass / s.messages < READINESS.minSourcePassRate);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const criteria = [
    {
      name: 'dkim_verified',
      pass: row.status === 'verified',
      detail: row.status === 'verified' ? 'the DKIM and SPF records are published and verified' : 'verify the domain first: its DKIM and SPF records must pass',
    },
    {
      name: 'enough_reports',
      pass: days >= READINESS.minDays && r.messages >= READINESS.minMessages,
      detail: `${days} days and ${r.messages} messages reported in the last ${DMARC_WINDOW_DAYS} days (needs ${READINESS.minDays} days and ${READINESS.minMessages} messages)`,
    },
    {
      name: 'dmarc_pass_rate',
      pass: r.messages > 0 && rate >= READINESS.minPassRate,
      detail: `${pct(rate)} of reported messages pass DMARC (needs ${pct(READINESS.minPassRate)})`,
    },
    {
      name: 'every_sender_aligned',
      pass: r.messages > 0 && laggards.length === 0,
      detail:
        laggards.length === 0
          ? `every source sending ${pct(READINESS.significantShare)} or more of the mail passes DMARC for ${pct(READINESS.minSourcePassRate)} of it`
          : `sources sending real volume without passing DMARC: ${laggards.map((s) => `${s.source_ip} (${pct(s.dmarc_pass / s.messages)} of ${s.messages})`).join(', ')}`,
      ...(laggards.length ? { sources: laggards.map((s) => s.source_ip) } : {}),
    },
  ];
  const address = dmarcReportsAddress(engage.config);
  const reportDomain = address.slice(address.lastIndexOf('@') + 1);
  return {
    domain: row.domain,
    ready: criteria.every((c) => c.pass),
    criteria,
    records: [
      { type: 'TXT', name: `_dmarc.${row.domain}`, value: `v=DMARC1; p=quarantine; pct=100; rua=mailto:${address}; adkim=r; aspf=r` },
      // RFC 7489 §7.1: the report address is outside the domain, so its own domain must say it takes reports for it
      { type: 'TXT', name: `${row.domain}._report._dmarc.${reportDomain}`, value: 'v=DMARC1', published_by: reportDomain },
    ],
  };
}
