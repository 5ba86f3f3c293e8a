import { plainText, type RichTextDoc } from '../documents/public.ts';
import type { NamedEntry } from './search-index.ts';

interface SpaceLike {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  updated_at: string;
}

interface DocumentLike {
  id: string;
  workspace_id: string;
  space_id: string;
  title: string;
}

/** A space's entry: its name and description, ordered by when it last changed. */
export function spaceEntry(space: SpaceLike): NamedEntry {
  return { id: space.id, type: 'space', workspaceId: space.workspace_id, spaceId: space.id, databaseId: null, title: space.name, body: space.description ?? '', version: Date.parse(space.updated_at) };
}

/** A document's entry: its title and plain text (a mention reads `@member`: no name), ordered by its content's version. */
export function documentEntry(document: DocumentLike, content: { content: unknown; version: number }): NamedEntry {
  const body = content.content ? plainText(content.content as RichTextDoc) : '';
  return { id: document.id, type: 'document', workspaceId: document.workspace_id, spaceId: document.space_id, databaseId: null, title: document.title, body, version: content.version };
}
