// The providers of accounts' integrations at dispatch: an account with an integration for a
// channel sends that channel's messages through it (its own SMTP server, SendGrid, Twilio for sms,
// voice or rcs, WhatsApp Cloud, Firebase or Apple account) instead of the service's provider; with
// both an APNs and an FCM integration, each push goes to the one its device token belongs to. The
// account's integrations are read once per INTEGRATIONS_TTL_MS; one provider instance per
// integration, closed once it is removed (README "Integrations").
import type pg from 'pg';
import type { Channel } from '../../commands/message.ts';
import { accountIntegrations, type IntegrationRow } from '../../projections/integrations.ts';
import { ApnsProvider, type ApnsCredentials, apnsBase } from '../channels/apns.ts';
import { FcmProvider, type FcmServiceAccount } from '../channels/fcm.ts';
import { PushRouter } from '../channels/push-router.ts';
import { SendgridProvider } from '../channels/sendgrid.ts';
import { type AccountDkimKeyLookup, SmtpProvider } from '../channels/smtp.ts';
import { TwilioProvider, type TwilioCredentials } from '../channels/twilio.ts';
import { TwilioVoiceProvider } from '../channels/twilio-voice.ts';
import { WhatsappCloudProvider } from '../channels/whatsapp-cloud.ts';
import type { ChannelProvider } from '../channels/port.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { unseal } from '../seal.ts';
import { TtlCache } from '../ttl-cache.ts';

export const INTEGRATIONS_TTL_MS = 5_000;

/**
 * Where Twilio reports on an integration's messages and calls: the carrier callback route with the
 * integration's id, PUBLIC_BASE_URL's path prefix kept (the route checks the signature over
 * PUBLIC_BASE_URL + the path it is called at).
 */
export const carrierCallbackUrl = (publicBaseUrl: string, integrationId: string) =>
  `${publicBaseUrl.replace(/\/+$/, '')}/v1/webhooks/carrier?integration=${encodeURIComponent(integrationId)}`;

/** The fields of a Twilio integration's credentials its provider reads (the others' absent ones left out). */
function twilioCredentials(c: Record<string, string>): TwilioCredentials {
  return {
    account_sid: c.account_sid,
    auth_token: c.auth_token,
    ...(c.from ? { from: c.from } : {}),
    ...(c.messaging_service_sid ? { messaging_service_sid: c.messaging_service_sid } : {}),
  };
}

export type IntegrationConfig = Pick<
  Config,
  | 'EMAIL_FROM'
  | 'TWILIO_API_BASE'
  | 'SENDGRID_API_BASE'
  | 'WHATSAPP_API_BASE'
  | 'FCM_API_BASE'
  | 'FCM_TOKEN_URL'
  | 'APNS_API_BASE'
  | 'APNS_CA_FILE'
  | 'DISPATCH_PROVIDER_TIMEOUT_MS'
  | 'PUBLIC_BASE_URL'
  | 'SMTP_TIMEOUT_MS'
  | 'OUTBOUND_ALLOW_PRIVATE'
>;

export class IntegrationProviders {
  private readonly byAccount: TtlCache<IntegrationRow[]>;
  private readonly instances = new Map<string, { accountId: string; provider: Promise<ChannelProvider> }>();
  /** the push routers of accounts with both an APNs and an FCM integration, by `<apns id>+<fcm id>` */
  private readonly routers = new Map<string, { accountId: string; ids: [string, string]; provider: Promise<ChannelProvider> }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly config: IntegrationConfig,
    clock: Clock,
    private readonly accountKeyFor?: AccountDkimKeyLookup,
  ) {
    this.byAccount = new TtlCache({ ttlMs: INTEGRATIONS_TTL_MS, max: 10_000, clock });
  }

  /**
   * The provider of the account's newest integration for the channel, if it has one; for push with
   * both an APNs and an FCM integration, a router that picks per message by its device token
   * (src/channels/push-router.ts).
   */
  async providerFor(accountId: string, channel: Channel): Promise<ChannelProvider | undefined> {
    const rows = await this.integrationsOf(accountId);
    if (channel === 'push') {
      const apns = rows.find((r) => r.provider === 'apns');
      const fcm = rows.find((r) => r.provider === 'fcm');
      if (apns && fcm) return this.routerOf(accountId, apns, fcm);
    }
    const row = rows.find((r) => r.channel === channel);
    return row ? this.instanceOf(accountId, row) : undefined;
  }

  private instanceOf(accountId: string, row: IntegrationRow): Promise<ChannelProvider> {
    let instance = this.instances.get(row.id);
    if (!instance) {
      instance = { accountId, provider: this.build(row) };
      this.instances.set(row.id, instance);
      instance.provider.catch(() => this.instances.delete(row.id));
    }
    return instance.provider;
  }

  private routerOf(accountId: string, apns: IntegrationRow, fcm: IntegrationRow): Promise<ChannelProvider> {
    const key = `${apns.id}+${fcm.id}`;
    let router = this.routers.get(key);
    if (!router) {
      const provider = Promise.all([this.instanceOf(accountId, apns), this.instanceOf(accountId, fcm)]).then(([a, f]) => new PushRouter(a, f));
      router = { accountId, ids: [apns.id, fcm.id], provider };
      this.routers.set(key, router);
      provider.catch(() => this.routers.delete(key));
    }
    return router.provider;
  }

  private async integrationsOf(accountId: string): Promise<IntegrationRow[]> {
    const rows = await this.byAccount.get(accountId, async () => {
      const live = await accountIntegrations(this.pool, accountId);
      this.retire(accountId, live);
      return live;
    });
    return rows ?? [];
  }

  /** Closes the instances of the account's integrations that are gone (a router holds nothing to close). */
  private retire(accountId: string, live: IntegrationRow[]): void {
    const ids = new Set(live.map((r) => r.id));
    for (const [key, router] of this.routers) {
      if (router.accountId === accountId && !router.ids.every((id) => ids.has(id))) this.routers.delete(key);
    }
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
        case 'twilio_rcs':
          // rcs: the same Messages resource, through the integration's Messaging Service (README "Voice and RCS: Twilio")
          return new TwilioProvider(twilioCredentials(credentials), { apiBase: this.config.TWILIO_API_BASE, timeoutMs, ...this.carrierCallback(row.id) });
        case 'twilio_voice':
          return new TwilioVoiceProvider(twilioCredentials(credentials), { apiBase: this.config.TWILIO_API_BASE, timeoutMs, ...this.carrierCallback(row.id) });
        case 'whatsapp_cloud':
          return new WhatsappCloudProvider({ phone_number_id: credentials.phone_number_id, access_token: credentials.access_token }, { apiBase: this.config.WHATSAPP_API_BASE, timeoutMs });
        case 'fcm':
          // the token URL is the service's, never the key file's token_uri (README "Integrations")
          return new FcmProvider(JSON.parse(credentials.service_account) as FcmServiceAccount, { apiBase: this.config.FCM_API_BASE, tokenUrl: this.config.FCM_TOKEN_URL, timeoutMs });
        case 'apns': {
          const apns = credentials as unknown as ApnsCredentials;
          const ca = this.config.APNS_CA_FILE;
          return new ApnsProvider(apns, { apiBase: apnsBase(this.config.APNS_API_BASE, apns.environment), timeoutMs, ...(ca ? { ca } : {}) });
        }
        default:
          throw new Error(`integration ${row.id}: no provider for ${row.provider}`);
      }
    })();
  }

  /**
   * The StatusCallback of a Twilio integration's messages and calls, when PUBLIC_BASE_URL says where
   * Twilio can reach us: Twilio signs them with the account's own auth token, so the URL names the
   * integration whose token checks them (README "Provider callbacks").
   */
  private carrierCallback(integrationId: string): { statusCallback?: string } {
    const base = this.config.PUBLIC_BASE_URL;
    return base ? { statusCallback: carrierCallbackUrl(base, integrationId) } : {};
  }

  async close(): Promise<void> {
    const all = [...this.instances.values()];
    this.instances.clear();
    this.routers.clear();
    await Promise.allSettled(all.map(async (i) => (await i.provider).close?.()));
  }
}
