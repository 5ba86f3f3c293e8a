import { textFieldType } from './text-base.ts';

/** Text of several paragraphs, at most 100,000 characters, kept as written. */
export const longTextType = textFieldType('long_text');
