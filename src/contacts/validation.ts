// Standard contact field validation and normalisation (README "API conventions": contacts).
import { type CountryCode, getCountries, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { z } from 'zod';

// ISO 3166-1 alpha-2: every region with a calling code, plus the few uninhabited ones without
const COUNTRIES = new Set<string>([...getCountries(), 'AQ', 'BV', 'HM', 'PN', 'TF', 'UM', 'GS']);

export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * E.164 or null when the number is not a valid phone number. `defaultCountry` (ISO alpha-2) is the
 * country of a number written without its +country prefix (the CSV import's row or default country).
 */
export function normalisePhone(input: string, defaultCountry?: string): string | null {
  const parsed = parsePhoneNumberFromString(input.trim(), defaultCountry as CountryCode | undefined);
  return parsed && parsed.isValid() ? parsed.number : null;
}

/** The ISO country of an E.164 number, if its numbering plan names one (sender rules, prices). */
export function countryOfPhone(e164: string): string | undefined {
  return parsePhoneNumberFromString(e164)?.country ?? undefined;
}

/** True for an ISO 3166-1 alpha-2 code (upper case) that CountrySchema accepts. */
export const isCountryCode = (code: string) => COUNTRIES.has(code);

const text = (max: number) => z.string().trim().max(max);

export const EmailSchema = z.string().trim().toLowerCase().max(254).pipe(z.email({ message: 'must be a valid email address' }));

export const PhoneSchema = z
  .string()
  .max(32)
  .transform((v, ctx) => {
    const n = normalisePhone(v);
    if (!n) {
      ctx.addIssue({ code: 'custom', message: 'must be a valid phone number in E.164 form, e.g. +14155550123' });
      return z.NEVER;
    }
    return n;
  });

export const CountrySchema = z
  .string()
  .trim()
  .toUpperCase()
  .refine((c) => COUNTRIES.has(c), 'must be an ISO 3166-1 alpha-2 country code');

export const LanguageSchema = z
  .string()
  .trim()
  .max(35)
  .transform((v, ctx) => {
    try {
      const [canonical] = Intl.getCanonicalLocales(v);
      if (canonical) return canonical;
    } catch {
      /* fall through */
    }
    ctx.addIssue({ code: 'custom', message: 'must be a BCP 47 language tag, e.g. en or pt-BR' });
    return z.NEVER;
  });

export const TimezoneSchema = z.string().trim().max(64).refine(isTimeZone, 'must be an IANA time zone, e.g. Europe/Paris');

export const TagsSchema = z
  .array(z.string().trim().min(1).max(100))
  .max(100)
  .transform((tags) => [...new Set(tags)]);

const nullable = <T extends z.ZodType>(s: T) => s.nullable().optional();

export const contactFieldShape = {
  email: nullable(EmailSchema),
  phone: nullable(PhoneSchema),
  first_name: nullable(text(200)),
  last_name: nullable(text(200)),
  country: nullable(CountrySchema),
  language: nullable(LanguageSchema),
  timezone: nullable(TimezoneSchema),
  external_id: nullable(text(255)),
  tags: TagsSchema.optional(),
  custom_fields: z.record(z.string().max(64), z.unknown()).optional(),
};

export const ContactCreateBody = z
  .strictObject(contactFieldShape)
  .refine((b) => b.email || b.phone || b.external_id, { message: 'a contact needs at least one of email, phone or external_id', path: ['email'] });

export const ContactPatchBody = z.strictObject(contactFieldShape);
