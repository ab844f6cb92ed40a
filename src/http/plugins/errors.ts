// Every failure leaves as the flat error body of DECISIONS.md; a 5xx never carries a stack trace.
import type { FastifyError, FastifyInstance } from 'fastify';
import { ZodError } from 'zod';
import { AppError } from '../../errors.ts';
import { toIssues } from '../route.ts';

export function errorsPlugin(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError | ZodError, req, reply) => {
    if (err instanceof AppError) return reply.code(err.statusCode).send(err.body());
    if (err instanceof ZodError) {
      const issues = toIssues(err);
      return reply.code(400).send({ error: 'validation_error', message: issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues });
    }
    const status = (err as FastifyError).statusCode ?? 500;
    const code = (err as FastifyError).code;
    if (status === 413 || code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send({ error: 'payload_too_large', message: 'request body is larger than the limit for this endpoint' });
    }
    if (status === 415 || code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(415).send({
        error: 'validation_error',
        message: `unsupported content type ${req.headers['content-type'] ?? '(none)'}; send application/json`,
        issues: [{ path: 'Content-Type', message: 'unsupported content type' }],
      });
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
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ error: 'internal_error', message: 'something went wrong on our side', request_id: req.id });
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send({ error: 'not_found', message: `no route ${req.method} ${req.url.split('?')[0]}` });
  });
}
