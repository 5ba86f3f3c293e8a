import { Type, type Static } from '../../core/schema.ts';

export const CommentAuthor = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String({ description: 'The author\'s current name; "Former member" once their account is erased.' }),
});

export const Comment = Type.Object({
  id: Type.String({ format: 'uuid' }),
  record_id: Type.String({ format: 'uuid' }),
  author: Type.Union([CommentAuthor, Type.Null()]),
  content: Type.Unknown({ description: 'Rich text (a TipTap/ProseMirror `doc`).' }),
  text: Type.String({ description: 'The plain-text form of `content`.' }),
  mentions: Type.Array(Type.String({ format: 'uuid' }), { description: 'Users the comment mentions, each once.' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  edited: Type.Boolean({ description: 'Whether the author edited it after posting.' }),
});
export type Comment = Static<typeof Comment>;
