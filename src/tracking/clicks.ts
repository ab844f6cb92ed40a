// Click tracking of HTML email end to end: at dispatch, the links of what a provider receives are
// rewritten to /c/<token> on the account's verified link domain (or the service's own host); a click
// on a link of a message handed to its provider (and not cancelled) is recorded on the message's
// stream (so it may overtake `sent`) and as the recipient contact's `email.clicked` event, and
// answers with the link's own URL.
import { type MessageAcceptedData, messageDecider, messageStream } from '../../commands/message.ts';
import { contactIdsWithEmail } from '../../projections/contacts.ts';
import { type LinkDomainRow, verifiedLinkDomains } from '../../projections/link-domains.ts';
import type { OutboundMessage } from '../channels/port.ts';
import { handleCommand } from '../command-handler.ts';
import type { Config } from '../config.ts';
import type { Engage } from '../context.ts';
import { notFound } from '../errors.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { trackEvents } from '../events/service.ts';
import { isId } from '../ids.ts';
import { addressHasher } from '../personal-data/address-hash.ts';
import { ERASED } from '../personal-data/codec.ts';
import { unsubscribeBaseUrl } from '../suppressions/unsubscribe-links.ts';
import { clickTrackingKey, readClickToken, rewriteLinks, signClickToken } from './links.ts';
import { signOpenToken, withOpenPixel } from './opens.ts';

export { clickTrackingKey } from './links.ts';

/** The name of the tracked event a click becomes on the recipient contact (segments: `event.email.clicked`). */
export const EMAIL_CLICKED = 'email.clicked';


/**
 * Where an account's click links point: its verified link domain over https; else LINK_TRACKING_HOST
 * (the host link domains' CNAMEs name, so it reaches this service), over https; else `ownBase`, the
 * service's own base URL (PUBLIC_BASE_URL, or this server's host and port).
 */
export function clickBaseUrl(linkDomain: Pick<LinkDomainRow, 'domain'> | undefined, config: Pick<Config, 'LINK_TRACKING_HOST'>, ownBase: string): string {
  if (linkDomain) return `https://${linkDomain.domain}`;
  if (config.LINK_TRACKING_HOST) return `https://${config.LINK_TRACKING_HOST.toLowerCase()}`;
  return ownBase.replace(/\/+$/, '');
}

const tracksClicks = (m: Pick<OutboundMessage, 'channel' | 'htmlmessage'>) => m.channel === 'email' && !!m.htmlmessage;

/**
 * The message as its provider gets it: the links of its HTML body through /c/<token> under `base`,
 * and its open pixel at /o/<token> (src/tracking/opens.ts).
 */
export function withTrackedLinks(message: OutboundMessage, key: Buffer, base: string): OutboundMessage {
  if (!tracksClicks(message)) return message;
  const { html } = rewriteLinks(message.htmlmessage!, (url) => `${base}/c/${signClickToken(key, message.id, url)}`);
  return { ...message, htmlmessage: withOpenPixel(html, `${base}/o/${signOpenToken(key, message.id)}`) };
}

/** Rewrites the links of the email a dispatcher hands to its providers. */
export class ClickTracking {
  constructor(private readonly engage: Engage) {}

  /**
   * For one dispatch batch: what rewrites a message of it. The key and the accounts' link domains are
   * read once (one query) and only when the batch has an HTML email; a batch without costs nothing.
   * A failed read fails the messages that need it when they call it (their send is deferred).
   */
  forBatch(messages: readonly Pick<OutboundMessage, 'accountId' | 'channel' | 'htmlmessage'>[]): (message: OutboundMessage) => Promise<OutboundMessage> {
    const html = messages.filter(tracksClicks);
    if (html.length === 0) return async (message) => message;
    const ready = Promise.all([clickTrackingKey(this.engage.pool), verifiedLinkDomains(this.engage.pool, html.map((m) => m.accountId))]);
    // a batch whose HTML emails all give their claims back before sending never awaits it
    ready.catch(() => undefined);
    return async (message) => {
      if (!tracksClicks(message)) return message;
      const [key, domains] = await ready;
      return withTrackedLinks(message, key, clickBaseUrl(domains.get(message.accountId), this.engage.config, unsubscribeBaseUrl(this.engage)));
    };
  }
}

/**
 * Whether the message's links went out: a token is made only as the message is handed to a provider
 * (MessageDispatching comes first), so a message never dispatched, or cancelled (a dispatch given
 * back first), has no link anyone was sent, whatever a token says.
 */
function linksWentOut(events: readonly { type: string }[]): boolean {
  const handedOver = events.some((e) => e.type === 'MessageDispatching' || e.type === 'MessageSent');
  return handedOver && !events.some((e) => e.type === 'MessageCancelled');
}

/**
 * Follows a click: the message and URL its token names, the click appended to the message's stream
 * and tracked on the recipient contact (unless `record` is false), and the URL to lead to. A token
 * that is not genuine, or names a message that does not exist or whose links never went out
 * (README "Link domains and click tracking"), is a 404: nothing ever leads to a URL we did not sign
 * into a message we sent.
 */
export async function followClick(
  engage: Engage,
  token: string,
  metadata: EventMetadata,
  { record = true } = {},
): Promise<{ url: string; messageId: string; accountId: string }> {
  const claims = readClickToken(await clickTrackingKey(engage.pool), token);
  if (!claims || !isId('message', claims.messageId) || !/^https?:\/\//i.test(claims.url)) throw notFound('link');
  const { messageId, url } = claims;
  // the message's own stream decides, never the read model: a click may come before `sent` is projected
  const events = await engage.store.readStream(messageStream(messageId));
  const accepted = events.find((e) => e.type === 'MessageAccepted');
  if (!accepted || !linksWentOut(events)) throw notFound('link');
  const message = accepted.data as MessageAcceptedData & { address_hash?: string };
  const accountId = message.account_id;
  if (!record) return { url, messageId, accountId };
  const meta: EventMetadata = { ...metadata, accountId, actor: 'recipient' };
  const addressHash = message.address_hash ?? (await addressHasher(engage.pool))(message.to);
  const now = engage.clock.now();
  await handleCommand(engage.store, messageDecider, messageStream(messageId), { type: 'RecordClick', now, url, addressHash }, meta);
  try {
    await trackOnContact(engage, accountId, message, { message_id: messageId, url }, now, meta);
  } catch (err) {
    // the click is on the message already; the recipient still gets where the link leads
    engage.log.warn({ err, message_id: messageId }, 'recording a click on the contact failed');
  }
  return { url, messageId, accountId };
}

/** The click as the `email.clicked` event of the contact with the recipient's address, when there is one. */
async function trackOnContact(
  engage: Engage,
  accountId: string,
  message: Pick<MessageAcceptedData, 'channel' | 'to'>,
  properties: { message_id: string; url: string },
  now: Date,
  metadata: EventMetadata,
): Promise<void> {
  // an erased recipient is nobody any more
  if (message.channel !== 'email' || message.to === ERASED) return;
  const [contactId] = await contactIdsWithEmail(engage.pool, accountId, message.to.trim().toLowerCase());
  if (contactId === undefined) return;
  const { results } = await trackEvents(engage, accountId, [{ index: 0, event: { contact: { id: contactId }, name: EMAIL_CLICKED, properties, timestamp: now.toISOString() } }], metadata);
  const [result] = results;
  if (result?.status === 'failed') engage.log.info({ message_id: properties.message_id, error: result.error }, 'click not recorded on the contact');
}
