// Per-account (per-IP when unauthenticated) rate limits over a rolling window, using the sliding
// window counter: this window's count plus the previous window's, weighted by how much of it
// still overlaps. Counters live in process memory, or in Redis when REDIS_URL is set.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import type { RateGroup } from '../route.ts';

export interface Limit {
  limit: number;
  windowMs: number;
  windowText: string;
}

export const LIMITS: Record<Exclude<RateGroup, 'none'>, Limit> = {
  send: { limit: 1000, windowMs: 60_000, windowText: '1 minute' },
  bulk: { limit: 100, windowMs: 60_000, windowText: '1 minute' },
  default: { limit: 500, windowMs: 60_000, windowText: '1 minute' },
  public: { limit: 120, windowMs: 60_000, windowText: '1 minute' },
  login: { limit: 20, windowMs: 15 * 60_000, windowText: '15 minutes' },
};

export interface CounterStore {
  /** increments this window's counter and returns [current, previous] counts */
  hit(key: string, windowStart: number, windowMs: number): Promise<[number, number]>;
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

  async close() {
    await this.redis.quit();
  }
}

export async function createCounterStore(redisUrl?: string): Promise<CounterStore> {
  if (!redisUrl) return new MemoryCounters();
  const { Redis } = await import('ioredis');
  return new RedisCounters(new Redis(redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true }));
}

export async function checkLimit(
  counters: CounterStore,
  key: string,
  limit: Limit,
  now = Date.now(),
): Promise<{ allowed: boolean; remaining: number; resetS: number; retryAfterS: number }> {
  const windowStart = Math.floor(now / limit.windowMs) * limit.windowMs;
  const [current, previous] = await counters.hit(key, windowStart, limit.windowMs);
  const overlap = 1 - (now - windowStart) / limit.windowMs;
  const estimate = current + previous * overlap;
  const allowed = estimate <= limit.limit;
  const resetS = Math.ceil((windowStart + limit.windowMs - now) / 1000);
  // when over, wait until enough of the previous window has slid out (at most until this one ends)
  let retryAfterS = resetS;
  if (!allowed && previous > 0) {
    const needed = (estimate - limit.limit) / previous; // fraction of a window to wait
    retryAfterS = Math.max(1, Math.min(resetS, Math.ceil((needed * limit.windowMs) / 1000)));
  }
  return { allowed, remaining: Math.max(0, Math.floor(limit.limit - estimate)), resetS, retryAfterS: Math.max(1, retryAfterS) };
}

function setHeaders(reply: FastifyReply, limit: Limit, remaining: number, resetS: number) {
  reply.header('RateLimit-Limit', String(limit.limit));
  reply.header('RateLimit-Remaining', String(remaining));
  reply.header('RateLimit-Reset', String(resetS));
  reply.header('RateLimit-Policy', `${limit.limit};w=${limit.windowMs / 1000}`);
}

export async function enforce(counters: CounterStore, req: FastifyRequest, reply: FastifyReply, group: Exclude<RateGroup, 'none'>, subject: string) {
  const limit = LIMITS[group];
  const r = await checkLimit(counters, `${group}:${subject}`, limit);
  setHeaders(reply, limit, r.remaining, r.resetS);
  if (!r.allowed) {
    reply.header('Retry-After', String(r.retryAfterS));
    throw new AppError(429, 'rate_limit_exceeded', `rate limit of ${limit.limit} requests per ${limit.windowText} exceeded; retry after ${r.retryAfterS} s`, {
      limit: limit.limit,
      window: limit.windowText,
      retry_after: r.retryAfterS,
    });
  }
}

/** Checks limits before authentication for login and public routes (by IP) and after it for the rest (by account). */
export function rateLimitPlugin(app: FastifyInstance, counters: CounterStore): void {
  app.addHook('onRequest', async (req, reply) => {
    const group = req.routeOptions.config?.rateGroup;
    if (group === 'login' || group === 'public') await enforce(counters, req, reply, group, req.ip);
  });
  app.addHook('preHandler', async (req, reply) => {
    const group = req.routeOptions.config?.rateGroup;
    if (!group || group === 'none' || group === 'login' || group === 'public' || !req.auth) return;
    await enforce(counters, req, reply, group, req.auth.accountId);
  });
}
