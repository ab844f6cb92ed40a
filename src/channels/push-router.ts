// The push provider of an account with both an APNs and an FCM integration (README "Integrations"):
// a device token of 64 hex digits is an APNs token and goes to Apple, any other to Firebase. It holds
// nothing of its own: the two providers are the integrations' own, closed with them.
import { isApnsToken } from './apns.ts';
import type { ChannelProvider, OutboundMessage, SendOutcome } from './port.ts';

export class PushRouter implements ChannelProvider {
  /** the name a message sent through it records; its provider message id tells which took it (README "Integrations") */
  readonly name = 'fcm+apns';

  constructor(
    private readonly apns: ChannelProvider,
    private readonly fcm: ChannelProvider,
  ) {}

  /** The provider of one push: APNs for an APNs device token, else FCM. */
  providerOf(message: Pick<OutboundMessage, 'to'>): ChannelProvider {
    return isApnsToken(message.to) ? this.apns : this.fcm;
  }

  send(message: OutboundMessage): Promise<SendOutcome> {
    return this.providerOf(message).send(message);
  }
}
