// The email-domain decider's rules (commands/email-domain.ts): adding once, a DNS check verifying
// the domain only when every required record passes (and unverifying it when one fails), a DMARC
// report stored once per reporter and report id, BIMI set and cleared, warm-up transitions with
// their conflicts, removal, and account isolation.
import { describe, it } from 'vitest';
import { type DmarcReportRecord, type DnsRecordCheck, emailDomainDecider, type EmailDomainEvent } from '../../commands/email-domain.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(emailDomainDecider).given;
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();
const day = (n: number) => new Date(Date.UTC(2026, 2, n, 12)).toISOString();

const accountId = 'acct_1';
const base = { id: 'dom_1', account_id: accountId };
const dkim = { selector: 'engage202603-0a1b2c3d', algorithm: 'rsa-sha256' as const, public_key: 'MIIB', private_key_sealed: 'sealed:v1:abc' };
const added: EmailDomainEvent = { type: 'EmailDomainAdded', data: { ...base, domain: 'acme.test', unicode_domain: 'acme.test', dkim, return_path: 'bounces.acme.test', created_at: iso(0) } };
const record = (kind: DnsRecordCheck['kind'], required: boolean, pass: boolean): DnsRecordCheck => ({ kind, name: 'acme.test', required, pass, found: [] });
const report: DmarcReportRecord = {
  org_name: 'google.com', report_id: '1234', email: null, begin: iso(0), end: iso(1440), domain: 'acme.test',
  policy: { p: 'none', sp: null, pct: null, adkim: 'r', aspf: 'r' }, messages: 10,
  sources: [{ source_ip: '203.0.113.5', messages: 10, dmarc_pass: 10, dkim_aligned: { pass: 10, fail: 0 }, spf_aligned: { pass: 10, fail: 0 }, disposition: { none: 10, quarantine: 0, reject: 0 }, header_from: ['acme.test'] }],
};

describe('adding and checking', () => {
  it('adds a domain once', () => {
    given([]).when({ type: 'Add', id: 'dom_1', accountId, domain: 'acme.test', unicodeDomain: 'acme.test', dkim, returnPath: 'bounces.acme.test', now: at(0) }).then([added]);
    given([added]).when({ type: 'Add', id: 'dom_1', accountId, domain: 'acme.test', unicodeDomain: 'acme.test', dkim, returnPath: 'bounces.acme.test', now: at(1) }).thenThrows(domainError('conflict', 409));
  });

  it('is verified when every required record passes, whatever the optional ones say', () => {
    const records = [record('spf', true, true), record('dkim', true, true), record('dmarc', false, false), record('mx', false, false)];
    given([added]).when({ type: 'RecordDnsCheck', accountId, records, now: at(5) }).then([{ type: 'EmailDomainDnsChecked', data: { ...base, records, verified: true, checked_at: iso(5) } }]);
  });

  it('is not verified when a required record fails, even after it was', () => {
    const passing = [record('spf', true, true), record('dkim', true, true)];
    const failing = [record('spf', true, true), record('dkim', true, false)];
    const verified: EmailDomainEvent = { type: 'EmailDomainDnsChecked', data: { ...base, records: passing, verified: true, checked_at: iso(5) } };
    given([added, verified]).when({ type: 'RecordDnsCheck', accountId, records: failing, now: at(9) }).then([{ type: 'EmailDomainDnsChecked', data: { ...base, records: failing, verified: false, checked_at: iso(9) } }]);
  });
});

describe('DMARC reports', () => {
  const stored: EmailDomainEvent = { type: 'EmailDomainDmarcReportReceived', data: { ...base, report, received_at: iso(2) } };
  it('stores a report, and a report with the same reporter and id no second time', () => {
    given([added]).when({ type: 'StoreDmarcReport', accountId, report, now: at(2) }).then([stored]);
    given([added, stored]).when({ type: 'StoreDmarcReport', accountId, report: { ...report, messages: 99 }, now: at(3) }).then([]);
    // the reporter's name is compared without case
    given([added, stored]).when({ type: 'StoreDmarcReport', accountId, report: { ...report, org_name: 'Google.com' }, now: at(3) }).then([]);
  });

  it('another report id of the same reporter is a report of its own', () => {
    const next = { ...report, report_id: '1235' };
    given([added, stored]).when({ type: 'StoreDmarcReport', accountId, report: next, now: at(4) }).then([{ type: 'EmailDomainDmarcReportReceived', data: { ...base, report: next, received_at: iso(4) } }]);
  });
});

describe('BIMI and removal', () => {
  it('sets and clears the logo', () => {
    given([added]).when({ type: 'SetBimiLogo', accountId, logoUrl: 'https://acme.test/logo.svg', now: at(1) }).then([{ type: 'EmailDomainBimiLogoSet', data: { ...base, logo_url: 'https://acme.test/logo.svg', set_at: iso(1) } }]);
    given([added]).when({ type: 'SetBimiLogo', accountId, logoUrl: null, now: at(1) }).then([{ type: 'EmailDomainBimiLogoSet', data: { ...base, logo_url: null, set_at: iso(1) } }]);
  });

  it('removes the domain; after that, and for another account, it is not found', () => {
    const removed: EmailDomainEvent = { type: 'EmailDomainRemoved', data: { ...base, removed_at: iso(7) } };
    given([added]).when({ type: 'Remove', accountId, now: at(7) }).then([removed]);
    given([added, removed]).when({ type: 'RecordDnsCheck', accountId, records: [], now: at(8) }).thenThrows(domainError('not_found', 404));
    given([added]).when({ type: 'Remove', accountId: 'acct_2', now: at(7) }).thenThrows(domainError('not_found', 404));
    given([]).when({ type: 'SetBimiLogo', accountId, logoUrl: null, now: at(1) }).thenThrows(domainError('not_found', 404));
  });
});

describe('warm-up', () => {
  const changed = (action: 'start' | 'pause' | 'resume' | 'stop', status: string, when: string) => ({ type: 'EmailDomainWarmupChanged', data: { ...base, action, status, at: when } }) as EmailDomainEvent;
  const warmup = (action: 'start' | 'pause' | 'resume' | 'stop', when: string) => ({ type: 'Warmup' as const, accountId, action, now: new Date(when) });

  it('start, pause, resume and stop are events; repeating pause, resume or stop changes nothing', () => {
    given([added]).when(warmup('start', day(1))).then([changed('start', 'active', day(1))]);
    given([added, changed('start', 'active', day(1))]).when(warmup('pause', day(2))).then([changed('pause', 'paused', day(2))]);
    given([added, changed('start', 'active', day(1)), changed('pause', 'paused', day(2))]).when(warmup('pause', day(3))).then([]);
    given([added, changed('start', 'active', day(1)), changed('pause', 'paused', day(2))]).when(warmup('resume', day(4))).then([changed('resume', 'active', day(4))]);
    given([added, changed('start', 'active', day(1))]).when(warmup('stop', day(5))).then([changed('stop', 'stopped', day(5))]);
    // a stopped warm-up may start again, from day 1
    given([added, changed('start', 'active', day(1)), changed('stop', 'stopped', day(5))]).when(warmup('start', day(6))).then([changed('start', 'active', day(6))]);
  });

  it('refuses what the state does not allow with a 409, and another account with a 404', () => {
    given([added]).when(warmup('pause', day(1))).thenThrows(domainError('conflict', 409));
    given([added]).when(warmup('stop', day(1))).thenThrows(domainError('conflict', 409));
    given([added, changed('start', 'active', day(1))]).when(warmup('start', day(2))).thenThrows(domainError('conflict', 409));
    given([added]).when({ ...warmup('start', day(1)), accountId: 'acct_2' }).thenThrows(domainError('not_found', 404));
  });
});
