// Who really sent an inbound email: SPF, DKIM and DMARC checked with mailauth against the sender's
// DNS (the servers of DNS_SERVERS, else the system's), each lookup and the whole check bounded in
// time, so a DNS that does not answer costs seconds and reads as temperror (README "Inbound messages
// and conversations").
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
// the three verifiers authenticate() runs, without its entry point: that loads BIMI's HTTP client,
// which does not load on Node 20 (and ARC and BIMI are for mailbox providers, not for this decision)
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { dmarc as verifyDmarc } from 'mailauth/lib/dmarc/index.js';
import { spf as verifySpf } from 'mailauth/lib/spf/index.js';
import type { EmailAuthentication } from '../../commands/conversation.ts';

/** One DNS question's time limit (one try: mailauth asks several in turn). */
const LOOKUP_TIMEOUT_MS = 2_000;
/** The whole check's: past it, every result not yet known is temperror. */
const CHECK_TIMEOUT_MS = 8_000;

export interface EmailAuthenticationCheck {
  /** the results, and the DMARC verdict on them */
  check(message: Buffer, envelope: { ip: string; helo?: string; sender?: string }): Promise<EmailAuthenticationVerdict>;
}

export interface EmailAuthenticationVerdict {
  authentication: EmailAuthentication;
  /** the From domain's owner asks receivers to refuse (reject) or set apart (quarantine) mail like this */
  refused: boolean;
  /** the domain of the From header, for the log */
  fromDomain?: string;
}

const TEMPERROR: EmailAuthentication = { spf: 'temperror', dkim: 'temperror', dmarc: 'temperror', dmarc_policy: null };

/** `servers`: DNS_SERVERS parsed; empty = the system's. `mta`: our host name, the authserv-id. */
export function emailAuthenticationCheck(servers: readonly string[], mta: string): EmailAuthenticationCheck {
  const resolver = new Resolver({ timeout: LOOKUP_TIMEOUT_MS, tries: 1 });
  if (servers.length > 0) resolver.setServers([...servers]);
  // mailauth's resolver has dns.promises.resolve's signature (and reads its error codes)
  const resolve = (name: string, rrtype: string) => resolver.resolve(name, rrtype as 'TXT');
  return {
    async check(message, envelope) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<undefined>((r) => {
        timer = setTimeout(() => r(undefined), CHECK_TIMEOUT_MS);
      });
      const checked = (async () => {
        const dkimResult = await dkimVerify(message, { resolver: resolve, ...(envelope.sender ? { sender: envelope.sender } : {}) });
        // as authenticate() does: an address as HELO name in brackets, none given: the address
        const helo = envelope.helo && !isIP(envelope.helo) ? envelope.helo : `[${envelope.helo ?? envelope.ip}]`;
        const spfResult = await verifySpf({ ip: envelope.ip, helo, sender: envelope.sender ?? '', mta, resolver: resolve, maxElapsedTime: CHECK_TIMEOUT_MS });
        const dmarcResult = dkimResult.headerFrom
          ? await verifyDmarc({
              headerFrom: dkimResult.headerFrom, fromFields: dkimResult.fromFields,
              spfDomains: spfResult && spfResult.status.result === 'pass' && spfResult.domain ? [spfResult.domain] : [],
              dkimDomains: (dkimResult.results ?? []).filter((r) => r.status?.result === 'pass' && r.signingDomain).map((r) => ({ id: r.id, domain: r.signingDomain!, aligned: r.status.aligned, underSized: r.status.underSized })),
              resolver: resolve,
            })
          : false;
        return { dkim: dkimResult, spf: spfResult, dmarc: dmarcResult };
      })();
      const result = await Promise.race([checked, deadline]).finally(() => clearTimeout(timer));
      if (!result) {
        checked.catch(() => undefined);
        return { authentication: TEMPERROR, refused: false };
      }
      const dkimResults = result.dkim?.results ?? [];
      const dkim = dkimResults.some((r) => r.status?.result === 'pass') ? 'pass' : (dkimResults[0]?.status?.result ?? 'none');
      const dmarc = result.dmarc || undefined;
      const dmarcResult = dmarc ? dmarc.status.result : 'none';
      const policy = dmarc && typeof dmarc.policy === 'string' ? dmarc.policy : null;
      return {
        authentication: { spf: result.spf ? result.spf.status.result : 'none', dkim, dmarc: dmarcResult, dmarc_policy: policy },
        refused: dmarcResult === 'fail' && (policy === 'reject' || policy === 'quarantine'),
        ...(dmarc && dmarc.status.header?.from ? { fromDomain: String(dmarc.status.header.from) } : {}),
      };
    },
  };
}
