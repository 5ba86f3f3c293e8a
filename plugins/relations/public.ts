/** What other plugins may use from the relations plugin: the type of its exported service (`relations.service`). */
export type { RelationService } from './relations.service.ts';
