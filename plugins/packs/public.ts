/** What plugins taking part in packs use: the hook sets' types, the ref helpers and the pack's shapes. */
export type { PackHooks, PackKind, PackResource, ExportRequest, ExportScope, InstallRequest, InstallTarget, Installed, StampRequest, RemoveRequest, FinishRequest, PackProblem, Template, TemplateHooks } from './hooks.ts';
export type { ExportRefs, InstallRefs } from './refs.ts';
export { Ref, type Pack, PACK_FORMAT, PACK_FORMAT_VERSION } from './schemas.ts';
export { stampMadeNow, uniqueName } from './names.ts';
