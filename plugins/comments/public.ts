/** What other plugins may use from the comments plugin: the comment's shape and its hook set. */
export { Comment, CommentAuthor } from './schemas.ts';
export type { CommentChanged, CommentHooks } from './hooks.ts';
