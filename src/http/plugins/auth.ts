// Authentication (X-API-Key or a Bearer JWT from /v1/auth/login) and capability checks.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SignJWT, jwtVerify } from 'jose';
import type pg from 'pg';
import type { Role, Scope } from '../../../commands/account.ts';
import { apiKeyByHash } from '../../../projections/auth.ts';
import { API_KEY_PREFIX } from '../../accounts/service.ts';
import { AppError, forbidden, insufficientScope, unauthorized } from '../../errors.ts';

export interface AuthContext {
  accountId: string;
  via: 'key' | 'login';
  keyId?: string;
  userId?: string;
  /** null: an unscoped key, full access */
  scopes: Scope[] | null;
  role?: Role;
  /** who to record as the actor of events */
  actor: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
    /** why authentication failed (answered after the per-IP rate limit has counted it) */
    authFailure?: AppError;
  }
}

const ROLE_CAPABILITIES: Record<Role, Scope[]> = {
  owner: ['read', 'write', 'settings'],
  admin: ['read', 'write', 'settings'],
  member: ['read', 'write'],
  viewer: ['read'],
};

export function hasCapability(auth: AuthContext, scope: Scope): boolean {
  if (auth.via === 'key') return auth.scopes === null || auth.scopes.includes(scope);
  return ROLE_CAPABILITIES[auth.role ?? 'viewer'].includes(scope);
}

/**
 * The one refusal for capabilities a caller lacks (README "API conventions"): a key gets 403
 * insufficient_scope, a session 403 forbidden (its role), both naming the first missing capability
 * (required_scope) and all of them (missing_scopes).
 */
export function capabilityRefusal(auth: AuthContext, missing: readonly Scope[], message?: string): AppError {
  if (auth.via === 'key') return insufficientScope(missing, message);
  const fields = { required_scope: missing[0], missing_scopes: [...missing] };
  return new AppError(403, 'forbidden', message ?? `your role does not allow ${missing.join(' and ')}`, fields);
}

/** Every capability in `scopes` is needed; the refusal names each one the caller lacks. */
export function requireCapabilities(auth: AuthContext, scopes: readonly Scope[]): void {
  const missing = scopes.filter((s) => !hasCapability(auth, s));
  if (missing.length) throw capabilityRefusal(auth, missing);
}

type KeyRow = NonNullable<Awaited<ReturnType<typeof apiKeyByHash>>>;

const KEY_CACHE_MS = 5_000;
export const JWT_LIFETIME_S = 12 * 60 * 60;

export class Authenticator {
  private cache = new Map<string, { row: KeyRow | null; at: number }>();
  private readonly secret: Uint8Array;

  constructor(
    private readonly pool: pg.Pool,
    jwtSecret: string,
  ) {
    this.secret = new TextEncoder().encode(jwtSecret);
  }

  async keyRow(key: string): Promise<KeyRow | null> {
    const hash = createHash('sha256').update(key).digest('hex');
    const hit = this.cache.get(hash);
    if (hit && Date.now() - hit.at < KEY_CACHE_MS && hit.row) return hit.row;
    // the hash is in the credentials table; a key needs both that row and its read model row (src/credentials.ts)
    const row = (await apiKeyByHash(this.pool, hash)) ?? null;
    // cache only hits: a key issued a moment ago must work at once
    if (row) this.cache.set(hash, { row, at: Date.now() });
    if (this.cache.size > 10_000) this.cache.clear();
    return row;
  }

  forget(): void {
    this.cache.clear();
  }

  async fromKey(key: string): Promise<AuthContext> {
    const row = await this.keyRow(key);
    if (!row || row.revoked_at) throw unauthorized('invalid API key');
    if (row.expires_at && row.expires_at.getTime() <= Date.now()) throw unauthorized('this API key has expired (rotated more than 24 hours ago)');
    return { accountId: row.account_id, via: 'key', keyId: row.id, scopes: row.scopes, actor: row.id };
  }

  async issueToken(user: { id: string; account_id: string; role: Role }): Promise<{ token: string; expires_at: string }> {
    const exp = Math.floor(Date.now() / 1000) + JWT_LIFETIME_S;
    const token = await new SignJWT({ acct: user.account_id, role: user.role })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user.id)
      .setIssuedAt()
      .setExpirationTime(exp)
      .sign(this.secret);
    return { token, expires_at: new Date(exp * 1000).toISOString() };
  }

  async fromToken(token: string): Promise<AuthContext> {
    try {
      // exp is required: a token without one would be valid forever
      const { payload } = await jwtVerify(token, this.secret, { algorithms: ['HS256'], requiredClaims: ['exp', 'sub'] });
      if (typeof payload.sub !== 'string' || typeof payload.acct !== 'string') throw new Error('bad claims');
      if (typeof payload.role !== 'string' || !Object.hasOwn(ROLE_CAPABILITIES, payload.role)) throw new Error('unknown role');
      return { accountId: payload.acct, via: 'login', userId: payload.sub, scopes: null, role: payload.role as Role, actor: payload.sub };
    } catch {
      throw unauthorized('invalid or expired session token');
    }
  }
}

/**
 * Authenticates on request, before the body is read, so a request without a valid credential
 * costs no body parsing. A failure is kept on the request rather than thrown, so the rate limit
 * (registered between this and authorizePlugin) counts it against the caller's IP first.
 */
export function authPlugin(app: FastifyInstance, authenticator: Authenticator): void {
  app.addHook('onRequest', async (req: FastifyRequest) => {
    const mode = req.routeOptions.config?.auth ?? 'none';
    if (mode === 'none') return;
    try {
      req.auth = await authenticate(authenticator, mode, req);
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode !== 401) throw err;
      req.authFailure = err;
    }
  });
}

/** Answers a failed authentication (401) and checks the route's capability (403). */
export function authorizePlugin(app: FastifyInstance): void {
  app.addHook('onRequest', async (req: FastifyRequest) => {
    const mode = req.routeOptions.config?.auth ?? 'none';
    if (mode === 'none') return;
    if (req.authFailure || !req.auth) throw req.authFailure ?? unauthorized('authentication required');
    requireCapabilities(req.auth, req.routeOptions.config?.scopes ?? []);
  });
}

/**
 * An API key goes in X-API-Key only; Authorization: Bearer takes a dashboard session token (README
 * "API keys and credentials"). A Bearer value shaped like a key (its prefix alone, so the answer says
 * nothing of whether the key is valid) is refused with a message that says where it goes.
 */
const KEY_AS_BEARER = 'this is an API key: send it in the X-API-Key header (Authorization: Bearer takes a dashboard session token from POST /v1/auth/login)';
const KEY_AS_BEARER_ON_LOGIN_ROUTE = 'this is an API key, and this endpoint needs a dashboard session: Authorization: Bearer takes the token from POST /v1/auth/login';
const SESSION_ON_KEY_ROUTE = 'this endpoint accepts only an API key, sent in the X-API-Key header; a dashboard session (Authorization: Bearer) is not accepted here';

async function authenticate(authenticator: Authenticator, mode: string, req: FastifyRequest): Promise<AuthContext> {
  const key = req.headers['x-api-key'];
  const authz = req.headers.authorization;
  const bearer = typeof authz === 'string' && /^Bearer\s+/i.test(authz);
  const token = bearer ? (authz as string).replace(/^Bearer\s+/i, '').trim() : '';
  const keyAsBearer = token.startsWith(API_KEY_PREFIX);
  let keyFailure: AppError | undefined;
  if (typeof key === 'string' && key.length > 0) {
    if (mode === 'login') throw unauthorized('this endpoint needs a dashboard session; API keys are not accepted');
    if (mode !== 'key_then_login' || !bearer) return authenticator.fromKey(key);
    try {
      return await authenticator.fromKey(key);
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode !== 401) throw err;
      // the key failed: the session token is the second credential to try
      keyFailure = err;
    }
  }
  if (bearer) {
    // a key in both headers: the one in X-API-Key failed, and that is what to say
    if (keyAsBearer && keyFailure) throw keyFailure;
    if (keyAsBearer) throw unauthorized(mode === 'login' ? KEY_AS_BEARER_ON_LOGIN_ROUTE : KEY_AS_BEARER);
    if (mode === 'key') throw unauthorized(SESSION_ON_KEY_ROUTE);
    return authenticator.fromToken(token);
  }
  throw unauthorized(mode === 'key' ? 'send your API key in the X-API-Key header' : 'send an API key (X-API-Key) or a Bearer token');
}

export { forbidden };
