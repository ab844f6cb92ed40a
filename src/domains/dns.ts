// Live DNS lookups for domain verification (email domains, link domains): through the servers of
// DNS_SERVERS when set (host:port list), else the system resolver. A name that does not exist, or
// has no record of the type, is an empty answer; a server that fails or times out is an error the
// caller reports as "could not check", never as "record missing".
import { Resolver } from 'node:dns/promises';

export interface DnsAnswer<T> {
  records: T[];
  /** set when the lookup itself failed (timeout, SERVFAIL, refused): the records are unknown */
  error?: string;
}

export interface DnsLookup {
  /** TXT records, each one's strings joined (RFC 7208 §3.3, RFC 6376 §3.6.2.2) */
  txt(name: string): Promise<DnsAnswer<string>>;
  /** CNAME targets, lower case without the trailing dot */
  cname(name: string): Promise<DnsAnswer<string>>;
  mx(name: string): Promise<DnsAnswer<{ exchange: string; priority: number }>>;
}

/** Answers meaning "no such record": not a failure of the lookup. */
const ABSENT = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

const host = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/** `servers`: DNS_SERVERS parsed ("127.0.0.1:5353", "[::1]:53", "1.1.1.1"); empty = the system's. */
export function createDnsLookup(servers: readonly string[] = [], timeoutMs = 3000): DnsLookup {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (servers.length > 0) resolver.setServers([...servers]);
  async function ask<T>(lookup: () => Promise<T[]>): Promise<DnsAnswer<T>> {
    try {
      return { records: await lookup() };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      return ABSENT.has(code) ? { records: [] } : { records: [], error: code };
    }
  }
  return {
    txt: (name) => ask(async () => (await resolver.resolveTxt(host(name))).map((chunks) => chunks.join(''))),
    cname: (name) => ask(async () => (await resolver.resolveCname(host(name))).map(host)),
    mx: (name) => ask(async () => (await resolver.resolveMx(host(name))).map((r) => ({ exchange: host(r.exchange), priority: r.priority }))),
  };
}
