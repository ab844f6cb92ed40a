// Classifies a sender identity and checks it against a country's rules (src/senders/rules-data.ts):
// the verdict POST /v1/sender/validate answers and POST /v1/senders registers by. Pure.
import { z } from 'zod';
import { SENDER_RULES, type CountrySenderRules, type SenderType } from './rules-data.ts';

/** Channels a sender can be checked for: phone-number channels and email. */
export const SENDER_CHANNELS = ['sms', 'voice', 'whatsapp', 'email'] as const;
export type SenderChannel = (typeof SENDER_CHANNELS)[number];

export type ClassifiedType = SenderType | 'email';

export interface SenderIssue {
  code: string;
  message: string;
}

export interface SenderVerdict {
  valid: boolean;
  /** null when the sender matches no known format */
  type: ClassifiedType | null;
  registration_required: boolean;
  issues: SenderIssue[];
}

const E164 = /^\+[1-9]\d{6,14}$/;
const SHORT_CODE = /^\d{3,8}$/;
const ALPHANUMERIC = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;
// North American toll-free area codes: +1 8xx numbers carriers route and verify as toll-free
const NANP_TOLL_FREE = /^\+18(00|33|44|55|66|77|88)\d{7}$/;
const EMAIL = z.email();

/** The sender's format, whatever the channel. */
export function classifySender(sender: string): ClassifiedType | null {
  if (E164.test(sender)) return NANP_TOLL_FREE.test(sender) ? 'toll_free' : 'long_code';
  if (SHORT_CODE.test(sender)) return 'short_code';
  if (ALPHANUMERIC.test(sender)) return 'alphanumeric';
  if (EMAIL.safeParse(sender).success) return 'email';
  return null;
}

/** Which formats each channel can send from: voice caller ID and WhatsApp business numbers are phone numbers. */
const CHANNEL_TYPES: Record<SenderChannel, readonly ClassifiedType[]> = {
  sms: ['long_code', 'toll_free', 'short_code', 'alphanumeric'],
  voice: ['long_code', 'toll_free'],
  whatsapp: ['long_code', 'toll_free'],
  email: ['email'],
};

/**
 * Whether `sender` can send on `channel` in the country of `rules` (unused for email), and whether
 * it must be registered first. WhatsApp numbers always go through the platform's business review.
 */
export function checkSender(sender: string, channel: SenderChannel, rules: CountrySenderRules | undefined): SenderVerdict {
  const type = classifySender(sender);
  const issues: SenderIssue[] = [];
  if (type === null) {
    issues.push({
      code: 'unrecognised_format',
      message: 'not an E.164 number, a 3-8 digit short code, a 1-11 character alphanumeric ID (letters, digits, spaces, at least one letter) or an email address',
    });
    return { valid: false, type, registration_required: false, issues };
  }
  if (!CHANNEL_TYPES[channel].includes(type)) {
    issues.push({ code: 'channel_mismatch', message: `a ${type.replace('_', ' ')} sender cannot send on the ${channel} channel (allowed: ${CHANNEL_TYPES[channel].join(', ')})` });
  }
  if (type === 'email') return { valid: issues.length === 0, type, registration_required: false, issues };
  if (type === 'alphanumeric' && rules && !rules.alphanumeric_allowed) {
    issues.push({ code: 'alphanumeric_not_supported', message: `alphanumeric sender IDs are not supported in ${rules.country} (${rules.name})` });
  }
  const registration = channel === 'whatsapp' || (channel === 'sms' && rules !== undefined && rules.registration_required.includes(type));
  return { valid: issues.length === 0, type, registration_required: registration, issues };
}

/** The rules of a country code (any case), if the dataset has it. */
export const rulesFor = (country: string): CountrySenderRules | undefined => SENDER_RULES.get(country.toUpperCase());
