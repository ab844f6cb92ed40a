// Small pieces every route area uses: event metadata from a request, read-your-writes waits,
// cursor pagination.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Engage } from '../context.ts';
import { validationError } from '../errors.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';

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

/** Waits until the named read models include `position`, so the caller's next read sees its write. */
export async function settle(engage: Engage, projections: readonly string[], position: Position | undefined): Promise<void> {
  if (!position) return;
  await engage.runner.waitFor(projections, position, engage.config.READ_YOUR_WRITES_TIMEOUT_MS);
}

export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(512).optional(),
};

export function encodeCursor(value: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor<T extends Record<string, unknown>>(cursor: string | undefined, shape: z.ZodType<T>): T | undefined {
  if (cursor === undefined) return undefined;
  try {
    const parsed = shape.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    if (parsed.success) return parsed.data;
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

export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export const iso = (d: Date | string | null | undefined) => (d == null ? null : new Date(d).toISOString());
