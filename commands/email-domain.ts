// An email sending domain of one account (stream emaildomain-<id>): added with its DKIM key pair,
// DNS-checked, its signing confirmed from pasted headers, DMARC aggregate reports stored (once per
// reporter and report id), a BIMI logo set or cleared, warm-up driven by start|pause|resume|stop,
// and removed with its key.
import type { Decider } from '../src/decider.ts';
import { conflict, notFound } from '../src/errors.ts';

export type DkimAlgorithm = 'rsa-sha256' | 'ed25519-sha256';
export type DnsRecordKind = 'spf' | 'dkim' | 'dmarc' | 'return_path' | 'mx';
export type WarmupAction = 'start' | 'pause' | 'resume' | 'stop';
export type WarmupStatus = 'not_started' | 'active' | 'paused' | 'stopped';

export interface DkimKeyPair {
  selector: string;
  algorithm: DkimAlgorithm;
  /** the p= value of the DKIM TXT record (base64) */
  public_key: string;
  /** the PKCS#8 PEM private key, sealed with the service key (src/seal.ts): never in clear in the log */
  private_key_sealed: string;
}

export interface DnsRecordCheck {
  kind: DnsRecordKind;
  name: string;
  /** whether the record must pass for the domain to be verified */
  required: boolean;
  pass: boolean;
  /** what the resolver answered (TXT strings, CNAME targets, MX hosts) */
  found: string[];
  /** set when the lookup failed (timeout, SERVFAIL): the record's state is unknown */
  error?: string;
}

export interface SigningVerdictRecord {
  verdict: 'pass' | 'fail' | 'present' | 'missing';
  decided_by: { source: 'authentication_results' | 'dkim_signature'; d: string; s: string | null; alignment: 'strict' | 'relaxed'; result: string | null } | null;
}

export type Disposition = 'none' | 'quarantine' | 'reject';

/** One sending IP of a DMARC aggregate report, summed over its records (src/domains/dmarc-report.ts). */
export interface DmarcSourceRecord {
  /** normalised (lower-case, compressed IPv6) */
  source_ip: string;
  /** sum of row/count over every record of this IP */
  messages: number;
  /** messages passing DMARC: aligned DKIM or aligned SPF (RFC 7489 §6.6.2); only a record knows both */
  dmarc_pass: number;
  /** from policy_evaluated/dkim, weighted by count */
  dkim_aligned: { pass: number; fail: number };
  /** from policy_evaluated/spf, weighted by count */
  spf_aligned: { pass: number; fail: number };
  /** weighted by count */
  disposition: Record<Disposition, number>;
  /** distinct identifiers/header_from, lower-cased */
  header_from: string[];
}

/** A DMARC aggregate report as stored: its metadata, the published policy and its sources. */
export interface DmarcReportRecord {
  org_name: string;
  report_id: string;
  email: string | null;
  /** ISO 8601 UTC, from date_range (unix seconds) */
  begin: string;
  end: string;
  /** policy_published/domain, lower-case, no trailing dot */
  domain: string;
  policy: { p: Disposition; sp: Disposition | null; pct: number | null; adkim: 'r' | 's'; aspf: 'r' | 's' };
  /** total over every record */
  messages: number;
  /** one per source IP, most messages first */
  sources: DmarcSourceRecord[];
}

type Base = { id: string; account_id: string };
export type EmailDomainEvent =
  | { type: 'EmailDomainAdded'; data: Base & { domain: string; unicode_domain: string; dkim: DkimKeyPair; return_path: string; created_at: string } }
  | { type: 'EmailDomainDnsChecked'; data: Base & { records: DnsRecordCheck[]; verified: boolean; checked_at: string } }
  | { type: 'EmailDomainSigningChecked'; data: Base & SigningVerdictRecord & { checked_at: string } }
  | { type: 'EmailDomainDmarcReportReceived'; data: Base & { report: DmarcReportRecord; received_at: string } }
  | { type: 'EmailDomainBimiLogoSet'; data: Base & { logo_url: string | null; set_at: string } }
  | { type: 'EmailDomainWarmupChanged'; data: Base & { action: WarmupAction; status: WarmupStatus; at: string } }
  | { type: 'EmailDomainRemoved'; data: Base & { removed_at: string } };

export const EMAIL_DOMAIN_EVENT_TYPES = [
  'EmailDomainAdded', 'EmailDomainDnsChecked', 'EmailDomainSigningChecked', 'EmailDomainDmarcReportReceived', 'EmailDomainBimiLogoSet', 'EmailDomainWarmupChanged', 'EmailDomainRemoved',
] as const satisfies readonly EmailDomainEvent['type'][];

/** Warm-up as the ramp needs it: when it started and how many whole UTC days it was paused. */
export interface WarmupState {
  status: WarmupStatus;
  started_at: string | null;
  paused_at: string | null;
  paused_days: number;
}

export interface EmailDomainState {
  exists: boolean;
  removed: boolean;
  id?: string;
  accountId?: string;
  domain?: string;
  verified: boolean;
  /** `<org_name> <report_id>` of every DMARC report stored, so a re-sent one is not counted twice */
  dmarcReports: Set<string>;
  warmup: WarmupState;
}

export type EmailDomainCommand =
  | { type: 'Add'; id: string; accountId: string; domain: string; unicodeDomain: string; dkim: DkimKeyPair; returnPath: string; now: Date }
  | { type: 'RecordDnsCheck'; accountId: string; records: DnsRecordCheck[]; now: Date }
  | { type: 'RecordSigningCheck'; accountId: string; verdict: SigningVerdictRecord; now: Date }
  | { type: 'StoreDmarcReport'; accountId: string; report: DmarcReportRecord; now: Date }
  | { type: 'SetBimiLogo'; accountId: string; logoUrl: string | null; now: Date }
  | { type: 'Warmup'; accountId: string; action: WarmupAction; now: Date }
  | { type: 'Remove'; accountId: string; now: Date };

export const dmarcReportKey = (r: Pick<DmarcReportRecord, 'org_name' | 'report_id'>) => `${r.org_name.toLowerCase()} ${r.report_id}`;

const DAY_MS = 86_400_000;
/** Whole UTC calendar days from `from` to `to` (0 on the same date). */
export const utcDaysBetween = (from: string | Date, to: string | Date) =>
  Math.floor(new Date(to).setUTCHours(0, 0, 0, 0) / DAY_MS) - Math.floor(new Date(from).setUTCHours(0, 0, 0, 0) / DAY_MS);

const NO_WARMUP: WarmupState = { status: 'not_started', started_at: null, paused_at: null, paused_days: 0 };

/** The warm-up state after an action taken at `at`. */
export function evolveWarmup(w: WarmupState, action: WarmupAction, at: string): WarmupState {
  switch (action) {
    case 'start':
      return { status: 'active', started_at: at, paused_at: null, paused_days: 0 };
    case 'pause':
      return { ...w, status: 'paused', paused_at: at };
    case 'resume':
      return { ...w, status: 'active', paused_at: null, paused_days: w.paused_days + (w.paused_at ? utcDaysBetween(w.paused_at, at) : 0) };
    case 'stop':
      return { ...w, status: 'stopped', paused_at: null };
  }
}

/** Which warm-up states each action may be taken from; the state it leads to is named by evolveWarmup. */
const WARMUP_FROM: Record<WarmupAction, readonly WarmupStatus[]> = {
  start: ['not_started', 'stopped'],
  pause: ['active'],
  resume: ['paused'],
  stop: ['active', 'paused'],
};
/** The state an action leads to: asking for it again changes nothing. */
const WARMUP_TO: Record<WarmupAction, WarmupStatus> = { start: 'active', pause: 'paused', resume: 'active', stop: 'stopped' };

export const emailDomainDecider: Decider<EmailDomainCommand, EmailDomainState, EmailDomainEvent> = {
  initialState: { exists: false, removed: false, verified: false, dmarcReports: new Set(), warmup: NO_WARMUP },
  evolve(state, e) {
    switch (e.type) {
      case 'EmailDomainAdded':
        return { ...state, exists: true, id: e.data.id, accountId: e.data.account_id, domain: e.data.domain };
      case 'EmailDomainDnsChecked':
        return { ...state, verified: e.data.verified };
      case 'EmailDomainDmarcReportReceived':
        return { ...state, dmarcReports: new Set(state.dmarcReports).add(dmarcReportKey(e.data.report)) };
      case 'EmailDomainWarmupChanged':
        return { ...state, warmup: evolveWarmup(state.warmup, e.data.action, e.data.at) };
      case 'EmailDomainRemoved':
        return { ...state, removed: true };
      case 'EmailDomainSigningChecked':
      case 'EmailDomainBimiLogoSet':
        return state;
    }
  },
  decide(c, state) {
    const at = c.now.toISOString();
    if (c.type === 'Add') {
      if (state.exists) throw conflict('email domain already exists');
      return [{ type: 'EmailDomainAdded', data: { id: c.id, account_id: c.accountId, domain: c.domain, unicode_domain: c.unicodeDomain, dkim: c.dkim, return_path: c.returnPath, created_at: at } }];
    }
    // another account's domain answers exactly like a missing one
    if (!state.exists || state.removed || state.accountId !== c.accountId) throw notFound('email domain');
    const base = { id: state.id!, account_id: state.accountId! };
    switch (c.type) {
      case 'RecordDnsCheck': {
        const verified = c.records.filter((r) => r.required).every((r) => r.pass);
        return [{ type: 'EmailDomainDnsChecked', data: { ...base, records: c.records, verified, checked_at: at } }];
      }
      case 'RecordSigningCheck':
        return [{ type: 'EmailDomainSigningChecked', data: { ...base, ...c.verdict, checked_at: at } }];
      case 'StoreDmarcReport':
        if (state.dmarcReports.has(dmarcReportKey(c.report))) return [];
        return [{ type: 'EmailDomainDmarcReportReceived', data: { ...base, report: c.report, received_at: at } }];
      case 'SetBimiLogo':
        return [{ type: 'EmailDomainBimiLogoSet', data: { ...base, logo_url: c.logoUrl, set_at: at } }];
      case 'Warmup': {
        const { status } = state.warmup;
        if (status === WARMUP_TO[c.action] && c.action !== 'start') return [];
        if (!WARMUP_FROM[c.action].includes(status)) throw conflict(`warm-up cannot ${c.action} while it is ${status.replace('_', ' ')}`, { status });
        const next = evolveWarmup(state.warmup, c.action, at);
        return [{ type: 'EmailDomainWarmupChanged', data: { ...base, action: c.action, status: next.status, at } }];
      }
      case 'Remove':
        return [{ type: 'EmailDomainRemoved', data: { ...base, removed_at: at } }];
    }
  },
};

export const emailDomainStream = (id: string) => `emaildomain-${id}`;
