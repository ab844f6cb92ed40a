// Open tracking of HTML email (README "Templates": open tracking): at dispatch, each HTML email gets
// a 1×1 image at /o/<token> on the host its tracked links use; a fetch of it is an open, recorded on
// the message's stream (MessageOpened: how many so far, whether the first by a reader) and, unless a
// machine fetched it, as the recipient contact's `email.opened` event. A machine is a mail client's
// image proxy prefetching every image (Apple Mail Privacy Protection, from OPEN_MACHINE_RANGES) or a
// scanner fetching as the mail arrives (within OPEN_MACHINE_SECONDS of the send); its opens are
// counted apart and never make a unique open.
import { BlockList, isIP } from 'node:net';
import { type MessageAcceptedData, messageDecider, messageStream } from '../../commands/message.ts';
import { contactIdsWithEmail } from '../../projections/contacts.ts';
import { handleCommand } from '../command-handler.ts';
import type { Config } from '../config.ts';
import type { Engage } from '../context.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { trackEvents } from '../events/service.ts';
import { isId } from '../ids.ts';
import { ERASED } from '../personal-data/codec.ts';
import { clickTrackingKey, readClickToken, signClickToken } from './links.ts';

/** The name of the tracked event a reader's open becomes on the recipient contact (segments: `event.email.opened`). */
export const EMAIL_OPENED = 'email.opened';

/**
 * An open token is a click token whose URL is empty: the same signature and key, and no click
 * follows it (a click needs an http(s) URL), nor an open a click's token.
 */
const OPEN_URL = '';
export const signOpenToken = (key: Buffer, messageId: string) => signClickToken(key, messageId, OPEN_URL);

/** A transparent 1×1 GIF: what every fetch of the pixel answers, genuine token or not. */
export const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

const PIXEL = (src: string) => `<img src="${src}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0" />`;

/** The HTML with its open pixel before its last </body>, or at its end when it has none. */
export function withOpenPixel(html: string, src: string): string {
  const at = html.toLowerCase().lastIndexOf('</body');
  return at < 0 ? `${html}${PIXEL(src)}` : `${html.slice(0, at)}${PIXEL(src)}${html.slice(at)}`;
}

const proxyRanges = new WeakMap<Config['OPEN_MACHINE_RANGES'], BlockList>();
/** Whether an address is one of the image proxies' (OPEN_MACHINE_RANGES). */
function fromProxy(config: Pick<Config, 'OPEN_MACHINE_RANGES'>, ip: string): boolean {
  let list = proxyRanges.get(config.OPEN_MACHINE_RANGES);
  if (!list) {
    list = new BlockList();
    for (const [addr, bits] of config.OPEN_MACHINE_RANGES) list.addSubnet(addr, bits, isIP(addr) === 6 ? 'ipv6' : 'ipv4');
    proxyRanges.set(config.OPEN_MACHINE_RANGES, list);
  }
  const family = isIP(ip);
  if (family === 0) return false;
  // an IPv4 client seen through an IPv6 socket
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped ? list.check(mapped[1], 'ipv4') : list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Records a fetch of an open pixel (`token`, from `ip`). A token that is not genuine, names no
 * message, or one whose email never went out records nothing: the pixel answers all the same.
 */
export async function recordOpen(engage: Engage, token: string, ip: string, metadata: EventMetadata): Promise<void> {
  const claims = readClickToken(await clickTrackingKey(engage.pool), token);
  if (!claims || claims.url !== OPEN_URL || !isId('message', claims.messageId)) return;
  const messageId = claims.messageId;
  const events = await engage.store.readStream(messageStream(messageId));
  const accepted = events.find((e) => e.type === 'MessageAccepted');
  const sent = events.find((e) => e.type === 'MessageSent' || e.type === 'MessageDispatching');
  if (!accepted || !sent || events.some((e) => e.type === 'MessageCancelled')) return;
  const message = accepted.data as MessageAcceptedData;
  const now = engage.clock.now();
  const sentAt = Date.parse((events.find((e) => e.type === 'MessageSent')?.data as { at?: string } | undefined)?.at ?? (sent.data as { at: string }).at);
  const machine = fromProxy(engage.config, ip) || now.getTime() - sentAt < engage.config.OPEN_MACHINE_SECONDS * 1000;
  const meta: EventMetadata = { ...metadata, accountId: message.account_id, actor: 'recipient' };
  await handleCommand(engage.store, messageDecider, messageStream(messageId), { type: 'RecordOpen', now, machine }, meta);
  if (machine || message.channel !== 'email' || message.to === ERASED) return;
  try {
    const [contactId] = await contactIdsWithEmail(engage.pool, message.account_id, message.to.trim().toLowerCase());
    if (contactId === undefined) return;
    await trackEvents(engage, message.account_id, [{ index: 0, event: { contact: { id: contactId }, name: EMAIL_OPENED, properties: { message_id: messageId }, timestamp: now.toISOString() } }], meta);
  } catch (err) {
    // the open is on the message already
    engage.log.warn({ err, message_id: messageId }, 'recording an open on the contact failed');
  }
}
