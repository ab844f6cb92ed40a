// Integrations with outside providers: each provider's credentials validated by their own shape,
// sealed into the creation event, and shown afterwards only as a hint (README "Integrations").
import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import { type IntegrationProvider, integrationDecider, integrationStream } from '../../commands/integration.ts';
import type { IntegrationRow } from '../../projections/integrations.ts';
import { handleCommand } from '../command-handler.ts';
import type { Engage } from '../context.ts';
import { invalid, invalidField, notFound } from '../errors.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { isId, newId } from '../ids.ts';
import { seal } from '../seal.ts';
import { toIssues } from '../validation.ts';
import { checkSmtpUrl } from '../webhooks/ssrf.ts';

const secret = (min = 8) => z.string().min(min).max(4096);
const E164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'an E.164 number such as +14155550123');

/** Whether a PEM is a PKCS #8 private key of the kind a JWT algorithm signs with (RS256: RSA; ES256: P-256). */
function isPkcs8Key(pem: string, kind: 'rsa' | 'p256'): boolean {
  if (!pem.includes('-----BEGIN PRIVATE KEY-----')) return false;
  try {
    const key = createPrivateKey(pem);
    return kind === 'rsa' ? key.asymmetricKeyType === 'rsa' : key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  } catch {
    return false;
  }
}

/** A PEM as JSON and environment variables carry it: escaped line breaks are line breaks. */
const pemText = (v: unknown) => (typeof v === 'string' ? v.replace(/\\n/g, '\n').trim() : v);

/**
 * A Firebase service account's key file, as its JSON object or text (README "Integrations"): the
 * fields FCM needs are checked and kept (its token_uri is read but never used: the token URL is the
 * service's FCM_TOKEN_URL); the others of the file are let through and dropped.
 */
const serviceAccount = z
  .preprocess(
    (v) => {
      if (typeof v !== 'string') return v;
      try {
        return JSON.parse(v) as unknown;
      } catch {
        return v;
      }
    },
    z.looseObject(
      {
        type: z.literal('service_account', 'the key file of a service account ("type": "service_account")'),
        project_id: z.string().regex(/^([a-z0-9.-]+:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$/, 'a Google Cloud project id'),
        private_key_id: z.string().regex(/^[0-9a-f]{8,64}$/, 'the id of the key (hex digits)').optional(),
        client_email: z.email('the service account\'s email address'),
        private_key: z.preprocess(pemText, z.string().max(16_384).refine((pem) => isPkcs8Key(pem, 'rsa'), 'a PEM RSA private key (-----BEGIN PRIVATE KEY-----)')),
        token_uri: z.url().optional(),
      },
      'the service account JSON Firebase gives (an object, or its text)',
    ),
  )
  .transform(({ project_id, private_key_id, client_email, private_key }) =>
    JSON.stringify({ type: 'service_account', project_id, ...(private_key_id ? { private_key_id } : {}), client_email, private_key }),
  );

/** A Twilio account's credentials, the same for every Twilio integration (sms, voice, rcs). */
const twilioAccount = {
  account_sid: z.string().regex(/^AC[0-9a-f]{32}$/, 'a Twilio Account SID (AC + 32 hex digits)'),
  auth_token: z.string().regex(/^[0-9a-f]{32}$/, 'a Twilio auth token (32 hex digits)'),
};

const appleId = (what: string) => z.string().regex(/^[A-Z0-9]{10}$/, `the ${what} (10 characters, A-Z and 0-9)`);

/** Per provider: the channel it carries and the credentials it needs. */
export const PROVIDERS = {
  smtp: { channel: 'email', credentials: z.strictObject({ url: z.url({ protocol: /^smtps?$/, message: 'smtp://user:pass@host:587 or smtps://…:465' }), from: z.email().optional() }) },
  sendgrid: { channel: 'email', credentials: z.strictObject({ api_key: z.string().regex(/^SG\.[\w-]{16,}\.[\w-]{16,}$/, 'a SendGrid API key (SG.….…)') }) },
  twilio: { channel: 'sms', credentials: z.strictObject({ ...twilioAccount, from: E164.optional() }) },
  twilio_voice: { channel: 'voice', credentials: z.strictObject({ ...twilioAccount, from: E164.optional() }) },
  twilio_rcs: {
    channel: 'rcs',
    credentials: z.strictObject({ ...twilioAccount, messaging_service_sid: z.string().regex(/^MG[0-9a-f]{32}$/, 'a Twilio Messaging Service SID (MG + 32 hex digits)') }),
  },
  whatsapp_cloud: { channel: 'whatsapp', credentials: z.strictObject({ phone_number_id: z.string().regex(/^\d{5,20}$/, 'the numeric phone number id'), access_token: secret(20) }) },
  fcm: { channel: 'push', credentials: z.strictObject({ service_account: serviceAccount }) },
  apns: {
    channel: 'push',
    credentials: z.strictObject({
      key_p8: z.preprocess(pemText, z.string().max(4096).refine((pem) => isPkcs8Key(pem, 'p256'), 'the PEM of the .p8 key (-----BEGIN PRIVATE KEY-----, P-256)')),
      key_id: appleId('key id'),
      team_id: appleId('team id'),
      topic: z.string().max(255).regex(/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/, "the app's bundle id (com.example.app)"),
      environment: z.enum(['production', 'sandbox']).optional(),
    }),
  },
} as const satisfies Record<IntegrationProvider, { channel: string; credentials: z.ZodType }>;

/**
 * The credentials of an integration, checked by the provider's shape and, for an account's own SMTP
 * server, by where they aim (public host, SMTP port: README "Integrations"); a 400 naming
 * credentials.<field> otherwise.
 */
export function checkedCredentials(provider: IntegrationProvider, credentials: unknown, allowPrivate: boolean): Record<string, string> {
  const parsed = PROVIDERS[provider].credentials.safeParse(credentials);
  if (!parsed.success) throw invalid(toIssues(parsed.error, 'credentials'));
  const checked = parsed.data as Record<string, string>;
  if (provider === 'smtp') {
    const problem = checkSmtpUrl(new URL(checked.url), allowPrivate);
    if (problem) throw invalidField('credentials.url', problem);
  }
  return checked;
}

const tail = (s: string) => `…${s.slice(-4)}`;
/** A credential that is also a name (an SMTP user name, which is Postmark's server token; a Twilio account SID): its first and last 2 characters. */
const masked = (s: string) => (s.includes('…') ? s : s.length < 8 ? '…' : `${s.slice(0, 2)}…${s.slice(-2)}`);

/** What identifies the credentials without giving any of them away (README "Integrations"). */
function hintOf(provider: IntegrationProvider, c: Record<string, string>): string {
  switch (provider) {
    case 'smtp': {
      const u = new URL(c.url);
      return `${u.protocol}//${u.username ? `${masked(decodeURIComponent(u.username))}@` : ''}${u.host}`;
    }
    case 'sendgrid':
      return `api key ${tail(c.api_key)}`;
    case 'twilio':
    case 'twilio_voice':
      return `account ${masked(c.account_sid)}`;
    case 'twilio_rcs':
      return `account ${masked(c.account_sid)}, messaging service ${masked(c.messaging_service_sid)}`;
    case 'whatsapp_cloud':
      return `phone number id ${c.phone_number_id}`;
    case 'fcm': {
      const { project_id, client_email } = JSON.parse(c.service_account) as { project_id: string; client_email: string };
      const at = client_email.lastIndexOf('@');
      return `project ${project_id}, ${masked(client_email.slice(0, at))}${client_email.slice(at)}`;
    }
    case 'apns':
      return `team ${c.team_id}, key ${c.key_id}, ${c.topic}`;
  }
}

/** A hint stored before hints were masked (the log keeps it whole) is masked when shown. */
function shownHint(provider: string, hint: string): string {
  if (provider === 'smtp') return hint.replace(/^(smtps?:\/\/)([^@]+)@/, (_, scheme: string, user: string) => `${scheme}${masked(user)}@`);
  if (provider === 'twilio') return hint.replace(/^account (\S+)$/, (_, sid: string) => `account ${masked(sid)}`);
  return hint;
}

export const integrationOut = (r: Pick<IntegrationRow, 'id' | 'provider' | 'channel' | 'name' | 'hint'> & { created_at: Date | string }) => ({
  id: r.id,
  provider: r.provider,
  channel: r.channel,
  name: r.name,
  credentials: { hint: shownHint(r.provider, r.hint) },
  created_at: new Date(r.created_at).toISOString(),
});

export async function createIntegration(
  engage: Engage,
  accountId: string,
  input: { provider: IntegrationProvider; name?: string; credentials: Record<string, string> },
  metadata: EventMetadata,
) {
  const id = newId('integration');
  const { channel } = PROVIDERS[input.provider];
  const record = {
    id,
    account_id: accountId,
    provider: input.provider,
    channel,
    name: input.name ?? input.provider,
    credentials_sealed: await seal(engage.pool, JSON.stringify(input.credentials)),
    hint: hintOf(input.provider, input.credentials),
  };
  const result = await handleCommand(engage.store, integrationDecider, integrationStream(id), { type: 'Create', record, now: engage.clock.now() }, metadata);
  return { integration: integrationOut(result.state.record!), position: result.position };
}

export async function removeIntegration(engage: Engage, accountId: string, id: string, metadata: EventMetadata) {
  if (!isId('integration', id)) throw notFound('integration');
  const result = await handleCommand(engage.store, integrationDecider, integrationStream(id), { type: 'Remove', accountId, now: engage.clock.now() }, metadata);
  return { position: result.position };
}
