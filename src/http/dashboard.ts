// The web dashboard (README "The dashboard"): the built single-page app (dashboard/, `npm run build`)
// served at /app. Its files are public, like the sign-in form they hold; everything it shows comes from
// the API, which checks the session's role on every request itself. /app/assets/* are the hashed
// bundles (cached for good); any other path under /app answers the page, whose router draws the view.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where `npm run build` puts the dashboard: dist/dashboard beside the package.json this code is part of. */
export function defaultDashboardDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, 'dist', 'dashboard');
}

/**
 * What the page may do: scripts, styles and requests to this origin only (the bundles, the API), images
 * from here or inline (charts), and never inside another site's frame.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
    .header('X-Content-Type-Options', 'nosniff')
    .header('X-Frame-Options', 'DENY')
    .header('Referrer-Policy', 'same-origin');
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>engage</title></head><body><main><h1>The dashboard is not built</h1><p>Run <code>npm run build</code> (or <code>npm start</code>, which builds what is missing), then reload.</p></main></body></html>`;

/** Registers /app (with or without its slash: the router ignores trailing slashes) and sends / there. `dir` holds the built dashboard's index.html and assets/. */
export function dashboardRoutes(dir: string) {
  return async function dashboard(app: FastifyInstance): Promise<void> {
    const indexFile = path.join(dir, 'index.html');
    const built = existsSync(indexFile);
    const page = built ? readFileSync(indexFile, 'utf8') : NOT_BUILT;
    const hidden = { hide: true };
    const config = { rateGroup: 'public' as const };

    app.get('/', { schema: hidden, config }, async (_req, reply) => reply.redirect('/app/'));
    const answerPage = async (_req: unknown, reply: FastifyReply) =>
      pageHeaders(reply)
        .code(built ? 200 : 404)
        .header('Cache-Control', 'no-cache')
        .type('text/html; charset=utf-8')
        .send(page);
    app.get('/app/', { schema: hidden, config }, answerPage);
    app.get('/app/*', { schema: hidden, config }, answerPage);

    if (built && existsSync(path.join(dir, 'assets'))) {
      await app.register(fastifyStatic, {
        root: path.join(dir, 'assets'),
        prefix: '/app/assets/',
        decorateReply: false,
        index: false,
        // the build writes .br and .gz beside each bundle: sent to a browser that accepts them
        preCompressed: true,
        // the names carry a hash of their content: a new build has new names
        immutable: true,
        maxAge: '365d',
        schemaHide: true,
        setHeaders: (res) => res.raw.setHeader('X-Content-Type-Options', 'nosniff'),
      });
    }
  };
}
