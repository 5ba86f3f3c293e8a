import { textFieldType } from './text-base.ts';

/** An http:// or https:// URL with a host, at most 2,048 characters, trimmed. */
export const urlType = textFieldType('url');
