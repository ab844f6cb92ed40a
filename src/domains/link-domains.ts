// Click-tracking link domains: adding one (IDNA name, the CNAME target it must point at), its live
// CNAME check through the same resolver as email domains, removal, and the view the API shows.
import { type LinkDomainCommand, type LinkDomainState, linkDomainDecider, linkDomainStream } from '../../commands/link-domain.ts';
import { type LinkDomainRow, verifiedByAnotherAccount } from '../../projections/link-domains.ts';
import { handleCommand } from '../command-handler.ts';
import type { Config } from '../config.ts';
import type { Engage } from '../context.ts';
import { invalidField, notFound } from '../errors.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { isId, newId } from '../ids.ts';
import { dnsOf } from './email-domains.ts';
import { parseDomainName } from './names.ts';

/** The read models a link-domain write's response waits for. */
export const LINK_DOMAINS = ['link_domains'];

/** Why a check fails although the CNAME is right: another account already sends its clicks through the domain. */
export const TAKEN_BY_ANOTHER_ACCOUNT = 'the domain is verified by another account';

/**
 * The host every link domain's CNAME names: LINK_TRACKING_HOST (without a port: a CNAME has none),
 * else the host of PUBLIC_BASE_URL, else links.engage.local.
 */
export function linkDomainTarget(config: Pick<Config, 'LINK_TRACKING_HOST' | 'PUBLIC_BASE_URL'>): string {
  if (config.LINK_TRACKING_HOST) return config.LINK_TRACKING_HOST.toLowerCase().replace(/:\d+$/, '');
  if (config.PUBLIC_BASE_URL) return new URL(config.PUBLIC_BASE_URL).hostname.toLowerCase();
  return 'links.engage.local';
}

export interface LinkDomainView {
  id: string;
  domain: string;
  unicode_domain: string;
  status: 'pending' | 'verified';
  record: { type: 'CNAME'; name: string; value: string };
  /** the CNAME targets the last check found */
  found: string[];
  /** why the last check could not pass whatever it found (a failed lookup, a domain taken), else null */
  error: string | null;
  checked_at: string | null;
  verified_at: string | null;
  created_at: string;
}

export function linkDomainView(r: LinkDomainRow): LinkDomainView {
  return {
    id: r.id,
    domain: r.domain,
    unicode_domain: r.unicode_domain,
    status: r.status,
    record: { type: 'CNAME', name: r.domain, value: r.target },
    found: r.found,
    error: r.check_error,
    checked_at: r.checked_at?.toISOString() ?? null,
    verified_at: r.verified_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
  };
}

export interface LinkDomainWrite {
  id: string;
  state: LinkDomainState;
  position?: Position;
}

async function run(engage: Engage, id: string, command: LinkDomainCommand, metadata: EventMetadata): Promise<LinkDomainWrite> {
  // a string that is not a link-domain id can only be a 404: no stream to read
  if (!isId('linkDomain', id)) throw notFound('link domain');
  const result = await handleCommand(engage.store, linkDomainDecider, linkDomainStream(id), command, metadata);
  return { id, state: result.state, position: result.position };
}

export async function addLinkDomain(engage: Engage, accountId: string, input: { domain: string }, metadata: EventMetadata): Promise<LinkDomainWrite> {
  const name = parseDomainName(input.domain);
  if ('error' in name) throw invalidField('domain', name.error);
  const id = newId('linkDomain');
  const target = linkDomainTarget(engage.config);
  return run(engage, id, { type: 'Add', id, accountId, domain: name.ascii, unicodeDomain: name.unicode, target, now: engage.clock.now() }, metadata);
}

export const removeLinkDomain = (engage: Engage, accountId: string, id: string, metadata: EventMetadata) =>
  run(engage, id, { type: 'Remove', accountId, now: engage.clock.now() }, metadata);

/**
 * Looks the domain's CNAME up live and records what it found. Every account's domains point at the
 * same target, so a CNAME alone cannot tell whose a domain is: one already verified by another
 * account does not pass (the first to verify keeps it).
 */
export async function verifyLinkDomain(engage: Engage, accountId: string, row: LinkDomainRow, metadata: EventMetadata): Promise<LinkDomainWrite> {
  const [answer, taken] = await Promise.all([dnsOf(engage).cname(row.domain), verifiedByAnotherAccount(engage.pool, accountId, row.domain)]);
  const error = answer.error ?? (taken ? TAKEN_BY_ANOTHER_ACCOUNT : undefined);
  return run(engage, row.id, { type: 'RecordCheck', accountId, found: answer.records, ...(error !== undefined ? { error } : {}), now: engage.clock.now() }, metadata);
}
