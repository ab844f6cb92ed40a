// Voice through an account's own Twilio account (an integration): the Calls resource of Twilio's
// REST API (POST /2010-04-01/Accounts/{AccountSid}/Calls.json, form-encoded, HTTP Basic), the
// message's text read out by text to speech: TwiML `<Response><Say>text</Say></Response>` given
// inline as `Twiml`. The call's progress comes back to POST /v1/webhooks/carrier?integration=<id>
// (StatusCallback, when PUBLIC_BASE_URL is set) for the events `answered` and `completed`
// (README "Voice and RCS: Twilio").
import { XMLBuilder } from 'fast-xml-parser';
import type { ChannelProvider, OutboundMessage, SendOutcome } from './port.ts';
import { createTwilioResource, type TwilioCredentials, type TwilioOptions } from './twilio.ts';

/** the call events Twilio reports: answered (CallStatus in-progress) and the call's end (its final CallStatus) */
const STATUS_CALLBACK_EVENTS = ['answered', 'completed'];

// text nodes escaped (& < > " '): a message's text never becomes markup
const twiml = new XMLBuilder({ processEntities: true });

/**
 * Characters XML 1.0 cannot carry (controls other than tab and line breaks, U+FFFE/U+FFFF): they
 * cannot be spoken either, and would make Twilio refuse the whole document.
 */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** The TwiML that reads `text` out: `<Response><Say>…</Say></Response>`, the text escaped. */
export function sayTwiml(text: string): string {
  return twiml.build({ Response: { Say: text.replace(NOT_XML, '') } });
}

export class TwilioVoiceProvider implements ChannelProvider {
  readonly name = 'twilio_voice';

  constructor(
    private readonly credentials: Pick<TwilioCredentials, 'account_sid' | 'auth_token' | 'from'>,
    private readonly options: TwilioOptions,
  ) {}

  async send(message: OutboundMessage): Promise<SendOutcome> {
    const from = message.sender ?? this.credentials.from;
    if (!from) return { kind: 'rejected', reason: 'no sender: the message has none and the Twilio voice integration names no from number' };
    const form = new URLSearchParams({ To: message.to, From: from, Twiml: sayTwiml(message.message) });
    if (this.options.statusCallback) {
      form.set('StatusCallback', this.options.statusCallback);
      // a repeated parameter, as Twilio reads a list
      for (const event of STATUS_CALLBACK_EVENTS) form.append('StatusCallbackEvent', event);
      form.set('StatusCallbackMethod', 'POST');
    }
    return createTwilioResource('Calls', this.credentials, form, this.options);
  }
}
