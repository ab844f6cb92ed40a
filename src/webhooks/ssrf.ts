// Every outbound connection an account aims (webhook receivers, BIMI logos, its own SMTP server)
// goes outside our network: hosts that are, or resolve to, a loopback, private, CGNAT, link-local,
// unique-local, unspecified, reserved or cloud platform address (also spelled as an IPv4 address
// inside IPv6), or ports outside the protocol's own, are refused — when the target is saved and
// again at connection time (DNS rebinding, targets stored before a rule existed).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Cloud platform and metadata services: credentials and control endpoints reachable from inside a
 * VM or container. Refused even with WEBHOOK_ALLOW_PRIVATE=true (no local receiver lives there).
 * Most already fall in a non-public range; they are listed so the rule does not hang on that, and
 * 168.63.129.16 is public unicast, so only this list catches it.
 */
const PLATFORM_ADDRESSES: readonly [string, string][] = [
  ['169.254.169.254', 'instance metadata: AWS, GCP, Azure IMDS, OpenStack, DigitalOcean, Oracle, Hetzner, IBM'],
  ['169.254.170.2', 'AWS ECS task metadata and credentials'],
  ['169.254.169.253', 'AWS VPC DNS resolver'],
  ['169.254.169.123', 'AWS Time Sync'],
  ['169.254.0.23', 'Tencent Cloud metadata'],
  ['168.63.129.16', 'Azure platform (WireServer, DNS, health probes); public unicast'],
  ['100.100.100.200', 'Alibaba Cloud metadata'],
  ['192.0.0.192', 'Oracle Cloud legacy metadata'],
  ['fd00:ec2::254', 'AWS instance metadata over IPv6'],
  ['fd00:ec2::23', 'AWS VPC DNS resolver over IPv6'],
  ['fd00:ec2::123', 'AWS Time Sync over IPv6'],
  ['fd20:ce::254', 'GCP metadata over IPv6'],
];
const PLATFORM = new Set(PLATFORM_ADDRESSES.map(([a]) => ipaddr.parse(a).toNormalizedString()));
const PLATFORM_HOSTS = new Set(['metadata.google.internal', 'metadata', 'instance-data']);

/**
 * What a refusal the private-address setting would lift ends with: the setting that fixes it, so a
 * developer with a local receiver is not left guessing (README "Webhooks"). Platform addresses and
 * privileged ports are refused whatever it says, and their refusals do not name it.
 */
const ALLOW_PRIVATE_HINT = 'set OUTBOUND_ALLOW_PRIVATE=true to allow it (local development only)';

const isPlatformAddress = (ip: ipaddr.IPv4 | ipaddr.IPv6) => PLATFORM.has(ip.toNormalizedString());

const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);

/**
 * The IPv4 addresses an IPv6 address carries, for the ranges that route to them: IPv4-mapped
 * (::ffff:0:0/96), IPv4-translated (RFC 6145, ::ffff:0:0:0/96), NAT64 (RFC 6052, 64:ff9b::/96),
 * 6to4 (2002::/16, the gateway) and Teredo (2001::/32, server and the obfuscated client).
 * Undefined for any other range.
 */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const p = ip.parts;
  switch (ip.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return [v4(p[6], p[7])];
    case 'rfc6052':
      // 64:ff9b:1::/48 is for local use (RFC 8215): never a public receiver
      return p[2] === 0 ? [v4(p[6], p[7])] : [];
    case '6to4':
      return [v4(p[1], p[2])];
    case 'teredo':
      return [v4(p[2], p[3]), v4(p[6] ^ 0xffff, p[7] ^ 0xffff)];
    default:
      return undefined;
  }
}

const isPublicIPv4 = (ip: ipaddr.IPv4) => ip.range() === 'unicast' && !isPlatformAddress(ip);

/**
 * ipaddr.js reads `::a.b.c.d` as `::ffff:a.b.c.d`; the URL parser (what connections use) reads it as
 * the IPv4-compatible `::a.b.c.d`, so IPv6 text goes through the URL parser first. Throws when invalid.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  if (!address.includes(':')) return ipaddr.parse(address);
  return ipaddr.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
}

export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = parseAddress(address);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv4') return isPublicIPv4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  // ::/96 (IPv4-compatible, deprecated by RFC 4291; also :: and ::1): nothing public lives there
  if (v6.parts.slice(0, 6).every((x) => x === 0)) return false;
  if (isPlatformAddress(v6)) return false;
  const embedded = embeddedIPv4(v6);
  // an address that routes to an IPv4 one is as public as that address (NAT64 of a public one is
  // how an IPv6-only host reaches an IPv4-only receiver)
  if (embedded) return embedded.length > 0 && embedded.every(isPublicIPv4);
  return v6.range() === 'unicast';
}

/** Is this address one of the platform services refused even when private addresses are allowed? */
function isPlatformIp(address: string): boolean {
  try {
    const parsed = parseAddress(address);
    if (isPlatformAddress(parsed)) return true;
    if (parsed.kind() === 'ipv6') {
      const v6 = parsed as ipaddr.IPv6;
      const embedded = v6.parts.slice(0, 6).every((x) => x === 0) ? [v4(v6.parts[6], v6.parts[7])] : (embeddedIPv4(v6) ?? []);
      return embedded.some(isPlatformAddress);
    }
  } catch {
    /* not an address */
  }
  return false;
}

/** Checks a URL's form and, for IP literals (every spelling the URL parser normalises), the address. */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use http or https';
  if (url.username || url.password) return 'must not carry credentials';
  return checkTargetHost(url, allowPrivate);
}

/**
 * The address and port part of the check alone, for the moment of connecting: an IP literal is
 * connected to without a DNS lookup, so the lookup guard below never sees it. The port and platform
 * rules hold also with WEBHOOK_ALLOW_PRIVATE=true: local receivers listen on high ports.
 */
export function checkTargetHost(url: URL, allowPrivate: boolean): string | null {
  // (an empty port is the scheme's default: 80 or 443)
  if (url.port !== '') {
    const port = Number(url.port);
    if (port < 1024 && port !== 80 && port !== 443) return 'must not use a port below 1024 other than 80 and 443';
  }
  return checkHostName(url.hostname, allowPrivate);
}

/** The host part of the rules: platform hosts always, local names and non-public IP literals unless allowed. */
function checkHostName(hostname: string, allowPrivate: boolean): string | null {
  // `localhost.` and `localhost` are the same host: compare without the root dot
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase();
  if (PLATFORM_HOSTS.has(host) || isPlatformIp(host)) return 'must not point at a cloud platform or metadata address';
  if (allowPrivate) return null;
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal')) {
    return `must not point at a local or internal host; ${ALLOW_PRIVATE_HINT}`;
  }
  if (ipaddr.isValid(host) && !isPublicAddress(host)) return `must not point at a private, loopback, link-local or reserved address; ${ALLOW_PRIVATE_HINT}`;
  return null;
}

/** The ports mail is relayed on: SMTP (25), submission with STARTTLS (587) or TLS (465), and the common alternative 2525. */
export const SMTP_PORTS: readonly number[] = [25, 465, 587, 2525];

const smtpPortOf = (url: URL) => (url.port === '' ? (url.protocol === 'smtps:' ? 465 : 587) : Number(url.port));

/**
 * Checks an account's own SMTP server (smtp:// or smtps:// URL) when it is saved: an SMTP port (with
 * the private-address setting also any port from 1024 up, where local test servers listen) and, for
 * an IP literal, a public address. A name is checked when the connection is made (connectChecked).
 */
export function checkSmtpUrl(url: URL, allowPrivate: boolean): string | null {
  const port = smtpPortOf(url);
  if (!SMTP_PORTS.includes(port) && !(allowPrivate && port >= 1024)) {
    // the setting opens the ports from 1024 up (where local test servers listen), not the others
    const hint = port >= 1024 ? '; set OUTBOUND_ALLOW_PRIVATE=true to allow any port from 1024 up (local development only)' : '';
    return `must use an SMTP port (${SMTP_PORTS.join(', ')})${hint}`;
  }
  return checkHostName(url.hostname, allowPrivate);
}

/** Why a guarded connection was not made (the code of the error connectChecked rejects with). */
export const REFUSED_TARGET = 'EPRIVATEADDRESS';

/**
 * Opens a TCP connection to an account-aimed SMTP server, checked as the webhook sender checks its
 * receivers: the port and an IP literal first, a name through guardedLookup, which refuses the
 * whole answer if any address is not public — and the socket connects to the addresses that lookup
 * checked, so a second resolution cannot swap them (DNS rebinding). Rejects with code REFUSED_TARGET.
 */
export function connectChecked(raw: string, allowPrivate: boolean, timeoutMs: number): Promise<net.Socket> {
  const url = new URL(raw);
  const problem = checkSmtpUrl(url, allowPrivate);
  if (problem) return Promise.reject(Object.assign(new Error(`refusing to connect: the SMTP server ${problem}`), { code: REFUSED_TARGET }));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port: smtpPortOf(url), lookup: guardedLookup(allowPrivate), timeout: timeoutMs });
    const fail = (err: Error) => {
      socket.destroy();
      reject(err);
    };
    socket.once('error', fail);
    socket.once('timeout', () => fail(Object.assign(new Error('connection timeout'), { code: 'ETIMEDOUT' })));
    socket.once('connect', () => {
      socket.removeListener('error', fail);
      socket.setTimeout(0);
      resolve(socket);
    });
  });
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup for the HTTP client that refuses private answers (unless allowed) and platform ones (always). */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: object, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => isPlatformIp(a.address) || (!allowPrivate && !isPublicAddress(a.address)));
      if (bad) {
        const hint = isPlatformIp(bad.address) ? '' : `; ${ALLOW_PRIVATE_HINT}`;
        const e = new Error(`refusing to connect to ${hostname}: resolves to non-public address ${bad.address}${hint}`) as NodeJS.ErrnoException;
        e.code = REFUSED_TARGET;
        return callback(e, []);
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}
