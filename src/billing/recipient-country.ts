// The country a phone message goes to, the key of its price (src/billing/prices.ts): the ISO
// alpha-2 region of the E.164 number. Not personal on its own, so MessageAccepted keeps it in clear
// as `to_country`; messages accepted before that field existed get it from their opened `to`.
import { PHONE_CHANNELS, type Channel } from '../../commands/message.ts';
import { countryOfPhone } from '../contacts/validation.ts';

/** The recipient's country for a phone channel; undefined for email and push, or a number with no single region. */
export function recipientCountry(channel: Channel, to: string): string | undefined {
  if (!PHONE_CHANNELS.includes(channel)) return undefined;
  return countryOfPhone(to);
}

/** MessageAccepted's `to_country` field: present only when the country is known. */
export function toCountryField(channel: Channel, to: string): { to_country?: string } {
  const country = recipientCountry(channel, to);
  return country ? { to_country: country } : {};
}
