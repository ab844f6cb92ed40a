// When a message costs the account something (README "Billing"): it is debited at its sell price
// once the provider has taken it (MessageSent), and credited back when it then fails in a way the
// provider does not charge for. The rule, from how the providers bill:
//   - a failure before the message was sent (policy, provider refusal) was never debited;
//   - sms, rcs, voice: the carrier report's reason starts with its Twilio-style status. `failed`,
//     `canceled`, `busy` and `no-answer` are not billed by carriers, so they are credited;
//     `undelivered` (the carrier took and tried it) is billed, as is any other reason;
//   - whatsapp: WhatsApp charges only for messages it delivers, so a failure is credited;
//   - email: a bounce is billed (the mail was handed over and tried), as is any later failure;
//   - push: a failure after the push service took the message is billed.
import { PHONE_CHANNELS, type Channel } from '../../commands/message.ts';

/** Carrier statuses that carriers do not bill (src/http/routes/providers/carrier.ts writes them first in the reason). */
export const UNBILLED_CARRIER_STATUSES = ['failed', 'canceled', 'busy', 'no-answer'] as const;

/** The carrier status a failure reason starts with: "failed:30008 …" → "failed". */
const statusOfReason = (reason: string) => reason.trim().toLowerCase().split(/[:\s]/, 1)[0] ?? '';

/**
 * Whether a message's price depends on more than its channel (its recipient's country), or a failure
 * after it was debited can be credited: the phone channels. An email or push message is priced by
 * its channel alone and never credited, so billing keeps no row for it (projections/billing.ts).
 */
export const chargeDependsOnMessage = (channel: Channel): boolean => PHONE_CHANNELS.includes(channel);

/** Whether a failure of a message already debited is credited back (the provider did not charge). */
export function failureIsCredited(channel: Channel, reason: string): boolean {
  if (!chargeDependsOnMessage(channel)) return false;
  if (channel === 'whatsapp') return true;
  return (UNBILLED_CARRIER_STATUSES as readonly string[]).includes(statusOfReason(reason));
}
