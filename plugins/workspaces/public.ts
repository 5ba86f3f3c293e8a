/** What other plugins may use from the workspaces plugin: the types of its exported services, and its hold as SQL. */
export type { WorkspaceService, WorkspaceSummary } from './workspaces.service.ts';
export type { MemberService } from './members.service.ts';
export type { MemberChanged, MemberRemoved, WorkspaceDeleting, WorkspaceLifecycle } from './hooks.ts';
export { workspaceHoldSql } from './workspace-hold-sql.ts';
