/** What providers' `verifyWebhook` read deliveries with, written once for all of them. */
import type { IncomingHttpHeaders } from 'node:http';
import type { Refusal } from './hooks.ts';

/** A header's value as one string (a repeated header joined as HTTP joins it), or undefined when it was not sent. */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A delivery refused with the sentence saying why (answered 401). */
export const refusal = (refused: string): Refusal => ({ refused });

const WORD = /^[a-z][a-z0-9_]*$/;

/** A provider's name for something as one word of an event name: lower case, anything outside `[a-z0-9_]` made `_`; null when no word is left. */
export function eventWord(raw: string): string | null {
  const word = raw.trim().toLowerCase().replace(/[^a-z0-9_]/g, '_');
  return WORD.test(word) ? word : null;
}
