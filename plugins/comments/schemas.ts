import { Type, type Static } from '../../core/schema.ts';
import { pageQuery } from '../../core/pagination.ts';
import { FORMER_MEMBER, richTextSchema } from '../documents/public.ts';

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });

export const CommentAuthor = Type.Object({
  id: Type.Union([Uuid(), Type.Null()], { description: 'Null once their account is erased.' }),
  name: Type.String({ description: `The author's current name; "${FORMER_MEMBER}" once their account is erased.` }),
});

export const Comment = Type.Object({
  id: Uuid(),
  record_id: Uuid(),
  author: CommentAuthor,
  content: richTextSchema('Rich text (a TipTap/ProseMirror `doc`).'),
  text: Type.String({ description: 'The plain-text form of `content`.' }),
  mentions: Type.Array(Uuid(), { description: 'Users the comment mentions, each once.' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  edited: Type.Boolean({ description: 'Whether the author edited it after posting.' }),
});
export type Comment = Static<typeof Comment>;

export const RecordParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id'), id: Uuid('Record id') });
export const CommentParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id'), id: Uuid('Record id'), cid: Uuid('Comment id') });

export const CommentBody = Type.Object(
  { content: richTextSchema('Rich text, at most 10,000 characters of text; mention nodes name workspace members.') },
  { additionalProperties: false },
);
export type CommentBody = Static<typeof CommentBody>;

export const CommentListQuery = pageQuery();
