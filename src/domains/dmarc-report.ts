// DMARC aggregate ("rua") reports, RFC 7489 appendix C and RFC 9990 (DMARCbis): untrusted XML from any
// reporter, refused if it carries a DTD, then summarised per source IP (messages, aligned DKIM/SPF
// results, dispositions). Pure: the caller stores and rolls up the summary. What real reporters get
// wrong and is still read is in README "Email domains" (DMARC aggregate reports).
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import ipaddr from 'ipaddr.js';
import type { DmarcReportRecord, DmarcSourceRecord, Disposition } from '../../commands/email-domain.ts';
import { alignmentOf } from './signing-check.ts';

export const DMARC_MAX_XML_BYTES = 5 * 1024 * 1024;

export class DmarcReportError extends Error {
  constructor(why: string) {
    super(`not a DMARC aggregate report: ${why}`);
    this.name = 'DmarcReportError';
  }
}

// the summary is what the domain's stream stores (commands/email-domain.ts)
export type { Disposition } from '../../commands/email-domain.ts';
export type DmarcSourceSummary = DmarcSourceRecord;
export type DmarcReport = DmarcReportRecord;

type XmlNode = { [name: string]: XmlValue };
type XmlValue = string | XmlNode | XmlValue[];

// Elements that repeat in real reports; fast-xml-parser gives an object, not an array, when one
// appears once, so every repeating element is always an array.
const REPEATING = new Set([
  'feedback.record',
  'feedback.record.auth_results.dkim',
  'feedback.record.auth_results.spf',
  'feedback.record.row.policy_evaluated.reason',
  'feedback.report_metadata.error',
]);

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // a DTD is refused before parsing; these keep entity text inert even if one slipped through
  processEntities: false,
  htmlEntities: false,
  // values stay strings: counts and timestamps are checked here, not guessed by the parser
  parseTagValue: false,
  trimValues: true,
  // a report is six levels deep; a deep document is hostile, not a report
  maxNestedTags: 32,
  isArray: (_name, jPath) => REPEATING.has(String(jPath)),
});

const DTD = /<!\s*(DOCTYPE|ENTITY)/i;

/** Parses an aggregate report; throws DmarcReportError saying why the text is not one. */
export function parseDmarcReport(xml: string): DmarcReport {
  if (Buffer.byteLength(xml, 'utf8') > DMARC_MAX_XML_BYTES) {
    throw new DmarcReportError(`larger than ${DMARC_MAX_XML_BYTES} bytes`);
  }
  if (DTD.test(xml)) throw new DmarcReportError('a DOCTYPE or ENTITY declaration is not allowed');
  const text = xml.replace(/^\uFEFF/, '').trim();
  if (text === '') throw new DmarcReportError('empty');
  return summarise(feedbackOf(text));
}

/** The text's DmarcReportError when it is not well-formed XML, else its parsed document. */
function readXml(text: string): DmarcReportError | XmlNode {
  const valid = XMLValidator.validate(text);
  if (valid !== true) return new DmarcReportError(`not well-formed XML (line ${valid.err.line}: ${valid.err.msg})`);
  try {
    return parser.parse(text) as XmlNode;
  } catch (error) {
    throw new DmarcReportError(`unreadable XML (${(error as Error).message})`);
  }
}

const FEEDBACK_START = /<(?:[A-Za-z_][\w.-]*:)?feedback(?=[\s/>])/;
const FEEDBACK_END = /<\/(?:[A-Za-z_][\w.-]*:)?feedback\s*>/g;

/**
 * The <feedback> element of a report. Some reporters put a stray XML Schema element before or
 * around it (IKEA sent an unclosed <xs:schema> start tag in front of it): when the document is not
 * a <feedback> report, its outermost <feedback>…</feedback> is read on its own, and when that is not
 * well-formed either the document's own error is the answer. The DTD and size checks have already
 * looked at the whole text, and the element is parsed with the same depth limit.
 */
function feedbackOf(text: string): XmlNode {
  const document = readXml(text);
  if (!(document instanceof DmarcReportError)) {
    const roots = Object.keys(document);
    if (roots.length === 1 && roots[0] === 'feedback') return asNode(document.feedback) ?? {};
  }
  const start = text.search(FEEDBACK_START);
  let end = -1;
  if (start >= 0) for (const closing of text.matchAll(FEEDBACK_END)) end = closing.index + closing[0].length;
  const inner = start >= 0 && end > start ? readXml(text.slice(start, end)) : undefined;
  if (inner !== undefined && !(inner instanceof DmarcReportError) && Object.keys(inner).length === 1 && 'feedback' in inner) {
    return asNode(inner.feedback) ?? {};
  }
  if (document instanceof DmarcReportError) throw document;
  const roots = Object.keys(document);
  throw new DmarcReportError(`the root element is ${roots[0] === undefined ? 'missing' : `<${roots[0]}>`}, not <feedback>`);
}

function summarise(feedback: XmlNode): DmarcReport {
  const metadata = asNode(feedback.report_metadata);
  if (!metadata) throw new DmarcReportError('report_metadata is missing');
  const email = textOf(metadata.email);
  // some reporters leave org_name empty: their email address's domain names them instead
  const orgName = textOf(metadata.org_name) || domainOfAddress(email);
  if (orgName === '') throw new DmarcReportError('report_metadata/org_name is missing and report_metadata/email has no domain to name the reporter by');
  const reportId = required(metadata, 'report_id', 'report_metadata/report_id');
  const range = asNode(metadata.date_range);
  if (!range) throw new DmarcReportError('report_metadata/date_range is missing');
  const begin = timestamp(range, 'begin');
  const end = timestamp(range, 'end');

  const published = asNode(feedback.policy_published);
  if (!published) throw new DmarcReportError('policy_published is missing');
  const domain = hostName(required(published, 'domain', 'policy_published/domain'));
  const p = disposition(textOf(published.p), 'policy_published/p');
  if (p === null) throw new DmarcReportError('policy_published/p is missing');
  const policy = { domain, adkim: alignmentMode(textOf(published.adkim)), aspf: alignmentMode(textOf(published.aspf)) };

  const records = Array.isArray(feedback.record) ? feedback.record : [];
  if (records.length === 0) throw new DmarcReportError('it has no <record>');
  const bySource = new Map<string, DmarcSourceSummary>();
  // a source's header_from values, for a lookup that does not grow with them (a list's would: quadratic)
  const headerFroms = new Map<string, Set<string>>();
  let messages = 0;
  records.forEach((record, index) => {
    messages += addRecord(bySource, headerFroms, policy, asNode(record), index);
  });

  return {
    org_name: orgName,
    report_id: reportId,
    email: email || null,
    begin,
    end,
    domain,
    policy: {
      p,
      sp: disposition(textOf(published.sp), 'policy_published/sp'),
      pct: percent(textOf(published.pct)),
      adkim: policy.adkim,
      aspf: policy.aspf,
    },
    messages,
    sources: [...bySource.values()].sort((a, b) => b.messages - a.messages || a.source_ip.localeCompare(b.source_ip)),
  };
}

interface PublishedPolicy {
  domain: string;
  adkim: 'r' | 's';
  aspf: 'r' | 's';
}

/** Adds one <record> to its source's summary; answers its message count. */
function addRecord(
  bySource: Map<string, DmarcSourceSummary>,
  headerFroms: Map<string, Set<string>>,
  policy: PublishedPolicy,
  record: XmlNode | undefined,
  index: number,
): number {
  const where = `record ${index + 1}`;
  const row = record && asNode(record.row);
  if (!row) throw new DmarcReportError(`${where} has no <row>`);
  const sourceIp = ipAddress(required(row, 'source_ip', `${where}: row/source_ip`), where);
  const count = nonNegativeInteger(required(row, 'count', `${where}: row/count`), `${where}: row/count`);
  const evaluated = asNode(row.policy_evaluated);
  if (!evaluated) throw new DmarcReportError(`${where} has no row/policy_evaluated`);
  const applied = disposition(textOf(evaluated.disposition), `${where}: policy_evaluated/disposition`, true);
  if (applied === null) throw new DmarcReportError(`${where}: policy_evaluated/disposition is missing`);

  let source = bySource.get(sourceIp);
  if (!source) {
    source = {
      source_ip: sourceIp,
      messages: 0,
      dmarc_pass: 0,
      dkim_aligned: { pass: 0, fail: 0 },
      spf_aligned: { pass: 0, fail: 0 },
      disposition: { none: 0, quarantine: 0, reject: 0 },
      header_from: [],
    };
    bySource.set(sourceIp, source);
  }
  // early reporters wrote <identities>, RFC 7489 says <identifiers>
  const identifiers = asNode(record.identifiers) ?? asNode(record.identities);
  const headerFrom = identifiers ? hostName(textOf(identifiers.header_from)) : '';
  const results = asNode(record.auth_results);
  const dkim = verdict(textOf(evaluated.dkim), results?.dkim, headerFrom || policy.domain, policy.adkim);
  const spf = verdict(textOf(evaluated.spf), results?.spf, headerFrom || policy.domain, policy.aspf);
  source.messages += count;
  if (dkim === 'pass' || spf === 'pass') source.dmarc_pass += count;
  source.dkim_aligned[dkim] += count;
  source.spf_aligned[spf] += count;
  source.disposition[applied] += count;
  if (headerFrom !== '') {
    let seen = headerFroms.get(sourceIp);
    if (!seen) headerFroms.set(sourceIp, (seen = new Set()));
    if (!seen.has(headerFrom)) {
      seen.add(headerFrom);
      source.header_from.push(headerFrom);
    }
  }
  return count;
}

const asNode = (value: XmlValue | undefined): XmlNode | undefined =>
  value !== undefined && typeof value === 'object' && !Array.isArray(value) ? value : undefined;

/** The text of a leaf element, entities decoded, whitespace runs collapsed; '' when absent or not a leaf. */
function textOf(value: XmlValue | undefined): string {
  if (typeof value !== 'string') return '';
  return decodeXmlEntities(value).replace(/\s+/g, ' ').trim();
}

function required(node: XmlNode, name: string, path: string): string {
  const value = textOf(node[name]);
  if (value === '') throw new DmarcReportError(`${path} is missing`);
  return value;
}

// processEntities is off so nothing can expand; the five predefined entities and character
// references are still decoded, once, because reporters escape "&" in org names ("AT&amp;T").
function decodeXmlEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#[0-9]+|lt|gt|amp|quot|apos);/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#')) {
      const code = lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10);
      if (!isXmlChar(code)) throw new DmarcReportError(`${whole} is not a character XML allows`);
      return String.fromCodePoint(code);
    }
    return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[lower] ?? whole;
  });
}

/** XML 1.0's Char production: no NUL or other C0 controls but tab and line ends, no surrogates, no U+FFFE/FFFF. */
const isXmlChar = (code: number) =>
  code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);

function nonNegativeInteger(text: string, path: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) {
    throw new DmarcReportError(`${path} "${text}" is not a non-negative integer`);
  }
  return value;
}

function timestamp(range: XmlNode, name: 'begin' | 'end'): string {
  const path = `report_metadata/date_range/${name}`;
  const seconds = nonNegativeInteger(required(range, name, path), path);
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) throw new DmarcReportError(`${path} is out of range`);
  return date.toISOString();
}

const DISPOSITIONS: ReadonlySet<string> = new Set(['none', 'quarantine', 'reject']);

/** null when absent. An applied disposition of "pass" (RFC 9990: DMARC passed, so no policy was
 * applied) counts as none. */
function disposition(text: string, path: string, applied = false): Disposition | null {
  if (text === '') return null;
  const word = text.toLowerCase();
  if (applied && word === 'pass') return 'none';
  if (!DISPOSITIONS.has(word)) throw new DmarcReportError(`${path} "${text}" is not none, quarantine or reject`);
  return word as Disposition;
}

/** Old drafts write "PASS"/"Fail"; any word but pass (fail, softfail, temperror, garbage) is a failure. */
const passOrFail = (text: string): 'pass' | 'fail' => (text.toLowerCase() === 'pass' ? 'pass' : 'fail');

/**
 * The DMARC-aligned DKIM or SPF verdict of a record: policy_evaluated's word, or, where the reporter
 * wrote none (AOL's reports until 2018), whether auth_results holds a pass for a domain aligned with
 * the header From domain (RFC 7489 §3.1: the same organisational domain, or the same name when strict).
 */
function verdict(evaluated: string, results: XmlValue | undefined, fromDomain: string, mode: 'r' | 's'): 'pass' | 'fail' {
  if (evaluated !== '') return passOrFail(evaluated);
  const aligned = (Array.isArray(results) ? results : []).some((result) => {
    const node = asNode(result);
    if (!node || passOrFail(textOf(node.result)) !== 'pass') return false;
    const alignment = alignmentOf(hostName(textOf(node.domain)), fromDomain);
    return mode === 's' ? alignment === 'strict' : alignment !== null;
  });
  return aligned ? 'pass' : 'fail';
}

/** The domain of an email address ("x@Example.com", "Name <x@example.com>", "mailto:x@example.com"), or ''. */
function domainOfAddress(address: string): string {
  const domain = hostName(address.slice(address.lastIndexOf('@') + 1).replace(/[>\s].*$/, ''));
  return address.includes('@') && /^[a-z0-9_-]{1,63}(\.[a-z0-9_-]{1,63})+$/.test(domain) ? domain : '';
}

/** An absent or unreadable pct is unknown (null), not a reason to refuse the report. */
function percent(text: string): number | null {
  if (!/^\d{1,3}$/.test(text)) return null;
  const value = Number(text);
  return value <= 100 ? value : null;
}

/** RFC 7489 §6.3: relaxed unless "s". */
const alignmentMode = (text: string): 'r' | 's' => (text.toLowerCase() === 's' ? 's' : 'r');

const hostName = (text: string) => text.toLowerCase().replace(/\.$/, '');

function ipAddress(text: string, where: string): string {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text).toString();
  if (ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text).toString();
  throw new DmarcReportError(`${where}: row/source_ip "${text}" is not an IP address`);
}
