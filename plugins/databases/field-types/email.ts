import { textFieldType } from './text-base.ts';

/** An email address (name@domain.tld, no spaces), at most 254 characters, trimmed; case kept. */
export const emailType = textFieldType('email');
