/** What other plugins may use from the tokens plugin: its hook set (token creation checks). */
export type { TokenCreation, TokenHooks } from './hooks.ts';
export type { TokenService } from './tokens.service.ts';
