// The inbound-settings decider's rules (commands/inbound-settings.ts): an account starts with no
// inbound webhook URL and no HELP text; a command changes only what it names (null clears it), and
// one that changes nothing appends nothing. The event carries both settings as they now are.
import { describe, expect, it } from 'vitest';
import { type InboundSettingsCommand, type InboundSettingsEvent, inboundSettingsDecider } from '../../commands/inbound-settings.ts';
import { fold } from '../../src/decider.ts';
import { DeciderSpecification } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(inboundSettingsDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const account_id = 'acct_1';
const URL_A = 'https://hooks.acme.test/inbound';
const URL_B = 'https://hooks.acme.test/inbound-v2';
const HELP = 'Acme: reply STOP to opt out.';

const set = (minutes: number, change: Pick<InboundSettingsCommand, 'webhookUrl' | 'helpText'>): InboundSettingsCommand => ({
  type: 'SetInboundSettings',
  accountId: account_id,
  ...change,
  now: at(minutes),
});
const changed = (minutes: number, webhook_url: string | null, help_text: string | null): InboundSettingsEvent => ({
  type: 'InboundSettingsChanged',
  data: { account_id, webhook_url, help_text, changed_at: iso(minutes) },
});

describe('inbound settings of an account', () => {
  it('start with neither a webhook URL nor a HELP text', () => {
    expect(fold(inboundSettingsDecider, [])).toEqual({ webhook_url: null, help_text: null });
  });

  it('setting the webhook URL records it, with the HELP text as it was', () => {
    given([]).when(set(1, { webhookUrl: URL_A })).then([changed(1, URL_A, null)]);
    given([changed(0, null, HELP)]).when(set(1, { webhookUrl: URL_A })).then([changed(1, URL_A, HELP)]);
  });

  it('setting the HELP text records it, with the webhook URL as it was', () => {
    given([changed(0, URL_A, null)]).when(set(1, { helpText: HELP })).then([changed(1, URL_A, HELP)]);
  });

  it('both change in one command', () => {
    given([changed(0, URL_A, null)]).when(set(1, { webhookUrl: URL_B, helpText: HELP })).then([changed(1, URL_B, HELP)]);
  });

  it('null clears a setting; a setting the command does not name is kept', () => {
    given([changed(0, URL_A, HELP)]).when(set(1, { webhookUrl: null })).then([changed(1, null, HELP)]);
    given([changed(0, URL_A, HELP)]).when(set(1, { helpText: null })).then([changed(1, URL_A, null)]);
  });

  it('the latest change is what the settings are', () => {
    expect(fold(inboundSettingsDecider, [changed(0, URL_A, HELP), changed(1, URL_B, null)])).toEqual({ webhook_url: URL_B, help_text: null });
    given([changed(0, URL_A, HELP), changed(1, URL_B, null)]).when(set(2, { webhookUrl: URL_A })).then([changed(2, URL_A, null)]);
  });

  it('a command that changes nothing appends nothing: the same values, null over nothing, or nothing named', () => {
    given([changed(0, URL_A, HELP)]).when(set(1, { webhookUrl: URL_A, helpText: HELP })).thenNothingHappened();
    given([changed(0, URL_A, HELP)]).when(set(1, {})).thenNothingHappened();
    given([]).when(set(1, { webhookUrl: null, helpText: null })).thenNothingHappened();
    given([]).when(set(1, {})).thenNothingHappened();
  });
});
