// Money inside billing is integer micros (1e-6 of the currency unit); rates are decimal strings.
// Arithmetic on them is exact (BigInt), and every rounding is half-even to the micro, so that a
// rebuild computes the very same figures. Outside, amounts are decimal strings ("12.50", "0.0079").

const MICROS = 1_000_000n;

/** A decimal string as an integer and its scale ("0.9234" → 9234n, 4). */
function parseDecimal(value: string): { digits: bigint; scale: number } {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value);
  if (!m) throw new Error(`not a decimal number: ${value}`);
  const fraction = m[3] ?? '';
  const digits = BigInt(`${m[2]}${fraction}`);
  return { digits: m[1] ? -digits : digits, scale: fraction.length };
}

/** numerator / denominator rounded half to even (denominator > 0). */
function divideHalfEven(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n;
  const n = negative ? -numerator : numerator;
  let q = n / denominator;
  const twice = (n % denominator) * 2n;
  if (twice > denominator || (twice === denominator && q % 2n === 1n)) q += 1n;
  return negative ? -q : q;
}

/** micros × rate, rounded half-even to the micro. */
export function multiplyMicros(micros: number, rate: string): number {
  const { digits, scale } = parseDecimal(rate);
  return Number(divideHalfEven(BigInt(micros) * digits, 10n ** BigInt(scale)));
}

/** a / b as a decimal string of at most `places` decimals (half-even), trailing zeros trimmed. */
export function divideRates(a: string, b: string, places = 10): string {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  // a/b = (x.digits / 10^x.scale) / (y.digits / 10^y.scale); scaled by 10^places
  const scaled = divideHalfEven(x.digits * 10n ** BigInt(y.scale + places), y.digits * 10n ** BigInt(x.scale));
  return trimDecimal(scaled, places, 0);
}

/** An integer scaled by 10^places as a decimal string with at least `minPlaces` decimals. */
function trimDecimal(scaled: bigint, places: number, minPlaces: number): string {
  const negative = scaled < 0n;
  const abs = (negative ? -scaled : scaled).toString().padStart(places + 1, '0');
  const whole = abs.slice(0, abs.length - places);
  let fraction = abs.slice(abs.length - places).replace(/0+$/, '');
  if (fraction.length < minPlaces) fraction = fraction.padEnd(minPlaces, '0');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Micros as the API shows money: at least 2 decimals, no trailing zeros beyond ("12.50", "0.0079", "-3.00"). */
export function formatMoney(micros: number | bigint | string): string {
  return trimDecimal(BigInt(micros), 6, 2);
}

/** A positive amount written with at most 6 decimals ("25", "12.5", "0.000001") as micros; undefined if it is not one. */
export function parseAmount(value: string): number | undefined {
  const m = /^(\d{1,12})(?:\.(\d{1,6}))?$/.exec(value.trim());
  if (!m) return undefined;
  const micros = BigInt(m[1]) * MICROS + BigInt((m[2] ?? '').padEnd(6, '0'));
  return micros > 0n ? Number(micros) : undefined;
}

/** A decimal string ("0.0079") as micros, exactly (the price and plan tables are written in units). */
export function microsOf(value: string): number {
  const { digits, scale } = parseDecimal(value);
  if (scale > 6) throw new Error(`more precise than a micro: ${value}`);
  return Number(digits * 10n ** BigInt(6 - scale));
}
