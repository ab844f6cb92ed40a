// DMARC aggregate reports as real reporters send them (fixtures/dmarc/), summarised per source IP; and
// hostile or foreign input refused with a DmarcReportError before anything is expanded or stored.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DMARC_MAX_XML_BYTES, DmarcReportError, parseDmarcReport, type DmarcSourceSummary } from '../../src/domains/dmarc-report.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/dmarc/${name}`, import.meta.url), 'utf8');

const source = (
  source_ip: string,
  messages: number,
  dmarc_pass: number,
  dkim: [number, number],
  spf: [number, number],
  disposition: Partial<DmarcSourceSummary['disposition']>,
  header_from: string[] = ['example.com'],
): DmarcSourceSummary => ({
  source_ip,
  messages,
  dmarc_pass,
  dkim_aligned: { pass: dkim[0], fail: dkim[1] },
  spf_aligned: { pass: spf[0], fail: spf[1] },
  disposition: { none: 0, quarantine: 0, reject: 0, ...disposition },
  header_from,
});

/** A minimal RFC 7489 report around the given <record> elements (and policy, metadata overrides). */
const report = (records: string, { metadata = '', policy = '<p>none</p>' } = {}) => `<?xml version="1.0"?>
<feedback>
  <report_metadata>
    ${metadata || '<org_name>Example Receiver</org_name><report_id>r-1</report_id>'}
    <date_range><begin>1719792000</begin><end>1719878399</end></date_range>
  </report_metadata>
  <policy_published><domain>example.com</domain>${policy}</policy_published>
  ${records}
</feedback>`;

const record = (ip: string, count: string, { disposition = 'none', dkim = 'pass', spf = 'pass', from = 'example.com' } = {}) => `
  <record>
    <row>
      <source_ip>${ip}</source_ip><count>${count}</count>
      <policy_evaluated><disposition>${disposition}</disposition><dkim>${dkim}</dkim><spf>${spf}</spf></policy_evaluated>
    </row>
    <identifiers><header_from>${from}</header_from></identifiers>
  </record>`;

const refusal = (xml: string) => {
  try {
    parseDmarcReport(xml);
  } catch (error) {
    expect(error).toBeInstanceOf(DmarcReportError);
    return (error as Error).message;
  }
  throw new Error('expected a DmarcReportError');
};

describe('reports from real reporters', () => {
  it('google.com: several records, one IP in two records merged, IPv6 source, most messages first', () => {
    expect(parseDmarcReport(fixture('google.xml'))).toEqual({
      org_name: 'google.com',
      report_id: '9391651994964116463',
      email: 'noreply-dmarc-support@google.com',
      begin: '2024-07-01T00:00:00.000Z',
      end: '2024-07-01T23:59:59.000Z',
      domain: 'example.com',
      policy: { p: 'none', sp: 'none', pct: 100, adkim: 'r', aspf: 'r' },
      messages: 166,
      sources: [
        source('149.72.154.87', 120, 120, [120, 0], [120, 0], { none: 120 }),
        source('167.89.123.45', 40, 37, [37, 3], [0, 40], { none: 40 }, ['example.com', 'news.example.com']),
        source('203.0.113.9', 4, 0, [0, 4], [0, 4], { none: 4 }),
        source('2607:f8b0:4864:20::d2c', 2, 2, [2, 0], [0, 2], { none: 2 }),
      ],
    });
  });

  it('Outlook (enterprise): xsd/xsi namespace declarations, <version>, envelope_to, a single record', () => {
    expect(parseDmarcReport(fixture('microsoft.xml'))).toEqual({
      org_name: 'Enterprise Outlook',
      report_id: 'a3c1f0e2b7d94c6e9f1a5b2c8d7e6f40',
      email: 'dmarcreport@microsoft.com',
      begin: '2024-07-01T00:00:00.000Z',
      end: '2024-07-02T00:00:00.000Z',
      domain: 'example.com',
      policy: { p: 'quarantine', sp: 'quarantine', pct: 100, adkim: 'r', aspf: 'r' },
      messages: 12,
      sources: [source('149.72.154.87', 12, 12, [12, 0], [0, 12], { none: 12 })],
    });
  });

  it('Yahoo: no <version>, no sp, newlines and spaces around values, one record', () => {
    expect(parseDmarcReport(fixture('yahoo.xml'))).toEqual({
      org_name: 'Yahoo',
      report_id: '1719878400.457385',
      email: 'dmarchelp@yahooinc.com',
      begin: '2024-07-01T00:00:00.000Z',
      end: '2024-07-01T23:59:59.000Z',
      domain: 'example.com',
      policy: { p: 'quarantine', sp: null, pct: 100, adkim: 'r', aspf: 'r' },
      messages: 8,
      sources: [source('198.51.100.77', 8, 0, [0, 8], [0, 8], { quarantine: 8 })],
    });
  });

  it('Fastmail: strict alignment, pct 50, trailing-dot domain, override reasons, all three dispositions', () => {
    const parsed = parseDmarcReport(fixture('fastmail.xml'));
    expect(parsed.domain).toBe('example.com');
    expect(parsed.policy).toEqual({ p: 'reject', sp: 'reject', pct: 50, adkim: 's', aspf: 's' });
    expect(parsed.messages).toBe(10);
    expect(parsed.sources).toEqual([
      source('198.51.100.23', 5, 0, [0, 5], [0, 5], { reject: 5 }),
      source('66.111.4.25', 3, 0, [0, 3], [0, 3], { none: 3 }),
      source('198.51.100.24', 2, 0, [0, 2], [0, 2], { quarantine: 2 }),
    ]);
  });

  it('Mimecast: upper-case results and policy words, <error> twice, extra vendor elements, an unknown result word counted as fail', () => {
    const parsed = parseDmarcReport(fixture('mimecast.xml'));
    expect(parsed.org_name).toBe('Mimecast');
    expect(parsed.domain).toBe('example.com');
    expect(parsed.policy).toEqual({ p: 'quarantine', sp: 'none', pct: 100, adkim: 'r', aspf: 'r' });
    expect(parsed.messages).toBe(23);
    expect(parsed.sources).toEqual([
      source('91.220.42.10', 17, 17, [17, 0], [17, 0], { none: 17 }),
      // policy_evaluated/dkim is TEMPERROR: not a pass
      source('192.0.2.200', 6, 0, [0, 6], [0, 6], { quarantine: 6 }),
    ]);
  });

  it('DMARCbis (RFC 9990): default namespace, np, discovery_method, generator, no pct, disposition "pass" counted as none', () => {
    expect(parseDmarcReport(fixture('dmarcbis.xml'))).toEqual({
      org_name: 'Example Receiver',
      report_id: '3v98abbp8ya9n3va8yr8oa3ya',
      email: 'dmarc-reports@receiver.example.net',
      begin: '2024-07-01T00:00:00.000Z',
      end: '2024-07-01T23:59:59.000Z',
      domain: 'example.com',
      policy: { p: 'reject', sp: 'quarantine', pct: null, adkim: 's', aspf: 'r' },
      messages: 49,
      sources: [source('2001:db8::25', 40, 40, [40, 0], [40, 0], { none: 40 }), source('192.0.2.123', 9, 0, [0, 9], [0, 9], { reject: 9 })],
    });
  });

  it('DMARCbis with a namespace prefix on every element parses the same as without', () => {
    const unprefixed = fixture('dmarcbis.xml');
    const prefixed = unprefixed
      .replace('xmlns="urn:ietf:params:xml:ns:dmarc-2.0"', 'xmlns:dmarc="urn:ietf:params:xml:ns:dmarc-2.0"')
      .replace(/<(\/?)([a-z_]+)>/g, '<$1dmarc:$2>')
      .replace('<feedback ', '<dmarc:feedback ');
    expect(prefixed).toContain('<dmarc:record>');
    expect(parseDmarcReport(prefixed)).toEqual(parseDmarcReport(unprefixed));
  });

  it('an early draft (AOL, 2012): no <version>, no sp or pct, <identities>, "PASS"/"Fail", a count with spaces', () => {
    expect(parseDmarcReport(fixture('old-draft.xml'))).toEqual({
      org_name: 'AOL',
      report_id: 'example.com_1349049600',
      email: 'postmaster@aol.com',
      begin: '2012-10-01T00:00:00.000Z',
      end: '2012-10-01T23:59:59.000Z',
      domain: 'example.com',
      policy: { p: 'none', sp: null, pct: null, adkim: 'r', aspf: 'r' },
      messages: 4,
      sources: [source('64.12.90.33', 3, 3, [3, 0], [0, 3], { none: 3 }), source('64.12.90.34', 1, 0, [0, 1], [0, 1], { none: 1 })],
    });
  });
});

describe('what real reporters get wrong', () => {
  const realReport = (name: string) => readFileSync(new URL(`./fixtures/dmarc-reports/${name}`, import.meta.url), 'utf8');

  it('an empty or missing org_name is the domain of the reporter\'s email (lower case)', () => {
    for (const [metadata, org] of [
      ['<org_name></org_name><email>administrator@AccuratePlastics.com</email>', 'accurateplastics.com'],
      ['<org_name>  </org_name><email>dmarc-reports@mail.example.net.</email>', 'mail.example.net'],
      ['<email>"DMARC reports" &lt;noreply@example.org&gt;</email>', 'example.org'],
    ]) {
      const parsed = parseDmarcReport(report(record('192.0.2.10', '1'), { metadata: `${metadata}<report_id>r-1</report_id>` }));
      expect(parsed.org_name, metadata).toBe(org);
    }
    expect(parseDmarcReport(realReport('accurateplastics-empty-org-name.xml'))).toMatchObject({
      org_name: 'accurateplastics.com',
      email: 'administrator@accurateplastics.com',
      report_id: 'example.com:1538463741',
    });
  });

  it('a <feedback> after an unclosed schema start tag (IKEA, 2018) is read as the report', () => {
    const parsed = parseDmarcReport(realReport('ikea-unclosed-xs-schema.xml'));
    expect(parsed).toMatchObject({ org_name: 'ikea.com', domain: 'example.de', messages: 1 });
    expect(parsed.sources).toEqual([source('234.234.234.234', 1, 0, [0, 1], [0, 1], { none: 1 }, ['example.de'])]);
  });

  it('a <feedback> wrapped in a schema element, or after a complete one, is read as the report', () => {
    const plain = report(record('192.0.2.10', '3') + record('198.51.100.1', '1', { dkim: 'fail', spf: 'fail' }));
    const body = plain.replace('<?xml version="1.0"?>', '');
    const schema = '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="http://dmarc.org/dmarc-xml/0.1">';
    for (const variant of [
      `<?xml version="1.0"?>${schema}${body}</xs:schema>`,
      `<?xml version="1.0"?><xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"/>\n${body}`,
      `<?xml version="1.0"?>${schema}<xs:element name="feedback"/></xs:schema>${body}`,
      `<wrapper><other>text</other>${body}</wrapper>`,
    ]) {
      expect(parseDmarcReport(variant), variant.slice(0, 120)).toEqual(parseDmarcReport(plain));
    }
  });

  it('around a stray schema element, what is unsafe or broken is still refused', () => {
    const ikea = realReport('ikea-unclosed-xs-schema.xml');
    expect(refusal(ikea.replace('<?xml version="1.0"?>', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "e">]>'))).toBe(
      'not a DMARC aggregate report: a DOCTYPE or ENTITY declaration is not allowed',
    );
    const deep = '<x>'.repeat(5000) + '</x>'.repeat(5000);
    expect(refusal(ikea.replace('</feedback>', `${deep}</feedback>`))).toMatch(/unreadable XML/);
    // the report inside is itself broken: the error is the document's, at its line
    expect(refusal(ikea.replace('<count>1</count>', '<count>1</cnt>'))).toMatch(/^not a DMARC aggregate report: not well-formed XML \(line 24: Expected closing tag 'count'/);
    expect(refusal(ikea.replace('</feedback>', ''))).toMatch(/not well-formed XML/);
  });

  it('without dkim/spf verdicts in policy_evaluated (AOL, 2012), aligned auth_results decide them', () => {
    const aol = (dkim: string, spf: string, { adkim = 'r', aspf = 'r', from = 'example.com' } = {}) =>
      report(
        `<record><row><source_ip>192.0.2.10</source_ip><count>2</count><policy_evaluated><disposition>none</disposition></policy_evaluated></row>` +
          `<identifiers><header_from>${from}</header_from></identifiers><auth_results>${dkim}${spf}</auth_results></record>`,
        { policy: `<adkim>${adkim}</adkim><aspf>${aspf}</aspf><p>reject</p>` },
      );
    const dkim = (domain: string, result = 'pass') => `<dkim><domain>${domain}</domain><result>${result}</result></dkim>`;
    const spf = (domain: string, result = 'pass') => `<spf><domain>${domain}</domain><result>${result}</result></spf>`;
    const verdicts = (xml: string) => {
      const [s] = parseDmarcReport(xml).sources;
      return [s.dkim_aligned.pass ? 'pass' : 'fail', s.spf_aligned.pass ? 'pass' : 'fail', s.dmarc_pass];
    };
    expect(verdicts(realReport('aol-2012.xml'))).toEqual(['pass', 'pass', 1]);
    expect(verdicts(aol(dkim('example.com'), spf('example.com')))).toEqual(['pass', 'pass', 2]);
    // relaxed: the same organisational domain aligns; strict: only the same name
    expect(verdicts(aol(dkim('mail.example.com'), spf('bounces.example.com')))).toEqual(['pass', 'pass', 2]);
    expect(verdicts(aol(dkim('mail.example.com'), spf('bounces.example.com'), { adkim: 's', aspf: 's' }))).toEqual(['fail', 'fail', 0]);
    // a pass for another organisation, or a result that is not pass, does not align
    expect(verdicts(aol(dkim('esp.example.net') + dkim('example.com', 'fail'), spf('example.com', 'softfail')))).toEqual(['fail', 'fail', 0]);
    expect(verdicts(aol(dkim('example.co.uk'), spf('other.co.uk'), { from: 'example.co.uk' }))).toEqual(['pass', 'fail', 2]);
    expect(verdicts(aol('', ''))).toEqual(['fail', 'fail', 0]);
  });
});

describe('shapes every parser must survive', () => {
  it('a single <record> (an object to the XML parser, not an array) is one source', () => {
    const parsed = parseDmarcReport(report(record('192.0.2.10', '7')));
    expect(parsed.messages).toBe(7);
    expect(parsed.sources).toEqual([source('192.0.2.10', 7, 7, [7, 0], [7, 0], { none: 7 })]);
  });

  it('records of the same IP are one source: counts, alignment, DMARC passes, dispositions and header_from merged', () => {
    const parsed = parseDmarcReport(
      report(
        record('192.0.2.10', '5', { dkim: 'pass', spf: 'fail' }) +
          record('198.51.100.1', '6', { dkim: 'fail', spf: 'pass' }) +
          record('192.0.2.10', '2', { dkim: 'fail', spf: 'pass' }) +
          record('192.0.2.10', '1', { dkim: 'pass', spf: 'pass' }) +
          record('192.0.2.10', '4', { disposition: 'reject', dkim: 'fail', spf: 'fail', from: 'Mail.Example.com' }),
      ),
    );
    expect(parsed.messages).toBe(18);
    expect(parsed.sources).toEqual([
      // DMARC passes when either aligns: 5 + 2 + 1, neither the DKIM (6) nor the SPF (3) sum nor theirs
      source('192.0.2.10', 12, 8, [6, 6], [3, 9], { none: 8, reject: 4 }, ['example.com', 'mail.example.com']),
      source('198.51.100.1', 6, 6, [0, 6], [6, 0], { none: 6 }),
    ]);
  });

  it('an IPv6 source is normalised (lower case, compressed), so spellings of one address merge', () => {
    const parsed = parseDmarcReport(report(record('2001:DB8:0:0:0:0:0:1', '3') + record('2001:db8::1', '1')));
    expect(parsed.sources.map((s) => [s.source_ip, s.messages])).toEqual([['2001:db8::1', 4]]);
  });

  it('ties are ordered by IP so the same report always gives the same list', () => {
    const parsed = parseDmarcReport(report(record('198.51.100.9', '2') + record('192.0.2.9', '2')));
    expect(parsed.sources.map((s) => s.source_ip)).toEqual(['192.0.2.9', '198.51.100.9']);
  });

  it('a leading BOM, whitespace before the declaration and a Windows encoding label are tolerated', () => {
    const xml = '\uFEFF\n  ' + report(record('192.0.2.10', '1')).replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="windows-1252"?>');
    expect(parseDmarcReport(xml).messages).toBe(1);
  });

  it('the five XML entities are decoded once; any other entity stays literal text', () => {
    const parsed = parseDmarcReport(
      report(record('192.0.2.10', '1'), { metadata: '<org_name>AT&amp;T &#x2013; &lt;mail&gt;</org_name><report_id>&amp;amp;&foo;</report_id>' }),
    );
    expect(parsed.org_name).toBe('AT&T – <mail>');
    expect(parsed.report_id).toBe('&amp;&foo;');
  });

  it('email is null when the reporter gives none', () => {
    expect(parseDmarcReport(report(record('192.0.2.10', '1'))).email).toBeNull();
  });
});

describe('input that is not a report', () => {
  it('refuses an external entity (XXE) before parsing', () => {
    expect(refusal(fixture('xxe.xml'))).toBe('not a DMARC aggregate report: a DOCTYPE or ENTITY declaration is not allowed');
  });

  it('refuses billion laughs (a lower-case doctype) before any entity is expanded', () => {
    expect(refusal(fixture('billion-laughs.xml'))).toBe('not a DMARC aggregate report: a DOCTYPE or ENTITY declaration is not allowed');
  });

  it('refuses other XML by its root element', () => {
    expect(refusal(fixture('not-a-report.xml'))).toBe('not a DMARC aggregate report: the root element is <rss>, not <feedback>');
  });

  it('refuses plain text as not XML', () => {
    expect(refusal(fixture('not-xml.txt'))).toMatch(/^not a DMARC aggregate report: not well-formed XML \(line 1: /);
  });

  it('refuses empty input and unclosed XML', () => {
    expect(refusal('  \n')).toBe('not a DMARC aggregate report: empty');
    expect(refusal(report(record('192.0.2.10', '1')).replace('</feedback>', ''))).toMatch(/not well-formed XML/);
  });

  it('refuses a report over the byte cap, counting UTF-8 bytes rather than characters', () => {
    const valid = report(record('192.0.2.10', '1'));
    // two bytes per "é": under the cap in characters, over it in bytes
    const padding = 'é'.repeat(Math.ceil((DMARC_MAX_XML_BYTES - valid.length) / 2) + 1);
    const oversized = valid.replace('<org_name>Example Receiver', `<org_name>Example Receiver ${padding}`);
    expect(oversized.length).toBeLessThan(DMARC_MAX_XML_BYTES);
    expect(refusal(oversized)).toBe(`not a DMARC aggregate report: larger than ${DMARC_MAX_XML_BYTES} bytes`);
  });

  it('refuses absurdly deep nesting instead of recursing into it', () => {
    const deep = '<x>'.repeat(5000) + '</x>'.repeat(5000);
    expect(refusal(report(record('192.0.2.10', '1')).replace('</feedback>', `${deep}</feedback>`))).toMatch(/unreadable XML/);
  });

  it('refuses a report without report_id', () => {
    expect(refusal(report(record('192.0.2.10', '1'), { metadata: '<org_name>Example Receiver</org_name>' }))).toBe(
      'not a DMARC aggregate report: report_metadata/report_id is missing',
    );
  });

  it('refuses a report naming no reporter: no org_name and no email address to take one from', () => {
    for (const metadata of ['<report_id>r-1</report_id>', '<org_name></org_name><email></email><report_id>r-1</report_id>', '<org_name/><email>postmaster</email><report_id>r-1</report_id>']) {
      expect(refusal(report(record('192.0.2.10', '1'), { metadata })), metadata).toBe(
        'not a DMARC aggregate report: report_metadata/org_name is missing and report_metadata/email has no domain to name the reporter by',
      );
    }
  });

  it('refuses a character reference to a surrogate, NUL or another character XML does not allow', () => {
    // &#xD800; decoded to a lone surrogate that Postgres cannot store: a 500 when the report was saved
    for (const ref of ['&#xD800;', '&#xdfff;', '&#55296;', '&#0;', '&#x1;', '&#xFFFE;', '&#x110000;']) {
      expect(refusal(report(record('192.0.2.1', '1'), { metadata: `<org_name>Bad${ref}</org_name><report_id>r-1</report_id>` })), ref).toMatch(/is not a character XML allows/);
    }
    expect(parseDmarcReport(report(record('192.0.2.1', '1'), { metadata: '<org_name>A&#x26;B &#x1F600;&#9;</org_name><report_id>r-1</report_id>' })).org_name).toBe('A&B 😀');
  });

  it('refuses a report without date_range', () => {
    const xml = report(record('192.0.2.10', '1')).replace(/<date_range>.*<\/date_range>/, '');
    expect(refusal(xml)).toBe('not a DMARC aggregate report: report_metadata/date_range is missing');
  });

  it('refuses a report without policy_published/domain', () => {
    const xml = report(record('192.0.2.10', '1')).replace('<domain>example.com</domain>', '');
    expect(refusal(xml)).toBe('not a DMARC aggregate report: policy_published/domain is missing');
  });

  it('refuses a report with no records', () => {
    expect(refusal(report(''))).toBe('not a DMARC aggregate report: it has no <record>');
  });

  it.each(['-1', '2.5', 'many', '1e3', '99999999999999999999', ''])('refuses the count "%s"', (count) => {
    expect(refusal(report(record('192.0.2.10', count)))).toMatch(/^not a DMARC aggregate report: record 1: row\/count /);
  });

  it('refuses a source that is not an IP address and a disposition that is not a policy', () => {
    expect(refusal(report(record('mail.example.com', '1')))).toBe(
      'not a DMARC aggregate report: record 1: row/source_ip "mail.example.com" is not an IP address',
    );
    expect(refusal(report(record('192.0.2.10', '1', { disposition: 'discard' })))).toBe(
      'not a DMARC aggregate report: record 1: policy_evaluated/disposition "discard" is not none, quarantine or reject',
    );
  });
});
