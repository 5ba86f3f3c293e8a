import { randomInt } from 'node:crypto';
import { BASE_62_DIGITS, generateKeyBetween } from 'fractional-indexing';
import { RecordErrors } from './errors.ts';

/**
 * Random digits appended to every key. Two writers that read the same neighbours (two creates
 * after the same last record, two moves into the same gap) compute the same key; the suffix
 * sets them apart (61 × 62³ ≈ 14.6 million endings). Its last digit is never '0': a key whose
 * fractional part ends in '0' is refused by fractional-indexing.
 */
const SUFFIX_LENGTH = 4;

function suffix(): string {
  let out = '';
  for (let i = 0; i < SUFFIX_LENGTH - 1; i++) out += BASE_62_DIGITS[randomInt(BASE_62_DIGITS.length)];
  return out + BASE_62_DIGITS[1 + randomInt(BASE_62_DIGITS.length - 1)];
}

/**
 * A position strictly between `before` and `after` (null: an open end), compared as bytes like
 * the `position` column. Equal neighbours leave no room: 409, the caller may try again.
 */
export function positionBetween(before: string | null, after: string | null): string {
  if (before !== null && after !== null && before >= after) {
    throw RecordErrors.position_clash();
  }
  let key = generateKeyBetween(before, after);
  // A key that is a prefix of `after` (the library may return one) would pass `after` once
  // extended; a key between it and `after` is longer and eventually no prefix.
  while (after !== null && after.startsWith(key)) key = generateKeyBetween(key, after);
  return key + suffix();
}

/** `n` ascending positions after `before` (null: none), each its own random key. */
export function positionsAfter(before: string | null, n: number): string[] {
  const out: string[] = [];
  let last = before;
  for (let i = 0; i < n; i++) out.push((last = positionBetween(last, null)));
  return out;
}
