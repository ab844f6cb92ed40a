// The channel provider port: one interface every carrier or email transport implements.
import type { Channel } from '../../commands/message.ts';

export interface OutboundMessage {
  id: string;
  accountId: string;
  channel: Channel;
  to: string;
  message: string;
  htmlmessage?: string | null;
  subject?: string | null;
  reply_to?: string | null;
  from_name?: string | null;
  headers?: Record<string, string> | null;
  sender?: string | null;
  /** email: the one-click unsubscribe URL of a marketing message (src/suppressions/unsubscribe-links.ts) */
  list_unsubscribe?: string | null;
}

/**
 * The list headers of an email that carries an unsubscribe link: RFC 2369's List-Unsubscribe and
 * RFC 8058's List-Unsubscribe-Post, which tells mailbox providers a POST to the URL unsubscribes
 * at once. (No mailto: form: there is no mailbox that would act on it.)
 */
export function listUnsubscribeHeaders(message: Pick<OutboundMessage, 'list_unsubscribe'>): Record<string, string> {
  if (!message.list_unsubscribe) return {};
  return { 'List-Unsubscribe': `<${message.list_unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

/**
 * Email headers a transport sets itself (addressing, identity, structure, authentication, list
 * handling): a message may not set them, and a transport never passes them on.
 */
export const RESERVED_HEADERS = [
  'from', 'to', 'cc', 'bcc', 'subject', 'reply-to', 'sender', 'return-path', 'message-id', 'date', 'mime-version',
  'content-type', 'content-transfer-encoding', 'dkim-signature', 'received', 'authentication-results', 'list-unsubscribe',
  'list-unsubscribe-post',
];

export type SendOutcome =
  /** the provider took the message; its id lets later delivery reports find it */
  | { kind: 'accepted'; providerMessageId: string }
  /** the provider refused it for good (bad number, unknown mailbox, …) */
  | { kind: 'rejected'; reason: string; code?: string }
  /**
   * try again later (network error, 5xx, throttling); `retryAfterMs`: how long the provider asked us
   * to wait (its Retry-After), which the dispatcher's next try honours up to its cap
   */
  | { kind: 'transient'; error: string; retryAfterMs?: number };

export interface DeliveryReport {
  provider: string;
  providerMessageId?: string;
  messageId?: string;
  status: 'delivered' | 'failed';
  reason?: string;
  /** email feedback: a bounce is a deliverability signal for the contact, a complaint a suppression */
  feedback?: 'bounce' | 'complaint';
  recipient?: string;
  /**
   * a push's: the device token the report is about (a push to a contact goes to each of its devices,
   * one report each), so a token reported gone removes that device (README "Push devices"). Not
   * recorded in the message's events: the token is the contact's personal data, sealed on its stream.
   */
  pushToken?: string;
  providerData?: Record<string, unknown>;
}

export type ReportSink = (reports: DeliveryReport[]) => void;

export interface ChannelProvider {
  readonly name: string;
  send(message: OutboundMessage): Promise<SendOutcome>;
  close?(): Promise<void>;
}
