import type { Db } from '../../core/db.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { AsyncSeriesHook } from '../../core/hooks.ts';

/** Where a mention was written. */
export interface MentionSource {
  type: 'comment' | 'description' | 'document';
  /** The comment's id, the record's id (descriptions) or the document's id. */
  id: string;
  recordId: string | null;
  databaseId: string | null;
  documentId: string | null;
  /** What a notification names: the record's title or the document's title. */
  title: string;
}

/**
 * Mentions recorded for the first time for their source, in the writing transaction, already narrowed to members
 * who can see the source (and never the writer themself).
 */
export interface MentionsRecorded {
  trx: Db;
  workspaceId: string;
  actor: UserPrincipal;
  source: MentionSource;
  /** One per newly mentioned user: the stored mention's id and who it names. */
  mentions: Array<{ id: string; userId: string }>;
  /** The plain text of the source, for mail. */
  text: string;
}

/** `mentions.recorded`: new mentions, for the plugins that tell people (notifications). */
export function createMentionHooks() {
  return {
    recorded: new AsyncSeriesHook<[MentionsRecorded]>(['recorded']),
  };
}

export type MentionHooks = Readonly<ReturnType<typeof createMentionHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'mentions.recorded': MentionHooks;
  }
}
