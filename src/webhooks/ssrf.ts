// Receivers live outside our network: URLs whose host is, or resolves to, a loopback, private,
// CGNAT, link-local, unique-local, IPv4-mapped, unspecified or metadata address are refused —
// when the endpoint is saved and again at connection time (DNS rebinding).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';

export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return false;
  }
  return parsed.range() === 'unicast';
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
 * The address part of the check alone, for the moment of connecting: an IP literal is connected
 * to without a DNS lookup, so the lookup guard below never sees it.
 */
export function checkTargetHost(url: URL, allowPrivate: boolean): string | null {
  if (allowPrivate) return null;
  // `localhost.` and `localhost` are the same host: compare without the root dot
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal') || host === 'metadata.google.internal') {
    return 'must not point at a local or internal host';
  }
  if (ipaddr.isValid(host) && !isPublicAddress(host)) return 'must not point at a private, loopback, link-local or reserved address';
  return null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup for the HTTP client that refuses private answers (unless allowed). */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: object, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => !isPublicAddress(a.address));
      if (bad && !allowPrivate) {
        const e = new Error(`refusing to connect to ${hostname}: resolves to non-public address ${bad.address}`) as NodeJS.ErrnoException;
        e.code = 'EPRIVATEADDRESS';
        return callback(e, []);
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}
