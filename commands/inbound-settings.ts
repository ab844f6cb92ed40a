// An account's inbound settings (stream inboundsettings-<account_id>): the URL its inbound messages
// are pushed to (signed like per-message webhooks, with the account's signing secret) and the text
// that answers an sms/whatsapp HELP.
import type { Decider } from '../src/decider.ts';

export interface InboundSettings {
  webhook_url: string | null;
  help_text: string | null;
}

export type InboundSettingsEvent = { type: 'InboundSettingsChanged'; data: { account_id: string } & InboundSettings & { changed_at: string } };

export type InboundSettingsCommand = { type: 'SetInboundSettings'; accountId: string; webhookUrl?: string | null; helpText?: string | null; now: Date };

export const inboundSettingsDecider: Decider<InboundSettingsCommand, InboundSettings, InboundSettingsEvent> = {
  initialState: { webhook_url: null, help_text: null },
  evolve: (_state, e) => ({ webhook_url: e.data.webhook_url, help_text: e.data.help_text }),
  decide(c, state) {
    const next: InboundSettings = {
      webhook_url: c.webhookUrl === undefined ? state.webhook_url : c.webhookUrl,
      help_text: c.helpText === undefined ? state.help_text : c.helpText,
    };
    if (next.webhook_url === state.webhook_url && next.help_text === state.help_text) return [];
    return [{ type: 'InboundSettingsChanged', data: { account_id: c.accountId, ...next, changed_at: c.now.toISOString() } }];
  },
};

export const inboundSettingsStream = (accountId: string) => `inboundsettings-${accountId}`;
