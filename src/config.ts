// Environment → validated configuration. Every tunable of the service lives here.
import { isIP } from 'node:net';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** fastify's trustProxy: false (default), true (trust every hop), or addresses/CIDRs of the proxies (comma-separated) */
const trustProxy = z
  .string()
  .default('false')
  .transform((raw, ctx): boolean | string => {
    const v = raw.trim();
    if (v === '' || /^(false|no|0)$/i.test(v)) return false;
    if (/^(true|yes)$/i.test(v)) return true;
    if (/^\d+$/.test(v)) {
      // fastify 5 trusts nothing for a hop count (it cannot check the immediate peer): say so instead
      ctx.addIssue({ code: 'custom', message: 'a hop count is not supported; list the proxies\' addresses or CIDRs (or loopback, linklocal, uniquelocal)' });
      return z.NEVER;
    }
    const list = v.split(',').map((s) => s.trim()).filter(Boolean);
    const bad = list.filter((entry) => {
      if (PROXY_NAMES.has(entry)) return false;
      const [addr, prefix, ...rest] = entry.split('/');
      const family = isIP(addr);
      if (!family || rest.length) return true;
      return prefix !== undefined && !(/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
    });
    if (bad.length) {
      ctx.addIssue({ code: 'custom', message: `false, true, or proxy addresses/CIDRs (comma-separated); not ${bad.join(', ')}` });
      return z.NEVER;
    }
    return list.join(',');
  });

const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().optional(),
  EVENTSTORE_URL: z.string().optional(),
  ENGAGE_DATA_DIR: z.string().default('./.engage'),
  /** unset: a free port picked on first start and remembered in ENGAGE_DATA_DIR/postgres.json */
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  REDIS_URL: z.string().optional(),
  JWT_SECRET: z.string().min(16).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** /health and `engage projections status` warn once one open transaction has held catch-up readers back this long */
  READER_HOLD_WARN_MS: z.coerce.number().int().min(0).default(30_000),
  READ_YOUR_WRITES_TIMEOUT_MS: z.coerce.number().int().min(0).default(2000),
  RATE_LIMITS_ENABLED: bool.default(true),
  /** which reverse proxies' X-Forwarded-For to believe for the client address (rate limits per IP); off by default */
  TRUST_PROXY: trustProxy,
  WEBHOOK_RETRY_DELAYS: z.string().default('30s,5m,30m'),
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(256),
  WEBHOOK_PER_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(32),
  /** how long a claimed delivery stays invisible to other senders (never less than 3 × WEBHOOK_TIMEOUT_MS): after a crash, what was in flight is sent again once it ends */
  WEBHOOK_LEASE_MS: z.coerce.number().int().min(1000).default(60_000),
  SMTP_URL: z.string().optional(),
  SANDBOX_DELIVERY_DELAY_MS: z.coerce.number().int().min(0).default(200),
  EMAIL_FROM: z.string().default('no-reply@engage.local'),
  MARKETING_CAP_PER_DAY: z.coerce.number().int().min(0).default(2),
  QUIET_HOURS: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-3]):[0-5]\d$|^off$/, 'HH:MM-HH:MM or off')
    .default('21:00-08:00'),
  DEFAULT_TIMEZONE: z.string().default('UTC'),
  DISPATCH_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(500),
  DISPATCH_CONCURRENCY: z.coerce.number().int().min(1).max(10000).default(256),
  DISPATCH_LEASE_MS: z.coerce.number().int().min(1000).default(60_000),
  DISPATCH_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(5),
  DISPATCH_RETRY_BASE_MS: z.coerce.number().int().min(10).default(1000),
  /** must stay well under DISPATCH_LEASE_MS, so a slow call cannot outlive its claim */
  DISPATCH_PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  WORKERS_ENABLED: bool.default(true),
  // inbound provider callbacks (/v1/webhooks/<provider>): shared secrets / signing keys; each one
  // left unset is generated once and kept in the service_secrets table (README: Provider callbacks)
  WEBHOOK_SECRET_SANDBOX: z.string().min(16).optional(),
  WEBHOOK_SECRET_SMTP: z.string().min(16).optional(),
  WEBHOOK_SECRET_CARRIER: z.string().min(16).optional(),
  WEBHOOK_SECRET_WHATSAPP: z.string().min(16).optional(),
  WHATSAPP_VERIFY_TOKEN: z.string().min(1).optional(),
  /** the public URL the service is reached at (scheme, host, optional path prefix), used to verify URL-signed callbacks behind proxies */
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/, message: 'an http(s) URL such as https://api.example.com' }).optional(),
  // email over SMTP (README "Email over SMTP"); SMTP_URL above switches the email channel to it
  /** JSON map domain → {selector, privateKey (PEM)}, or a path to a file holding that JSON */
  DKIM_KEYS: z.string().optional(),
  /** pooled SMTP connections per process */
  SMTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100).default(5),
  /** connect, greeting and socket-inactivity timeout of an SMTP connection; below DISPATCH_LEASE_MS */
  SMTP_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
});

export type Config = z.infer<typeof ConfigSchema>;

/**
 * An empty variable (`PORT=`, `WEBHOOK_ALLOW_PRIVATE=`, also one of only spaces) is unset, as shells,
 * `.env` files and compose files produce them: it gets the default. A non-empty bad value is refused.
 */
export function withoutEmpty(env: Record<string, string | undefined>): Record<string, string> {
  const set: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value.trim() !== '') set[name] = value;
  return set;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = ConfigSchema.safeParse(withoutEmpty(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return parsed.data;
}
