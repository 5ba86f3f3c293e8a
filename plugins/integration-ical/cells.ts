import { emailCell } from '../sources/public.ts';
import { STATUSES } from './properties.ts';

/** ORGANIZER is a URI, in practice `mailto:ada@example.com`: the address, or null for anything else. */
export function organizerCell(value: unknown): string | null {
  return typeof value === 'string' ? emailCell(value.trim().replace(/^mailto:/i, '')) : null;
}

/** The single_select's label (the API takes a choice by label); a status outside the three is no choice. */
export function statusCell(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const status = value.trim().toUpperCase();
  return (STATUSES as readonly string[]).includes(status) ? status : null;
}
