// Email sending domains: adding one (IDNA name, a DKIM key pair sealed into its first event), the
// DNS records to publish and their live check, the signing verdict from pasted headers, the BIMI
// logo, warm-up actions, removal, and the view the API shows.
import {
  type DkimAlgorithm,
  type DnsRecordCheck,
  type DnsRecordKind,
  type EmailDomainCommand,
  type EmailDomainState,
  emailDomainDecider,
  emailDomainStream,
  type WarmupAction,
} from '../../commands/email-domain.ts';
import { type EmailDomainRow, warmupOfRow } from '../../projections/email-domains.ts';
import { marketingEmailSentSince } from '../../projections/messages.ts';
import { handleCommand } from '../command-handler.ts';
import type { Config } from '../config.ts';
import type { Engage } from '../context.ts';
import { invalid, invalidField, notFound } from '../errors.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { isId, newId } from '../ids.ts';
import { seal } from '../seal.ts';
import { checkWebhookUrl } from '../webhooks/ssrf.ts';
import { bimiRecord, fetchBimiLogo } from './bimi.ts';
import { dkimRecordValue, dkimTags, newDkimKey } from './dkim.ts';
import { createDnsLookup, type DnsLookup } from './dns.ts';
import { parseDomainName } from './names.ts';
import { checkSigning, SigningInputError } from './signing-check.ts';
import { utcMidnight, warmupToday } from './warmup.ts';

/** The read models an email-domain write's response waits for. */
export const EMAIL_DOMAINS = ['email_domains'];

/** A record the domain's owner publishes, and what its last check found. */
export interface DnsRecordView {
  kind: DnsRecordKind;
  type: 'TXT' | 'CNAME' | 'MX';
  name: string;
  value: string;
  required: boolean;
  status: 'pass' | 'fail' | 'unknown' | 'unchecked';
  found: string[];
}

/** What each record must say (README "Email domains"). */
export function expectedRecords(
  d: Pick<EmailDomainRow, 'domain' | 'selector' | 'algorithm' | 'public_key' | 'return_path'>,
  config: Pick<Config, 'EMAIL_SPF_INCLUDE' | 'EMAIL_RETURN_PATH_HOST' | 'DMARC_REPORTS_ADDRESS' | 'INBOUND_EMAIL_DOMAIN'>,
): Omit<DnsRecordView, 'status' | 'found'>[] {
  return [
    { kind: 'spf', type: 'TXT', name: d.domain, value: `v=spf1 include:${config.EMAIL_SPF_INCLUDE} ~all`, required: true },
    { kind: 'dkim', type: 'TXT', name: `${d.selector}._domainkey.${d.domain}`, value: dkimRecordValue(d.algorithm, d.public_key), required: true },
    { kind: 'dmarc', type: 'TXT', name: `_dmarc.${d.domain}`, value: `v=DMARC1; p=none; rua=mailto:${dmarcReportsAddress(config)}`, required: false },
    { kind: 'return_path', type: 'CNAME', name: d.return_path, value: config.EMAIL_RETURN_PATH_HOST, required: false },
    { kind: 'mx', type: 'MX', name: d.domain, value: 'the mail servers that receive mail for the domain (any)', required: false },
  ];
}

export const dmarcReportsAddress = (config: Pick<Config, 'DMARC_REPORTS_ADDRESS' | 'INBOUND_EMAIL_DOMAIN'>) =>
  config.DMARC_REPORTS_ADDRESS ?? `dmarc@${config.INBOUND_EMAIL_DOMAIN}`;

/** Whether what DNS answered satisfies one expected record. */
function passes(kind: DnsRecordKind, expected: string, found: string[], d: Pick<EmailDomainRow, 'algorithm' | 'public_key'>, spfInclude: string): boolean {
  switch (kind) {
    case 'spf': {
      const spf = found.filter((v) => /^v=spf1(\s|$)/i.test(v.trim()));
      // RFC 7208 §4.5: more than one SPF record is a permanent error for every receiver
      return spf.length === 1 && spf[0].toLowerCase().split(/\s+/).some((term) => term.replace(/^[+~?]/, '') === `include:${spfInclude.toLowerCase()}`);
    }
    case 'dkim':
      return found.some((v) => {
        const tags = dkimTags(v);
        const k = tags.get('k') ?? 'rsa';
        return tags.get('p') === d.public_key && k === (d.algorithm === 'ed25519-sha256' ? 'ed25519' : 'rsa') && (tags.get('v') ?? 'DKIM1') === 'DKIM1';
      });
    case 'dmarc':
      return found.filter((v) => /^v=DMARC1\s*(;|$)/i.test(v.trim())).length === 1;
    case 'return_path':
      return found.includes(expected.toLowerCase());
    case 'mx':
      return found.length > 0;
  }
}

/** Runs every record's lookup at once. */
export async function checkRecords(dns: DnsLookup, d: EmailDomainRow, config: Config): Promise<DnsRecordCheck[]> {
  return Promise.all(
    expectedRecords(d, config).map(async (r): Promise<DnsRecordCheck> => {
      const answer = r.type === 'TXT' ? await dns.txt(r.name) : r.type === 'CNAME' ? await dns.cname(r.name) : await dns.mx(r.name);
      const found = answer.records.map((x) => (typeof x === 'string' ? x : `${x.priority} ${x.exchange}`));
      const check: DnsRecordCheck = { kind: r.kind, name: r.name, required: r.required, pass: !answer.error && passes(r.kind, r.value, found, d, config.EMAIL_SPF_INCLUDE), found };
      return answer.error ? { ...check, error: answer.error } : check;
    }),
  );
}

export interface EmailDomainView {
  id: string;
  domain: string;
  unicode_domain: string;
  status: 'pending' | 'verified';
  dkim: { selector: string; algorithm: string };
  records: DnsRecordView[];
  checked_at: string | null;
  verified_at: string | null;
  signing: (Record<string, unknown> & { checked_at: string }) | null;
  bimi: { logo_url: string; record: { type: 'TXT'; name: string; value: string } } | null;
  warmup: { status: string; started_at: string | null; day: number | null; cap_today: number | null; sent_today: number };
  created_at: string;
}

export function emailDomainView(r: EmailDomainRow, config: Config, now: Date, sentToday: number): EmailDomainView {
  const checks = new Map(((r.records ?? []) as DnsRecordCheck[]).map((c) => [c.kind, c]));
  const w = warmupOfRow(r);
  const today = warmupToday(w, now);
  return {
    id: r.id,
    domain: r.domain,
    unicode_domain: r.unicode_domain,
    status: r.status,
    dkim: { selector: r.selector, algorithm: r.algorithm },
    records: expectedRecords(r, config).map((e) => {
      const c = checks.get(e.kind);
      return { ...e, status: !c ? 'unchecked' : c.error ? 'unknown' : c.pass ? 'pass' : 'fail', found: c?.found ?? [] };
    }),
    checked_at: r.checked_at?.toISOString() ?? null,
    verified_at: r.verified_at?.toISOString() ?? null,
    signing: r.signing && r.signing_checked_at ? { ...r.signing, checked_at: r.signing_checked_at.toISOString() } : null,
    bimi: r.bimi_logo_url ? { logo_url: r.bimi_logo_url, record: bimiRecord(r.domain, r.bimi_logo_url) } : null,
    warmup: { status: w.status, started_at: w.started_at, day: today.day, cap_today: today.cap, sent_today: sentToday },
    created_at: r.created_at.toISOString(),
  };
}

/** Views of rows, with today's marketing count of each (one query for them all). */
export async function emailDomainViews(engage: Engage, rows: readonly EmailDomainRow[]): Promise<EmailDomainView[]> {
  const now = engage.clock.now();
  const counts = await marketingEmailSentSince(engage.pool, rows.map((r) => ({ account_id: r.account_id, domain: r.domain })), utcMidnight(now));
  return rows.map((r) => emailDomainView(r, engage.config, now, counts.get(`${r.account_id} ${r.domain}`) ?? 0));
}

export interface EmailDomainWrite {
  id: string;
  state: EmailDomainState;
  position?: Position;
  /** what the command decided, for answers that are not the domain itself */
  events: { type: string; data: Record<string, unknown> }[];
}

async function run(engage: Engage, id: string, command: EmailDomainCommand, metadata: EventMetadata): Promise<EmailDomainWrite> {
  // a string that is not an email-domain id can only be a 404: no stream to read
  if (!isId('domain', id)) throw notFound('email domain');
  const result = await handleCommand(engage.store, emailDomainDecider, emailDomainStream(id), command, metadata);
  return { id, state: result.state, position: result.position, events: result.events as EmailDomainWrite['events'] };
}

export async function addEmailDomain(engage: Engage, accountId: string, input: { domain: string; dkim_algorithm?: DkimAlgorithm }, metadata: EventMetadata): Promise<EmailDomainWrite> {
  const name = parseDomainName(input.domain);
  if ('error' in name) throw invalidField('domain', name.error);
  const now = engage.clock.now();
  const key = await newDkimKey(input.dkim_algorithm ?? 'rsa-sha256', now);
  const id = newId('domain');
  const dkim = { selector: key.selector, algorithm: key.algorithm, public_key: key.publicKey, private_key_sealed: await seal(engage.pool, key.privateKeyPem) };
  return run(engage, id, { type: 'Add', id, accountId, domain: name.ascii, unicodeDomain: name.unicode, dkim, returnPath: `bounces.${name.ascii}`, now }, metadata);
}

export const removeEmailDomain = (engage: Engage, accountId: string, id: string, metadata: EventMetadata) => run(engage, id, { type: 'Remove', accountId, now: engage.clock.now() }, metadata);

/** One resolver per process for the configured servers. */
const lookups = new WeakMap<object, DnsLookup>();
export function dnsOf(engage: Engage): DnsLookup {
  let dns = lookups.get(engage);
  if (!dns) lookups.set(engage, (dns = createDnsLookup(engage.config.DNS_SERVERS)));
  return dns;
}

export async function verifyEmailDomain(engage: Engage, accountId: string, row: EmailDomainRow, metadata: EventMetadata): Promise<EmailDomainWrite> {
  const records = await checkRecords(dnsOf(engage), row, engage.config);
  return run(engage, row.id, { type: 'RecordDnsCheck', accountId, records, now: engage.clock.now() }, metadata);
}

export async function checkDomainSigning(
  engage: Engage,
  accountId: string,
  row: EmailDomainRow,
  input: { headers: string | Record<string, string | string[]>; authentication_results?: string },
  metadata: EventMetadata,
) {
  let check;
  try {
    check = checkSigning(row.domain, input.headers, input.authentication_results);
  } catch (err) {
    if (err instanceof SigningInputError) throw invalidField('headers', err.message);
    throw err;
  }
  const write = await run(engage, row.id, { type: 'RecordSigningCheck', accountId, verdict: { verdict: check.verdict, decided_by: check.decided_by }, now: engage.clock.now() }, metadata);
  return { check, position: write.position };
}

export async function setBimiLogo(engage: Engage, accountId: string, row: EmailDomainRow, logoUrl: string | null, metadata: EventMetadata) {
  if (logoUrl !== null) {
    const problem = /^https:\/\//i.test(logoUrl) ? checkWebhookUrl(logoUrl, engage.config.WEBHOOK_ALLOW_PRIVATE) : 'must be an https URL';
    if (problem) throw invalidField('logo_url', problem);
    const ca = engage.config.OUTBOUND_CA_FILE;
    const { issues } = await fetchBimiLogo(logoUrl, { allowPrivate: engage.config.WEBHOOK_ALLOW_PRIVATE, ...(ca ? { ca } : {}) });
    if (issues.length > 0) throw invalid(issues.map((i) => ({ path: 'logo_url', message: `${i.code}: ${i.message}` })));
  }
  const write = await run(engage, row.id, { type: 'SetBimiLogo', accountId, logoUrl, now: engage.clock.now() }, metadata);
  return { record: bimiRecord(row.domain, logoUrl), position: write.position };
}

export const changeWarmup = (engage: Engage, accountId: string, id: string, action: WarmupAction, metadata: EventMetadata) =>
  run(engage, id, { type: 'Warmup', accountId, action, now: engage.clock.now() }, metadata);

export { run as runEmailDomainCommand };
