// Which provider carries which channel: the sandbox by default for all six; real transports
// (SMTP for email, when SMTP_URL is set) when configured. Overrides given by the caller win. An
// account's own integration for a channel (src/integrations/providers.ts) carries that account's
// messages of the channel.
import type { Channel } from '../../commands/message.ts';
import type { Config } from '../config.ts';
import type { ChannelProvider, ReportSink } from './port.ts';
import { SandboxProvider } from './sandbox.ts';
import { type AccountDkimKeyLookup, SmtpProvider, smtpOptionsFromConfig } from './smtp.ts';

/** Finds an account's own provider for a channel (its integration), if it has one. */
export interface AccountProviderLookup {
  providerFor(accountId: string, channel: Channel): Promise<ChannelProvider | undefined>;
  close(): Promise<void>;
}

export type RegistryConfig = Pick<Config, 'SANDBOX_DELIVERY_DELAY_MS'> &
  Partial<Pick<Config, 'SMTP_URL' | 'EMAIL_FROM' | 'DKIM_KEYS' | 'SMTP_MAX_CONNECTIONS' | 'SMTP_TIMEOUT_MS'>>;

/** Where the registry says which transport it chose; never given credentials. */
export type RegistryLog = { info(obj: object, msg: string): void };

export class ProviderRegistry {
  readonly sandbox: SandboxProvider;
  private readonly byChannel = new Map<Channel, ChannelProvider>();

  constructor(
    sink: ReportSink,
    config: RegistryConfig,
    overrides: Partial<Record<Channel, ChannelProvider>> = {},
    log?: RegistryLog,
    /** the sending accounts' own domain keys (src/domains/signing-keys.ts) */
    accountKeyFor?: AccountDkimKeyLookup,
    /** the accounts' integrations (src/integrations/providers.ts) */
    private readonly integrations?: AccountProviderLookup,
  ) {
    this.sandbox = new SandboxProvider(sink, config.SANDBOX_DELIVERY_DELAY_MS);
    if (config.SMTP_URL && !overrides.email) {
      const smtp = new SmtpProvider({
        ...smtpOptionsFromConfig({
          SMTP_URL: config.SMTP_URL,
          EMAIL_FROM: config.EMAIL_FROM ?? 'no-reply@engage.local',
          DKIM_KEYS: config.DKIM_KEYS ?? new Map(),
          SMTP_MAX_CONNECTIONS: config.SMTP_MAX_CONNECTIONS ?? 5,
          SMTP_TIMEOUT_MS: config.SMTP_TIMEOUT_MS ?? 30_000,
        }),
        ...(accountKeyFor ? { accountKeyFor } : {}),
      });
      this.byChannel.set('email', smtp);
      log?.info({ channel: 'email', provider: smtp.name, smtp: smtp.target }, 'email is sent over SMTP');
    }
    for (const [channel, provider] of Object.entries(overrides)) this.byChannel.set(channel as Channel, provider);
  }

  for(channel: Channel): ChannelProvider {
    return this.byChannel.get(channel) ?? this.sandbox;
  }

  /** The provider of one account's message: its own integration for the channel, else the service's. */
  async forMessage(accountId: string, channel: Channel): Promise<ChannelProvider> {
    return (await this.integrations?.providerFor(accountId, channel)) ?? this.for(channel);
  }

  async close(): Promise<void> {
    const all = new Set<ChannelProvider>([this.sandbox, ...this.byChannel.values()]);
    await Promise.allSettled([...[...all].map((p) => p.close?.()), this.integrations?.close()]);
  }
}
