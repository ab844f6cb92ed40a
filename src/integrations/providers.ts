// The providers of accounts' integrations at dispatch: an account with an integration for a
// channel sends that channel's messages through it (its own SMTP server, SendGrid, Twilio or
// WhatsApp Cloud account) instead of the service's provider. The account's integrations are read
// once per INTEGRATIONS_TTL_MS; one provider instance per integration, closed once it is removed.
import type pg from 'pg';
import type { Channel } from '../../commands/message.ts';
import { accountIntegrations, type IntegrationRow } from '../../projections/integrations.ts';
import { SendgridProvider } from '../channels/sendgrid.ts';
import { type AccountDkimKeyLookup, SmtpProvider } from '../channels/smtp.ts';
import { TwilioProvider } from '../channels/twilio.ts';
import { WhatsappCloudProvider } from '../channels/whatsapp-cloud.ts';
import type { ChannelProvider } from '../channels/port.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { unseal } from '../seal.ts';
import { TtlCache } from '../ttl-cache.ts';

export const INTEGRATIONS_TTL_MS = 5_000;

export type IntegrationConfig = Pick<Config, 'EMAIL_FROM' | 'TWILIO_API_BASE' | 'SENDGRID_API_BASE' | 'WHATSAPP_API_BASE' | 'DISPATCH_PROVIDER_TIMEOUT_MS' | 'PUBLIC_BASE_URL' | 'SMTP_TIMEOUT_MS' | 'OUTBOUND_ALLOW_PRIVATE'>;

export class IntegrationProviders {
  private readonly byAccount: TtlCache<IntegrationRow[]>;
  private readonly instances = new Map<string, { accountId: string; provider: Promise<ChannelProvider> }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly config: IntegrationConfig,
    clock: Clock,
    private readonly accountKeyFor?: AccountDkimKeyLookup,
  ) {
    this.byAccount = new TtlCache({ ttlMs: INTEGRATIONS_TTL_MS, max: 10_000, clock });
  }

  /** The provider of the account's newest integration for the channel, if it has one. */
  async providerFor(accountId: string, channel: Channel): Promise<ChannelProvider | undefined> {
    const rows = await this.integrationsOf(accountId);
    const row = rows.find((r) => r.channel === channel);
    if (!row) return undefined;
    let instance = this.instances.get(row.id);
    if (!instance) {
      instance = { accountId, provider: this.build(row) };
      this.instances.set(row.id, instance);
      instance.provider.catch(() => this.instances.delete(row.id));
    }
    return instance.provider;
  }

  private async integrationsOf(accountId: string): Promise<IntegrationRow[]> {
    const rows = await this.byAccount.get(accountId, async () => {
      const live = await accountIntegrations(this.pool, accountId);
      this.retire(accountId, live);
      return live;
    });
    return rows ?? [];
  }

  /** Closes the instances of the account's integrations that are gone. */
  private retire(accountId: string, live: IntegrationRow[]): void {
    const ids = new Set(live.map((r) => r.id));
    for (const [id, instance] of this.instances) {
      if (instance.accountId !== accountId || ids.has(id)) continue;
      this.instances.delete(id);
      void instance.provider.then((p) => p.close?.()).catch(() => undefined);
    }
  }

  private async build(row: IntegrationRow): Promise<ChannelProvider> {
    const credentials = JSON.parse(await unseal(this.pool, row.credentials_sealed)) as Record<string, string>;
    const timeoutMs = this.config.DISPATCH_PROVIDER_TIMEOUT_MS;
    return ((): ChannelProvider => {
      switch (row.provider) {
        case 'smtp':
          // the account's own server: checked and pinned at every connection (README "Integrations")
          return new SmtpProvider({
            url: credentials.url,
            defaultFrom: credentials.from ?? this.config.EMAIL_FROM,
            maxConnections: 2,
            timeoutMs: this.config.SMTP_TIMEOUT_MS,
            accountAimed: { allowPrivate: this.config.OUTBOUND_ALLOW_PRIVATE },
            ...(this.accountKeyFor ? { accountKeyFor: this.accountKeyFor } : {}),
          });
        case 'sendgrid':
          return new SendgridProvider({ api_key: credentials.api_key }, { apiBase: this.config.SENDGRID_API_BASE, timeoutMs, defaultFrom: this.config.EMAIL_FROM });
        case 'twilio':
          return new TwilioProvider(
            { account_sid: credentials.account_sid, auth_token: credentials.auth_token, ...(credentials.from ? { from: credentials.from } : {}) },
            { apiBase: this.config.TWILIO_API_BASE, timeoutMs, ...(this.config.PUBLIC_BASE_URL ? { statusCallback: new URL('/v1/webhooks/carrier', this.config.PUBLIC_BASE_URL).toString() } : {}) },
          );
        case 'whatsapp_cloud':
          return new WhatsappCloudProvider({ phone_number_id: credentials.phone_number_id, access_token: credentials.access_token }, { apiBase: this.config.WHATSAPP_API_BASE, timeoutMs });
        default:
          throw new Error(`integration ${row.id}: no provider for ${row.provider}`);
      }
    })();
  }

  async close(): Promise<void> {
    const all = [...this.instances.values()];
    this.instances.clear();
    await Promise.allSettled(all.map(async (i) => (await i.provider).close?.()));
  }
}
