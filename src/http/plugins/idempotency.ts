// Idempotency-Key on POST (DECISIONS.md): the same key and body within 24 h replays the first
// response; the same key with a different body, or while the first is still running, is a 409.
// A record belongs to the credential that made the request (an API key, or a user's sessions): the
// same Idempotency-Key from another credential of the account is a request of its own, so a replay
// never hands a new key or signing secret to anyone but its requester. Responses are kept sealed
// (src/seal.ts), never in clear, and a replay answers the first response whole, secret included:
// the client that retries is the one that may never have received it.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { AppError, conflict } from '../../errors.ts';
import { seal, unseal } from '../../seal.ts';
import type { Migration } from '../../db/migrations.ts';

const TTL = '24 hours';
const PENDING_TIMEOUT = '2 minutes';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: IdempotencyClaim;
  }
}

interface IdempotencyClaim {
  accountId: string;
  /** who made the request: `key:<key id>` or `user:<user id>` */
  credential: string;
  key: string;
}

const RECORD = 'account_id = $1 AND credential = $2 AND key = $3';
const recordOf = (c: IdempotencyClaim) => [c.accountId, c.credential, c.key];

export function idempotencyPlugin(app: FastifyInstance, pool: pg.Pool): void {
  // runs after auth (registered later), so the key is scoped to the caller's account
  app.addHook('preHandler', async (req, reply) => {
    if (req.method !== 'POST' || !req.auth) return;
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
    // expired keys, and claims left pending by a process that died mid-request, are free again
    await pool.query(
      `DELETE FROM idempotency_keys WHERE ${RECORD}
         AND (created_at < now() - interval '${TTL}' OR (status_code IS NULL AND created_at < now() - interval '${PENDING_TIMEOUT}'))`,
      recordOf(claim),
    );
    const inserted = await pool.query(
      `INSERT INTO idempotency_keys (account_id, credential, key, method, path, body_hash) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      [...recordOf(claim), req.method, req.url, bodyHash],
    );
    if (inserted.rowCount === 1) {
      req.idempotency = claim;
      return;
    }
    const { rows } = await pool.query<{ body_hash: string; status_code: number | null; response: string | null }>(
      `SELECT body_hash, status_code, response FROM idempotency_keys WHERE ${RECORD}`,
      recordOf(claim),
    );
    const row = rows[0];
    if (!row) throw conflict('a request with this Idempotency-Key just expired; retry');
    if (row.body_hash !== bodyHash) throw conflict('this Idempotency-Key was already used with a different request body');
    if (row.status_code === null) throw conflict('a request with this Idempotency-Key is still in progress');
    reply.header('Idempotent-Replayed', 'true');
    const response = row.response === null ? 'null' : await unseal(pool, row.response);
    reply.code(row.status_code).header('content-type', 'application/json; charset=utf-8').send(response);
    return reply;
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const idem = req.idempotency;
    if (!idem) return payload;
    req.idempotency = undefined;
    if (reply.statusCode >= 500) {
      // a failure of ours: let the client retry with the same key (a claim we cannot delete now —
      // the database is down — frees itself after PENDING_TIMEOUT)
      await pool.query(`DELETE FROM idempotency_keys WHERE ${RECORD}`, recordOf(idem)).catch((err: unknown) => {
        req.log.warn({ err }, 'could not free an idempotency key after a failure');
      });
      return payload;
    }
    // sealed JSON text, not jsonb: a response may echo a \u0000 that jsonb cannot hold
    const text = typeof payload === 'string' ? payload : JSON.stringify(payload ?? null);
    try {
      await pool.query(`UPDATE idempotency_keys SET status_code = $4, response = $5 WHERE ${RECORD}`, [
        ...recordOf(idem), reply.statusCode, await seal(pool, text),
      ]);
    } catch (err) {
      // never leave the key stuck "in progress": without a stored response a retry simply runs again
      req.log.warn({ err }, 'could not store idempotent response');
      await pool.query(`DELETE FROM idempotency_keys WHERE ${RECORD}`, recordOf(idem)).catch(() => undefined);
    }
    return payload;
  });
}

/** The idempotency_keys table (src/schema.ts runs them). */
export const IDEMPOTENCY_MIGRATIONS: Migration[] = [
  {
    id: 3,
    name: 'idempotency keys',
    sql: `
      CREATE TABLE IF NOT EXISTS idempotency_keys (
        account_id text NOT NULL,
        key text NOT NULL,
        method text NOT NULL,
        path text NOT NULL,
        body_hash text NOT NULL,
        status_code int,
        response jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, key)
      );
      CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys (created_at);`,
  },
  { id: 7, name: 'idempotent responses as JSON text', sql: `ALTER TABLE idempotency_keys ALTER COLUMN response TYPE text USING response::text;` },
  {
    // issue 8, finding 2: a stored response belongs to the credential that made the request and is
    // kept sealed. Responses stored before were neither (some held a new key or signing secret in
    // clear): they are dropped, so a retry of such a request within its 24 h runs again.
    id: 21,
    name: 'idempotency records scoped to their credential, responses sealed',
    sql: `
      DELETE FROM idempotency_keys;
      ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS credential text NOT NULL DEFAULT '';
      ALTER TABLE idempotency_keys DROP CONSTRAINT IF EXISTS idempotency_keys_pkey;
      ALTER TABLE idempotency_keys ADD PRIMARY KEY (account_id, credential, key);`,
  },
];
