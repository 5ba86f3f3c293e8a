import { Type, type Static } from '../../core/schema.ts';
import { pageOf, pageQuery } from '../../core/pagination.ts';

export const SearchOptions = Type.Object(
  {
    candidates: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 100_000, default: 2000, description: 'Matches ranked per search at most: a broad word ranks this many of its matches, not all of them.' }),
    ),
    minPrefix: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 3, description: 'The last word of `q` also matches as a prefix when it has at least this many characters.' })),
    rebuildPageSize: Type.Optional(Type.Integer({ minimum: 50, maximum: 10_000, default: 1000, description: 'Records read per statement while a database’s entries are rebuilt.' })),
  },
  { additionalProperties: false },
);
export type SearchOptions = Static<typeof SearchOptions>;

const Uuid = Type.String({ format: 'uuid' });
const TYPE = '(records|databases|spaces|documents)';

export const WorkspaceParams = Type.Object({ ws: Uuid });

export const SearchQuery = Type.Object(
  {
    q: Type.String({ minLength: 1, maxLength: 200, description: 'The words to find (1–200 characters): every word must match; the last one also as a prefix.' }),
    types: Type.Optional(
      Type.String({ pattern: `^${TYPE}(,${TYPE})*$`, maxLength: 64, description: 'Comma-separated among `records`, `databases`, `spaces`, `documents` (default: all).' }),
    ),
    ...pageQuery().properties,
  },
  { additionalProperties: false },
);
export type SearchQuery = Static<typeof SearchQuery>;

export const SearchHit = Type.Object({
  type: Type.Union([Type.Literal('record'), Type.Literal('database'), Type.Literal('space'), Type.Literal('document')]),
  id: Uuid,
  title: Type.String({ description: "A record's title field as text, or the name of the database, space or document." }),
  snippet: Type.String({ description: 'Plain text around the words found (the body, else the title); no markup.' }),
  database_id: Type.Union([Uuid, Type.Null()], { description: "A record's database, or the database itself; null for spaces and documents." }),
  space_id: Uuid,
  score: Type.Number({ description: 'Relevance (higher first): words in the title weigh more than in the body.' }),
});
export type SearchHit = Static<typeof SearchHit>;

export const SearchPage = pageOf(SearchHit);
