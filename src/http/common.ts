// Small pieces every route area uses: event metadata from a request, cursor pagination over the
// read models' id-ordered lists.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { IdRange } from '../../projections/queries.ts';
import { notFound, validationError } from '../errors.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { isPlainObject, isStorable } from '../storable-text.ts';

export function metadataOf(req: FastifyRequest): EventMetadata {
  const correlation = req.headers['x-correlation-id'];
  return {
    accountId: req.auth?.accountId,
    actor: req.auth?.actor ?? 'anonymous',
    requestId: req.id,
    correlationId: typeof correlation === 'string' && correlation.length <= 128 ? correlation : req.id,
    causationId: req.id,
  };
}

/** Every timestamp a route accepts (query filters, body fields): README "Timestamps". */
export { Timestamp } from '../timestamps.ts';

export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(512).optional(),
};

/** What a DELETE of a resource answers (README "API conventions"), as documented. */
export const Deleted = z.object({ id: z.string(), deleted: z.literal(true) });

/** The cursor of lists ordered by id (built once: schemas are not free to build per request). */
export const IdCursor = z.object({ id: z.string() });

export function encodeCursor(value: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

// Postgres text and jsonb cannot hold NUL, and jsonb rejects unpaired UTF-16 surrogates: strings with
// either must be a 400 at the edge, never a database error (a 500) later.

/** The path of the first string (or object key) in `value` that Postgres cannot store, if any. Iterative: any depth. */
export function findUnstorable(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (!isStorable(v)) return path || '(body)';
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], path ? `${path}.${i}` : String(i)]);
    } else if (isPlainObject(v)) {
      for (const [k, child] of Object.entries(v)) {
        const p = path ? `${path}.${k}` : k;
        if (!isStorable(k)) return p;
        stack.push([child, p]);
      }
    }
  }
  return undefined;
}

export function decodeCursor<T extends Record<string, unknown>>(cursor: string | undefined, shape: z.ZodType<T>): T | undefined {
  if (cursor === undefined) return undefined;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const parsed = findUnstorable(decoded) === undefined ? shape.safeParse(decoded) : undefined;
    if (parsed?.success) return parsed.data;
  } catch {
    /* fall through */
  }
  throw validationError('cursor is not one this API returned', [{ path: 'cursor', message: 'invalid cursor' }]);
}

/** Takes limit+1 rows and turns them into a page. */
export function page<R, O>(rows: R[], limit: number, toOut: (r: R) => O, cursorOf: (r: R) => Record<string, unknown>) {
  const more = rows.length > limit;
  const data = (more ? rows.slice(0, limit) : rows).map(toOut);
  return { data, next_cursor: more ? encodeCursor(cursorOf(rows[limit - 1])) : null };
}

/** The row a lookup found, or the API's 404 naming `what`. */
export function found<R>(row: R | undefined, what: string): R {
  if (row === undefined) throw notFound(what);
  return row;
}

export const iso = (d: Date | string | null | undefined) => (d == null ? null : new Date(d).toISOString());

/**
 * One page of a list in a keyset order: the query's cursor (decoded with `shape`) holds where the page
 * before ended, `list` takes at most `take` rows after it, and `cursorOf` makes the next page's
 * cursor of the page's last row.
 */
export async function pageAfter<C extends Record<string, unknown>, R, O>(
  query: { limit: number; cursor?: string },
  shape: z.ZodType<C>,
  list: (after: C | undefined, take: number) => Promise<R[]>,
  toOut: (r: R) => O,
  cursorOf: (r: R) => Record<string, unknown>,
) {
  const rows = await list(decodeCursor(query.cursor, shape), query.limit + 1);
  return page(rows, query.limit, toOut, cursorOf);
}

/** One page of a list ordered by id, newest first, with the id cursor of this API. */
export function pageById<R extends { id: string }, O>(query: { limit: number; cursor?: string }, list: (range: IdRange) => Promise<R[]>, toOut: (r: R) => O) {
  return pageAfter(query, IdCursor, (after, limit) => list({ limit, ...(after ? { before: after.id } : {}) }), toOut, (r) => ({ id: r.id }));
}
