// Domain names as users type them: IDNA to the A-label form DNS and DKIM use (UTS #46 through
// node:url), with the hostname rules a sending or link domain must meet.
import { domainToASCII, domainToUnicode } from 'node:url';
import { isIP } from 'node:net';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** The A-label form of a domain name and its Unicode form, or the reason it is not one. */
export function parseDomainName(input: string): { ascii: string; unicode: string } | { error: string } {
  const trimmed = input.trim().replace(/\.$/, '');
  if (trimmed === '') return { error: 'a domain name such as mail.example.com' };
  if (/[\s/@:?#]/.test(trimmed)) return { error: 'a bare domain name, without scheme, path, port or address' };
  if (isIP(trimmed)) return { error: 'a domain name, not an IP address' };
  const ascii = domainToASCII(trimmed);
  if (ascii === '') return { error: 'not a valid internationalised domain name (IDNA)' };
  if (ascii.length > 253) return { error: 'longer than 253 characters' };
  const labels = ascii.split('.');
  if (labels.length < 2) return { error: 'a registered domain or a subdomain of one (example.com), not a single label' };
  const bad = labels.find((l) => !LABEL.test(l));
  if (bad !== undefined) return { error: `the label ${JSON.stringify(bad)} is not a valid DNS label` };
  if (/^\d+$/.test(labels[labels.length - 1])) return { error: 'the top-level domain cannot be numeric' };
  return { ascii, unicode: domainToUnicode(ascii) };
}

/** The domain of an email address, lower case, in A-label form; undefined when it has none. */
export function domainOfAddress(address: string): string | undefined {
  const at = address.lastIndexOf('@');
  if (at < 0) return undefined;
  const parsed = parseDomainName(address.slice(at + 1));
  return 'ascii' in parsed ? parsed.ascii : undefined;
}
