// The sender-requirements dataset behind GET /v1/sender/rules and POST /v1/sender/validate: per
// country, which sender types carriers accept and which need registration before traffic flows.
//
// Source and status: compiled from public carrier and messaging-provider guidance (CTIA / The
// Campaign Registry for US 10DLC and toll-free verification, TRAI DLT for India, SGNIC's SMS Sender
// ID Registry for Singapore, ACMA's SMS Sender ID Register for Australia, and the country pages that
// large CPaaS providers publish). It is GUIDANCE, not legal advice: carriers change their rules
// often, so notes stay general and callers should confirm with their provider before launching.
// Short codes are leased from carriers or a national registry everywhere, so they always count as
// "registration required". Lead times are typical, in days, for the slowest registration listed.

/** How a sender appears to the recipient. */
export const SENDER_TYPES = ['alphanumeric', 'long_code', 'short_code', 'toll_free'] as const;
export type SenderType = (typeof SENDER_TYPES)[number];

export interface CountrySenderRules {
  /** ISO 3166-1 alpha-2 */
  country: string;
  name: string;
  /** whether carriers deliver alphanumeric sender IDs at all (registered or not) */
  alphanumeric_allowed: boolean;
  /** sender types that must be registered or approved before use */
  registration_required: SenderType[];
  /** typical days from application to approval for the registrations listed; null when none */
  lead_time_days: number | null;
  notes: string;
}

type Row = Omit<CountrySenderRules, 'country'>;
const SC: SenderType[] = ['short_code'];

const DATA: Record<string, Row> = {
  US: {
    name: 'United States',
    alphanumeric_allowed: false,
    registration_required: ['long_code', 'short_code', 'toll_free'],
    lead_time_days: 14,
    notes:
      'Application-to-person SMS on 10-digit long codes needs 10DLC brand and campaign registration (The Campaign Registry); toll-free numbers need toll-free verification; short codes need carrier approval and take several weeks (often 8-12). Alphanumeric sender IDs are not supported.',
  },
  CA: {
    name: 'Canada',
    alphanumeric_allowed: false,
    registration_required: ['short_code', 'toll_free'],
    lead_time_days: 14,
    notes: 'Alphanumeric sender IDs are not supported. Toll-free numbers need verification; short codes are approved through the national short code program and take several weeks.',
  },
  MX: { name: 'Mexico', alphanumeric_allowed: false, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are generally not supported; carriers may replace the sender with a numeric one.' },
  BR: { name: 'Brazil', alphanumeric_allowed: false, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are not supported; traffic is usually delivered from carrier short codes.' },
  AR: { name: 'Argentina', alphanumeric_allowed: false, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are not supported; the sender may be replaced by a numeric one.' },
  CL: { name: 'Chile', alphanumeric_allowed: false, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are not supported; the sender may be replaced by a numeric one.' },
  CO: { name: 'Colombia', alphanumeric_allowed: false, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are not supported; marketing traffic is commonly sent from short codes.' },
  GB: {
    name: 'United Kingdom',
    alphanumeric_allowed: true,
    registration_required: SC,
    lead_time_days: 30,
    notes: 'Alphanumeric sender IDs are supported without registration. Recipients cannot reply to them; use a long code for two-way traffic. A voluntary sender ID protection registry exists for brands.',
  },
  IE: { name: 'Ireland', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are supported. Carriers have been introducing sender ID protection; check current guidance.' },
  DE: { name: 'Germany', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are supported without registration.' },
  FR: { name: 'France', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are supported. Marketing messages are subject to quiet-hour and opt-out rules.' },
  ES: { name: 'Spain', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are supported. A national sender ID registry has been announced; check current guidance.' },
  IT: { name: 'Italy', alphanumeric_allowed: true, registration_required: ['alphanumeric', 'short_code'], lead_time_days: 14, notes: 'Alphanumeric sender IDs are expected to be registered with the national registry; unregistered ones may be blocked.' },
  PT: { name: 'Portugal', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are supported without registration.' },
  NL: { name: 'Netherlands', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are supported without registration.' },
  BE: { name: 'Belgium', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are supported; some carriers filter generic or misleading IDs.' },
  AT: { name: 'Austria', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are supported without registration.' },
  CH: { name: 'Switzerland', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are supported without registration.' },
  SE: { name: 'Sweden', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are supported without registration.' },
  NO: { name: 'Norway', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are supported; sender ID protection schemes are being introduced.' },
  DK: { name: 'Denmark', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are supported without registration.' },
  FI: { name: 'Finland', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are supported; carriers filter IDs that impersonate brands.' },
  PL: { name: 'Poland', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are supported without registration.' },
  TR: { name: 'Turkey', alphanumeric_allowed: true, registration_required: ['alphanumeric', 'short_code'], lead_time_days: 14, notes: 'Alphanumeric sender IDs must be registered; commercial messages require recipients to be in the national consent system (IYS).' },
  RU: { name: 'Russia', alphanumeric_allowed: true, registration_required: ['alphanumeric', 'short_code'], lead_time_days: 14, notes: 'Alphanumeric sender IDs must be registered per carrier; unregistered traffic is replaced or blocked.' },
  IN: {
    name: 'India',
    alphanumeric_allowed: true,
    registration_required: ['alphanumeric', 'long_code', 'short_code'],
    lead_time_days: 7,
    notes: 'All commercial SMS needs DLT registration (TRAI): the entity, the sender ID (header) and each message template. Six-character headers are the norm; international long codes are generally not delivered.',
  },
  CN: { name: 'China', alphanumeric_allowed: false, registration_required: ['long_code', 'short_code'], lead_time_days: 30, notes: 'Alphanumeric sender IDs are not supported. Senders need a registered signature and pre-approved templates; marketing content is tightly restricted.' },
  JP: { name: 'Japan', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are delivered on some carriers only; domestic numbers are the most reliable.' },
  KR: { name: 'South Korea', alphanumeric_allowed: false, registration_required: ['long_code', 'short_code'], lead_time_days: 14, notes: 'Alphanumeric sender IDs are not supported; numeric senders must be pre-registered.' },
  HK: { name: 'Hong Kong', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 14, notes: 'Alphanumeric sender IDs are supported. A sender registration scheme marks registered senders; check whether your industry is expected to join.' },
  SG: { name: 'Singapore', alphanumeric_allowed: true, registration_required: ['alphanumeric', 'short_code'], lead_time_days: 14, notes: 'Alphanumeric sender IDs must be registered with the SMS Sender ID Registry; unregistered ones are shown as likely scams or blocked.' },
  MY: { name: 'Malaysia', alphanumeric_allowed: false, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are not supported; the sender may be replaced by a numeric one.' },
  TH: { name: 'Thailand', alphanumeric_allowed: true, registration_required: ['alphanumeric', 'short_code'], lead_time_days: 14, notes: 'Alphanumeric sender IDs must be registered before use.' },
  ID: { name: 'Indonesia', alphanumeric_allowed: true, registration_required: ['alphanumeric', 'short_code'], lead_time_days: 14, notes: 'Alphanumeric sender IDs must be pre-registered; unregistered traffic may be replaced or blocked.' },
  PH: { name: 'Philippines', alphanumeric_allowed: true, registration_required: ['alphanumeric', 'short_code'], lead_time_days: 14, notes: 'Alphanumeric sender IDs must be pre-registered with carriers.' },
  VN: { name: 'Vietnam', alphanumeric_allowed: true, registration_required: ['alphanumeric', 'short_code'], lead_time_days: 30, notes: 'Alphanumeric sender IDs (brand names) must be registered per carrier; registration can take weeks.' },
  AU: { name: 'Australia', alphanumeric_allowed: true, registration_required: ['alphanumeric', 'short_code'], lead_time_days: 14, notes: 'Alphanumeric sender IDs are to be registered on the national SMS Sender ID Register; unregistered ones may be labelled or blocked.' },
  NZ: { name: 'New Zealand', alphanumeric_allowed: false, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are not supported; use a long code or a short code.' },
  AE: { name: 'United Arab Emirates', alphanumeric_allowed: true, registration_required: ['alphanumeric', 'short_code'], lead_time_days: 14, notes: 'Alphanumeric sender IDs must be registered; promotional traffic has extra rules and time windows.' },
  SA: { name: 'Saudi Arabia', alphanumeric_allowed: true, registration_required: ['alphanumeric', 'short_code'], lead_time_days: 14, notes: 'Alphanumeric sender IDs must be registered with supporting business documents.' },
  QA: { name: 'Qatar', alphanumeric_allowed: true, registration_required: ['alphanumeric', 'short_code'], lead_time_days: 14, notes: 'Alphanumeric sender IDs must be registered.' },
  EG: { name: 'Egypt', alphanumeric_allowed: true, registration_required: ['alphanumeric', 'short_code'], lead_time_days: 14, notes: 'Alphanumeric sender IDs must be registered.' },
  IL: { name: 'Israel', alphanumeric_allowed: true, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are supported; marketing messages need prior consent.' },
  ZA: { name: 'South Africa', alphanumeric_allowed: false, registration_required: SC, lead_time_days: 30, notes: 'Alphanumeric sender IDs are generally not supported; the sender may be replaced by a numeric one.' },
  NG: { name: 'Nigeria', alphanumeric_allowed: true, registration_required: ['alphanumeric', 'short_code'], lead_time_days: 14, notes: 'Alphanumeric sender IDs must be registered; unregistered ones may be replaced or blocked.' },
  KE: { name: 'Kenya', alphanumeric_allowed: true, registration_required: ['alphanumeric', 'short_code'], lead_time_days: 14, notes: 'Alphanumeric sender IDs must be registered with the carriers.' },
};

export const SENDER_RULES: ReadonlyMap<string, CountrySenderRules> = new Map(
  Object.entries(DATA).map(([country, row]) => [country, { country, ...row }]),
);

/** Every country code the dataset knows, sorted. */
export const KNOWN_COUNTRIES: readonly string[] = [...SENDER_RULES.keys()].sort();
