import { invalidField, limitExceeded } from '../../core/errors.ts';
import { safeFileName } from '../../core/streamed-uploads.ts';
import { Type, type Static } from '../../core/schema.ts';
import { Ref, type PackHooks, type PackResource } from '../packs/public.ts';
import type { FileService } from './files.service.ts';
import type { FileUses } from './uses.service.ts';

/** An image in a pack: its name and bytes (its type is judged from them again at install). */
export const FileResource = Type.Object(
  {
    ref: Ref,
    name: Type.String({ minLength: 1, maxLength: 255 }),
    data: Type.String({ pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$', description: 'The bytes, base64.' }),
  },
  { additionalProperties: false },
);
type FileResource = Static<typeof FileResource>;

interface Deps {
  files: () => FileService;
  uses: () => FileUses;
  /** `files.maxBytes`: an image in a pack is held to the upload cap. */
  maxBytes: number;
  /** `files.packMaxBytes`: all the images of one export together. */
  packMaxBytes: number;
}

/**
 * The files plugin's part in packs: kind `file`, the images that the pack's documents (in its spaces) and sample
 * records' descriptions show, bytes included. Exported and installed before documents and descriptions, which name
 * them by ref in `image { attrs: { file_id } }`. A file made by an install is a part of what shows it in the pack:
 * kept while one of those is kept, and gone once the last of them is deleted (uninstalled or not); one the pack's
 * content does not show stands alone.
 */
export function tapPacks(hooks: PackHooks, deps: Deps): void {
  hooks.kinds.tap('files', (kinds) => [...kinds, { kind: 'file', plugin: 'files', after: ['space', 'database', 'record'], schema: FileResource, part: true }]);

  hooks.export.for('file').tapPromise('files', async (resources, { trx, workspaceId, refs }) => {
    const files = await deps.files().liveRows(trx, workspaceId, await deps.uses().shownIn(trx, refs.ids('space'), refs.ids('record')));
    const out: PackResource[] = [...resources];
    let total = 0;
    for (const file of files) {
      total += Number(file.size);
      if (total > deps.packMaxBytes) {
        throw limitExceeded(`The images the pack's documents show weigh more than ${deps.packMaxBytes} bytes (files.packMaxBytes): leave some documents out, or raise the option.`, {
          limit: 'files.packMaxBytes',
        });
      }
      const bytes = await deps.files().bytesOf(file);
      out.push({ ref: refs.ref('file', file.id), name: file.name, data: bytes.toString('base64') });
    }
    return out;
  });

  hooks.install.for('file').tapPromise('files', async (req) => {
    const resource = req.resource as FileResource;
    if (safeFileName(resource.name) !== resource.name) throw invalidField('/name', 'Not a safe file name (no directories, control characters or leading dots).');
    const bytes = Buffer.from(resource.data, 'base64');
    if (bytes.length > deps.maxBytes) throw invalidField('/data', `The image is ${bytes.length} bytes; files.maxBytes is ${deps.maxBytes}.`);
    const made = await deps.files().createFromBytes(req.trx, req.actor, req.workspaceId, resource.name, bytes);
    if ('problem' in made) throw invalidField('/data', made.problem);
    return { id: made.id, action: 'create', containers: showing(req.pack.resources, resource.ref) };
  });

  hooks.stamp.for('file').tapPromise('files', async (_stamp, { db, workspaceId, id }) => ((await deps.files().isLive(db, workspaceId, id)) ? 'live' : null));

  // Asked only of a file no resource of the install shows (the others go with their documents): unless something
  // shows it since, it goes.
  hooks.remove.for('file').tapPromise('files', async ({ trx, id }) => {
    if ((await deps.uses().used(trx, [id])).size > 0) return undefined;
    await deps.files().erase(trx, [id]);
    return true;
  });
}

/** The documents and descriptions of `resources` whose content shows the file `ref`: what it is a part of. */
function showing(resources: Record<string, PackResource[]>, ref: string): Array<{ kind: string; ref: string }> {
  const shows = (content: unknown): boolean => {
    if (!content || typeof content !== 'object') return false;
    const node = content as { type?: unknown; attrs?: { file_id?: unknown }; content?: unknown };
    if (node.type === 'image' && node.attrs?.file_id === ref) return true;
    return Array.isArray(node.content) && node.content.some(shows);
  };
  return ['document', 'record_description'].flatMap((kind) => (resources[kind] ?? []).filter((r) => shows(r.content)).map((r) => ({ kind, ref: r.ref })));
}
