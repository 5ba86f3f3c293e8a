import { AsyncSeriesWaterfallHook } from '../../core/hooks.ts';
import type { ZipEntryData } from '../../core/zip-writer.ts';

/**
 * Something a plugin adds to a workspace export, at `path` inside the zip (segments are made safe and paths unique by
 * the writer): a blob's bytes, content at hand, or content read only when the entry is written (`open`), so that a
 * plugin with many entries holds none of them in memory while the others are written.
 */
export type WorkspaceExportEntry =
  | { path: string; blobKey: string; compress?: boolean }
  | { path: string; content: string | Buffer }
  | { path: string; open: () => Promise<ZipEntryData> };

export interface WorkspaceExportContext {
  workspaceId: string;
  /** The admin who asked for the export. */
  requestedBy: string | null;
}

/**
 * `export.workspace`: `contribute` is a waterfall each plugin owning data of a workspace taps (declaring
 * `optionalDependsOn: { export }`) to append its entries: documents, attachments. The export plugin writes the
 * databases itself (a CSV and a schema JSON each) and the manifest.
 */
export function createWorkspaceExportHooks() {
  return {
    contribute: new AsyncSeriesWaterfallHook<[WorkspaceExportEntry[], WorkspaceExportContext]>(['entries', 'context']),
  };
}

export type WorkspaceExportHooks = Readonly<ReturnType<typeof createWorkspaceExportHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'export.workspace': WorkspaceExportHooks;
  }
}
