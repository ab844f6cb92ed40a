// Environment → validated configuration. Every tunable of the service lives here.
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().optional(),
  EVENTSTORE_URL: z.string().optional(),
  ENGAGE_DATA_DIR: z.string().default('./.engage'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  REDIS_URL: z.string().optional(),
  JWT_SECRET: z.string().min(16).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  READ_YOUR_WRITES_TIMEOUT_MS: z.coerce.number().int().min(0).default(2000),
  RATE_LIMITS_ENABLED: bool.default(true),
  WEBHOOK_RETRY_DELAYS: z.string().default('30s,5m,30m'),
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(256),
  WEBHOOK_PER_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(32),
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

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return parsed.data;
}
