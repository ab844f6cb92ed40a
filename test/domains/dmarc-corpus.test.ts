// Real DMARC aggregate reports as reporters sent them (fixtures/dmarc-reports/; where each file comes
// from is in that folder's README.md), posted to an email domain's report route over HTTP: every one
// is accepted, stored, and its messages, sources and DMARC passes counted as the file says (README
// "Email domains", DMARC aggregate reports).
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { testServerForSuite } from '../support/harness.ts';

const DIR = new URL('./fixtures/dmarc-reports/', import.meta.url);
// read as UTF-8 as a client building the JSON body would: the one stray CP1252 byte arrives as U+FFFD
const xmlOf = (file: string) => readFileSync(new URL(file, DIR), 'utf8');

interface Expected {
  org_name: string;
  domain: string;
  messages: number;
  /** distinct source IPs */
  sources: number;
  /** messages with an aligned DKIM or SPF pass */
  dmarc_pass: number;
}

/** What each file holds, read off its <record>s. */
const CORPUS: Record<string, Expected> = {
  // <org_name></org_name>: the organisation is the domain of <email>administrator@accurateplastics.com>
  'accurateplastics-empty-org-name.xml': { org_name: 'accurateplastics.com', domain: 'example.com', messages: 1, sources: 1, dmarc_pass: 0 },
  'accurateplastics-empty-org-name-cp1252-byte.xml': { org_name: 'accurateplastics.com', domain: 'example.com', messages: 1, sources: 1, dmarc_pass: 0 },
  'acme-wiki-full.xml': { org_name: 'acme.com', domain: 'example.com', messages: 2, sources: 1, dmarc_pass: 2 },
  'addisonfoods.xml': { org_name: 'addisonfoods.com', domain: 'example.com', messages: 1, sources: 1, dmarc_pass: 0 },
  'amazonses.xml': { org_name: 'AMAZON-SES', domain: 'georgestarcher.com', messages: 1, sources: 1, dmarc_pass: 1 },
  // policy_evaluated has no dkim or spf verdict: auth_results has an aligned DKIM pass
  'aol-2012.xml': { org_name: 'AOL', domain: 'georgestarcher.com', messages: 1, sources: 1, dmarc_pass: 1 },
  'aol-2017.xml': { org_name: 'AOL', domain: 'website.com', messages: 1, sources: 1, dmarc_pass: 1 },
  'aol-2018-no-dkim-verdict.xml': { org_name: 'AOL', domain: 'example.com', messages: 3, sources: 2, dmarc_pass: 3 },
  'dmarc-org-wiki-draft.xml': { org_name: 'acme.com', domain: 'example.com', messages: 2, sources: 1, dmarc_pass: 2 },
  'empty-override-reason.xml': { org_name: 'example.org', domain: 'example.com', messages: 2, sources: 1, dmarc_pass: 2 },
  'example-net-stray-text.xml': { org_name: 'example.net', domain: 'example.com', messages: 1, sources: 1, dmarc_pass: 0 },
  'fastmail-2018.xml': { org_name: 'FastMail Pty Ltd', domain: 'indemed.com', messages: 1, sources: 1, dmarc_pass: 0 },
  'gmx.xml': { org_name: 'GMX', domain: 'myserver.com', messages: 1, sources: 1, dmarc_pass: 1 },
  'google-2017.xml': { org_name: 'google.com', domain: 'example.com', messages: 3, sources: 2, dmarc_pass: 0 },
  'google-borschow.xml': { org_name: 'google.com', domain: 'borschow.com', messages: 1, sources: 1, dmarc_pass: 0 },
  'google-eight-records.xml': { org_name: 'Google', domain: 'example.com', messages: 11, sources: 8, dmarc_pass: 7 },
  'google-np.xml': { org_name: 'google.com', domain: 'foo-bar.io', messages: 1, sources: 1, dmarc_pass: 1 },
  'google-strict.xml': { org_name: 'google.com', domain: 'georgestarcher.com', messages: 1, sources: 1, dmarc_pass: 0 },
  'google-twlnet.xml': { org_name: 'google.com', domain: 'twlnet.com', messages: 1, sources: 1, dmarc_pass: 1 },
  // <feedback> after an unclosed <xs:schema> start tag
  'ikea-unclosed-xs-schema.xml': { org_name: 'ikea.com', domain: 'example.de', messages: 1, sources: 1, dmarc_pass: 0 },
  'infonacot.xml': { org_name: 'XYZ Corporation', domain: 'example.com', messages: 1, sources: 1, dmarc_pass: 0 },
  'mailru.xml': { org_name: 'Mail.Ru', domain: 'foobar.de', messages: 1, sources: 1, dmarc_pass: 0 },
  'mimecast-au.xml': { org_name: 'Mimecast', domain: 'ab.id.au', messages: 1, sources: 1, dmarc_pass: 1 },
  'mimecast-us.xml': { org_name: 'Mimecast', domain: 'georgestarcher.com', messages: 1, sources: 1, dmarc_pass: 1 },
  'outlook-com.xml': { org_name: 'Outlook.com', domain: 'random.net', messages: 3, sources: 1, dmarc_pass: 3 },
  'outlook-protection.xml': { org_name: 'Outlook.com', domain: 'example.com', messages: 1, sources: 1, dmarc_pass: 0 },
  'reporting-org-hardfail.xml': { org_name: 'reporting org', domain: 'mydomain.org', messages: 1, sources: 1, dmarc_pass: 0 },
  'rfc9990-example-net.xml': { org_name: 'example.net', domain: 'example.com', messages: 7, sources: 2, dmarc_pass: 5 },
  'rfc9990-sample.xml': { org_name: 'Sample Reporter', domain: 'example.com', messages: 123, sources: 1, dmarc_pass: 123 },
  'solarmora.xml': { org_name: 'solarmora.com', domain: 'bix-business.com', messages: 2, sources: 1, dmarc_pass: 2 },
  'splunk.xml': { org_name: 'splunk.com', domain: 'example.com', messages: 1, sources: 1, dmarc_pass: 1 },
  'usssa.xml': { org_name: 'usssa.com', domain: 'example.com', messages: 2, sources: 2, dmarc_pass: 0 },
  'veeam.xml': { org_name: 'veeam.com', domain: 'example.com', messages: 1, sources: 1, dmarc_pass: 0 },
  'webde.xml': { org_name: 'WEB.DE', domain: 'foobar.com', messages: 1, sources: 1, dmarc_pass: 1 },
  'yahoo-strict.xml': { org_name: 'Yahoo', domain: 'georgestarcher.com', messages: 1, sources: 1, dmarc_pass: 1 },
  'yahoo-tabs.xml': { org_name: 'Yahoo', domain: 'random.org', messages: 1, sources: 1, dmarc_pass: 1 },
  'yahoo-two-dkim.xml': { org_name: 'Yahoo', domain: '007ed325dddd44e3a0f17488f4312e49.com', messages: 1, sources: 1, dmarc_pass: 1 },
  'zoho.xml': { org_name: 'zoho.com', domain: '000fb7a64b524d7bb8fe8fc8831716a2.com', messages: 3, sources: 1, dmarc_pass: 0 },
};

const server = testServerForSuite();
let key: string;
beforeAll(async () => {
  key = (await server.newAccount('DMARC corpus')).key;
});

/** Adds the domain a report is about (a new one each time: reports of one reporter and id would be duplicates) and posts the report to it. */
async function post(domain: string, xml: string) {
  const added = await server.call('POST', '/v1/account/email-domains', { key, body: { domain, dkim_algorithm: 'ed25519-sha256' } });
  expect(added.status).toBe(201);
  const id: string = added.body.id;
  return { id, res: await server.call('POST', `/v1/account/email-domains/${id}/dmarc`, { key, body: { xml } }) };
}

interface Source {
  source_ip: string;
  messages: number;
  dmarc_pass: number;
  dkim_aligned: { pass: number; fail: number };
  spf_aligned: { pass: number; fail: number };
  disposition: { none: number; quarantine: number; reject: number };
}
const total = (sources: Source[], of: (s: Source) => number) => sources.reduce((n, s) => n + of(s), 0);

describe('real aggregate reports through POST …/dmarc', () => {
  it('the corpus is every XML file of the folder, each listed with what it holds', () => {
    expect(readdirSync(DIR).filter((f) => f.endsWith('.xml')).sort()).toEqual(Object.keys(CORPUS).sort());
  });

  it.each(Object.entries(CORPUS))('accepts %s and counts its records', async (file, expected) => {
    const xml = xmlOf(file);
    // the table against the file's own <count>s, so a slip in the table cannot pass unnoticed
    expect([...xml.matchAll(/<count>\s*(\d+)\s*<\/count>/g)].reduce((n, m) => n + Number(m[1]), 0)).toBe(expected.messages);

    const { id, res } = await post(expected.domain, xml);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.duplicate).toBe(false);
    const report = res.body.report;
    const sources: Source[] = report.sources;
    expect({
      org_name: report.org_name,
      domain: report.domain,
      messages: report.messages,
      sources: sources.length,
      dmarc_pass: total(sources, (s) => s.dmarc_pass),
    }).toEqual(expected);
    expect(total(sources, (s) => s.messages)).toBe(expected.messages);
    expect(total(sources, (s) => s.disposition.none + s.disposition.quarantine + s.disposition.reject)).toBe(expected.messages);

    const overview = (await server.call('GET', `/v1/account/email-domains/${id}/dmarc`, { key })).body;
    expect(overview.reports.map((r: { org_name: string; report_id: string }) => [r.org_name, r.report_id])).toEqual([[expected.org_name, report.report_id]]);
    expect(overview.rollup).toMatchObject({ reports: 1, reporters: [expected.org_name], messages: expected.messages, dmarc_pass: expected.dmarc_pass });
  });

  it('google-eight-records.xml, by hand: eight sources, 11 messages, 7 passing, 4 rejected', async () => {
    const { res } = await post('example.com', xmlOf('google-eight-records.xml'));
    expect(res.status).toBe(201);
    const sources: Source[] = res.body.report.sources;
    // 1.2.3.4 ×1 pass/pass, .5 ×2 fail/pass, .6 ×3 pass/fail, .7–.10 ×1 fail/fail rejected, .11 ×1 pass/pass
    expect(sources[0]).toMatchObject({ source_ip: '1.2.3.6', messages: 3, dmarc_pass: 3, dkim_aligned: { pass: 3, fail: 0 }, spf_aligned: { pass: 0, fail: 3 } });
    expect(sources[1]).toMatchObject({ source_ip: '1.2.3.5', messages: 2, dmarc_pass: 2, dkim_aligned: { pass: 0, fail: 2 }, spf_aligned: { pass: 2, fail: 0 } });
    expect(total(sources, (s) => s.dkim_aligned.pass)).toBe(5);
    expect(total(sources, (s) => s.spf_aligned.pass)).toBe(4);
    expect(total(sources, (s) => s.disposition.none)).toBe(7);
    expect(total(sources, (s) => s.disposition.reject)).toBe(4);
    expect(sources.filter((s) => s.disposition.reject > 0).map((s) => s.source_ip).sort()).toEqual(['1.2.3.10', '1.2.3.7', '1.2.3.8', '1.2.3.9']);
  });

  it('an empty org_name names the reporter by its email domain, and the email is kept', async () => {
    const { res } = await post('example.com', xmlOf('accurateplastics-empty-org-name.xml'));
    expect(res.status).toBe(201);
    expect(res.body.report).toMatchObject({ org_name: 'accurateplastics.com', email: 'administrator@accurateplastics.com', report_id: 'example.com:1538463741' });
  });

  it('an old AOL report without policy_evaluated dkim/spf verdicts is judged by its aligned auth_results', async () => {
    const { res } = await post('georgestarcher.com', xmlOf('aol-2012.xml'));
    // auth_results: dkim georgestarcher.com pass, spf georgestarcher.com pass; header_from georgestarcher.com
    expect(res.body.report.sources).toEqual([
      expect.objectContaining({ source_ip: '209.85.216.42', messages: 1, dmarc_pass: 1, dkim_aligned: { pass: 1, fail: 0 }, spf_aligned: { pass: 1, fail: 0 } }),
    ]);
  });
});
