import { textFieldType } from './text-base.ts';

/** A line of text, at most 10,000 characters, kept as written (not trimmed). */
export const textType = textFieldType('text');
