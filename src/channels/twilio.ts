// SMS through an account's own Twilio account (an integration): the Messages resource of Twilio's
// REST API (POST /2010-04-01/Accounts/{AccountSid}/Messages.json, form-encoded, HTTP Basic with the
// Account SID and auth token). Twilio's delivery callbacks come back to POST /v1/webhooks/carrier,
// which the message names as its StatusCallback when PUBLIC_BASE_URL is set.
import { callApi, outcomeOfAnswer, outcomeOfFailure } from './http-api.ts';
import type { ChannelProvider, OutboundMessage, SendOutcome } from './port.ts';

export interface TwilioCredentials {
  account_sid: string;
  auth_token: string;
  from?: string;
}

export class TwilioProvider implements ChannelProvider {
  readonly name = 'twilio';

  constructor(
    private readonly credentials: TwilioCredentials,
    private readonly options: { apiBase: string; timeoutMs: number; statusCallback?: string },
  ) {}

  async send(message: OutboundMessage): Promise<SendOutcome> {
    const from = message.sender ?? this.credentials.from;
    if (!from) return { kind: 'rejected', reason: 'no sender: the message has none and the Twilio integration names no from number' };
    const form = new URLSearchParams({ To: message.to, From: from, Body: message.message });
    if (this.options.statusCallback) form.set('StatusCallback', this.options.statusCallback);
    const { account_sid, auth_token } = this.credentials;
    try {
      const answer = await callApi(
        `${this.options.apiBase}/2010-04-01/Accounts/${encodeURIComponent(account_sid)}/Messages.json`,
        {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from(`${account_sid}:${auth_token}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: form.toString(),
        },
        this.options.timeoutMs,
      );
      const body = (answer.body ?? {}) as { sid?: string; message?: string; code?: number };
      return outcomeOfAnswer(answer, () => body.sid, () => body.message ?? String(answer.body ?? ''), () => (body.code ? String(body.code) : undefined));
    } catch (err) {
      return outcomeOfFailure(err);
    }
  }
}
