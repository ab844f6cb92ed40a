// Per-account (per-IP when unauthenticated) rate limits over a rolling window, using the sliding
// window counter: this window's count plus the previous window's, weighted by how much of it
// still overlaps. Counters live in process memory, or in Redis when REDIS_URL is set.
import { isIPv6 } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import type { RateGroup } from '../route.ts';

export interface Limit {
  limit: number;
  windowMs: number;
  windowText: string;
}

export const LIMITS: Record<Exclude<RateGroup, 'none' | 'callback'>, Limit> = {
  send: { limit: 1000, windowMs: 60_000, windowText: '1 minute' },
  bulk: { limit: 100, windowMs: 60_000, windowText: '1 minute' },
  default: { limit: 500, windowMs: 60_000, windowText: '1 minute' },
  public: { limit: 120, windowMs: 60_000, windowText: '1 minute' },
  login: { limit: 20, windowMs: 15 * 60_000, windowText: '15 minutes' },
};

/** Failed logins per account (by the email tried), beside the per-IP login limit: a guesser spread over many addresses still gets 10 tries per 15 minutes. */
export const FAILED_LOGINS_PER_ACCOUNT: Limit = { limit: 10, windowMs: 15 * 60_000, windowText: '15 minutes' };

export interface CounterStore {
  /** increments this window's counter and returns [current, previous] counts */
  hit(key: string, windowStart: number, windowMs: number): Promise<[number, number]>;
  /** takes one back from this window's counter (a refused request does not count) */
  undo(key: string, windowStart: number): Promise<void>;
  close?(): Promise<void>;
}

export class MemoryCounters implements CounterStore {
  private counts = new Map<string, number>();
  private sweptAt = 0;

  async hit(key: string, windowStart: number, windowMs: number): Promise<[number, number]> {
    const cur = `${key}:${windowStart}`;
    const prev = `${key}:${windowStart - windowMs}`;
    const n = (this.counts.get(cur) ?? 0) + 1;
    this.counts.set(cur, n);
    if (windowStart - this.sweptAt > 60_000) this.sweep(windowStart - 2 * 15 * 60_000);
    return [n, this.counts.get(prev) ?? 0];
  }

  async undo(key: string, windowStart: number): Promise<void> {
    const cur = `${key}:${windowStart}`;
    const n = this.counts.get(cur) ?? 0;
    if (n > 0) this.counts.set(cur, n - 1);
  }

  private sweep(before: number) {
    this.sweptAt = Date.now();
    for (const k of this.counts.keys()) {
      const start = Number(k.slice(k.lastIndexOf(':') + 1));
      if (start < before) this.counts.delete(k);
    }
  }
}

export class RedisCounters implements CounterStore {
  constructor(private readonly redis: import('ioredis').Redis) {}

  async hit(key: string, windowStart: number, windowMs: number): Promise<[number, number]> {
    const cur = `engage:rl:${key}:${windowStart}`;
    const prev = `engage:rl:${key}:${windowStart - windowMs}`;
    const res = await this.redis.multi().incr(cur).pexpire(cur, windowMs * 2).get(prev).exec();
    if (!res) throw new Error('redis transaction aborted');
    return [Number(res[0][1]), Number(res[2][1] ?? 0)];
  }

  async undo(key: string, windowStart: number): Promise<void> {
    // (between the hit and this, a concurrent request may have seen the refused one counted: it
    // errs towards refusing, for that instant only)
    await this.redis.decr(`engage:rl:${key}:${windowStart}`);
  }

  async close() {
    await this.redis.quit();
  }
}

export async function createCounterStore(redisUrl?: string): Promise<CounterStore> {
  if (!redisUrl) return new MemoryCounters();
  const { Redis } = await import('ioredis');
  return new RedisCounters(new Redis(redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true }));
}

/** The sliding-window estimate at `t` of a key whose windows hold these counts: what decides admission. */
function estimateAt(t: number, windowStart: number, windowMs: number, current: number, previous: number): number {
  return current + previous * (1 - (t - windowStart) / windowMs);
}

/**
 * Seconds from `now` until one more request would be admitted, if nothing else arrives: while the
 * present window lasts, its count stays and the previous one slides out; after it, this window's
 * count becomes the one sliding out. `counted` excludes the request being answered.
 */
function secondsUntilAdmitted(now: number, windowStart: number, limit: Limit, counted: number, previous: number): number {
  const W = limit.windowMs;
  const admitted = (t: number) => {
    const ws = Math.floor(t / W) * W;
    if (ws === windowStart) return estimateAt(t, ws, W, counted + 1, previous) <= limit.limit;
    if (ws === windowStart + W) return estimateAt(t, ws, W, 1, counted) <= limit.limit;
    return true; // both windows have slid out
  };
  let at: number;
  if (counted + 1 <= limit.limit && previous > 0) at = windowStart + W * (1 - (limit.limit - counted - 1) / previous);
  else at = windowStart + W + (counted > 0 ? W * Math.max(0, 1 - (limit.limit - 1) / counted) : 0);
  let s = Math.max(1, Math.ceil((at - now) / 1000));
  // the arithmetic above is the exact solution; step over floating-point edges against the very test admission uses
  while (!admitted(now + s * 1000)) s++;
  while (s > 1 && admitted(now + (s - 1) * 1000)) s--;
  return s;
}

export async function checkLimit(
  counters: CounterStore,
  key: string,
  limit: Limit,
  now = Date.now(),
): Promise<{ allowed: boolean; remaining: number; resetS: number; retryAfterS: number }> {
  const windowStart = Math.floor(now / limit.windowMs) * limit.windowMs;
  const [current, previous] = await counters.hit(key, windowStart, limit.windowMs);
  const estimate = estimateAt(now, windowStart, limit.windowMs, current, previous);
  const allowed = estimate <= limit.limit;
  if (!allowed) {
    // a refused request does not count: a client retrying while blocked does not push its own wait further out
    await counters.undo(key, windowStart);
    const retryAfterS = secondsUntilAdmitted(now, windowStart, limit, current - 1, previous);
    return { allowed, remaining: 0, resetS: retryAfterS, retryAfterS };
  }
  // reset: when everything counted so far has slid out of the window (remaining is back to the limit)
  const resetS = Math.max(1, Math.ceil((windowStart + 2 * limit.windowMs - now) / 1000));
  return { allowed, remaining: Math.max(0, Math.floor(limit.limit - estimate)), resetS, retryAfterS: 0 };
}

function setHeaders(reply: FastifyReply, limit: Limit, remaining: number, resetS: number) {
  reply.header('RateLimit-Limit', String(limit.limit));
  reply.header('RateLimit-Remaining', String(remaining));
  reply.header('RateLimit-Reset', String(resetS));
  reply.header('RateLimit-Policy', `${limit.limit};w=${limit.windowMs / 1000}`);
}

/**
 * Whom a per-IP limit counts: an IPv4 address as it is, an IPv6 client by its /64 (the smallest
 * block a host is given: it can use every address in it, one per request).
 */
export function clientSubject(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  if (!isIPv6(ip)) return ip;
  const [head, tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') && tail ? tail.split(':') : [];
  // (an embedded IPv4 tail sits in the last 32 bits, beyond the /64)
  const groups = ip.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  const n = groups.map((g) => (g.includes('.') ? g : parseInt(g, 16).toString(16)));
  // an IPv4-mapped address in hex groups (::ffff:7f00:1) is that IPv4 address
  if (n.length === 8 && n.slice(0, 5).every((g) => g === '0') && n[5] === 'ffff') {
    const [hi, lo] = [parseInt(n[6], 16), parseInt(n[7], 16)];
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return `${n.slice(0, 4).join(':')}::/64`;
}

function exceeded(limit: Limit, retryAfterS: number): AppError {
  return new AppError(429, 'rate_limit_exceeded', `rate limit of ${limit.limit} requests per ${limit.windowText} exceeded; retry after ${retryAfterS} s`, {
    limit: limit.limit,
    window: limit.windowText,
    retry_after: retryAfterS,
  });
}

/** Sets the RateLimit-* and Retry-After headers of a refusal and answers the 429 error to throw. */
export function refusal(reply: FastifyReply, limit: Limit, retryAfterS: number): AppError {
  setHeaders(reply, limit, 0, retryAfterS);
  reply.header('Retry-After', String(retryAfterS));
  return exceeded(limit, retryAfterS);
}

/** Counts one request of `subject` against `limit`; sets the RateLimit-* headers and throws the 429 when over. */
export async function enforceLimit(counters: CounterStore, reply: FastifyReply, key: string, limit: Limit) {
  const r = await checkLimit(counters, key, limit);
  setHeaders(reply, limit, r.remaining, r.resetS);
  if (!r.allowed) {
    reply.header('Retry-After', String(r.retryAfterS));
    throw exceeded(limit, r.retryAfterS);
  }
}

export async function enforce(counters: CounterStore, _req: FastifyRequest, reply: FastifyReply, group: keyof typeof LIMITS, subject: string) {
  await enforceLimit(counters, reply, `${group}:${subject}`, LIMITS[group]);
}

/**
 * Runs as an onRequest hook after authentication (which is also done on request, before any body
 * is read) and before the credential's failure is answered:
 * - an authenticated request counts against its account's group;
 * - a request without a valid credential (none, a garbage key, a bad token) and every request to a
 *   route that takes no key (health, documents, WhatsApp verify, unknown paths) counts against the
 *   public limit of its IP; login also against its own 20 per 15 minutes per IP;
 * - provider callbacks (group `callback`) are not counted while their signature holds (a few provider
 *   addresses send them at high volume); one that fails its signature check counts against the
 *   public limit of its IP and, over it, is answered 429 instead of 401 (see onSend below).
 */
export function rateLimitPlugin(app: FastifyInstance, counters: CounterStore): void {
  app.addHook('onRequest', async (req, reply) => {
    const group = req.routeOptions.config?.rateGroup;
    if (group === 'none' || group === 'callback') return;
    if (req.auth && group && group !== 'public' && group !== 'login') {
      await enforce(counters, req, reply, group, req.auth.accountId);
      return;
    }
    const client = clientSubject(req.ip);
    await enforce(counters, req, reply, 'public', client);
    if (group === 'login') await enforce(counters, req, reply, 'login', client);
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.routeOptions.config?.rateGroup !== 'callback' || reply.statusCode !== 401) return payload;
    const limit = LIMITS.public;
    const r = await checkLimit(counters, `public:${clientSubject(req.ip)}`, limit);
    setHeaders(reply, limit, r.remaining, r.resetS);
    if (r.allowed) return payload;
    reply.code(429).header('Retry-After', String(r.retryAfterS)).header('content-type', 'application/json; charset=utf-8');
    return JSON.stringify(exceeded(limit, r.retryAfterS).body());
  });
}
