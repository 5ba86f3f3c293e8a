import type { RefField, RollupFunction } from './model.ts';

/**
 * Rollups as PostgreSQL computes them over the linked records' column: numbers as exact decimals
 * of the field's places (the column keeps what the API rounded to them), so that sums and
 * averages are the digits PostgreSQL prints, read as the API reads them (`Number`).
 */

/**
 * A number cell as an integer count of 10^-places, from the digits the API printed (`String`, the shortest form that
 * reads back as the same number): `value * 10 ** places` is a float, which past 2^53 is no longer the digits
 * PostgreSQL keeps (999999999999999 with two places would become …904).
 */
function scaledOf(value: number, places: number): bigint {
  const [mantissa, exponent = '0'] = String(value).split('e');
  const [int, fraction = ''] = mantissa.replace('-', '').split('.');
  const digits = BigInt(int + fraction);
  const power = places + Number(exponent) - fraction.length;
  const scaled = power >= 0 ? digits * 10n ** BigInt(power) : divideRounded(digits, 10n ** BigInt(-power));
  return value < 0 ? -scaled : scaled;
}

/** A numeric of `places` decimals as PostgreSQL prints it: exactly that many. */
function decimalText(scaled: bigint, places: number): string {
  const digits = (scaled < 0n ? -scaled : scaled).toString().padStart(places + 1, '0');
  const int = digits.slice(0, digits.length - places);
  const text = places > 0 ? `${int}.${digits.slice(digits.length - places)}` : int;
  return scaled < 0n ? `-${text}` : text;
}

/** `a / b` rounded half away from zero (b > 0). */
function divideRounded(a: bigint, b: bigint): bigint {
  const abs = a < 0n ? -a : a;
  const q = (2n * abs + b) / (2n * b);
  return a < 0n ? -q : q;
}

/** The weight of a numeric's first non-zero base-10000 digit, and that digit (PostgreSQL's NumericVar). */
function leadingDigit(scaled: bigint, places: number): { weight: number; digit: number } {
  if (scaled === 0n) return { weight: 0, digit: 0 };
  const fractionGroups = Math.ceil(places / 4);
  const all = (scaled < 0n ? -scaled : scaled) * 10n ** BigInt(fractionGroups * 4 - places);
  const groups = Math.ceil(all.toString().length / 4);
  return { weight: groups - 1 - fractionGroups, digit: Number(all / 10000n ** BigInt(groups - 1)) };
}

/**
 * avg(numeric) is sum / count with the scale numeric division chooses (`select_div_scale`): at
 * least 16 significant digits by an estimate of the quotient's weight, and no fewer decimals
 * than the sum has.
 */
function average(sum: bigint, places: number, count: number): number {
  const lead = leadingDigit(sum, places);
  const weight = lead.digit <= count ? lead.weight - 1 : lead.weight;
  const scale = Math.min(Math.max(16 - weight * 4, places, 0), 1000);
  const quotient = divideRounded(sum * 10n ** BigInt(scale), 10n ** BigInt(places) * BigInt(count));
  return Number(decimalText(quotient, scale));
}

/** A rollup other than `unique` over the non-empty cells read (in link order), as the API shows it. */
export function rollupOf(fn: RollupFunction, target: RefField, cells: Array<string | number>): string | number | null {
  if (fn === 'count') return cells.length;
  if (cells.length === 0) return null;
  const places = target.precision ?? 0;
  const sum = () => (cells as number[]).reduce((s, c) => s + scaledOf(c, places), 0n);
  switch (fn) {
    case 'sum': return Number(decimalText(sum(), places));
    case 'avg': return average(sum(), places, cells.length);
    case 'min': case 'earliest': return cells.reduce((a, b) => (b < a ? b : a));
    case 'max': case 'latest': return cells.reduce((a, b) => (b > a ? b : a));
    case 'concat': return cells.map((c) => textOf(target, c)).join(', ');
    default: throw new Error(`reference: rollup ${fn}`);
  }
}

/** A cell as converting its field to text would write it: a number's digits, an option's label. */
function textOf(target: RefField, cell: string | number): string {
  if (target.type === 'number') return decimalText(scaledOf(cell as number, target.precision ?? 0), target.precision ?? 0);
  if (target.type === 'single_select') return target.choices!.find((c) => c.id === cell)!.label;
  return String(cell);
}
