/** What other plugins may use from the spaces plugin: the type of its exported service (`spaces.service`). */
export type { SpaceService } from './spaces.service.ts';
export type { SpaceDeletion, SpaceLifecycle } from './hooks.ts';
