import type { Db } from '../../core/db.ts';
import { payloadTooLarge, validationFailed } from '../../core/errors.ts';
import type { UserService } from '../auth/public.ts';
import type { MemberService } from '../workspaces/public.ts';
import type { DocumentFileHooks } from './hooks.ts';
import { checkRichText, plainText, type RichTextDoc } from './rich-text.ts';

/** A document or description's content as JSON, at most (API.md: documents ≤ 1 MB of JSON). */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;

/** Rich text that passed every check, with what writers keep beside it. */
export interface CheckedContent {
  doc: RichTextDoc;
  text: string;
  /** Users it mentions, each once. */
  mentions: string[];
}

export interface CheckOptions {
  /** JSON pointer of the content in the body (`/content`). */
  pointer: string;
  /** Bytes of JSON allowed (413 above); comments bound their text instead. */
  maxBytes?: number;
  /** Characters of plain text allowed (422 at `pointer` above). */
  maxText?: number;
}

/**
 * The one check of rich text in a write, for documents and comments: the node list, then (in the writing
 * transaction) that mentioned users are members of the workspace, held until commit so that a removal waits, and
 * that images name files the workspace holds (`documents.files`). Its plain text names mentioned users as `@name`.
 */
export class RichTextChecker {
  constructor(
    private readonly members: Pick<MemberService, 'holdAmong'>,
    private readonly users: UserService,
    private readonly files: DocumentFileHooks,
  ) {}

  async check(trx: Db, workspaceId: string, content: unknown, options: CheckOptions): Promise<CheckedContent> {
    const { pointer } = options;
    if (options.maxBytes !== undefined && Buffer.byteLength(JSON.stringify(content) ?? '') > options.maxBytes) {
      throw payloadTooLarge(`The content exceeds ${options.maxBytes} bytes of JSON.`);
    }
    const checked = checkRichText(content, pointer);
    if (checked.errors.length > 0) throw validationFailed(checked.errors);
    const doc = content as RichTextDoc;
    const errors = [];
    const members = await this.members.holdAmong(trx, workspaceId, checked.mentions);
    for (const id of checked.mentions) if (!members.has(id)) errors.push({ pointer: `${pointer}${mentionPointer(doc, id)}`, detail: `User ${id} is not a member of this workspace.` });
    if (checked.images.length > 0) {
      const known = (await this.files.known.promise({ trx, workspaceId, fileIds: checked.images.map((i) => i.fileId) })) ?? new Set<string>();
      for (const image of checked.images) if (!known.has(image.fileId)) errors.push({ pointer: image.pointer, detail: `File ${image.fileId} is not in this workspace.` });
    }
    if (errors.length > 0) throw validationFailed(errors);
    const names = await this.users.namesOf(checked.mentions, trx);
    const text = plainText(doc, (id) => names.get(id));
    if (options.maxText !== undefined && [...text].length > options.maxText) {
      throw validationFailed([{ pointer, detail: `The text is longer than ${options.maxText} characters.` }]);
    }
    return { doc, text, mentions: checked.mentions };
  }
}

/** Where a user is first mentioned in a valid document, relative to the document. */
function mentionPointer(doc: RichTextDoc, userId: string): string {
  const stack: Array<{ node: { type: string; attrs?: Record<string, unknown>; user_id?: unknown; content?: unknown[] }; pointer: string }> = doc.content.map((node, i) => ({ node, pointer: `/content/${i}` })).reverse();
  while (stack.length > 0) {
    const { node, pointer } = stack.pop()!;
    if (node.type === 'mention' && String(node.attrs?.user_id ?? node.user_id).toLowerCase() === userId) return node.attrs ? `${pointer}/attrs/user_id` : `${pointer}/user_id`;
    const content = (node.content ?? []) as Array<typeof node>;
    for (let i = content.length - 1; i >= 0; i -= 1) stack.push({ node: content[i], pointer: `${pointer}/content/${i}` });
  }
  return '';
}
