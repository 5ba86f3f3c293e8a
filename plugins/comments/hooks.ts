import type { Db } from '../../core/db.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { AsyncSeriesHook } from '../../core/hooks.ts';
import type { WriteOrigin } from '../records/public.ts';
import type { Comment } from './schemas.ts';

/** A comment created, edited or deleted, in the writing transaction. */
export interface CommentChanged {
  trx: Db;
  kind: 'created' | 'updated' | 'deleted';
  workspaceId: string;
  databaseId: string;
  recordId: string;
  actor: UserPrincipal;
  origin: WriteOrigin;
  /** The comment as it is now; for `deleted`, as it was. */
  comment: Comment;
  /** For `updated`: the comment before the edit. */
  before?: Comment;
}

/**
 * `comments.changes`: every comment written or deleted, told to the plugins built on comments (mentions,
 * notifications, activity) inside the writing transaction.
 */
export function createCommentHooks() {
  return {
    changed: new AsyncSeriesHook<[CommentChanged]>(['changed']),
  };
}

export type CommentHooks = Readonly<ReturnType<typeof createCommentHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'comments.changes': CommentHooks;
  }
}
