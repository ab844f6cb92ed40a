// Environment → validated configuration. Every tunable of the service lives here.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseDkimKeys } from './dkim-keys.ts';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** CIDRs (comma-separated; empty: none), as [address, prefix length] */
const cidrList = (byDefault: string) => z.string().default(byDefault).transform((raw, ctx): [string, number][] => {
  const out: [string, number][] = [];
  for (const entry of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [addr, prefix, ...rest] = entry.split('/');
    const family = isIP(addr);
    const bits = prefix === undefined ? (family === 4 ? 32 : 128) : /^\d+$/.test(prefix) ? Number(prefix) : -1;
    if (!family || rest.length || bits < 0 || bits > (family === 4 ? 32 : 128)) {
      ctx.addIssue({ code: 'custom', message: `addresses or CIDRs (comma-separated); not ${entry}` });
      return z.NEVER;
    }
    out.push([addr, bits]);
  }
  return out;
});

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

/** The path of a PEM file of CA certificates → its text (unset: undefined); unreadable or not PEM: refused. */
const caFile = () =>
  z
    .string()
    .optional()
    .transform((file, ctx) => {
      if (!file) return undefined;
      try {
        const pem = readFileSync(file, 'utf8');
        if (pem.includes('-----BEGIN CERTIFICATE-----')) return pem;
        ctx.addIssue({ code: 'custom', message: `${file} holds no PEM certificate` });
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}` });
      }
      return z.NEVER;
    });

const DELAY_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Retry delays such as "30s,5m,30m" (ms, s, m, h) → milliseconds, one per retry. */
const retryDelays = z.string().transform((spec, ctx): number[] => {
  const delays: number[] = [];
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(part);
    if (!m) {
      ctx.addIssue({ code: 'custom', message: `cannot read "${part}" (use e.g. 30s,5m,30m)` });
      return z.NEVER;
    }
    delays.push(Math.round(Number(m[1]) * DELAY_UNITS_MS[m[2] as keyof typeof DELAY_UNITS_MS]));
  }
  return delays;
});

/** Reads a WEBHOOK_RETRY_DELAYS value on its own; throws naming the variable. */
export function parseDelays(spec: string): number[] {
  const parsed = retryDelays.safeParse(spec);
  if (!parsed.success) throw new Error(`WEBHOOK_RETRY_DELAYS: ${parsed.error.issues[0].message}`);
  return parsed.data;
}

/** The daily window of quiet hours in minutes since local midnight (it may span midnight); `window` as configured, for messages. */
export interface QuietHours {
  window: string;
  startMin: number;
  endMin: number;
}

const quietHours = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-3]):[0-5]\d$|^off$/, 'HH:MM-HH:MM or off')
  .transform((window): QuietHours | null => {
    if (window === 'off') return null;
    const minuteOfDay = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
    const [start, end] = window.split('-');
    return { window, startMin: minuteOfDay(start), endMin: minuteOfDay(end) };
  });

/** An IANA time zone name this runtime knows (Intl refuses the rest, which would otherwise fail at the first send). */
const timeZone = z.string().refine(
  (name) => {
    try {
      new Intl.DateTimeFormat('en-GB', { timeZone: name });
      return true;
    } catch {
      return false;
    }
  },
  { message: 'not a time zone (use an IANA name such as UTC or Europe/Berlin)' },
);

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
  /**
   * scrypt's cost N for new dashboard password hashes (README "Security notes"): a power of two;
   * 2^17 is OWASP's minimum, and the start warns below it. Lower only where no real password is
   * kept: a test run creates thousands of accounts, at a second of CPU each at 2^17.
   */
  PASSWORD_SCRYPT_N: z.coerce
    .number()
    .int()
    .min(2 ** 10)
    .max(2 ** 20)
    .refine((n) => (n & (n - 1)) === 0, 'a power of two, such as 131072 (2^17)')
    .default(2 ** 17),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** /health and `engage projections status` warn once one open transaction has held catch-up readers back this long */
  READER_HOLD_WARN_MS: z.coerce.number().int().min(0).default(30_000),
  READ_YOUR_WRITES_TIMEOUT_MS: z.coerce.number().int().min(0).default(2000),
  /** positions per partition of the event log (README "The log at scale") */
  LOG_PARTITION_EVENTS: z.coerce.number().int().min(100).default(10_000_000),
  /** an archive in an S3-compatible bucket (README "Archiving old partitions"): another service than AWS S3 (MinIO, Ceph…) */
  LOG_ARCHIVE_S3_ENDPOINT: z.url().optional(),
  LOG_ARCHIVE_S3_REGION: z.string().min(1).default('us-east-1'),
  /** the bucket in the path, not the host name (default: on with an endpoint, off for AWS S3) */
  LOG_ARCHIVE_S3_PATH_STYLE: bool.optional(),
  /** unset: the AWS SDK's own credentials (AWS_ACCESS_KEY_ID…, profiles, instance roles) */
  LOG_ARCHIVE_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  LOG_ARCHIVE_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  RATE_LIMITS_ENABLED: bool.default(true),
  /** the built dashboard served at /app (unset: dist/dashboard in the checkout or image) */
  DASHBOARD_DIR: z.string().min(1).optional(),
  /** which reverse proxies' X-Forwarded-For to believe for the client address (rate limits per IP); off by default */
  TRUST_PROXY: trustProxy,
  /** the waits before each retry of a failed webhook delivery; after the last, it has failed */
  WEBHOOK_RETRY_DELAYS: retryDelays.prefault('30s,5m,30m'),
  /**
   * Every connection an account aims (webhook receivers, per-message and inbound webhook URLs, BIMI
   * logos, its own SMTP server) may reach private addresses: local development and tests only.
   * WEBHOOK_ALLOW_PRIVATE is its older name and still works; loadConfig gives both fields its value.
   */
  OUTBOUND_ALLOW_PRIVATE: bool.optional(),
  WEBHOOK_ALLOW_PRIVATE: bool.optional(),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(256),
  WEBHOOK_PER_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(32),
  /** how long a claimed delivery stays invisible to other senders (never less than 3 × WEBHOOK_TIMEOUT_MS): after a crash, what was in flight is sent again once it ends */
  WEBHOOK_LEASE_MS: z.coerce.number().int().min(1000).default(60_000),
  /** smtp://user:pass@host:587 (STARTTLS when offered) or smtps://…:465; switches the email channel to SMTP */
  SMTP_URL: z.url({ protocol: /^smtps?$/, message: 'an SMTP URL such as smtp://user:pass@host:587 or smtps://user:pass@host:465' }).optional(),
  SANDBOX_DELIVERY_DELAY_MS: z.coerce.number().int().min(0).default(200),
  EMAIL_FROM: z.string().default('no-reply@engage.local'),
  MARKETING_CAP_PER_DAY: z.coerce.number().int().min(0).default(2),
  /** marketing sends wait out these hours in the recipient's time zone; "off" for none */
  QUIET_HOURS: quietHours.prefault('21:00-08:00'),
  DEFAULT_TIMEZONE: timeZone.default('UTC'),
  DISPATCH_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(500),
  DISPATCH_CONCURRENCY: z.coerce.number().int().min(1).max(10000).default(256),
  DISPATCH_LEASE_MS: z.coerce.number().int().min(1000).default(60_000),
  DISPATCH_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(5),
  DISPATCH_RETRY_BASE_MS: z.coerce.number().int().min(10).default(1000),
  /** must stay well under DISPATCH_LEASE_MS, so a slow call cannot outlive its claim */
  DISPATCH_PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  WORKERS_ENABLED: bool.default(true),
  /** contacts imports: data rows written per batch (one transaction each), and imports run at once per process (one per account) */
  IMPORT_BATCH_ROWS: z.coerce.number().int().min(1).max(20_000).default(2000),
  IMPORT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
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
  DKIM_KEYS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return parseDkimKeys(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message.replace(/^DKIM_KEYS: /, '') });
        return z.NEVER;
      }
    }),
  // inbound messages (README "Inbound messages and conversations")
  /** the domain of every account's reply address (<account id>@this domain); its MX points at the inbound SMTP listener */
  INBOUND_EMAIL_DOMAIN: z
    .string()
    .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'a domain name such as inbound.example.com')
    .transform((d) => d.toLowerCase())
    .default('inbound.engage.local'),
  /** the inbound SMTP listener's port (25 behind the MX); unset: no listener */
  INBOUND_SMTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** loopback unless an operator exposes the MX (0.0.0.0 or an address): README "Security notes" */
  INBOUND_SMTP_HOST: z.string().default('127.0.0.1'),
  /** the largest inbound email accepted, in bytes: advertised (SIZE), and what goes over it is not kept */
  INBOUND_SMTP_MAX_BYTES: z.coerce.number().int().min(1024).default(10 * 1024 * 1024),
  /** connections the inbound SMTP listener holds at once, overall and from one client address (more: 421) */
  INBOUND_SMTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100_000).default(200),
  INBOUND_SMTP_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(10),
  /** the number sms, rcs and voice messages without a sender go out from (replies to it are routed by it) */
  DEFAULT_SMS_SENDER: z.string().min(1).max(255).optional(),
  /** the number whatsapp messages without a sender go out from */
  DEFAULT_WHATSAPP_SENDER: z.string().min(1).max(255).optional(),
  // email and link domains (README "Email domains" and "Link domains and click tracking")
  /**
   * days an account's tracked links show an interstitial page (naming the destination, no redirect)
   * on the shared click host, rather than redirecting; its verified link domain always redirects. 0: never
   */
  CLICK_INTERSTITIAL_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
  /** where mail clients' image proxies fetch from (Apple Mail Privacy Protection: 17.0.0.0/8): an open from there is a machine's */
  OPEN_MACHINE_RANGES: cidrList('17.0.0.0/8'),
  /** an open this soon after the message was sent is a machine's too (a scanner fetching on arrival) */
  OPEN_MACHINE_SECONDS: z.coerce.number().int().min(0).max(3600).default(5),
  /** DNS servers domain checks ask, "host:port" or "host", comma-separated; unset: the system resolver */
  DNS_SERVERS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const servers = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      for (const s of servers) {
        if (!/^(\[[0-9a-f:.]+\]|[0-9.]+|[0-9a-f:]+)(:\d{1,5})?$/i.test(s)) {
          ctx.addIssue({ code: 'custom', message: `${JSON.stringify(s)} is not an address or address:port (1.1.1.1, 127.0.0.1:5353, [::1]:53)` });
          return z.NEVER;
        }
      }
      return servers;
    }),
  /** the SPF include every sending domain publishes: our outbound servers' addresses live behind it */
  EMAIL_SPF_INCLUDE: z.string().regex(/^[a-z0-9.-]+$/i, 'a domain name').default('spf.engage.local'),
  /** the host each domain's return-path CNAME (bounces.<domain>) points at: where bounces come back */
  EMAIL_RETURN_PATH_HOST: z.string().regex(/^[a-z0-9.-]+$/i, 'a domain name').default('bounces.engage.local'),
  /** the DMARC aggregate report address (rua) of the records we suggest; unset: dmarc@INBOUND_EMAIL_DOMAIN */
  DMARC_REPORTS_ADDRESS: z.email().optional(),
  /** extra CA certificates (a PEM file) trusted for outbound https fetches such as BIMI logos, besides the public roots */
  OUTBOUND_CA_FILE: caFile(),
  /** the host link domains' CNAME points at, and the click links' host when an account has no verified link domain */
  LINK_TRACKING_HOST: z.string().regex(/^[a-z0-9.-]+(:\d+)?$/i, 'a host name').optional(),
  // integrations' providers (README "Integrations"): their API hosts, changed only to reach a test double
  TWILIO_API_BASE: z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/$/, '')).default('https://api.twilio.com'),
  SENDGRID_API_BASE: z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/$/, '')).default('https://api.sendgrid.com'),
  WHATSAPP_API_BASE: z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/$/, '')).default('https://graph.facebook.com'),
  FCM_API_BASE: z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/$/, '')).default('https://fcm.googleapis.com'),
  /** Google's OAuth 2.0 token endpoint for FCM's access tokens: the service's, never a key file's token_uri (an account could aim it anywhere) */
  FCM_TOKEN_URL: z.url({ protocol: /^https?$/ }).default('https://oauth2.googleapis.com/token'),
  /** APNs' host for every apns integration; unset, Apple's host of the integration's environment (api.push.apple.com, api.sandbox.push.apple.com) */
  APNS_API_BASE: z.url({ protocol: /^https$/ }).transform((u) => u.replace(/\/$/, '')).optional(),
  /** extra CA certificates (a PEM file) trusted for APNs' host besides the public roots: a test double's */
  APNS_CA_FILE: caFile(),
  // AI writing helpers (README "AI helpers"): an OpenAI-compatible chat-completions API; all three
  // set, or the helpers answer with their deterministic fallback (degraded: true)
  AI_BASE_URL: z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/$/, '')).optional(),
  AI_API_KEY: z.string().min(1).optional(),
  AI_MODEL: z.string().min(1).max(200).optional(),
  /** one chat-completions attempt's time limit */
  AI_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(20_000),
  /** further attempts after a timeout, a network error, a 429 or a 5xx */
  AI_MAX_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  /** where the account's data is kept and processed, shown by GET /v1/account/plan */
  DATA_REGION: z.enum(['global', 'eu', 'us']).default('global'),
  /** pooled SMTP connections per process */
  SMTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100).default(5),
  /** connect, greeting and socket-inactivity timeout of an SMTP connection; below DISPATCH_LEASE_MS */
  SMTP_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** threads for CPU-heavy request work (README "Security notes"): all cores but the request loop's */
  CPU_WORK_THREADS: z.coerce.number().int().min(1).max(64).default(Math.max(1, availableParallelism() - 1)),
  /** one such task's time limit; past it the input is refused with a 400 */
  CPU_WORK_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
});

/** The name of every setting the service reads (README "Configuration" lists each one). */
export const SETTING_NAMES: readonly string[] = Object.keys(ConfigSchema.shape);

export type Config = Omit<z.infer<typeof ConfigSchema>, 'OUTBOUND_ALLOW_PRIVATE' | 'WEBHOOK_ALLOW_PRIVATE'> & {
  OUTBOUND_ALLOW_PRIVATE: boolean;
  /** the same value as OUTBOUND_ALLOW_PRIVATE (its older name) */
  WEBHOOK_ALLOW_PRIVATE: boolean;
};

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
  const { OUTBOUND_ALLOW_PRIVATE: outbound, WEBHOOK_ALLOW_PRIVATE: webhook, ...rest } = parsed.data;
  if (outbound !== undefined && webhook !== undefined && outbound !== webhook) {
    throw new Error('invalid configuration:\n  OUTBOUND_ALLOW_PRIVATE and WEBHOOK_ALLOW_PRIVATE (its older name) disagree: set one');
  }
  const allowPrivate = outbound ?? webhook ?? false;
  return { ...rest, OUTBOUND_ALLOW_PRIVATE: allowPrivate, WEBHOOK_ALLOW_PRIVATE: allowPrivate };
}
