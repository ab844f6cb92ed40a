// Per-account (per-IP when unauthenticated) rate limits over a rolling window, kept exactly with a
// sliding log (README "Rate limits"): the times of the requests admitted within the window, so a
// request is admitted only while fewer than the limit were admitted in the window before it, and no
// window's length ever holds more. Logs live in process memory, or in Redis when REDIS_URL is set.
import { randomBytes } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { type Clock, systemClock } from '../../clock.ts';
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

/** What a log answers for one request. Times are the log's own clock, in ms since the epoch. */
export interface Admission {
  allowed: boolean;
  /** requests admitted within the window ending now, this one included when it was admitted */
  count: number;
  now: number;
  /** refused: when the window has room again (the oldest admitted request leaves it) */
  freeAt?: number;
  /** admitted: when every request admitted so far has left the window (the quota is whole again) */
  wholeAt?: number;
  /** admitted: names this request to takeBack */
  ticket?: string;
}

/** A sliding log per key. A request is an admission at one instant: atomic per key, across every process sharing the log. */
export interface CounterStore {
  /** Admits and records one request of `key` if fewer than `limit` were admitted in the `windowMs` up to now; a refused one is not recorded. */
  admit(key: string, limit: number, windowMs: number): Promise<Admission>;
  /** Forgets an admitted request (a login that succeeded; a request that another limit refused). */
  takeBack(key: string, ticket: string): Promise<void>;
  close?(): Promise<void>;
}

/** How often the memory log drops the keys whose requests have all left their window. */
const SWEEP_EVERY_MS = 60_000;

/** One key's admitted times, oldest first, from `head` on (the ones before it have left the window). */
interface Log {
  times: number[];
  head: number;
  windowMs: number;
}

/** Drops the times that have left the window at `now`: a request made at t counts while t > now - windowMs. */
function expire(log: Log, now: number) {
  const edge = now - log.windowMs;
  while (log.head < log.times.length && log.times[log.head] <= edge) log.head++;
  // compact once the dropped part is the larger half: each time is copied O(1) times on average
  if (log.head > 32 && log.head * 2 >= log.times.length) {
    log.times = log.times.slice(log.head);
    log.head = 0;
  }
}

/**
 * The logs in this process's memory. A key holds at most its limit of times (a refused request is not
 * recorded), and a key whose times have all left the window is dropped at the next sweep: what is
 * held follows the requests admitted within the last window (and a sweep's minute).
 */
export class MemoryCounters implements CounterStore {
  private readonly logs = new Map<string, Log>();
  private sweptAt = -Infinity;

  constructor(private readonly clock: Clock = systemClock) {}

  async admit(key: string, limit: number, windowMs: number): Promise<Admission> {
    let now = this.clock.now().getTime();
    if (now - this.sweptAt >= SWEEP_EVERY_MS) this.sweep(now);
    let log = this.logs.get(key);
    if (!log) this.logs.set(key, (log = { times: [], head: 0, windowMs }));
    log.windowMs = windowMs;
    expire(log, now);
    const held = log.times.length - log.head;
    if (held >= limit) return { allowed: false, count: held, now, freeAt: log.times[log.times.length - limit] + windowMs };
    // a clock set back must not record a time before the newest (the log stays in order; such a
    // request stays in the window a little longer, which errs towards refusing)
    const newest = log.times.length > log.head ? log.times[log.times.length - 1] : now;
    now = Math.max(now, newest);
    log.times.push(now);
    return { allowed: true, count: held + 1, now, wholeAt: now + windowMs, ticket: String(now) };
  }

  async takeBack(key: string, ticket: string): Promise<void> {
    const log = this.logs.get(key);
    if (!log) return;
    const i = log.times.lastIndexOf(Number(ticket));
    if (i >= log.head) log.times.splice(i, 1);
  }

  /** How many keys and admitted requests this process holds (for tests of its bound). */
  holding(): { keys: number; requests: number } {
    let requests = 0;
    for (const log of this.logs.values()) requests += log.times.length - log.head;
    return { keys: this.logs.size, requests };
  }

  private sweep(now: number) {
    this.sweptAt = now;
    for (const [key, log] of this.logs) {
      expire(log, now);
      if (log.head === log.times.length) this.logs.delete(key);
    }
  }
}

/**
 * One admission in Redis, atomic as a script is: a sorted set per key (score: the admission's time in
 * ms, member: a ticket unique to the request), on Redis's own clock, so every host shares one clock.
 * KEYS[1] the log; ARGV limit, window ms, ticket. Answers {allowed, count, now, freeAt or wholeAt}.
 */
const ADMIT_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count >= limit then
  local oldest = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
  return {0, count, now, tostring(tonumber(oldest[2]) + window)}
end
local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
if newest[2] and tonumber(newest[2]) > now then now = tonumber(newest[2]) end
redis.call('ZADD', key, now, ARGV[3])
redis.call('PEXPIRE', key, window)
return {1, count + 1, now, tostring(now + window)}
`;

type AdmitReply = [number, number, number, string];

/** The logs in Redis, shared by every process and host given the same REDIS_URL. Each key expires a window after its newest request. */
export class RedisCounters implements CounterStore {
  /** tickets: this process's prefix and a sequence number, unique across the hosts sharing the log */
  private readonly prefix = randomBytes(6).toString('hex');
  private sequence = 0;

  constructor(private readonly redis: Redis) {
    redis.defineCommand('engageAdmit', { numberOfKeys: 1, lua: ADMIT_SCRIPT });
  }

  async admit(key: string, limit: number, windowMs: number): Promise<Admission> {
    const ticket = `${this.prefix}:${++this.sequence}`;
    const run = (this.redis as unknown as { engageAdmit(key: string, limit: number, windowMs: number, ticket: string): Promise<AdmitReply> }).engageAdmit;
    const [allowed, count, now, at] = await run.call(this.redis, logKey(key), limit, windowMs, ticket);
    return allowed === 1 ? { allowed: true, count, now, wholeAt: Number(at), ticket } : { allowed: false, count, now, freeAt: Number(at) };
  }

  async takeBack(key: string, ticket: string): Promise<void> {
    await this.redis.zrem(logKey(key), ticket);
  }

  async close() {
    await this.redis.quit();
  }
}

/** (a prefix of its own: the window counters of earlier versions were strings under engage:rl:) */
const logKey = (key: string) => `engage:rlog:${key}`;

export async function createCounterStore(redisUrl?: string, clock: Clock = systemClock): Promise<CounterStore> {
  if (!redisUrl) return new MemoryCounters(clock);
  const { Redis } = await import('ioredis');
  return new RedisCounters(new Redis(redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true }));
}

export interface LimitCheck {
  allowed: boolean;
  remaining: number;
  /** seconds until the quota is whole again; on a refusal, the same as retryAfterS */
  resetS: number;
  /** refused: seconds until a request would be admitted, if nothing else is (the oldest admitted one has left the window) */
  retryAfterS: number;
  /** admitted: names the request to takeBack */
  ticket?: string;
}

const secondsUntil = (at: number, now: number) => Math.max(1, Math.ceil((at - now) / 1000));

/** Admits one request of `key` against `limit`, or says when it would be. */
export async function checkLimit(counters: CounterStore, key: string, limit: Limit): Promise<LimitCheck> {
  const a = await counters.admit(key, limit.limit, limit.windowMs);
  if (!a.allowed) {
    // waiting this long is enough (the oldest has left by then) and a second less is not (ceil)
    const retryAfterS = secondsUntil(a.freeAt!, a.now);
    return { allowed: false, remaining: 0, resetS: retryAfterS, retryAfterS };
  }
  return { allowed: true, remaining: Math.max(0, limit.limit - a.count), resetS: secondsUntil(a.wholeAt!, a.now), retryAfterS: 0, ticket: a.ticket };
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

/** The admissions a request has had so far, taken back if it is answered 429: a refused request counts against none of its limits. */
const admissions = new WeakMap<FastifyRequest, { key: string; ticket: string }[]>();

/** Counts one request against `limit` under `key`; sets the RateLimit-* headers and throws the 429 when over. */
export async function enforceLimit(counters: CounterStore, req: FastifyRequest, reply: FastifyReply, key: string, limit: Limit) {
  const r = await checkLimit(counters, key, limit);
  if (!r.allowed) throw refusal(reply, limit, r.retryAfterS);
  setHeaders(reply, limit, r.remaining, r.resetS);
  const held = admissions.get(req);
  if (held) held.push({ key, ticket: r.ticket! });
  else admissions.set(req, [{ key, ticket: r.ticket! }]);
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
 * A request answered 429 (by any limit, the login route's per-account one included) has whatever it
 * was admitted to taken back before the answer leaves.
 */
export function rateLimitPlugin(app: FastifyInstance, counters: CounterStore): void {
  app.addHook('onRequest', async (req, reply) => {
    const group = req.routeOptions.config?.rateGroup;
    if (group === 'none' || group === 'callback') return;
    if (req.auth && group && group !== 'public' && group !== 'login') {
      await enforceLimit(counters, req, reply, `${group}:${req.auth.accountId}`, LIMITS[group]);
      return;
    }
    const client = clientSubject(req.ip);
    await enforceLimit(counters, req, reply, `public:${client}`, LIMITS.public);
    if (group === 'login') await enforceLimit(counters, req, reply, `login:${client}`, LIMITS.login);
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.routeOptions.config?.rateGroup !== 'callback' || reply.statusCode !== 401) return payload;
    const limit = LIMITS.public;
    const r = await checkLimit(counters, `public:${clientSubject(req.ip)}`, limit);
    if (r.allowed) {
      setHeaders(reply, limit, r.remaining, r.resetS);
      return payload;
    }
    const err = refusal(reply, limit, r.retryAfterS);
    reply.code(429).header('content-type', 'application/json; charset=utf-8');
    return JSON.stringify(err.body());
  });
  app.addHook('onSend', async (req, reply, payload) => {
    const held = admissions.get(req);
    if (reply.statusCode !== 429 || !held) return payload;
    admissions.delete(req);
    await Promise.all(held.map(({ key, ticket }) => counters.takeBack(key, ticket)));
    return payload;
  });
}
