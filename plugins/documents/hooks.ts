import type { Db } from '../../core/db.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { AsyncSeriesBailHook, AsyncSeriesHook } from '../../core/hooks.ts';
import type { WriteOrigin } from '../records/public.ts';
import type { RichTextDoc } from './rich-text.ts';

/** A record's description written (PUT R/{id}/description, or cloned by a duplicate), in the writing transaction. */
export interface DescriptionWritten {
  trx: Db;
  workspaceId: string;
  databaseId: string;
  recordId: string;
  actor: UserPrincipal;
  origin: WriteOrigin;
  /** The version after the write. */
  version: number;
  before: RichTextDoc | null;
  after: RichTextDoc;
  beforeText: string;
  afterText: string;
  /** Users the new content mentions, each once. */
  mentions: string[];
}

/** A standalone document's content written (PUT …/documents/{id}/content), in the writing transaction. */
export interface DocumentContentWritten {
  trx: Db;
  workspaceId: string;
  documentId: string;
  spaceId: string;
  folderId: string | null;
  title: string;
  actor: UserPrincipal;
  version: number;
  content: RichTextDoc;
  text: string;
  /** Users the new content mentions, each once. */
  mentions: string[];
}

/** A standalone document deleted, in the deleting transaction. */
export interface DocumentDeleted {
  trx: Db;
  workspaceId: string;
  documentId: string;
  actor: UserPrincipal;
}

/**
 * `documents.writes`: what the documents plugin tells the plugins built on it (mentions, activity) about rich text
 * written, inside the writing transaction: a tap's rows commit with the write, and a tap that throws undoes it.
 */
export function createDocumentHooks() {
  return {
    descriptionWritten: new AsyncSeriesHook<[DescriptionWritten]>(['written']),
    contentWritten: new AsyncSeriesHook<[DocumentContentWritten]>(['written']),
    documentDeleted: new AsyncSeriesHook<[DocumentDeleted]>(['deleted']),
  };
}

export type DocumentHooks = Readonly<ReturnType<typeof createDocumentHooks>>;

/** Files named by images in rich text being written, asked in the writing transaction. */
export interface FilesAsked {
  trx: Db;
  workspaceId: string;
  fileIds: string[];
}

/**
 * `documents.files`: which files of a workspace images may show. The plugin that keeps files (none yet) answers with
 * those of `fileIds` it holds in the workspace; with no tap no file is known, so every image is refused (422).
 */
export function createDocumentFileHooks() {
  return {
    known: new AsyncSeriesBailHook<[FilesAsked], Set<string> | undefined>(['asked']),
  };
}

export type DocumentFileHooks = Readonly<ReturnType<typeof createDocumentFileHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'documents.writes': DocumentHooks;
    'documents.files': DocumentFileHooks;
  }
}
