// Idempotency-Key on POST: the same key and body within 24 h replays the first response; the same
// key with a different body, or while the first is still running, is a 409.
// A record belongs to the credential that made the request (an API key, or a user's sessions): the
// same Idempotency-Key from another credential of the account is a request of its own, so a replay
// never hands a new key or signing secret to anyone but its requester. Responses are kept sealed
// (src/idempotency.ts), never in clear, and a replay answers the first response whole, secret
// included: the client that retries is the one that may never have received it.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { AppError, conflict } from '../../errors.ts';
import { claimIdempotencyKey, findIdempotencyRecord, freeIdempotencyKey, type IdempotencyClaim, saveIdempotentResponse } from '../../idempotency.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: IdempotencyClaim;
  }
}

export function idempotencyPlugin(app: FastifyInstance, pool: pg.Pool): void {
  // runs after auth (registered later), so the key is scoped to the caller's account
  app.addHook('preHandler', async (req, reply) => {
    // (an upload read as a stream by its handler has no body to compare yet: README "Contacts import")
    if (req.method !== 'POST' || !req.auth || req.routeOptions.config.streamsBody) return;
    const key = req.headers['idempotency-key'];
    if (key === undefined) return;
    if (typeof key !== 'string' || key.length === 0 || key.length > 255) {
      throw new AppError(400, 'validation_error', 'Idempotency-Key must be 1 to 255 characters', {
        issues: [{ path: 'Idempotency-Key', message: 'must be 1 to 255 characters' }],
      });
    }
    const claim: IdempotencyClaim = { accountId: req.auth.accountId, credential: `${req.auth.via === 'key' ? 'key' : 'user'}:${req.auth.actor}`, key };
    let bodyText: string;
    try {
      bodyText = typeof req.body === 'string' ? req.body : JSON.stringify(req.body ?? null);
    } catch {
      // JSON.parse accepts nesting deeper than JSON.stringify can recurse: a client error, not a 500
      throw new AppError(400, 'validation_error', 'request body is nested too deeply', { issues: [{ path: '(body)', message: 'nested too deeply' }] });
    }
    const bodyHash = createHash('sha256').update(`${req.method} ${req.url}\n${bodyText}`).digest('hex');
    if (await claimIdempotencyKey(pool, claim, { method: req.method, path: req.url, bodyHash })) {
      req.idempotency = claim;
      return;
    }
    const record = await findIdempotencyRecord(pool, claim);
    if (!record) throw conflict('a request with this Idempotency-Key just expired; retry');
    if (record.bodyHash !== bodyHash) throw conflict('this Idempotency-Key was already used with a different request body');
    if (record.statusCode === null) throw conflict('a request with this Idempotency-Key is still in progress');
    reply.header('Idempotent-Replayed', 'true');
    reply.code(record.statusCode).header('content-type', 'application/json; charset=utf-8').send(record.response ?? 'null');
    return reply;
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const claim = req.idempotency;
    if (!claim) return payload;
    req.idempotency = undefined;
    if (reply.statusCode >= 500) {
      // a failure of ours: let the client retry with the same key (a claim we cannot delete now —
      // the database is down — frees itself after 2 minutes)
      await freeIdempotencyKey(pool, claim).catch((err: unknown) => {
        req.log.warn({ err }, 'could not free an idempotency key after a failure');
      });
      return payload;
    }
    // JSON text, not jsonb: a response may echo a \u0000 that jsonb cannot hold
    const text = typeof payload === 'string' ? payload : JSON.stringify(payload ?? null);
    try {
      await saveIdempotentResponse(pool, claim, reply.statusCode, text);
    } catch (err) {
      // never leave the key stuck "in progress": without a stored response a retry simply runs again
      req.log.warn({ err }, 'could not store idempotent response');
      await freeIdempotencyKey(pool, claim).catch(() => undefined);
    }
    return payload;
  });
}
