import { TEXT_RULES, type TextRule } from '../databases/public.ts';

/**
 * Values a source kind hands over, made to fit the field types' own rules (`TEXT_RULES` of the databases plugin), so no
 * row of a provider is refused for one odd value: what a type would refuse becomes null (an empty cell), text longer
 * than its type takes is cut.
 */

/** text and long_text: at most this many characters. */
export const TEXT_MAX = TEXT_RULES.text.max;
export const LONG_TEXT_MAX = TEXT_RULES.long_text.max;

const patternOf = (rule: TextRule) => new RegExp(rule.pattern!.source, rule.pattern!.ignoreCase ? 'i' : '');
const EMAIL = patternOf(TEXT_RULES.email);
const URL_RULE = patternOf(TEXT_RULES.url);

/** A text or long_text cell (`max`: `TEXT_MAX` or `LONG_TEXT_MAX`): NUL, which every text type refuses, dropped; empty is null. */
export function textCell(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  let text = value.replaceAll('\u0000', '');
  if (text.length > max) text = Array.from(text).slice(0, max).join('');
  return text === '' ? null : text;
}

/** An email cell, trimmed; null for what the email type would refuse. */
export function emailCell(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const address = value.trim();
  return address.length <= TEXT_RULES.email.max && EMAIL.test(address) ? address : null;
}

/** A url cell (http or https), trimmed; null for what the url type would refuse. */
export function urlCell(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const url = value.trim();
  return url.length <= TEXT_RULES.url.max && URL_RULE.test(url) ? url : null;
}

/** A datetime cell: ISO 8601 UTC with milliseconds (`2025-03-13T09:00:00.000Z`); null for years the type does not take. */
export function instantCell(ms: number | null): string | null {
  if (ms === null || !Number.isFinite(ms)) return null;
  const year = new Date(ms).getUTCFullYear();
  return year >= 1 && year <= 9999 ? new Date(ms).toISOString() : null;
}
