/** What other plugins may use from the views plugin: the types of its exported services (`views.service`, `views.publications`). */
export type { ViewService } from './views.service.ts';
export type { PublicationService, PublishedForm } from './publications.service.ts';
export type { View } from './schemas.ts';
