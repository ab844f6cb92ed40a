// SMS and RCS through an account's own Twilio account (an integration): the Messages resource of
// Twilio's REST API (POST /2010-04-01/Accounts/{AccountSid}/Messages.json, form-encoded, HTTP Basic
// with the Account SID and auth token). Twilio's delivery callbacks come back to POST
// /v1/webhooks/carrier?integration=<id>, which the message names as its StatusCallback when
// PUBLIC_BASE_URL is set (README "Provider callbacks").
//
// RCS (README "Voice and RCS: Twilio"): the same resource with the integration's Messaging Service
// (MessagingServiceSid) instead of a From number. Twilio sends through the service's RCS sender and
// falls back to SMS from the service's numbers when the device cannot take RCS, so the fallback is
// Twilio's, not ours.
import { callApi, outcomeOfAnswer, outcomeOfFailure } from './http-api.ts';
import type { ChannelProvider, OutboundMessage, SendOutcome } from './port.ts';

export interface TwilioCredentials {
  account_sid: string;
  auth_token: string;
  from?: string;
  /** RCS: the Messaging Service whose RCS sender (and SMS fallback) Twilio sends through */
  messaging_service_sid?: string;
}

export interface TwilioOptions {
  apiBase: string;
  timeoutMs: number;
  statusCallback?: string;
}

/**
 * Creates one resource of the account (`Messages`, `Calls`) and reads Twilio's answer: 201 with the
 * resource's `sid` is accepted, errors (`{code, message}`) through outcomeOfAnswer.
 */
export async function createTwilioResource(
  resource: 'Messages' | 'Calls',
  credentials: Pick<TwilioCredentials, 'account_sid' | 'auth_token'>,
  form: URLSearchParams,
  options: TwilioOptions,
): Promise<SendOutcome> {
  const { account_sid, auth_token } = credentials;
  try {
    const answer = await callApi(
      `${options.apiBase}/2010-04-01/Accounts/${encodeURIComponent(account_sid)}/${resource}.json`,
      {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${account_sid}:${auth_token}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      },
      options.timeoutMs,
    );
    const body = (answer.body ?? {}) as { sid?: string; message?: string; code?: number };
    return outcomeOfAnswer(answer, () => body.sid, () => body.message ?? String(answer.body ?? ''), () => (body.code ? String(body.code) : undefined));
  } catch (err) {
    return outcomeOfFailure(err);
  }
}

/** `twilio` (sms from a number) or, with a Messaging Service in its credentials, `twilio_rcs`. */
export class TwilioProvider implements ChannelProvider {
  readonly name: 'twilio' | 'twilio_rcs';

  constructor(
    private readonly credentials: TwilioCredentials,
    private readonly options: TwilioOptions,
  ) {
    this.name = credentials.messaging_service_sid ? 'twilio_rcs' : 'twilio';
  }

  async send(message: OutboundMessage): Promise<SendOutcome> {
    const form = new URLSearchParams({ To: message.to });
    const service = this.credentials.messaging_service_sid;
    if (service) {
      // the service picks the sender: its RCS agent, or one of its numbers for the SMS fallback (a
      // From would pin the message to that number, and to SMS)
      form.set('MessagingServiceSid', service);
    } else {
      const from = message.sender ?? this.credentials.from;
      if (!from) return { kind: 'rejected', reason: 'no sender: the message has none and the Twilio integration names no from number' };
      form.set('From', from);
    }
    form.set('Body', message.message);
    if (this.options.statusCallback) form.set('StatusCallback', this.options.statusCallback);
    return createTwilioResource('Messages', this.credentials, form, this.options);
  }
}
