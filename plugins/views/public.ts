/** What other plugins may use from the views plugin: the type of its exported service (`views.service`). */
export type { ViewService } from './views.service.ts';
