import { STATUSES } from './properties.ts';

/**
 * Values as the databases field types accept them through the API (their `fromApi`), so no row of a feed is refused
 * for one odd property: what a type would refuse becomes null (an empty cell) or is cut to the type's length.
 */

/** text and long_text: at most this many code points. */
export const TEXT_MAX = 10_000;
export const LONG_TEXT_MAX = 100_000;

/** The same patterns as the email and url field types (`text-rules.ts` of the databases plugin). */
const EMAIL = /^[^ \t\n\r@]+@[^ \t\n\r@]+\.[^ \t\n\r@]+$/;
const URL_RULE = /^(http|https):\/\/[^ \t\n\r/?#]+([/?#][^ \t\n\r]*)?$/i;

export function textCell(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  // NUL is refused by every text type; it has no business in a calendar anyway.
  let text = value.replaceAll('\u0000', '');
  if (text.length > max) text = Array.from(text).slice(0, max).join('');
  return text === '' ? null : text;
}

/** ORGANIZER is a URI, in practice `mailto:ada@example.com`: the address, or null for anything else. */
export function emailCell(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const address = value.trim().replace(/^mailto:/i, '');
  return address.length <= 254 && EMAIL.test(address) ? address : null;
}

export function urlCell(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const url = value.trim();
  return url.length <= 2048 && URL_RULE.test(url) ? url : null;
}

/** The single_select's label (the API takes a choice by label); a status outside the three is no choice. */
export function statusCell(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const status = value.trim().toUpperCase();
  return (STATUSES as readonly string[]).includes(status) ? status : null;
}

/** ISO 8601 UTC with milliseconds (`2025-03-13T09:00:00.000Z`); null for years the datetime type does not take. */
export function instantCell(ms: number | null): string | null {
  if (ms === null || !Number.isFinite(ms)) return null;
  const year = new Date(ms).getUTCFullYear();
  return year >= 1 && year <= 9999 ? new Date(ms).toISOString() : null;
}
