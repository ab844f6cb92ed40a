// WhatsApp through an account's own WhatsApp Business number (an integration): Meta's Cloud API
// (POST /{version}/{phone-number-id}/messages, JSON, Bearer access token; the answer names the
// message's wamid). Delivery statuses come back to POST /v1/webhooks/whatsapp.
import { callApi, outcomeOfAnswer, outcomeOfFailure } from './http-api.ts';
import type { ChannelProvider, OutboundMessage, SendOutcome } from './port.ts';

export interface WhatsappCloudCredentials {
  phone_number_id: string;
  access_token: string;
}

export const WHATSAPP_GRAPH_VERSION = 'v21.0';

export class WhatsappCloudProvider implements ChannelProvider {
  readonly name = 'whatsapp_cloud';

  constructor(
    private readonly credentials: WhatsappCloudCredentials,
    private readonly options: { apiBase: string; timeoutMs: number },
  ) {}

  async send(message: OutboundMessage): Promise<SendOutcome> {
    const payload = { messaging_product: 'whatsapp', recipient_type: 'individual', to: message.to.replace(/^\+/, ''), type: 'text', text: { body: message.message } };
    try {
      const answer = await callApi(
        `${this.options.apiBase}/${WHATSAPP_GRAPH_VERSION}/${encodeURIComponent(this.credentials.phone_number_id)}/messages`,
        { method: 'POST', headers: { authorization: `Bearer ${this.credentials.access_token}`, 'content-type': 'application/json' }, body: JSON.stringify(payload) },
        this.options.timeoutMs,
      );
      const body = (answer.body ?? {}) as { messages?: { id?: string }[]; error?: { message?: string; code?: number } };
      return outcomeOfAnswer(answer, () => body.messages?.[0]?.id, () => body.error?.message ?? String(answer.body ?? ''), () => (body.error?.code ? String(body.error.code) : undefined));
    } catch (err) {
      return outcomeOfFailure(err);
    }
  }
}
