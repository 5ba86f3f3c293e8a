/** What plugins depending on this one may use: the type of its exported service, its hook set and its shapes. */
export type { GreetingService } from './greetings.service.ts';
export type { HelloHooks } from './hooks.ts';
export type { Greeting } from './schemas.ts';
export { HelloErrors } from './errors.ts';
export { GREETING } from './greetings.routes.ts';
