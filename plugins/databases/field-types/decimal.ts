/**
 * Decimal arithmetic on strings, so that rounding behaves as a person reading the digits expects
 * (1.005 rounds to 1.01) and matches PostgreSQL's numeric `round`, which rounds half away from zero.
 */

interface Parts {
  negative: boolean;
  /** All digits, no leading zeros except a lone 0. */
  digits: string;
  /** How many of `digits` are after the decimal point. */
  scale: number;
}

function partsOf(plain: string): Parts {
  const negative = plain.startsWith('-');
  const unsigned = plain.replace(/^[+-]/, '');
  const [int, frac = ''] = unsigned.split('.');
  const digits = `${int}${frac}`.replace(/^0+(?=\d)/, '') || '0';
  return { negative, digits, scale: frac.length };
}

function render({ negative, digits, scale }: Parts): string {
  const padded = digits.padStart(scale + 1, '0');
  const int = padded.slice(0, padded.length - scale).replace(/^0+(?=\d)/, '');
  const frac = padded.slice(padded.length - scale);
  const body = scale > 0 ? `${int}.${frac}` : int;
  return negative && /[1-9]/.test(body) ? `-${body}` : body;
}

/** A finite number as a plain decimal string (no exponent): 1e-7 → "0.0000001". */
export function toPlainDecimal(x: number): string {
  const text = String(x);
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign, int, frac = '', exp] = match;
  const scale = frac.length - Number(exp);
  const digits = `${int}${frac}`;
  if (scale <= 0) return `${sign}${digits}${'0'.repeat(-scale)}`;
  return render({ negative: sign === '-', digits, scale });
}

/** Rounds a plain decimal string to `places` decimals, half away from zero; always `places` decimals. */
export function roundDecimal(plain: string, places: number): string {
  const p = partsOf(plain);
  if (p.scale <= places) return render({ ...p, digits: p.digits + '0'.repeat(places - p.scale), scale: places });
  // Leading zeros back, so that the digit after the cut exists even for 0.011.
  const all = p.digits.padStart(p.scale + 1, '0');
  const cut = p.scale - places;
  const kept = all.slice(0, all.length - cut);
  const next = all[all.length - cut];
  const digits = next >= '5' ? (BigInt(kept) + 1n).toString() : kept;
  return render({ negative: p.negative, digits, scale: places });
}

/** Moves the decimal point: shiftDecimal("0.125", 2) → "12.5". */
export function shiftDecimal(plain: string, places: number): string {
  const p = partsOf(plain);
  const scale = p.scale - places;
  if (scale >= 0) return render({ ...p, scale });
  return render({ ...p, digits: p.digits + '0'.repeat(-scale), scale: 0 });
}
