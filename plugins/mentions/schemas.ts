import { Type, type Static } from '../../core/schema.ts';
import { pageQuery } from '../../core/pagination.ts';

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const NullableUuid = (description: string) => Type.Union([Uuid(), Type.Null()], { description });

export const WorkspaceParams = Type.Object({ ws: Uuid('Workspace id') });

export const Mention = Type.Object({
  id: Uuid(),
  source_type: Type.Unsafe<'comment' | 'description' | 'document'>({ type: 'string', enum: ['comment', 'description', 'document'] }),
  source_id: Uuid("The comment's id, the record's (a description) or the document's"),
  record_id: NullableUuid('The record commented on or described; null for a document'),
  database_id: NullableUuid("The record's database; null for a document"),
  document_id: NullableUuid('The document; null otherwise'),
  mentioned_by: Type.Object({
    id: NullableUuid('Null once their account is erased'),
    name: Type.String({ description: 'Their current name; "Former member" once erased.' }),
  }),
  created_at: Type.String({ format: 'date-time' }),
});
export type Mention = Static<typeof Mention>;

export const MentionListQuery = pageQuery();
