// A push message's way to its devices at dispatch (README "Push devices"): a push addressed to a
// contact id goes to every device the contact has registered, one provider call per device; a push
// addressed to a token goes to that token. A device its provider says is gone (unregistered, or a
// token it does not know) is removed from its contact by an event, whichever way it was addressed,
// whether the provider refused the send or reported the failure later.
import { failureCode } from '../../commands/message.ts';
import { activeDevices, contactsHoldingToken } from '../../projections/push-devices.ts';
import type { ChannelProvider, DeliveryReport, OutboundMessage, SendOutcome } from '../channels/port.ts';
import { unregisterDevice } from '../contacts/devices.ts';
import type { Engage } from '../context.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { isId } from '../ids.ts';

/** Refusals that say the token itself is gone: the device is removed (README "Push devices"). */
const GONE_TOKEN_CODES = new Set(['unregistered', 'invalid_token']);

/** Whether a refusal says the device's token is no longer valid. */
export function tokenIsGone(outcome: SendOutcome): boolean {
  return outcome.kind === 'rejected' && GONE_TOKEN_CODES.has(outcome.code ?? failureCode(outcome.reason));
}

/** Whether a delivery report says the device's token is no longer valid (its reason's code, as a refusal's). */
export function reportSaysTokenIsGone(report: Pick<DeliveryReport, 'status' | 'reason'>): boolean {
  return report.status === 'failed' && GONE_TOKEN_CODES.has(failureCode(report.reason ?? 'failed'));
}

/** Whether a push is addressed to a contact (its devices) rather than to one device token. */
export const addressedToContact = (message: Pick<OutboundMessage, 'channel' | 'to'>): boolean => message.channel === 'push' && isId('contact', message.to);

/** One provider call: its outcome and the provider that made it. */
export type Call = (message: OutboundMessage) => Promise<{ outcome: SendOutcome; provider: ChannelProvider }>;

/**
 * Sends a push to every active device of the contact it is addressed to, one `call` per device, and
 * answers one outcome for the message: accepted when any device took it (the first one's provider
 * message id); else transient when any call may succeed later; else rejected (every device refused,
 * or the contact has none). Devices whose token is gone are removed.
 */
export async function sendToContactDevices(engage: Engage, message: OutboundMessage, call: Call): Promise<{ outcome: SendOutcome; provider?: ChannelProvider }> {
  const devices = await activeDevices(engage.pool, message.accountId, message.to);
  if (devices.length === 0) return { outcome: { kind: 'rejected', reason: 'no_devices: the contact has no registered push device', code: 'no_devices' } };
  const results = await Promise.all(devices.map(async (d) => ({ device: d, ...(await call({ ...message, to: d.token })) })));
  await Promise.all(results.filter((r) => tokenIsGone(r.outcome)).map((r) => removeGoneToken(engage, message.accountId, r.device.token, [message.to])));
  const accepted = results.find((r) => r.outcome.kind === 'accepted');
  if (accepted) return accepted;
  const transient = results.find((r) => r.outcome.kind === 'transient');
  if (transient) return transient;
  const reasons = [...new Set(results.map((r) => (r.outcome as { reason: string }).reason))];
  return {
    outcome: { kind: 'rejected', reason: devices.length === 1 ? reasons[0] : `every device refused: ${reasons.join('; ')}`, code: 'no_devices' },
    provider: results[0].provider,
  };
}

/** After a refusal of a push sent to a token: the device holding that token is removed where the token is gone. */
export async function afterTokenPush(engage: Engage, message: OutboundMessage, outcome: SendOutcome): Promise<void> {
  if (message.channel !== 'push' || !tokenIsGone(outcome)) return;
  await removeGoneToken(engage, message.accountId, message.to);
}

/**
 * After a delivery report of a push message: a failure that says the token is gone removes the
 * device, as a refusal at send does. A push to a token names its device (the contacts the read model
 * shows holding it lose it). A push to a contact went to each of its devices, so its report has to
 * name the one it is about (`pushToken`; the sandbox's do), and only that contact loses it: a report
 * about one contact's push can remove no other contact's device. A report naming no device removes
 * nothing.
 */
export async function afterPushReport(
  engage: Engage,
  message: Pick<OutboundMessage, 'accountId' | 'channel' | 'to'>,
  report: Pick<DeliveryReport, 'status' | 'reason' | 'pushToken'>,
  metadata: EventMetadata,
): Promise<void> {
  if (message.channel !== 'push' || !reportSaysTokenIsGone(report)) return;
  if (!addressedToContact(message)) return removeGoneToken(engage, message.accountId, message.to, undefined, metadata);
  if (report.pushToken !== undefined) await removeGoneToken(engage, message.accountId, report.pushToken, [message.to], metadata);
}

/**
 * Removes a gone token from the contacts that hold it (`contactIds`, or those the read model shows).
 * Never fails the dispatch or the report: the message's outcome is recorded either way, and the next
 * refusal or report tries again.
 */
async function removeGoneToken(
  engage: Engage,
  accountId: string,
  token: string,
  contactIds?: readonly string[],
  metadata: EventMetadata = { accountId, actor: 'dispatcher' },
): Promise<void> {
  try {
    const holders = contactIds ?? (await contactsHoldingToken(engage.pool, accountId, token));
    for (const contactId of holders) await unregisterDevice(engage, accountId, contactId, token, metadata);
  } catch (err) {
    engage.log.warn({ err, accountId }, 'removing a push device its provider no longer knows failed; the next refusal or report tries again');
  }
}
