// Which account an inbound sms or whatsapp message belongs to (DECISIONS.md "Inbound messages"):
// the one that registered the number written to as an approved sender; else the one whose latest
// message to the writer went out from that number. Email is routed by its recipient: the account's
// reply address.
import { accountOfReply, type ReplyFamily } from '../../projections/reply-routes.ts';
import { findAccount } from '../../projections/auth.ts';
import { accountOfApprovedSender } from '../../projections/senders.ts';
import { normalisePhone } from '../contacts/validation.ts';
import type { Engage } from '../context.ts';
import { isId } from '../ids.ts';
import { addressHasher } from '../personal-data/address-hash.ts';

/** `from`: the writer's number with its +; `to`: every form the provider gives of the number written to (E.164, bare digits, a phone number id). */
export async function accountOfInboundPhone(engage: Engage, family: ReplyFamily, from: string, to: readonly string[]): Promise<string | undefined> {
  const registered = await accountOfApprovedSender(engage.pool, to, family === 'whatsapp' ? ['whatsapp'] : ['sms', 'voice']);
  if (registered) return registered;
  const phone = normalisePhone(from);
  if (!phone) return undefined;
  const peerHash = (await addressHasher(engage.pool))(phone);
  const defaultSender = family === 'whatsapp' ? engage.config.DEFAULT_WHATSAPP_SENDER : engage.config.DEFAULT_SMS_SENDER;
  return accountOfReply(engage.pool, family, peerHash, to, defaultSender);
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
