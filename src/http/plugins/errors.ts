// Every failure leaves as the flat error body (README "API conventions"); a 5xx never carries a stack trace.
import type { FastifyError, FastifyInstance } from 'fastify';
import { ZodError } from 'zod';
import { isConnectionError } from '../../db/errors.ts';
import { AppError, describeIssues, unsupportedMediaType, WRITE_CONFLICT } from '../../errors.ts';
import { WrongExpectedVersionError } from '../../eventstore/port.ts';
import { toIssues } from '../../validation.ts';

/**
 * The database cannot be reached right now: down, restarting, shutting down, out of connection
 * slots, or the connection was lost mid-request. Not the request's fault and not a bug: a retry
 * shortly will work.
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 3) return false;
  if (isConnectionError(err)) return true;
  const { code, message, cause, errors } = err as { code?: string; message?: string; cause?: unknown; errors?: unknown[] };
  // 53300 too_many_connections, 53000 insufficient_resources
  if (code === '53300' || code === '53000') return true;
  if (/is not queryable|Cannot use a pool after calling end|the database system is (starting up|shutting down|in recovery mode)/i.test(message ?? '')) return true;
  // wrapped (cause) or several attempts at once (AggregateError of a dual-stack connect)
  return isDatabaseUnavailable(cause, depth + 1) || (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1)));
}

export const UNAVAILABLE_BODY = { error: 'unavailable', message: 'the service cannot reach its database right now (restarting or unreachable); retry shortly' };

export function errorsPlugin(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError | ZodError, req, reply) => {
    if (err instanceof AppError) return reply.code(err.statusCode).send(err.body());
    // a write that met a newer revision of its stream on every retry (heavy contention on one
    // contact, say): nothing of it was applied, and sent again it is judged on the new state
    if (err instanceof WrongExpectedVersionError) return reply.code(WRITE_CONFLICT.statusCode).send(WRITE_CONFLICT.body());
    if (err instanceof ZodError) {
      const issues = toIssues(err);
      return reply.code(400).send({ error: 'validation_error', message: describeIssues(issues), issues });
    }
    const status = (err as FastifyError).statusCode ?? 500;
    const code = (err as FastifyError).code;
    if (status === 413 || code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send({ error: 'payload_too_large', message: 'request body is larger than the limit for this endpoint' });
    }
    if (status === 415 || code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(415).send(unsupportedMediaType(req.headers['content-type'] ?? '', 'application/json').body());
    }
    if (status >= 400 && status < 500) {
      const message =
        code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError
          ? 'request body is not valid JSON'
          : code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
            ? 'request body is empty but Content-Type is application/json'
            : err.message;
      return reply.code(status === 404 ? 404 : 400).send({
        error: status === 404 ? 'not_found' : 'validation_error',
        message,
        issues: [{ path: '(body)', message }],
      });
    }
    if (isDatabaseUnavailable(err)) {
      const { code, message } = err as { code?: string; message?: string };
      req.log.warn({ err: { code, message } }, 'database unavailable; answered 503');
      return reply.code(503).header('Retry-After', '1').send(UNAVAILABLE_BODY);
    }
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ error: 'internal_error', message: 'something went wrong on our side', request_id: req.id });
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send({ error: 'not_found', message: `no route ${req.method} ${req.url.split('?')[0]}` });
  });
}
