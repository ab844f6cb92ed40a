// Which account an inbound sms or whatsapp message belongs to (README "Inbound messages and
// conversations"): the one holding the number written to as a verified sender of the message's
// channel (proven by a code, or a whatsapp number approved after review; one account per number);
// else the one whose latest message to the writer went out from that number. Email is routed by its
// recipient: the account's reply address.
import { accountOfReply, type ReplyFamily } from '../../projections/reply-routes.ts';
import { findAccount } from '../../projections/auth.ts';
import { waitForReadModels } from '../command-handler.ts';
import { accountOfVerifiedSender } from '../../projections/senders.ts';
import { normalisePhone } from '../contacts/validation.ts';
import type { Engage } from '../context.ts';
import { isId } from '../ids.ts';
import { addressHasher } from '../personal-data/address-hash.ts';

/** `from`: the writer's number with its +; `to`: every form the provider gives of the number written to (E.164, bare digits, a phone number id). */
export async function accountOfInboundPhone(engage: Engage, family: ReplyFamily, from: string, to: readonly string[]): Promise<string | undefined> {
  // the carrier's inbound callback with a Body is a text: only sms senders route it (a number proven
  // as a voice caller ID says nothing about who reads its texts)
  const registered = await accountOfVerifiedSender(engage.pool, to, family === 'whatsapp' ? 'whatsapp' : 'sms');
  if (registered) return registered;
  const phone = normalisePhone(from);
  if (!phone) return undefined;
  const peerHash = (await addressHasher(engage.pool))(phone);
  const defaultSender = family === 'whatsapp' ? engage.config.DEFAULT_WHATSAPP_SENDER : engage.config.DEFAULT_SMS_SENDER;
  const route = () => accountOfReply(engage.pool, family, peerHash, to, defaultSender);
  const found = await route();
  if (found) return found;
  // A reply can come moments after the send it answers, before the reply routes have applied it (a
  // busy service applies them seconds behind the log): no route is an answer only once they have
  // caught up with the log as it is now, waited for as a write waits for its read models.
  await waitForReadModels(engage, ['reply_routes'], await engage.store.headPosition({ includeHeldBack: true }));
  return route();
}

/**
 * The account a recipient of an inbound email names: `<account id>@INBOUND_EMAIL_DOMAIN`, or with
 * a `+tag` (`<account id>+anything@…`), case-insensitively. Undefined for any other address.
 */
export async function accountOfReplyAddress(engage: Engage, address: string): Promise<string | undefined> {
  const at = address.lastIndexOf('@');
  if (at < 0 || address.slice(at + 1).toLowerCase() !== engage.config.INBOUND_EMAIL_DOMAIN) return undefined;
  const local = address.slice(0, at).split('+')[0];
  const underscore = local.indexOf('_');
  const accountId = `${local.slice(0, underscore).toLowerCase()}_${local.slice(underscore + 1).toUpperCase()}`;
  if (underscore < 0 || !isId('account', accountId)) return undefined;
  return (await findAccount(engage.pool, accountId)) ? accountId : undefined;
}
