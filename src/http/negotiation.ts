// Which of two media types a request's Accept header prefers (RFC 9110 §12.5.1): what the pages for
// people (unsubscribe links, signup forms) read to answer code that asks for JSON in JSON.
import type { FastifyRequest } from 'fastify';

/** The quality the Accept header gives `type` (1 with no header; 0 when nothing matches). */
export function quality(accept: string | undefined, type: string): number {
  if (!accept) return 1;
  const [major] = type.split('/');
  let best = 0;
  let specificity = -1;
  for (const part of accept.split(',')) {
    const [range, ...params] = part.trim().toLowerCase().split(';');
    const q = Number(params.map((p) => p.trim()).find((p) => p.startsWith('q='))?.slice(2) ?? 1);
    const s = range === type ? 2 : range === `${major}/*` ? 1 : range === '*/*' ? 0 : -1;
    // the most specific range that matches decides
    if (s > specificity && Number.isFinite(q)) [best, specificity] = [q, s];
  }
  return best;
}

/** JSON only when the client prefers it to HTML: a browser or a mail client gets a page. */
export const prefersJson = (req: FastifyRequest) => quality(req.headers.accept, 'application/json') > quality(req.headers.accept, 'text/html');
