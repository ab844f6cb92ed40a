// Email through an account's own SendGrid account (an integration): the v3 Mail Send API
// (POST /v3/mail/send, JSON, Bearer API key; 202 with X-Message-Id). SendGrid signs with the
// account's own authenticated domain there, so nothing is DKIM-signed here.
import { fromAddressOf, safeHeaders } from './smtp.ts';
import { callApi, outcomeOfAnswer, outcomeOfFailure } from './http-api.ts';
import { listUnsubscribeHeaders, type ChannelProvider, type OutboundMessage, type SendOutcome } from './port.ts';

export interface SendgridCredentials {
  api_key: string;
}

export class SendgridProvider implements ChannelProvider {
  readonly name = 'sendgrid';

  constructor(
    private readonly credentials: SendgridCredentials,
    private readonly options: { apiBase: string; timeoutMs: number; defaultFrom: string },
  ) {}

  async send(message: OutboundMessage): Promise<SendOutcome> {
    const from = fromAddressOf(message.sender, this.options.defaultFrom).address;
    const content = [{ type: 'text/plain', value: message.message }, ...(message.htmlmessage ? [{ type: 'text/html', value: message.htmlmessage }] : [])];
    const headers = { ...safeHeaders(message.headers), ...listUnsubscribeHeaders(message) };
    const payload = {
      personalizations: [{ to: [{ email: message.to }] }],
      from: { email: from, ...(message.from_name ? { name: message.from_name } : {}) },
      subject: message.subject ?? '',
      content,
      ...(message.reply_to ? { reply_to: { email: message.reply_to } } : {}),
      ...(Object.keys(headers).length ? { headers } : {}),
      // comes back on SendGrid's event webhook, so its reports can name our message
      custom_args: { engage_message_id: message.id },
    };
    try {
      const answer = await callApi(
        `${this.options.apiBase}/v3/mail/send`,
        { method: 'POST', headers: { authorization: `Bearer ${this.credentials.api_key}`, 'content-type': 'application/json' }, body: JSON.stringify(payload) },
        this.options.timeoutMs,
      );
      const errors = (answer.body as { errors?: { message?: string; field?: string }[] } | null)?.errors ?? [];
      const id = answer.headers['x-message-id'];
      return outcomeOfAnswer(answer, () => (typeof id === 'string' ? id : undefined), () => errors.map((e) => `${e.field ? `${e.field}: ` : ''}${e.message ?? ''}`).join('; ') || String(answer.body ?? ''));
    } catch (err) {
      return outcomeOfFailure(err);
    }
  }
}
