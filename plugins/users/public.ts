/** What other plugins may use from the users plugin: the type of its exported service (`users.preferences`). */
export type { PreferencesService } from './preferences.service.ts';
