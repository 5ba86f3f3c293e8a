/** A plain decimal (as JSON writes a short number) rounded to `places` decimals, half away from zero. */
export function roundHalfAwayFromZero(decimal: string, places: number): number {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(decimal);
  if (!m) throw new Error(`reference: not a plain decimal: ${decimal}`);
  const [, sign, int, frac = ''] = m;
  const scaled = BigInt(`${int}${frac}`);
  const dropped = frac.length - places;
  let kept: bigint;
  if (dropped <= 0) kept = scaled * 10n ** BigInt(-dropped);
  else {
    const unit = 10n ** BigInt(dropped);
    kept = (scaled + unit / 2n) / unit;
  }
  // + 0 turns -0 into 0: the API never says "-0".
  return Number(`${sign}${kept}e-${places}`) + 0;
}
