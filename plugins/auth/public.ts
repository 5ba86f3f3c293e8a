/** What other plugins may use from the auth plugin: its exported services, the sign-up hooks and the public user shape. */
export type { AccountChange, AccountRow, UserContact, UserService } from './users.service.ts';
export type { SessionService } from './sessions.service.ts';
export type { SignUpCheck, SignUpHooks } from './hooks.ts';
export { PublicUser } from './schemas.ts';
export { joinEnabledUser, userNameSortKey } from './user-sql.ts';
