// The link-domain decider's rules (commands/link-domain.ts): added once with its CNAME target, a
// check passes only when the CNAME names that target and the lookup did not fail, removal, and
// another account's domain answering exactly like a missing one.
import { describe, it } from 'vitest';
import { linkDomainDecider, type LinkDomainEvent } from '../../commands/link-domain.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(linkDomainDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const accountId = 'acct_1';
const base = { id: 'ldom_1', account_id: accountId };
const TARGET = 'links.engage.test';
const add = { type: 'Add' as const, id: 'ldom_1', accountId, domain: 'click.acme.test', unicodeDomain: 'click.acme.test', target: TARGET, now: at(0) };
const added: LinkDomainEvent = { type: 'LinkDomainAdded', data: { ...base, domain: 'click.acme.test', unicode_domain: 'click.acme.test', target: TARGET, created_at: iso(0) } };
const removed: LinkDomainEvent = { type: 'LinkDomainRemoved', data: { ...base, removed_at: iso(9) } };
const check = (found: string[], error?: string) => ({ type: 'RecordCheck' as const, accountId, found, ...(error !== undefined ? { error } : {}), now: at(5) });
const checked = (found: string[], pass: boolean, error?: string): LinkDomainEvent => ({
  type: 'LinkDomainChecked',
  data: { ...base, found, pass, ...(error !== undefined ? { error } : {}), checked_at: iso(5) },
});

describe('adding a link domain', () => {
  it('is added with the target its CNAME must name', () => {
    given([]).when(add).then([added]);
  });

  it('a stream already holding a domain refuses a second add (409)', () => {
    given([added]).when(add).thenThrows(domainError('conflict', 409));
  });
});

describe('the live CNAME check', () => {
  it('passes when the CNAME names the target (case and a trailing dot aside)', () => {
    given([added]).when(check([TARGET])).then([checked([TARGET], true)]);
    given([added]).when(check(['Links.Engage.Test.'])).then([checked(['Links.Engage.Test.'], true)]);
  });

  it('fails when there is no CNAME, or it names another host', () => {
    given([added]).when(check([])).then([checked([], false)]);
    given([added]).when(check(['links.other.test'])).then([checked(['links.other.test'], false)]);
  });

  it('fails when the check could not tell (a failed lookup, a domain taken), whatever it found', () => {
    given([added]).when(check([], 'ESERVFAIL')).then([checked([], false, 'ESERVFAIL')]);
    given([added]).when(check([TARGET], 'taken')).then([checked([TARGET], false, 'taken')]);
  });

  it('a domain verified once fails a later check that finds its CNAME gone', () => {
    given([added, checked([TARGET], true)]).when(check([])).then([checked([], false)]);
  });
});

describe('removal and isolation', () => {
  it('removes the domain; a removed one is then missing (404)', () => {
    given([added]).when({ type: 'Remove', accountId, now: at(9) }).then([removed]);
    given([added, removed]).when({ type: 'Remove', accountId, now: at(10) }).thenThrows(domainError('not_found', 404));
    given([added, removed]).when(check([TARGET])).thenThrows(domainError('not_found', 404));
  });

  it("another account's domain cannot be checked or removed: 404, exactly like a missing one", () => {
    given([added]).when({ ...check([TARGET]), accountId: 'acct_2' }).thenThrows(domainError('not_found', 404));
    given([added]).when({ type: 'Remove', accountId: 'acct_2', now: at(9) }).thenThrows(domainError('not_found', 404));
    given([]).when(check([TARGET])).thenThrows(domainError('not_found', 404));
  });
});
