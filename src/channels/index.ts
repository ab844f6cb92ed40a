// Which provider carries which channel: the sandbox by default for all six; real transports
// (SMTP for email) when configured.
import type { Channel } from '../../commands/message.ts';
import type { Config } from '../config.ts';
import type { ChannelProvider, ReportSink } from './port.ts';
import { SandboxProvider } from './sandbox.ts';

export class ProviderRegistry {
  readonly sandbox: SandboxProvider;
  private readonly byChannel = new Map<Channel, ChannelProvider>();

  constructor(sink: ReportSink, config: Pick<Config, 'SANDBOX_DELIVERY_DELAY_MS'>, overrides: Partial<Record<Channel, ChannelProvider>> = {}) {
    this.sandbox = new SandboxProvider(sink, config.SANDBOX_DELIVERY_DELAY_MS);
    for (const [channel, provider] of Object.entries(overrides)) this.byChannel.set(channel as Channel, provider);
  }

  for(channel: Channel): ChannelProvider {
    return this.byChannel.get(channel) ?? this.sandbox;
  }

  async close(): Promise<void> {
    const all = new Set<ChannelProvider>([this.sandbox, ...this.byChannel.values()]);
    await Promise.allSettled([...all].map((p) => p.close?.()));
  }
}
