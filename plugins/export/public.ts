/** What other plugins may use from the export plugin: the `export.workspace` hook set they tap to add to workspace exports, and the CSV service's type. */
export type { WorkspaceExportContext, WorkspaceExportEntry, WorkspaceExportHooks } from './hooks.ts';
export type { CsvExports, CsvFile } from './csv.service.ts';
