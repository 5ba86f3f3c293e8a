/**
 * Rich text as clients send it: a TipTap/ProseMirror JSON document. The node and mark names accepted, and the
 * checks on them, are in this file's validator; other plugins (comments) validate through it.
 */
export interface RichTextNode {
  type: string;
  attrs?: Record<string, unknown>;
  marks?: Array<{ type: string; attrs?: Record<string, unknown> }>;
  text?: string;
  content?: RichTextNode[];
}

export interface RichTextDoc {
  type: 'doc';
  content: RichTextNode[];
}
