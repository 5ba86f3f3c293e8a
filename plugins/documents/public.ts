/**
 * What other plugins may use from the documents plugin: the rich-text validator and its helpers, the checker of a
 * write's rich text (`documents.richText`), the documents service's type, and its hook sets.
 */
export { checkRichText, imagesOf, mentionsOf, plainText, MAX_RICH_TEXT_DEPTH, MAX_RICH_TEXT_NODES } from './rich-text.ts';
export { richTextSchema } from './rich-text.doc.ts';
export type { RichTextCheck, RichTextDoc, RichTextNode } from './rich-text.ts';
export type { CheckedContent, CheckOptions, RichTextChecker } from './content-check.ts';
export type { DocumentService } from './documents.service.ts';
export type { DescriptionWritten, DocumentContentWritten, DocumentDeleted, DocumentHooks, DocumentFileHooks, FilesAsked } from './hooks.ts';
export { FORMER_MEMBER } from './former-member.ts';
