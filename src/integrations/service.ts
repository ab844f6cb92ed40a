// Integrations with outside providers: each provider's credentials validated by their own shape,
// sealed into the creation event, and shown afterwards only as a hint (README "Integrations").
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

/** Per provider: the channel it carries and the credentials it needs. */
export const PROVIDERS = {
  smtp: { channel: 'email', credentials: z.strictObject({ url: z.url({ protocol: /^smtps?$/, message: 'smtp://user:pass@host:587 or smtps://…:465' }), from: z.email().optional() }) },
  sendgrid: { channel: 'email', credentials: z.strictObject({ api_key: z.string().regex(/^SG\.[\w-]{16,}\.[\w-]{16,}$/, 'a SendGrid API key (SG.….…)') }) },
  twilio: { channel: 'sms', credentials: z.strictObject({ account_sid: z.string().regex(/^AC[0-9a-f]{32}$/, 'a Twilio Account SID (AC + 32 hex digits)'), auth_token: z.string().regex(/^[0-9a-f]{32}$/, 'a Twilio auth token (32 hex digits)'), from: E164.optional() }) },
  whatsapp_cloud: { channel: 'whatsapp', credentials: z.strictObject({ phone_number_id: z.string().regex(/^\d{5,20}$/, 'the numeric phone number id'), access_token: secret(20) }) },
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
      return `account ${masked(c.account_sid)}`;
    case 'whatsapp_cloud':
      return `phone number id ${c.phone_number_id}`;
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
