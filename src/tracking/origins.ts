// The website origins allowed to use a tracking key (README "Browser tracking"): validated and
// normalised to the form browsers send in the Origin header (scheme://host[:port], lower-case host,
// no default port), so that a stored origin and a request's Origin compare as plain strings.
import { z } from 'zod';

/** Origins per account at most. */
export const MAX_ORIGINS = 100;

// scheme://authority with nothing after it but an optional "/": no path, query, fragment or
// credentials (the URL parser alone would quietly drop or keep them)
const ORIGIN_SHAPE = /^(https?):\/\/([^/?#@\\\s]+)\/?$/i;
// after URL parsing the host is ASCII (IDNs as punycode): a DNS name, an IPv4 address or [IPv6]
const DNS_HOST = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const IPV6_HOST = /^\[[0-9a-f:.]+\]$/;

/** scheme://host[:port] as browsers serialise an origin, or null when `input` is not an http(s) origin. */
export function normaliseOrigin(input: string): string | null {
  if (!ORIGIN_SHAPE.test(input)) return null;
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return null;
  }
  if (url.username || url.password) return null;
  if (!DNS_HOST.test(url.hostname) && !IPV6_HOST.test(url.hostname)) return null;
  return url.origin;
}

export const OriginSchema = z
  .string()
  .trim()
  .max(300)
  .transform((v, ctx) => {
    const origin = normaliseOrigin(v);
    if (origin === null) {
      ctx.addIssue({ code: 'custom', message: 'must be an origin: http(s)://host[:port], with no path, query, fragment, credentials or wildcard' });
      return z.NEVER;
    }
    return origin;
  });

/** PUT /v1/account/tracking-origins: the whole list; duplicates (after normalisation) kept once, in order. */
export const OriginsBody = z.strictObject({
  origins: z
    .array(OriginSchema)
    .max(MAX_ORIGINS, `at most ${MAX_ORIGINS} origins`)
    .transform((list) => [...new Set(list)]),
});

/**
 * Whether a request with this Origin header may use a key restricted to `allowed`: an empty list
 * accepts every origin (and requests with none, such as a server's); otherwise the request must name
 * one of them (a missing Origin, or "null" from a sandboxed frame or a file, is refused).
 */
export function originAllowed(allowed: readonly string[], originHeader: string | undefined): boolean {
  if (allowed.length === 0) return true;
  if (originHeader === undefined) return false;
  const origin = normaliseOrigin(originHeader);
  return origin !== null && allowed.includes(origin);
}
