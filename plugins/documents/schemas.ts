import { Type, type Static } from '../../core/schema.ts';
import { pageQuery } from '../../core/pagination.ts';
import { richTextSchema } from './rich-text.doc.ts';

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description });
const RichText = richTextSchema('Rich text: a TipTap/ProseMirror `doc` (see the `RichText` schema for every node and mark).');

export const WorkspaceParams = Type.Object({ ws: Uuid('Workspace id') });
export const RecordParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id'), id: Uuid('Record id') });
export const DocumentParams = Type.Object({ ws: Uuid('Workspace id'), id: Uuid('Document id') });

export const Description = Type.Object({
  record_id: Uuid(),
  content: Type.Union([RichText, Type.Null()], { description: 'Null until first written.' }),
  version: Type.Integer({ minimum: 0, description: '0: never written; each write adds one.' }),
  updated_at: Nullable(Type.String({ format: 'date-time' }), 'Null until first written.'),
  updated_by: Nullable(Uuid(), 'Who wrote last; null until first written, or once their account is gone.'),
});
export type Description = Static<typeof Description>;

/** A write of rich text: the content and the version it was based on. */
export const PutContentBody = Type.Object(
  {
    content: RichText,
    version: Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'The version the writer read (0 when never written).' }),
  },
  { additionalProperties: false },
);
export type PutContentBody = Static<typeof PutContentBody>;

export const Document = Type.Object({
  id: Uuid(),
  workspace_id: Uuid(),
  space_id: Uuid(),
  folder_id: Nullable(Uuid(), 'Null at the top of the space.'),
  title: Type.String(),
  version: Type.Integer({ minimum: 0, description: "The content's version: 0 until first written." }),
  created_at: Type.String({ format: 'date-time' }),
  created_by: Nullable(Uuid(), 'Null once their account is gone or erased.'),
  updated_at: Type.String({ format: 'date-time' }),
  updated_by: Nullable(Uuid(), 'Who changed the title, folder or content last.'),
});
export type Document = Static<typeof Document>;

export const DocumentContent = Type.Object({
  document_id: Uuid(),
  content: Type.Union([RichText, Type.Null()], { description: 'Null until first written.' }),
  version: Type.Integer({ minimum: 0 }),
  updated_at: Type.String({ format: 'date-time' }),
  updated_by: Nullable(Uuid(), 'Who changed the document last.'),
});
export type DocumentContent = Static<typeof DocumentContent>;

const Title = Type.String({ minLength: 1, maxLength: 500, pattern: '\\S', description: 'Not blank.' });

export const CreateDocumentBody = Type.Object(
  {
    title: Title,
    space_id: Uuid('A space of the workspace where the caller is a creator'),
    folder_id: Type.Optional(Nullable(Uuid(), 'A folder of that space; null or absent: the top of the space.')),
  },
  { additionalProperties: false },
);
export type CreateDocumentBody = Static<typeof CreateDocumentBody>;

export const PatchDocumentBody = Type.Object(
  {
    title: Type.Optional(Title),
    folder_id: Type.Optional(Nullable(Uuid(), "A folder of the document's space; null: the top of the space.")),
  },
  { additionalProperties: false },
);
export type PatchDocumentBody = Static<typeof PatchDocumentBody>;

export const DocumentListQuery = Type.Composite([pageQuery(), Type.Object({ space_id: Type.Optional(Uuid('Only the documents of this space')) })]);
export type DocumentListQuery = Static<typeof DocumentListQuery>;
