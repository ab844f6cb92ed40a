// Tax ids on invoices, checked by format (and check digits) for the billing address's country with
// the `stdnum` validators: the VAT number in the EU (with or without its country prefix), and the
// VAT, GST or business number elsewhere. A country without a validator here accepts 1–40 characters
// of A–Z, 0–9, space, '.', '-' and '/'. No registry is asked whether the number exists.
import { stdnum } from 'stdnum';

interface Validator {
  validate(value: string): { isValid: boolean; compact?: string };
}

interface TaxIdRule {
  /** the kind of number (Stripe's names): eu_vat, gb_vat, us_ein, … */
  type: string;
  validator: Validator;
  /** what the number looks like, for the error message */
  format: string;
  /** EU VAT: the prefix the number carries in the VIES form (Greece: EL) */
  vatPrefix?: string;
}

const eu = (prefix: string, validator: Validator, format: string): TaxIdRule => ({ type: 'eu_vat', validator, format: `an EU VAT number: ${format}`, vatPrefix: prefix });
const s = stdnum as unknown as Record<string, Record<string, Validator>>;

// prettier-ignore
export const TAX_ID_RULES: Readonly<Record<string, TaxIdRule>> = {
  AT: eu('AT', s.AT.uid, 'ATU followed by 8 digits (e.g. ATU13585627)'),
  BE: eu('BE', s.BE.vat, 'BE followed by 10 digits (e.g. BE0403019261)'),
  BG: eu('BG', s.BG.vat, 'BG followed by 9 or 10 digits (e.g. BG175074752)'),
  CY: eu('CY', s.CY.vat, 'CY followed by 8 digits and a letter (e.g. CY10259033P)'),
  CZ: eu('CZ', s.CZ.dic, 'CZ followed by 8 to 10 digits (e.g. CZ25123891)'),
  DE: eu('DE', s.DE.vat, 'DE followed by 9 digits (e.g. DE136695976)'),
  DK: eu('DK', s.DK.cvr, 'DK followed by 8 digits (e.g. DK13585628)'),
  EE: eu('EE', s.EE.kmkr, 'EE followed by 9 digits (e.g. EE100594102)'),
  ES: eu('ES', s.ES.nif, 'ES followed by 9 characters, a letter or digit at each end (e.g. ESB58378431)'),
  FI: eu('FI', s.FI.alv, 'FI followed by 8 digits (e.g. FI20774740)'),
  FR: eu('FR', s.FR.tva, 'FR followed by 2 characters and the 9-digit SIREN (e.g. FR40303265045)'),
  GR: eu('EL', s.GR.vat, 'EL followed by 9 digits (e.g. EL094259216)'),
  HR: eu('HR', s.HR.oib, 'HR followed by 11 digits (e.g. HR33392005961)'),
  HU: eu('HU', s.HU.anum, 'HU followed by 8 digits (e.g. HU12892312)'),
  IE: eu('IE', s.IE.vat, 'IE followed by 7 digits and 1 or 2 letters (e.g. IE6433435F)'),
  IT: eu('IT', s.IT.iva, 'IT followed by 11 digits (e.g. IT00743110157)'),
  LT: eu('LT', s.LT.pvm, 'LT followed by 9 or 12 digits (e.g. LT119511515)'),
  LU: eu('LU', s.LU.tva, 'LU followed by 8 digits (e.g. LU15027442)'),
  LV: eu('LV', s.LV.pvn, 'LV followed by 11 digits (e.g. LV40003521600)'),
  MT: eu('MT', s.MT.vat, 'MT followed by 8 digits (e.g. MT11679112)'),
  NL: eu('NL', s.NL.btw, 'NL followed by 9 digits, B and 2 digits (e.g. NL004495445B01)'),
  PL: eu('PL', s.PL.nip, 'PL followed by 10 digits (e.g. PL8567346215)'),
  PT: eu('PT', s.PT.nif, 'PT followed by 9 digits (e.g. PT501964843)'),
  RO: eu('RO', s.RO.cif, 'RO followed by 2 to 10 digits (e.g. RO18547290)'),
  SE: eu('SE', s.SE.vat, 'SE followed by 12 digits ending in 01 (e.g. SE123456789701)'),
  SI: eu('SI', s.SI.ddv, 'SI followed by 8 digits (e.g. SI50223054)'),
  SK: eu('SK', s.SK.dph, 'SK followed by 10 digits (e.g. SK2022749619)'),
  GB: { type: 'gb_vat', validator: s.GB.vat, format: 'a UK VAT number: GB followed by 9 or 12 digits (e.g. GB980780684)' },
  CH: { type: 'ch_vat', validator: s.CH.vat, format: 'a Swiss VAT number: CHE-123.456.789 followed by MWST, TVA or IVA (e.g. CHE-107.787.577 MWST)' },
  NO: { type: 'no_vat', validator: s.NO.mva, format: 'a Norwegian VAT number: NO, 9 digits and MVA (e.g. NO995525828MVA)' },
  IS: { type: 'is_vat', validator: s.IS.vsk, format: 'an Icelandic VAT number: 5 or 6 digits' },
  AU: { type: 'au_abn', validator: s.AU.abn, format: 'an Australian Business Number: 11 digits (e.g. 83 914 571 673)' },
  NZ: { type: 'nz_gst', validator: s.NZ.ird, format: 'a New Zealand IRD/GST number: 8 or 9 digits (e.g. 49091850)' },
  CA: { type: 'ca_bn', validator: s.CA.bn, format: 'a Canadian business number: 9 digits, optionally with a program account such as RT0001 (e.g. 123026635RT0001)' },
  US: { type: 'us_ein', validator: s.US.ein, format: 'a US Employer Identification Number: NN-NNNNNNN (e.g. 12-3456789)' },
  IN: { type: 'in_gst', validator: s.IN.gstin, format: 'an Indian GSTIN: 15 characters (e.g. 27AAPFU0939F1ZV)' },
  JP: { type: 'jp_cn', validator: s.JP.cn, format: 'a Japanese corporate number: 13 digits (e.g. 5835678256246)' },
  KR: { type: 'kr_brn', validator: s.KR.brn, format: 'a Korean business registration number: NNN-NN-NNNNN (e.g. 116-82-00276)' },
  SG: { type: 'sg_uen', validator: s.SG.uen, format: 'a Singapore UEN: 9 or 10 characters (e.g. 197401143C)' },
  BR: { type: 'br_cnpj', validator: s.BR.cnpj, format: 'a Brazilian CNPJ: 14 digits (e.g. 16.727.230/0001-97)' },
  MX: { type: 'mx_rfc', validator: s.MX.rfc, format: 'a Mexican RFC: 12 or 13 characters (e.g. MAB9307148T4)' },
  ZA: { type: 'za_vat', validator: s.ZA.vat, format: 'a South African VAT number: 10 digits starting with 4 (e.g. 4999999999)' },
  TR: { type: 'tr_tin', validator: s.TR.vkn, format: 'a Turkish tax number (VKN): 10 digits (e.g. 4540536920)' },
};

const OTHER_TAX_ID = /^[A-Z0-9 .\-/]{1,40}$/;

export type TaxIdCheck = { ok: true; tax_id: { type: string; value: string } } | { ok: false; message: string };

/** Checks a tax id for the billing address's country; answers its compact form, or what was expected. */
export function checkTaxId(country: string, value: string): TaxIdCheck {
  const given = value.trim().toUpperCase();
  const rule = TAX_ID_RULES[country];
  if (!rule) {
    return OTHER_TAX_ID.test(given) ? { ok: true, tax_id: { type: 'tax_id', value: given } } : { ok: false, message: 'must be 1–40 characters of A–Z, 0–9, space, ".", "-" or "/"' };
  }
  let result: { isValid: boolean; compact?: string };
  try {
    result = rule.validator.validate(given);
  } catch {
    result = { isValid: false };
  }
  if (!result.isValid || !result.compact) return { ok: false, message: `must be ${rule.format} for an address in ${country}` };
  // the EU VAT number is shown in its VIES form, with the country prefix (stdnum's compact drops it)
  const compact = rule.vatPrefix && !result.compact.startsWith(rule.vatPrefix) ? `${rule.vatPrefix}${result.compact}` : result.compact;
  return { ok: true, tax_id: { type: rule.type, value: compact } };
}
