import type { Db } from '../../core/db.ts';
import { AppError } from '../../core/errors.ts';
import { Type, type Static } from '../../core/schema.ts';
import { Ref, stampMadeNow, uniqueName, type PackHooks, type PackResource } from '../packs/public.ts';
import type { UserService } from '../auth/public.ts';
import type { DescriptionService } from './descriptions.service.ts';
import type { DocumentService } from './documents.service.ts';
import { mentionsOf, type RichTextDoc, type RichTextNode } from './rich-text.ts';

const Content = Type.Unknown({
  description: 'Rich text; checked as a write of it would be. An image names a `file` resource of the pack by its ref (an image whose file is not in the pack → 422).',
});

/** A standalone document in a pack: its space and folder by ref, its title and content. */
export const DocumentResource = Type.Object(
  {
    ref: Ref,
    space: Ref,
    folder: Type.Optional(Type.Union([Ref, Type.Null()])),
    title: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' }),
    content: Type.Optional(Content),
  },
  { additionalProperties: false },
);
type DocumentResource = Static<typeof DocumentResource>;

/** A sample record's description: travels with the record. */
export const DescriptionResource = Type.Object({ ref: Ref, database: Ref, record: Ref, content: Content }, { additionalProperties: false });
type DescriptionResource = Static<typeof DescriptionResource>;

interface Deps {
  documents: () => DocumentService;
  descriptions: () => DescriptionService;
  users: () => UserService;
}

/**
 * The documents plugin's part in packs: `document` (standalone, in its space) and `record_description` (with the
 * sample records it describes, when they travel). People do not travel: a mention is written out as `@name` text.
 * Images travel when the plugin keeping files exports them (kind `file`, before these): an image names its file by
 * ref in the pack, and the file made at install by id again; one whose file is not in the pack is refused at install.
 */
export function tapPacks(hooks: PackHooks, deps: Deps): void {
  hooks.kinds.tap('documents', (kinds) => [
    ...kinds,
    { kind: 'document', plugin: 'documents', after: ['space', 'folder', 'file'], schema: DocumentResource, part: false },
    { kind: 'record_description', plugin: 'documents', after: ['database', 'record', 'file'], schema: DescriptionResource, part: true },
  ]);

  hooks.export.for('document').tapPromise('documents', async (resources, { trx, refs }) => {
    const spaceIds = refs.ids('space');
    if (spaceIds.length === 0) return resources;
    const rows = (await trx('documents').whereIn('space_id', spaceIds).orderBy(['created_at', 'id']).select('id', 'space_id', 'folder_id', 'title', 'content')) as Array<{
      id: string;
      space_id: string;
      folder_id: string | null;
      title: string;
      content: RichTextDoc | null;
    }>;
    const portable = await withoutPeople(deps.users(), trx, rows.flatMap((r) => (r.content ? [r.content] : [])));
    const out: PackResource[] = [...resources];
    for (const row of rows) {
      const folder = row.folder_id ? (refs.find('folder', row.folder_id) ?? null) : null;
      const content = row.content && withImages(portable(row.content), (id) => refs.find('file', id.toLowerCase()));
      out.push({ ref: refs.ref('document', row.id), space: refs.find('space', row.space_id)!, folder, title: row.title, ...(content ? { content } : {}) });
    }
    return out;
  });

  hooks.export.for('record_description').tapPromise('documents', async (resources, { trx, refs }) => {
    const recordIds = new Set(refs.ids('record'));
    if (recordIds.size === 0) return resources;
    const rows = (await trx('document_descriptions').whereIn('database_id', refs.ids('database')).select('database_id', 'record_id', 'content')) as Array<{
      database_id: string;
      record_id: string;
      content: RichTextDoc;
    }>;
    const byRecord = new Map(rows.filter((r) => recordIds.has(r.record_id)).map((r) => [r.record_id, r]));
    const portable = await withoutPeople(deps.users(), trx, [...byRecord.values()].map((r) => r.content));
    const out: PackResource[] = [...resources];
    // In the records' own order, so that exporting the same content twice gives the same pack.
    for (const id of recordIds) {
      const row = byRecord.get(id);
      if (row) {
        const content = withImages(portable(row.content), (fileId) => refs.find('file', fileId.toLowerCase()));
        out.push({ ref: refs.ref('record_description', id), database: refs.find('database', row.database_id)!, record: refs.find('record', id)!, content });
      }
    }
    return out;
  });

  hooks.install.for('document').tapPromise('documents', async (req) => {
    const resource = req.resource as DocumentResource;
    const spaceId = req.refs.id('space', resource.space, '/space');
    const folderId = resource.folder ? req.refs.id('folder', resource.folder, '/folder') : null;
    const titles = (await req.trx('documents').where({ space_id: spaceId }).pluck('title')) as string[];
    const body = { title: uniqueName(resource.title.trim(), titles, 500), space_id: spaceId, ...(folderId ? { folder_id: folderId } : {}) };
    const document = await deps.documents().create(req.actor, req.grant, body, req.trx);
    if (resource.content !== undefined && resource.content !== null) {
      const content = withImages(resource.content, (ref) => req.refs.find('file', ref));
      await deps.documents().putContent(req.actor, req.workspaceId, document.id, { content, version: 0 }, req.trx);
    }
    await stampMadeNow(req.trx, 'documents', document.id);
    return { id: document.id, action: 'create', containers: [{ kind: 'space', ref: resource.space }, ...(resource.folder ? [{ kind: 'folder', ref: resource.folder }] : [])] };
  });

  hooks.install.for('record_description').tapPromise('documents', async (req) => {
    const resource = req.resource as DescriptionResource;
    const databaseId = req.refs.id('database', resource.database, '/database');
    const recordId = req.refs.id('record', resource.record, '/record');
    const content = withImages(resource.content, (ref) => req.refs.find('file', ref));
    await deps.descriptions().put(req.actor, req.workspaceId, databaseId, recordId, { content, version: 0 }, req.trx);
    return { id: recordId, action: 'create', containers: [{ kind: 'record', ref: resource.record }] };
  });

  hooks.stamp.for('document').tapPromise('documents', async (_stamp, { db, workspaceId, id }) => {
    const row = await db('documents').where({ id, workspace_id: workspaceId }).first('title', 'folder_id', 'version', 'updated_at');
    return row ? `${row.title}|${row.folder_id}|${row.version}|${row.updated_at.toISOString()}` : null;
  });
  hooks.stamp.for('record_description').tapPromise('documents', async (_stamp, { db, workspaceId, id }) => {
    const row = await db('document_descriptions').where({ record_id: id, workspace_id: workspaceId }).first('version', 'updated_at');
    return row ? `${row.version}|${row.updated_at.toISOString()}` : null;
  });

  hooks.remove.for('document').tapPromise('documents', async ({ trx, actor, workspaceId, id }) => {
    try {
      await deps.documents().delete(actor, workspaceId, id, trx);
    } catch (err) {
      if (!(err instanceof AppError && err.status === 404)) throw err;
    }
    return true;
  });
}

/** A function writing each mention of `docs` out as `@name` text, names asked of `auth.users` once for all. */
async function withoutPeople(users: UserService, trx: Db, docs: RichTextDoc[]): Promise<(doc: RichTextDoc) => RichTextDoc> {
  const names = await users.namesOf(docs.flatMap((d) => mentionsOf(d)), trx);
  // Content was validated when written: its depth is bounded, so recursion is safe here.
  const portable = (node: RichTextNode): RichTextNode => {
    if (node.type === 'mention') {
      const id = String(node.attrs?.user_id ?? (node as { user_id?: unknown }).user_id).toLowerCase();
      return { type: 'text', text: `@${names.get(id) ?? 'member'}` };
    }
    return node.content ? { ...node, content: node.content.map(portable) } : node;
  };
  return (doc) => ({ ...doc, content: doc.content.map(portable) });
}

/**
 * `content` with each image's `file_id` replaced by what `to` answers for it (a ref at export, an id at install); one
 * it has no answer for stays, to be refused as a write of it would be. Content from a pack is not checked yet: only
 * what has the shape is touched; its depth is bounded by the request guard.
 */
function withImages<T>(content: T, to: (fileId: string) => string | undefined): T {
  const walk = (node: unknown): unknown => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
    const n = node as RichTextNode;
    if (n.type === 'image' && n.attrs && typeof n.attrs.file_id === 'string') {
      const mapped = to(n.attrs.file_id);
      return mapped ? { ...n, attrs: { ...n.attrs, file_id: mapped } } : n;
    }
    return Array.isArray(n.content) ? { ...n, content: n.content.map(walk) } : n;
  };
  return walk(content) as T;
}
