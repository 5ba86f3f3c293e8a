import { textFieldType } from './text-base.ts';

/** A phone number as people write it: digits, spaces and + - ( ) . only, at least one digit, at most 50 characters, trimmed. */
export const phoneType = textFieldType('phone');
